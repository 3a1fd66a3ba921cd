/*
 * codegen_llvm_call.c: Call(dtype, GlobalVar, args): a call of another PrimFunc of the module
 * being compiled (or of the PrimFunc itself, recursively), with the interpreter's meaning
 * (libtir interp_call.c, spec E11):
 *
 *   - the callee is found by the GlobalVar's name in the module (a PrimFunc compiled alone can
 *     only call itself, by its global_symbol); a call_extern naming a PrimFunc of the module
 *     (a helper defined next to its caller) is the same call;
 *   - the call goes through the callee's packed entry __tvm_ffi_<symbol>, so the callee checks
 *     its arguments exactly as for an outside caller; arguments are TVMFFIAny values on the
 *     caller's stack: an integer is Int, a bool Bool, a float Float (widened to double), a handle
 *     OpaquePtr; a buffer parameter of the callee receives a handle (its data) as a DLTensor*
 *     of the buffer's constant shape and dtype, compact, on the CPU;
 *   - an error raised by the callee returns -1 from the caller (its heap allocations released);
 *   - the value is the callee's tir.ret value converted to the call's dtype; a call whose dtype
 *     is not void and whose callee returned nothing raises a RuntimeError.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* A TVMFFIAny is { int32 type_index; uint32 zero_padding; 8-byte payload }. */
static void store_any(cg_state* s, LLVMValueRef slot, int32_t tindex, LLVMValueRef payload) {
  LLVMValueRef off4 = tvm_codegen__const_i64(s, 4), off8 = tvm_codegen__const_i64(s, 8);
  LLVMBuildStore(s->b, tvm_codegen__const_i32(s, tindex), slot);
  LLVMBuildStore(s->b, tvm_codegen__const_i32(s, 0), LLVMBuildGEP2(s->b, s->i8, slot, &off4, 1, ""));
  LLVMBuildStore(s->b, payload ? payload : tvm_codegen__const_i64(s, 0),
                 LLVMBuildGEP2(s->b, s->i8, slot, &off8, 1, ""));
}

/* The callee's buffer for parameter p, or NULL (a scalar parameter). */
static const tvm_tir_buffer_obj* param_buffer(const tvm_tir_prim_func_obj* f, const void* p) {
  TVMFFIAny key = tvm_ffi_any_obj(p);
  const TVMFFIAny* b = tvm_ffi_map_get(f->buffer_map, &key);
  return b ? (const tvm_tir_buffer_obj*)b->v_obj : NULL;
}

/* A DLTensor on the stack for buffer b at address data (a handle): the compact tensor of b's
 * constant shape, as the interpreter binds a handle passed for a buffer parameter. */
static LLVMValueRef handle_tensor(cg_state* s, const tvm_tir_buffer_obj* b, LLVMValueRef data,
                                  const char* callee) {
  int64_t ndim = tvm_tir_buffer_ndim(b);
  LLVMValueRef dims[64];
  if (ndim > 64) {
    tvm_codegen__fail(s, "NotImplementedError", "call to %s: buffer %s of more than 64 dimensions",
                      callee, tvm_tir_buffer_name(b));
    return NULL;
  }
  for (int64_t d = 0; d < ndim; ++d) {
    int64_t v;
    if (!tvm_tir_as_const_int(tvm_tir_array_at(b->shape, d), &v)) {
      tvm_codegen__fail(s, "NotImplementedError",
                        "call to %s: buffer %s has a symbolic shape, which a handle does not carry",
                        callee, tvm_tir_buffer_name(b));
      return NULL;
    }
    dims[d] = tvm_codegen__const_i64(s, v);
  }
  LLVMValueRef shape = NULL;
  if (ndim > 0) {
    LLVMValueRef arr = LLVMConstArray2(s->i64, dims, (uint64_t)ndim);
    shape = LLVMAddGlobal(s->mod, LLVMTypeOf(arr), "__tvm_codegen_call_shape");
    LLVMSetInitializer(shape, arr);
    LLVMSetGlobalConstant(shape, 1);
    LLVMSetLinkage(shape, LLVMPrivateLinkage);
    LLVMSetUnnamedAddress(shape, LLVMGlobalUnnamedAddr);
  }
  DLDataType dt = b->dtype;
  if (tvm_tir_dtype_is_bool(dt)) dt = tvm_ffi_dtype(kDLBool, 8, dt.lanes); /* as for tensors */
  /* { ptr data; {i32 device_type, i32 device_id}; i32 ndim; {u8 code, u8 bits, u16 lanes};
   *   ptr shape; ptr strides; u64 byte_offset } */
  LLVMTypeRef fields[7] = {s->ptr, s->i64, s->i32, s->i32, s->ptr, s->ptr, s->i64};
  LLVMTypeRef tt = LLVMStructTypeInContext(s->ctx, fields, 7, 0);
  LLVMValueRef t = tvm_codegen__entry_alloca(s, tt, "call_tensor");
  uint32_t packed = (uint32_t)dt.code | ((uint32_t)dt.bits << 8) | ((uint32_t)dt.lanes << 16);
  LLVMValueRef vals[7] = {
      data,
      tvm_codegen__const_i64(s, kDLCPU), /* device_type 1, device_id 0 (little endian) */
      tvm_codegen__const_i32(s, ndim),
      LLVMConstInt(s->i32, packed, 0),
      shape ? shape : LLVMConstNull(s->ptr),
      LLVMConstNull(s->ptr),
      tvm_codegen__const_i64(s, 0)};
  for (unsigned k = 0; k < 7; ++k)
    LLVMBuildStore(s->b, vals[k], LLVMBuildStructGEP2(s->b, tt, t, k, ""));
  return t;
}

/* The callee's PrimFunc (a new reference) and its symbol (pointing into the callee), or NULL
 * with a codegen error. */
static const tvm_tir_prim_func_obj* resolve(cg_state* s, const char* name, const char** sym) {
  void* f = NULL;
  if (s->unit && tvm_tir_kind_of(s->unit) == TVM_TIR_KIND_IRModule) {
    f = tvm_tir_ir_module_lookup(s->unit, name);
  } else if (s->unit) {
    const char* self = tvm_tir_func_global_symbol(s->unit);
    if (self && strcmp(self, name) == 0) {
      f = (void*)s->unit;
      tvm_ffi_retain(f);
    }
  }
  if (!f) {
    tvm_codegen__fail(s, "ValueError", "call to '%s': no such function%s", name,
                      s->unit && tvm_tir_kind_of(s->unit) == TVM_TIR_KIND_IRModule
                          ? " in the module"
                          : " (a PrimFunc compiled alone can only call itself)");
    return NULL;
  }
  if (tvm_tir_kind_of(f) != TVM_TIR_KIND_PrimFunc) {
    tvm_ffi_release(f);
    tvm_codegen__fail(s, "ValueError", "call to '%s': not a PrimFunc", name);
    return NULL;
  }
  *sym = tvm_tir_func_global_symbol(f);
  if (!*sym) *sym = name; /* compiled under its GlobalVar's name (codegen.c collect) */
  return f;
}

/* The value of the result slot as dtype t (checked to hold a value). */
static LLVMValueRef read_result(cg_state* s, LLVMValueRef slot, DLDataType t, const char* callee) {
  LLVMValueRef off8 = tvm_codegen__const_i64(s, 8);
  LLVMValueRef payload = LLVMBuildGEP2(s->b, s->i8, slot, &off8, 1, "");
  LLVMValueRef tindex = LLVMBuildLoad2(s->b, s->i32, slot, "");
  char msg[600];
  snprintf(msg, sizeof(msg), "%s: call to %s: it returned no value, a %s was expected", s->fname,
           callee, tvm_tir_dtype_str(t).s);
  LLVMValueRef part = tvm_codegen__cstr(s, msg);
  tvm_codegen__emit_check(
      s, LLVMBuildICmp(s->b, LLVMIntNE, tindex, tvm_codegen__const_i32(s, kTVMFFINone), ""),
      "RuntimeError", &part, 1);
  if (tvm_tir_dtype_is_handle(t)) return LLVMBuildLoad2(s->b, s->ptr, payload, "");
  if (tvm_tir_dtype_is_floating(t)) {
    LLVMValueRef d = LLVMBuildLoad2(s->b, LLVMDoubleTypeInContext(s->ctx), payload, "");
    return tvm_codegen__convert(s, d, TVM_TIR_FLOAT64, t);
  }
  LLVMValueRef v = LLVMBuildLoad2(s->b, s->i64, payload, "");
  if (tvm_tir_dtype_is_bool(t)) return LLVMBuildICmp(s->b, LLVMIntNE, v, tvm_codegen__const_i64(s, 0), "");
  DLDataType from = tvm_tir_dtype_is_uint(t) ? TVM_TIR_UINT64 : TVM_TIR_INT64;
  return tvm_codegen__convert(s, v, from, t);
}

/* The call of the module's PrimFunc `name` with the call's arguments from index `first` on. */
static LLVMValueRef call_module_func(cg_state* s, const tvm_tir_call_obj* n, const char* name,
                                     int64_t first) {
  DLDataType rt = n->expr.dtype;
  if (!tvm_tir_dtype_is_void(rt) && rt.lanes != 1) {
    tvm_codegen__fail(s, "NotImplementedError", "call to %s returning a vector (%s)", name,
                      tvm_tir_dtype_str(rt).s);
    return NULL;
  }
  const char* sym = NULL;
  const tvm_tir_prim_func_obj* f = resolve(s, name, &sym);
  if (!f) return NULL;
  LLVMValueRef result = NULL;
  if (tvm_codegen__is_device_kernel(f)) { /* a GPU kernel launch (codegen_cuda.c) */
    if (s->device_type == kDLCUDA && first == 0)
      result = tvm_codegen__cuda_launch(s, n, f, sym);
    else
      tvm_codegen__fail(s, "ValueError", "call of the device kernel %s from CPU code", name);
    goto done;
  }
  int64_t na = tvm_tir_array_size(n->args) - first, np = tvm_tir_array_size(f->params);
  if (na != np) {
    tvm_codegen__fail(s, "TypeError", "call to %s: expected %lld arguments, got %lld", name,
                      (long long)np, (long long)na);
    goto done;
  }
  LLVMTypeRef at = LLVMArrayType(s->i64, (unsigned)(2 * (na ? na : 1)));
  LLVMValueRef args = tvm_codegen__entry_alloca(s, at, "call_args");
  for (int64_t k = 0; k < na; ++k) {
    const void* a = tvm_tir_array_at(n->args, first + k);
    const tvm_tir_var_obj* p = tvm_tir_array_at(f->params, k);
    const tvm_tir_buffer_obj* b = param_buffer(f, p);
    DLDataType t = tvm_tir_expr_dtype(a);
    if (b ? !tvm_tir_dtype_is_handle(t) : !tvm_tir_dtype_equal(t, p->expr.dtype)) {
      tvm_codegen__fail(s, "TypeError", "call to %s: argument %lld ('%s'): expected %s, got %s",
                        name, (long long)k, tvm_tir_var_name(p),
                        b ? "a handle" : tvm_tir_dtype_str(p->expr.dtype).s,
                        tvm_tir_dtype_str(t).s);
      goto done;
    }
    LLVMValueRef v = tvm_codegen__expr(s, a);
    if (!v) goto done;
    LLVMValueRef idx = tvm_codegen__const_i64(s, 16 * k);
    LLVMValueRef slot = LLVMBuildGEP2(s->b, s->i8, args, &idx, 1, "");
    if (b) {
      LLVMValueRef tensor = handle_tensor(s, b, v, name);
      if (!tensor) goto done;
      store_any(s, slot, kTVMFFIDLTensorPtr, tensor);
    } else if (tvm_tir_dtype_is_handle(t)) {
      store_any(s, slot, kTVMFFIOpaquePtr, v);
    } else if (tvm_tir_dtype_is_bool(t)) {
      store_any(s, slot, kTVMFFIBool, LLVMBuildZExt(s->b, v, s->i64, ""));
    } else if (tvm_tir_dtype_is_integer(t) && t.lanes == 1) {
      store_any(s, slot, kTVMFFIInt,
                tvm_codegen__convert(s, v, t, tvm_tir_dtype_is_uint(t) ? TVM_TIR_UINT64 : TVM_TIR_INT64));
    } else if (tvm_tir_dtype_is_floating(t) && t.lanes == 1) {
      store_any(s, slot, kTVMFFIFloat, tvm_codegen__convert(s, v, t, TVM_TIR_FLOAT64));
    } else {
      tvm_codegen__fail(s, "NotImplementedError", "call to %s: argument %lld of dtype %s", name,
                        (long long)k, tvm_tir_dtype_str(t).s);
      goto done;
    }
  }
  LLVMTypeRef any_t = LLVMArrayType(s->i64, 2);
  LLVMValueRef ret = tvm_codegen__entry_alloca(s, any_t, "call_result");
  store_any(s, ret, kTVMFFINone, NULL);
  LLVMValueRef entry = tvm_codegen__packed_entry(s, sym);
  LLVMValueRef cargs[4] = {LLVMConstNull(s->ptr), args, tvm_codegen__const_i32(s, na), ret};
  LLVMValueRef rc = LLVMBuildCall2(s->b, LLVMGlobalGetValueType(entry), entry, cargs, 4, "");
  /* The callee's error is already raised: pass it on. */
  LLVMBasicBlockRef fail = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "call_failed");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "call_ok");
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, rc, tvm_codegen__const_i32(s, 0), ""), ok,
                  fail);
  LLVMPositionBuilderAtEnd(s->b, fail);
  tvm_codegen__emit_ret(s, tvm_codegen__const_i32(s, -1));
  LLVMPositionBuilderAtEnd(s->b, ok);
  if (tvm_tir_dtype_is_void(rt))
    result = tvm_codegen__const_i32(s, 0); /* a value nobody reads (Evaluate) */
  else
    result = read_result(s, ret, rt, name);
done:
  tvm_ffi_release((void*)f);
  return result;
}

LLVMValueRef tvm_codegen__call_global(cg_state* s, const tvm_tir_call_obj* n) {
  return call_module_func(s, n, tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)n->op)->name_hint), 0);
}

bool tvm_codegen__has_module_func(cg_state* s, const char* name) {
  if (!s->unit || tvm_tir_kind_of(s->unit) != TVM_TIR_KIND_IRModule) return false;
  void* f = tvm_tir_ir_module_lookup(s->unit, name);
  bool prim = f && tvm_tir_kind_of(f) == TVM_TIR_KIND_PrimFunc;
  tvm_ffi_release(f);
  return prim;
}

LLVMValueRef tvm_codegen__call_module_extern(cg_state* s, const tvm_tir_call_obj* n,
                                             const char* name) {
  return call_module_func(s, n, name, 1);
}
