/*
 * codegen_llvm_float16.c: float16 and bfloat16 without LLVM's half / bfloat types.
 *
 * A 16-bit float lives in memory as its i16 bits and in registers as a float (float32) holding
 * exactly its value; arithmetic runs in float32 and each result is rounded back to the 16-bit
 * format (tvm_codegen__f16_round), which is the same as computing in the format itself for + - * / and
 * sqrt (float32 has more than twice the bits plus two). Every conversion is emitted here as
 * integer code, rounding to nearest even with NaN kept a (quiet) NaN, the way upstream TVM
 * legalizes bfloat16 (a float16 NaN widens to a quiet NaN, as F16C does). Why not LLVM's types: on
 * an x86 CPU without AVX-512 BF16 (F16C for float16), LLVM lowers fptrunc float -> bfloat (and half
 * arithmetic) to calls of
 * __truncsfbf2 / __truncsfhf2 / __extendhfsf2, and double -> 16 bits to __truncdfhf2 /
 * __truncdfbf2 on every x86 CPU: runtime-library functions that neither the JIT nor an exported
 * kernel has. And the CPUs that do have instructions differ (VCVTNEPS2BF16 flushes subnormals):
 * this way the code and its results are the same on every host. One exception, for speed: when
 * the host CPU is targeted and has F16C, float32 <-> float16 use its VCVTPS2PH / VCVTPH2PS
 * (through LLVM's half type, which then needs no call), which give the same bits (nearest even,
 * subnormals kept, NaNs quiet with their top payload bits); the tests check both paths against
 * the same references.
 *
 * Conversions from float64 round once: the double is first narrowed to float32 rounding to
 * odd (inexact results get their last bit set), which float32's 24 bits make exact enough for
 * the final rounding to nearest even (a double rounding through nearest even would not be).
 */
#include "internal.h"

bool tvm_codegen__is_f16(DLDataType t) { return t.bits == 16 && (t.code == kDLFloat || t.code == kDLBfloat); }

/* The type with v's shape (scalar or vector) and element type elem. */
static LLVMTypeRef shaped(LLVMValueRef v, LLVMTypeRef elem) {
  LLVMTypeRef t = LLVMTypeOf(v);
  if (LLVMGetTypeKind(t) == LLVMVectorTypeKind) return LLVMVectorType(elem, LLVMGetVectorSize(t));
  return elem;
}

/* The constant c of integer type (or vector of) t. */
static LLVMValueRef kint(LLVMTypeRef t, uint64_t c) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return LLVMConstInt(t, c, 0);
  unsigned n = LLVMGetVectorSize(t);
  LLVMValueRef e = LLVMConstInt(LLVMGetElementType(t), c, 0);
  LLVMValueRef small[64];
  LLVMValueRef* es = n <= 64 ? small : tvm_ffi_malloc(sizeof(LLVMValueRef) * n);
  if (!es) return NULL;
  for (unsigned i = 0; i < n; ++i) es[i] = e;
  LLVMValueRef r = LLVMConstVector(es, n);
  if (es != small) tvm_ffi_free(es);
  return r;
}

/* Floating constant c of type (or vector of) t. */
static LLVMValueRef kreal(LLVMTypeRef t, double c) {
  if (LLVMGetTypeKind(t) != LLVMVectorTypeKind) return LLVMConstReal(t, c);
  unsigned n = LLVMGetVectorSize(t);
  LLVMValueRef e = LLVMConstReal(LLVMGetElementType(t), c);
  LLVMValueRef small[64];
  LLVMValueRef* es = n <= 64 ? small : tvm_ffi_malloc(sizeof(LLVMValueRef) * n);
  if (!es) return NULL;
  for (unsigned i = 0; i < n; ++i) es[i] = e;
  LLVMValueRef r = LLVMConstVector(es, n);
  if (es != small) tvm_ffi_free(es);
  return r;
}

/* float32 bits x (i32) -> bfloat16 bits (i32, the low 16 bits), nearest even; a NaN stays a NaN
 * (its top bits with the quiet bit set: adding the rounding bias could carry it into inf). */
static LLVMValueRef bits_to_bf16(cg_state* s, LLVMValueRef x) {
  LLVMBuilderRef B = s->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef hi = LLVMBuildLShr(B, x, kint(t, 16), "");
  LLVMValueRef lsb = LLVMBuildAnd(B, hi, kint(t, 1), "");
  LLVMValueRef r = LLVMBuildLShr(
      B, LLVMBuildAdd(B, LLVMBuildAdd(B, x, kint(t, 0x7FFF), ""), lsb, ""), kint(t, 16), "");
  LLVMValueRef nan = LLVMBuildICmp(B, LLVMIntUGT, LLVMBuildAnd(B, x, kint(t, 0x7FFFFFFF), ""),
                                   kint(t, 0x7F800000), "");
  return LLVMBuildSelect(B, nan, LLVMBuildOr(B, hi, kint(t, 0x40), ""), r, "");
}

/* float32 bits x (i32) -> float16 bits (i32, the low 16 bits), nearest even: overflow to inf,
 * subnormal results rounded at their own precision, a NaN quiet with its top payload bits. */
static LLVMValueRef bits_to_half(cg_state* s, LLVMValueRef x) {
  LLVMBuilderRef B = s->b;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef sign = LLVMBuildAnd(B, LLVMBuildLShr(B, x, kint(t, 16), ""), kint(t, 0x8000), "");
  LLVMValueRef a = LLVMBuildAnd(B, x, kint(t, 0x7FFFFFFF), "");
  /* Normal results: rebias the exponent (127 -> 15) and round the 13 dropped bits. */
  LLVMValueRef odd = LLVMBuildAnd(B, LLVMBuildLShr(B, a, kint(t, 13), ""), kint(t, 1), "");
  LLVMValueRef normal = LLVMBuildLShr(
      B, LLVMBuildAdd(B, LLVMBuildAdd(B, a, kint(t, 0xC8000FFFu), ""), odd, ""), kint(t, 13), "");
  /* |x| < 2**-14: a subnormal (or zero) result, the 24-bit significand shifted right by
   * 126 - exponent (clamped at 25: everything below 2**-25 rounds to zero). */
  LLVMValueRef e = LLVMBuildLShr(B, a, kint(t, 23), "");
  LLVMValueRef m = LLVMBuildOr(B, LLVMBuildAnd(B, a, kint(t, 0x7FFFFF), ""), kint(t, 0x800000), "");
  LLVMValueRef sh = LLVMBuildSub(B, kint(t, 126), e, "");
  sh = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, kint(t, 0x33000000), ""), kint(t, 25), sh,
                       "");
  /* (Not a subnormal result: any shift in range, the result is not selected.) */
  sh = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, a, kint(t, 0x38800000), ""), kint(t, 14), sh,
                       "");
  LLVMValueRef q = LLVMBuildLShr(B, m, sh, "");
  LLVMValueRef sh1 = LLVMBuildSub(B, sh, kint(t, 1), "");
  LLVMValueRef half_bit = LLVMBuildAnd(B, LLVMBuildLShr(B, m, sh1, ""), kint(t, 1), "");
  LLVMValueRef below = LLVMBuildSub(B, LLVMBuildShl(B, kint(t, 1), sh1, ""), kint(t, 1), "");
  LLVMValueRef sticky = LLVMBuildICmp(B, LLVMIntNE, LLVMBuildAnd(B, m, below, ""), kint(t, 0), "");
  LLVMValueRef up = LLVMBuildAnd(
      B, half_bit,
      LLVMBuildOr(B, LLVMBuildZExt(B, sticky, t, ""), LLVMBuildAnd(B, q, kint(t, 1), ""), ""), "");
  LLVMValueRef sub = LLVMBuildAdd(B, q, up, "");
  LLVMValueRef nan_bits =
      LLVMBuildOr(B, kint(t, 0x7E00),
                  LLVMBuildAnd(B, LLVMBuildLShr(B, a, kint(t, 13), ""), kint(t, 0x3FF), ""), "");
  LLVMValueRef r =
      LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntULT, a, kint(t, 0x38800000), ""), sub, normal, "");
  r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGE, a, kint(t, 0x477FF000), ""), kint(t, 0x7C00),
                      r, "");
  r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntUGT, a, kint(t, 0x7F800000), ""), nan_bits, r, "");
  return LLVMBuildOr(B, r, sign, "");
}

/* float32 bits (i32) -> 16-bit float bits of dtype t, as i16. */
static LLVMValueRef narrow_bits(cg_state* s, LLVMValueRef x, DLDataType t) {
  LLVMValueRef r = t.code == kDLBfloat ? bits_to_bf16(s, x) : bits_to_half(s, x);
  return LLVMBuildTrunc(s->b, r, shaped(x, s->i16), "");
}

/* With F16C, LLVM's float -> half is one instruction (VCVTPS2PH, nearest even) and no call. */
static LLVMValueRef f16c_narrow(cg_state* s, LLVMValueRef f) {
  LLVMValueRef h = LLVMBuildFPTrunc(s->b, f, shaped(f, LLVMHalfTypeInContext(s->ctx)), "");
  return LLVMBuildBitCast(s->b, h, shaped(f, s->i16), "");
}

LLVMValueRef tvm_codegen__f16_narrow(cg_state* s, LLVMValueRef f, DLDataType t) {
  if (s->f16c && t.code == kDLFloat) return f16c_narrow(s, f);
  return narrow_bits(s, LLVMBuildBitCast(s->b, f, shaped(f, s->i32), ""), t);
}

LLVMValueRef tvm_codegen__f16_narrow_f64(cg_state* s, LLVMValueRef d, DLDataType t) {
  LLVMBuilderRef B = s->b;
  LLVMTypeRef ft = shaped(d, LLVMFloatTypeInContext(s->ctx)), it = shaped(d, s->i32);
  LLVMValueRef r = LLVMBuildFPTrunc(B, d, ft, "");
  LLVMValueRef back = LLVMBuildFPExt(B, r, LLVMTypeOf(d), "");
  LLVMValueRef x = LLVMBuildBitCast(B, r, it, "");
  /* Round to odd: an inexact result with an even last bit moves one unit towards d. */
  LLVMValueRef inexact = LLVMBuildFCmp(B, LLVMRealONE, back, d, "");
  LLVMValueRef even =
      LLVMBuildICmp(B, LLVMIntEQ, LLVMBuildAnd(B, x, kint(it, 1), ""), kint(it, 0), "");
  LLVMValueRef neg = LLVMBuildFCmp(B, LLVMRealOLT, d, kreal(LLVMTypeOf(d), 0.0), "");
  LLVMValueRef away = LLVMBuildSelect(B, neg, LLVMBuildFCmp(B, LLVMRealOLT, d, back, ""),
                                      LLVMBuildFCmp(B, LLVMRealOGT, d, back, ""), "");
  LLVMValueRef step = LLVMBuildSelect(B, away, kint(it, 1), kint(it, 0xFFFFFFFFu), "");
  x = LLVMBuildSelect(B, LLVMBuildAnd(B, inexact, even, ""), LLVMBuildAdd(B, x, step, ""), x, "");
  if (s->f16c && t.code == kDLFloat) return f16c_narrow(s, LLVMBuildBitCast(B, x, ft, ""));
  return narrow_bits(s, x, t);
}

LLVMValueRef tvm_codegen__f16_widen(cg_state* s, LLVMValueRef h, DLDataType t) {
  LLVMBuilderRef B = s->b;
  LLVMTypeRef it = shaped(h, s->i32), ft = shaped(h, LLVMFloatTypeInContext(s->ctx));
  if (s->f16c && t.code == kDLFloat) /* VCVTPH2PS */
    return LLVMBuildFPExt(B, LLVMBuildBitCast(B, h, shaped(h, LLVMHalfTypeInContext(s->ctx)), ""),
                          ft, "");
  LLVMValueRef x = LLVMBuildZExt(B, h, it, "");
  if (t.code == kDLBfloat) return LLVMBuildBitCast(B, LLVMBuildShl(B, x, kint(it, 16), ""), ft, "");
  LLVMValueRef sign = LLVMBuildShl(B, LLVMBuildAnd(B, x, kint(it, 0x8000), ""), kint(it, 16), "");
  LLVMValueRef e = LLVMBuildAnd(B, LLVMBuildLShr(B, x, kint(it, 10), ""), kint(it, 0x1F), "");
  LLVMValueRef m = LLVMBuildAnd(B, x, kint(it, 0x3FF), "");
  LLVMValueRef m13 = LLVMBuildShl(B, m, kint(it, 13), "");
  LLVMValueRef normal = LLVMBuildOr(
      B, LLVMBuildShl(B, LLVMBuildAdd(B, e, kint(it, 112), ""), kint(it, 23), ""), m13, "");
  /* Infinity, or a NaN made quiet (as F16C and libgcc widen a signalling one). */
  LLVMValueRef quiet = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntNE, m, kint(it, 0), ""),
                                       kint(it, 0x400000), kint(it, 0), "");
  LLVMValueRef special = LLVMBuildOr(B, kint(it, 0x7F800000), LLVMBuildOr(B, m13, quiet, ""), "");
  /* Subnormal: m * 2**-24, exact in float32 (and normal there). */
  LLVMValueRef sub = LLVMBuildBitCast(
      B, LLVMBuildFMul(B, LLVMBuildSIToFP(B, m, ft, ""), kreal(ft, 0x1p-24), ""), it, "");
  LLVMValueRef r =
      LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, e, kint(it, 31), ""), special, normal, "");
  r = LLVMBuildSelect(B, LLVMBuildICmp(B, LLVMIntEQ, e, kint(it, 0), ""), sub, r, "");
  return LLVMBuildBitCast(B, LLVMBuildOr(B, r, sign, ""), ft, "");
}

LLVMValueRef tvm_codegen__f16_round(cg_state* s, LLVMValueRef f, DLDataType t) {
  if (!tvm_codegen__is_f16(t)) return f;
  return tvm_codegen__f16_widen(s, tvm_codegen__f16_narrow(s, f, t), t);
}
