/*
 * codegen_llvm_extern.c: tir.call_extern / tir.call_pure_extern: a call of a C function by
 * name, Call(dtype, op, ["name", args...]). The callee is declared from the call itself: its
 * return type is the Call's dtype (void for a handle of 0 bits, as TVM writes "void"), each
 * parameter the dtype of its argument (int32 -> i32, float32 -> float, handle -> ptr, a string
 * -> ptr to a constant C string), so it follows the C calling convention of the matching C
 * prototype; a name that is a PrimFunc of the module being compiled calls it as a GlobalVar
 * call would (codegen_llvm_call.c). Any other symbol resolves like any other undefined one: in the JIT from the process
 * (libc, libm, the executable's exported functions), in an exported library at load time.
 */
#include "internal.h"

static LLVMTypeRef abi16(cg_state* s, DLDataType t) {
  return t.code == kDLBfloat ? LLVMBFloatTypeInContext(s->ctx) : LLVMHalfTypeInContext(s->ctx);
}

LLVMValueRef tvm_codegen__call_extern(cg_state* s, const tvm_tir_call_obj* n) {
  int64_t na = tvm_tir_array_size(n->args);
  const void* name_expr = na > 0 ? tvm_tir_array_at(n->args, 0) : NULL;
  if (!name_expr || tvm_tir_kind_of(name_expr) != TVM_TIR_KIND_StringImm) {
    tvm_codegen__fail(s, "ValueError", "call_extern needs the function name as its first argument");
    return NULL;
  }
  const char* name = tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)name_expr)->value);
  if (tvm_codegen__has_module_func(s, name)) return tvm_codegen__call_module_extern(s, n, name);
  DLDataType rt = n->expr.dtype;
  if (rt.lanes > 1) {
    tvm_codegen__fail(s, "NotImplementedError", "call_extern %s returning a vector", name);
    return NULL;
  }
  LLVMTypeRef ret = tvm_codegen__type(s, rt);
  if (!ret) return NULL;
  /* A 16-bit float crosses the C ABI as _Float16 / __bf16 (LLVM's half / bfloat, in an SSE
   * register), made from and turned back into its bits: no conversion code from LLVM. */
  if (tvm_codegen__is_f16(rt)) ret = abi16(s, rt);
  enum { MAX_ARGS = 32 };
  if (na - 1 > MAX_ARGS) {
    tvm_codegen__fail(s, "NotImplementedError", "call_extern %s with more than %d arguments", name,
                      MAX_ARGS);
    return NULL;
  }
  LLVMValueRef args[MAX_ARGS];
  LLVMTypeRef types[MAX_ARGS];
  for (int64_t i = 1; i < na; ++i) {
    const void* a = tvm_tir_array_at(n->args, i);
    if (tvm_tir_expr_dtype(a).lanes > 1) {
      tvm_codegen__fail(s, "NotImplementedError", "call_extern %s with a vector argument", name);
      return NULL;
    }
    args[i - 1] = tvm_codegen__expr(s, a);
    if (!args[i - 1]) return NULL;
    DLDataType at = tvm_tir_expr_dtype(a);
    if (tvm_codegen__is_f16(at))
      args[i - 1] = LLVMBuildBitCast(s->b, tvm_codegen__f16_narrow(s, args[i - 1], at), abi16(s, at), "");
    types[i - 1] = LLVMTypeOf(args[i - 1]);
  }
  unsigned nargs = (unsigned)(na - 1);
  LLVMTypeRef ft = LLVMFunctionType(ret, types, nargs, 0);
  /* A name already declared (or defined) with another type is still called with this one: with
   * opaque pointers the callee is just an address. */
  LLVMValueRef f = LLVMGetNamedFunction(s->mod, name);
  if (!f) f = LLVMAddFunction(s->mod, name, ft);
  LLVMValueRef r = LLVMBuildCall2(s->b, ft, f, args, nargs, "");
  if (tvm_codegen__is_f16(rt)) r = tvm_codegen__f16_widen(s, LLVMBuildBitCast(s->b, r, s->i16, ""), rt);
  return r;
}
