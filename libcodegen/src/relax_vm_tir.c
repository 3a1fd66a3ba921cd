/*
 * relax_vm_tir.c: exec_mode="compiled" (upstream's VMTIRCodeGen, codegen_vm_tir.cc): a Relax
 * function becomes the TIR PrimFunc
 *
 *   __vmtir__<name>(ctx: handle, r: handle, c: handle, f: handle)
 *
 * called by the VM (libvm vm.c, vmtir_closure_call) with the VM context, the function's
 * register file (arguments in registers 0..num_args-1, the result left in register num_args),
 * the constant pool and the function pool. It is made from the instructions VMCodeGen recorded
 * for the function, so both modes share every lowering decision:
 *
 *   - a Call stores its argument words (kind and value, as in the bytecode) into a stack array
 *     and calls tvm_vm_tir_call(ctx, r, fidx, dst, func, words, nargs) (libvm vmtir_abi.c), which
 *     calls the function table entry as the interpreter does; a failure returns from the
 *     PrimFunc (tir.tvm_throw_last_error: the error stays raised);
 *   - an If (VMCodeGen's pattern: If cond -> else; then...; Goto end; else...; end) becomes a
 *     TIR IfThenElse on tvm_vm_tir_cond(ctx, r, fidx, cond);
 *   - the Ret copies its register into register num_args (tvm_vm_tir_ret).
 *
 * The PrimFunc is compiled by LLVM with the kernels (marked tir.is_scheduled: the default
 * schedule leaves it alone), so the VM runs the function by one native call, without fetching
 * or dispatching instructions. Upstream passes the builtins' arguments through AnyList
 * intrinsics; the stack array of argument words keeps the calling code small and the VM's
 * argument rules in one place.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>
#include <tvm/vm/bytecode.h>

#include "relax_vm_tir.h"

typedef struct {
  const tvm_codegen__vm_rec* recs;
  const int64_t* words;
  int64_t fidx, num_args, n;
  tvm_tir_var_obj *ctx, *r;
  tvm_tir_buffer_obj* args; /* the stack array of argument words */
  bool unsupported;
} tir_ctx;

static void* throw_if(void* failed) {
  void* thr = tvm_tir_call_takev(TVM_TIR_INT32, "tir.tvm_throw_last_error", 0, NULL);
  return tvm_tir_if_take(failed, tvm_tir_evaluate_take(thr), NULL);
}

static void* call_stmt(tir_ctx* t, const tvm_codegen__vm_rec* rc) {
  void** st = tvm_ffi_calloc((size_t)rc->nargs + 1, sizeof(void*));
  if (!st) return NULL;
  for (int32_t i = 0; i < rc->nargs; ++i) {
    st[i] = tvm_tir_store_take(tvm_tir_ref(t->args), tvm_tir_i64(t->words[rc->args_at + i]),
                               tvm_tir_i64(i));
  }
  void* call = tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("tvm_vm_tir_call"),
                                 tvm_tir_ref(t->ctx), tvm_tir_ref(t->r), tvm_tir_i64(t->fidx),
                                 tvm_tir_i64(rc->dst), tvm_tir_i64(rc->func),
                                 tvm_tir_ref(t->args->data), tvm_tir_int(rc->nargs));
  st[rc->nargs] = throw_if(tvm_tir_ne_take(call, tvm_tir_int(0)));
  void* s = tvm_tir_seq_takev(rc->nargs + 1, st);
  tvm_ffi_free(st);
  return s;
}

/* Records [lo, hi) as one statement; *ret set when the region ends in the function's Ret. */
static void* region(tir_ctx* t, int64_t lo, int64_t hi, int depth) {
  int64_t cap = 16, n = 0;
  void** st = tvm_ffi_malloc((size_t)cap * sizeof(void*));
  if (!st) return NULL;
  bool ok = true;
  for (int64_t i = lo; ok && i < hi;) {
    const tvm_codegen__vm_rec* rc = &t->recs[i];
    void* s = NULL;
    if (rc->op == TVM_VM_OP_Call) {
      s = call_stmt(t, rc);
      ++i;
    } else if (rc->op == TVM_VM_OP_Ret && i == t->n - 1 && depth == 0) {
      s = tvm_tir_evaluate_take(tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern",
                                                  tvm_tir_str("tvm_vm_tir_ret"), tvm_tir_ref(t->r),
                                                  tvm_tir_i64(rc->dst), tvm_tir_i64(t->num_args)));
      ++i;
    } else if (rc->op == TVM_VM_OP_If && depth < 200) {
      int64_t els = rc->target, go = els - 1;
      const tvm_codegen__vm_rec* g = go > i && go < hi ? &t->recs[go] : NULL;
      if (!g || g->op != TVM_VM_OP_Goto || g->target < els || g->target > hi) {
        t->unsupported = true;
        ok = false;
        break;
      }
      void* then_s = region(t, i + 1, go, depth + 1);
      void* else_s = then_s ? region(t, els, g->target, depth + 1) : NULL;
      if (!else_s) {
        tvm_ffi_release(then_s);
        ok = false;
        break;
      }
      tvm_tir_var_obj* cv = tvm_tir_var("cond", TVM_TIR_INT32);
      void* cond = tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("tvm_vm_tir_cond"),
                                     tvm_tir_ref(t->ctx), tvm_tir_ref(t->r), tvm_tir_i64(t->fidx),
                                     tvm_tir_i64(rc->dst));
      void* body = tvm_tir_seq_take(throw_if(tvm_tir_lt_take(tvm_tir_ref(cv), tvm_tir_int(0))),
                                    tvm_tir_if_take(tvm_tir_ne_take(tvm_tir_ref(cv), tvm_tir_int(0)),
                                                    then_s, else_s));
      s = tvm_tir_let_stmt_take(cv, cond, body);
      i = g->target;
    } else {
      t->unsupported = true;
      ok = false;
      break;
    }
    if (!s) {
      ok = false;
      break;
    }
    if (n == cap) {
      void** ns = tvm_ffi_realloc(st, (size_t)(cap *= 2) * sizeof(void*));
      if (!ns) {
        tvm_ffi_release(s);
        ok = false;
        break;
      }
      st = ns;
    }
    st[n++] = s;
  }
  void* out = NULL;
  if (ok) {
    out = tvm_tir_seq_takev(n, st);
  } else {
    for (int64_t k = 0; k < n; ++k) tvm_ffi_release(st[k]);
  }
  tvm_ffi_free(st);
  return out;
}

tvm_tir_prim_func_obj* tvm_codegen__vm_tir_func(const char* name, int64_t fidx, int64_t num_args,
                                                const tvm_codegen__vm_rec* recs, int64_t n,
                                                const int64_t* words, bool* unsupported) {
  *unsupported = false;
  if (n == 0 || recs[n - 1].op != TVM_VM_OP_Ret) {
    *unsupported = true;
    return NULL;
  }
  int32_t max_args = 1;
  for (int64_t i = 0; i < n; ++i) {
    if (recs[i].op == TVM_VM_OP_Call && recs[i].nargs > max_args) max_args = recs[i].nargs;
  }
  tir_ctx t = {recs, words, fidx, num_args, n, NULL, NULL, NULL, false};
  t.ctx = tvm_tir_var("ctx", TVM_TIR_HANDLE);
  t.r = tvm_tir_var("r", TVM_TIR_HANDLE);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_HANDLE);
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_HANDLE);
  t.args = tvm_tir_buffer_decl_takev("vm_args", TVM_TIR_INT64, 1, (void* const[]){tvm_tir_i64(max_args)},
                                     "local");
  void* body = t.ctx && t.r && c && f && t.args ? region(&t, 0, n, 0) : NULL;
  tvm_tir_prim_func_obj* out = NULL;
  if (body) {
    body = tvm_tir_allocate_takev(tvm_tir_ref(t.args->data), TVM_TIR_INT64, 1,
                                  (void* const[]){tvm_tir_i64(max_args)}, body);
    char sym[512];
    snprintf(sym, sizeof(sym), "__vmtir__%s", name);
    void* params = tvm_tir_list_take(tvm_tir_ref(t.ctx), tvm_tir_ref(t.r), tvm_tir_ref(c), tvm_tir_ref(f));
    tvm_tir_prim_func_obj* fn = tvm_tir_func_take(sym, params, body);
    TVMFFIAny yes = tvm_ffi_any_bool(true);
    out = fn ? tvm_tir_prim_func_with_attr(fn, "tir.is_scheduled", &yes) : NULL;
    tvm_ffi_release(fn);
  }
  *unsupported = t.unsupported;
  tvm_ffi_release(t.ctx);
  tvm_ffi_release(t.r);
  tvm_ffi_release(c);
  tvm_ffi_release(f);
  tvm_ffi_release(t.args);
  return out;
}
