/*
 * vmtir_abi.c: the functions compiled VM functions (exec_mode="compiled", kind vm_tir) call.
 *
 * A compiled function `__vmtir__<name>(ctx, r, c, f)` (libcodegen relax_vm_tir.c) runs the
 * instructions VMCodeGen made for the function as straight-line native code: each Call becomes
 * one call of tvm_vm_tir_call with the instruction's argument words (kinds and values as in
 * the bytecode) in a stack array, each If a native branch on tvm_vm_tir_cond, the Ret
 * tvm_vm_tir_ret. No instruction is fetched or dispatched at run time; the callee is called as
 * the interpreter calls it (a packed function with the arguments, a VM function through
 * tvm_vm__invoke_index). ctx is the VM state (vmtir_closure_call in vm.c passes it), r the
 * function's register file.
 */
#include <string.h>

#include "internal.h"

static TVM_VM_COLD int call_context(tvm_vm_state* vm, int64_t caller, int64_t func) {
  const tvm_vm_executable* e = vm->exec;
  return tvm_ffi_raise_context("in compiled VM function `%s`, calling `%s`",
                               caller >= 0 && caller < e->num_funcs ? e->funcs[caller].name.data : "?",
                               func >= 0 && func < e->num_funcs ? e->funcs[func].name.data : "?");
}

/* The call through the VM's instrument (tvm_vm_set_instrument): before, the call unless
 * skipped, after; as the interpreter's call_instrumented does. */
static TVM_VM_COLD int call_instrumented(tvm_vm_state* vm, int64_t func, const TVMFFIAny* a,
                                         int32_t nargs, TVMFFIAny* res) {
  TVMFFIAny* pre = (TVMFFIAny*)tvm_ffi_malloc(((size_t)nargs + 4) * sizeof(TVMFFIAny));
  if (!pre) return -1;
  void* instrument = vm->instrument; /* it may replace itself while it runs */
  tvm_ffi_retain(instrument);
  const tvm_vm_func_info* f = &vm->exec->funcs[func];
  pre[0] = vm->func_pool[func];
  pre[1] = tvm_ffi_any_raw_str(f->name.data);
  pre[2] = tvm_ffi_any_bool(true);
  pre[3] = tvm_ffi_any_none();
  if (nargs) memcpy(pre + 4, a, (size_t)nargs * sizeof(TVMFFIAny));
  TVMFFIAny r;
  int rc = tvm_ffi_function_call(instrument, pre, nargs + 4, &r);
  bool skip = rc == 0 && r.type_index == kTVMFFIInt && r.v_int64 == TVM_VM_INSTRUMENT_SKIP_RUN;
  if (rc == 0) tvm_ffi_any_release(&r);
  if (rc == 0 && !skip) {
    rc = tvm_vm__invoke_index(vm, func, a, nargs, res);
    if (rc == 0 && (uint32_t)(res->type_index - kTVMFFIRawStr) <= 2) {
      TVMFFIAny view = *res;
      *res = tvm_ffi_any_none();
      rc = tvm_ffi_any_to_owned(&view, res);
    }
    if (rc == 0) {
      pre[2] = tvm_ffi_any_bool(false);
      pre[3] = *res;
      rc = tvm_ffi_function_call(instrument, pre, nargs + 4, &r);
      if (rc == 0) tvm_ffi_any_release(&r);
      if (rc != 0) tvm_ffi_any_release(res);
    }
  }
  tvm_ffi_release(instrument);
  tvm_ffi_free(pre);
  return rc;
}

int32_t tvm_vm_tir_call(void* ctx, TVMFFIAny* regs, int64_t caller, int64_t dst, int64_t func,
                        const int64_t* words, int32_t nargs) {
  tvm_vm_state* vm = (tvm_vm_state*)ctx;
  TVMFFIAny small[16] = {{0}};
  TVMFFIAny* a = nargs <= 16 ? small : (TVMFFIAny*)tvm_ffi_malloc((size_t)nargs * sizeof(TVMFFIAny));
  if (!a) return -1;
  for (int32_t i = 0; i < nargs; ++i) {
    int64_t v = tvm_vm_arg_value(words[i]);
    switch (tvm_vm_arg_kind_of(words[i])) {
      case TVM_VM_ARG_REGISTER:
        a[i] = v == TVM_VM_REG_VM ? vm->self_any : v == TVM_VM_REG_VOID ? tvm_ffi_any_none() : regs[v];
        break;
      case TVM_VM_ARG_IMMEDIATE: a[i] = tvm_ffi_any_int(v); break;
      case TVM_VM_ARG_CONST_IDX: a[i] = vm->consts[v]; break;
      default: a[i] = vm->func_pool[v]; break;
    }
  }
  TVMFFIAny res = tvm_ffi_any_none();
  int rc = TVM_VM_LIKELY(!vm->instrument) ? tvm_vm__invoke_index(vm, func, a, nargs, &res)
                                           : call_instrumented(vm, func, a, nargs, &res);
  if (a != small) tvm_ffi_free(a);
  if (rc == 0 && (uint32_t)(res.type_index - kTVMFFIRawStr) <= 2) {
    TVMFFIAny view = res;
    res = tvm_ffi_any_none();
    rc = tvm_ffi_any_to_owned(&view, &res);
  }
  if (rc != 0) return call_context(vm, caller, func);
  if (dst == TVM_VM_REG_VOID) {
    tvm_ffi_any_release(&res);
  } else {
    TVMFFIAny old = regs[dst];
    regs[dst] = res;
    tvm_ffi_any_release(&old);
  }
  return 0;
}

int32_t tvm_vm_tir_cond(void* ctx, const TVMFFIAny* regs, int64_t caller, int64_t reg) {
  const TVMFFIAny* c = &regs[reg];
  if (TVM_VM_LIKELY(c->type_index == kTVMFFIInt || c->type_index == kTVMFFIBool)) return c->v_int64 != 0;
  tvm_vm_state* vm = (tvm_vm_state*)ctx;
  tvm_ffi_raise("TypeError",
                "If: condition register %%%lld holds %s, expected an int or bool (in compiled VM "
                "function `%s`)",
                (long long)reg, tvm_ffi_any_type_name(c), vm->exec->funcs[caller].name.data);
  return -1;
}

int32_t tvm_vm_tir_ret(TVMFFIAny* regs, int64_t src, int64_t dst) {
  if (src == dst) return 0;
  TVMFFIAny v = tvm_ffi_any_copy(&regs[src]);
  TVMFFIAny old = regs[dst];
  regs[dst] = v;
  tvm_ffi_any_release(&old);
  return 0;
}

int32_t tvm_vm_tir_instrumented(void* ctx) { return ((tvm_vm_state*)ctx)->instrument != NULL; }

int32_t tvm_vm_tir_result(void* ctx, TVMFFIAny* regs, int64_t caller, int64_t dst, int64_t func,
                          int32_t rc, TVMFFIAny* res) {
  if (TVM_VM_UNLIKELY(rc != 0)) return call_context((tvm_vm_state*)ctx, caller, func);
  if (TVM_VM_UNLIKELY((uint32_t)(res->type_index - kTVMFFIRawStr) <= 2)) {
    TVMFFIAny view = *res;
    *res = tvm_ffi_any_none();
    if (tvm_ffi_any_to_owned(&view, res) != 0) return call_context((tvm_vm_state*)ctx, caller, func);
  }
  if (dst == TVM_VM_REG_VOID) {
    tvm_ffi_any_release(res);
  } else {
    TVMFFIAny old = regs[dst];
    regs[dst] = *res;
    if (old.type_index >= kTVMFFIStaticObjectBegin) tvm_ffi_any_release(&old);
  }
  return 0;
}
