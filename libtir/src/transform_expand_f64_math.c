/*
 * transform_expand_f64_math.c: expand_f64_math, float64 transcendental functions written out as
 * TIR arithmetic (add, mul, fma, div, nearbyint, reinterpret and integer bit operations), for
 * targets without a math library: CUDA kernels, where libdevice is not used (libcodegen runs it
 * on a CUDA build's functions after the GPU passes). Every scalar float64 call of exp, exp2,
 * exp10, log, log2, log10, log1p, sinh, cosh, tanh, sigmoid, erf, sin, cos, tan and pow
 * becomes Let-bound arithmetic, and float32 / float16 erf and log1p too, computed in float64
 * and rounded back; other calls (atan, ..., vectors, other dtypes) are left alone.
 *
 * The expansions (their accuracy against the C library is tested by interpreting them on
 * the CPU, tests/tir/test_expand_f64_math.c; docs/tir-decisions.md gives the bounds):
 *   exp     x = n ln2 + r (n = nearbyint(x log2 e), ln2 in two parts, |r| <= ln2 / 2), e^r by
 *           its Taylor polynomial of degree 13 (Horner with fma), times 2^n as two powers of two
 *           made from bits (one rounding, also into the subnormals); x clamped to [-746, 710]
 *           first (overflow to inf and underflow to 0 happen in the scaling); NaN kept.
 *   exp2    n = nearbyint(x), r = (x - n) ln2 in double-double; exp10: x ln10 in double-double.
 *   log     fdlibm's: x = 2^k m, m in [sqrt(1/2), sqrt(2)), f = m - 1, s = f / (2 + f), the
 *           degree-14 odd polynomial in s (its coefficients Lg1..Lg7); subnormals scaled by
 *           2^54 first; log2 / log10 from the same reduction (k + log(m) / ln2, ...).
 *   log1p   u = 1 + x, log(u) x / (u - 1) (Goldberg), x where u == 1.
 *   expm1   (for tanh, sinh) u = e^x, (u - 1) x / log(u) (Kahan), x where u == 1.
 *   tanh    t = expm1(2|x|), t / (t + 2), 1 for |x| > 22, the sign of x.
 *   sinh    t = expm1(|x|), (t + t / (t + 1)) / 2 below 22, else (w / 2) w with w = e^(|x|/2).
 *   cosh    e^|x| / 2 + 1 / (2 e^|x|) below 22, else (w / 2) w.
 *   sigmoid e = e^-|x|: 1 / (1 + e) for x >= 0, e / (1 + e) otherwise.
 *   erf     |x| < 2: 2/sqrt(pi) e^-x^2 sum 2^n x^(2n+1) / (2n+1)!! (positive terms, 45 of
 *           them, e^-x^2 with x^2 in double-double); else 1 - erfc by its continued fraction
 *           (60 levels); |x| clamped to 6 (erf is 1 in float64 beyond); the sign of x.
 *   sin/cos x = n pi/2 + r, pi/2 in fdlibm's 33-bit parts (n p exact for |n| < 2^20), r as a
 *           double-double, fdlibm's kernels by n mod 4; tan = sin / cos. Accurate for
 *           |x| < 2^20 pi/2 (about 1.6e6) only: beyond, the reduction's error grows with |x|.
 *   pow     y log(x) in double-double (log(m) = 2 atanh(s) with s = f / (2 + f) a
 *           double-double and the series tail in double), e^(hi + lo) as exp; C99's special
 *           cases (y == 0, x == 1, NaN, infinities, zeros, negative x) by selects.
 */
#include <math.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "transform_internal.h"

static const char kPass[] = "expand_f64_math";

typedef tvm_tir_expr_obj* E;
#define F64 TVM_TIR_FLOAT64
#define I64 TVM_TIR_INT64

/* ---- A small expression language (every function consumes its arguments) ---------------- */
static E C(double v) { return tvm_tir_f64(v); }
static E CI(int64_t v) { return tvm_tir_i64(v); }
static E R(tvm_tir_var_obj* v) { return tvm_tir_ref(v); }
static E ADD(E a, E b) { return tvm_tir_add_take(a, b); }
static E SUB(E a, E b) { return tvm_tir_sub_take(a, b); }
static E MUL(E a, E b) { return tvm_tir_mul_take(a, b); }
static E DIV(E a, E b) { return tvm_tir_div_take(a, b); }
static E NEG(E a) { return tvm_tir_mul_take(a, tvm_tir_f64(-1)); } /* -0 for 0 */
static E LT(E a, E b) { return tvm_tir_lt_take(a, b); }
static E GT(E a, E b) { return tvm_tir_gt_take(a, b); }
static E GE(E a, E b) { return tvm_tir_ge_take(a, b); }
static E EQ(E a, E b) { return tvm_tir_eq_take(a, b); }
static E OR(E a, E b) { return tvm_tir_or_take(a, b); }
static E SEL(E c, E t, E f) { return tvm_tir_select_take(c, t, f); }
static E CALL1(DLDataType t, const char* op, E a) { return tvm_tir_call_take(t, op, a); }
static E CALL2(DLDataType t, const char* op, E a, E b) { return tvm_tir_call_take(t, op, a, b); }
static E FMA(E a, E b, E c) { return tvm_tir_call_take(F64, "tir.fma", a, b, c); }
static E ISNAN(E a) { return CALL1(TVM_TIR_BOOL, "tir.isnan", a); }
static E FABS(E a) { return CALL1(F64, "tir.fabs", a); }
static E COPYSIGN(E a, E b) { return CALL2(F64, "tir.copysign", a, b); }
static E BITS(E a) { return CALL1(I64, "tir.reinterpret", a); }
static E FBITS(E a) { return CALL1(F64, "tir.reinterpret", a); }
static E SHL(E a, E b) { return CALL2(I64, "tir.shift_left", a, b); }
static E SHR(E a, E b) { return CALL2(I64, "tir.shift_right", a, b); }
static E BAND(E a, E b) { return CALL2(I64, "tir.bitwise_and", a, b); }
static E BOR(E a, E b) { return CALL2(I64, "tir.bitwise_or", a, b); }
static tvm_tir_var_obj* V(const char* name, DLDataType t) { return tvm_tir_var(name, t); }
/* let v = value in body (v, value and body consumed). */
static E LET(tvm_tir_var_obj* v, E value, E body) { return tvm_tir_let_take(v, value, body); }

/* c[0] r^(n-1) + ... + c[n-1], by Horner with fma. */
static E horner(tvm_tir_var_obj* r, const double* c, int n) {
  E p = C(c[0]);
  for (int i = 1; i < n; ++i) p = FMA(p, R(r), C(c[i]));
  return p;
}

static const double kLn2Hi = 6.93147180369123816490e-01, kLn2Lo = 1.90821492927058770002e-10;
static const double kLn2 = 0.6931471805599453, kLn2Tail = 2.3190468138462996e-17;
static const double kLog2e = 1.4426950408889634;

/* 2^n for an int64 n in [-1022, 1023], from its bits. */
static E pow2i(E n) { return FBITS(SHL(ADD(n, CI(1023)), CI(52))); }

/* e^(r + rlo) 2^n: n an int64 Var in [-1080, 1030], r a Var with |r| <= ~0.35, rlo (may be NULL)
 * a small correction. */
static E exp_core(tvm_tir_var_obj* n, tvm_tir_var_obj* r, E rlo) {
  double c[14];
  double f = 1;
  for (int k = 0; k <= 13; ++k) {
    if (k > 0) f /= k;
    c[13 - k] = f; /* 1/13!, ..., 1/1!, 1 */
  }
  E p = horner(r, c, 14);
  if (rlo) {
    tvm_tir_var_obj* pv = V("p", F64);
    p = LET(pv, p, FMA(R(pv), rlo, R(pv)));
  }
  tvm_tir_var_obj* n1 = V("n1", I64);
  E half = DIV(R(n), CI(2)); /* truncating */
  E scaled = MUL(MUL(p, pow2i(R(n1))), pow2i(SUB(R(n), R(n1))));
  return LET(n1, half, scaled);
}

/* x clamped to [lo, hi], 0 for NaN (so that converting to an integer is defined). */
static E clamp_x(tvm_tir_var_obj* x, double lo, double hi) {
  return SEL(ISNAN(R(x)), C(0), SEL(LT(R(x), C(lo)), C(lo), SEL(GT(R(x), C(hi)), C(hi), R(x))));
}

enum { K_EXP, K_EXP2, K_EXP10 };

/* exp / exp2 / exp10 of the expression x_in (consumed). */
static E expand_exp(E x_in, int kind) {
  tvm_tir_var_obj *x = V("x", F64), *xs = V("xs", F64), *nf = V("nf", F64), *n = V("n", I64),
                  *r = V("r", F64), *t = V("t", F64), *tlo = V("tlo", F64), *fr = V("f", F64);
  E body;
  if (kind == K_EXP) {
    E rr = FMA(NEG(R(nf)), C(kLn2Lo), FMA(NEG(R(nf)), C(kLn2Hi), R(xs)));
    body = LET(nf, CALL1(F64, "tir.nearbyint", MUL(R(xs), C(kLog2e))),
               LET(n, tvm_tir_cast_take(I64, R(nf)), LET(r, rr, exp_core(n, r, NULL))));
    body = LET(xs, clamp_x(x, -746, 710), body);
    tvm_ffi_release(t);
    tvm_ffi_release(tlo);
    tvm_ffi_release(fr);
  } else if (kind == K_EXP2) {
    /* r + rlo = (x - n) ln2 */
    E rlo = ADD(FMA(R(fr), C(kLn2), NEG(R(r))), MUL(R(fr), C(kLn2Tail)));
    body = LET(fr, SUB(R(xs), R(nf)), LET(r, MUL(R(fr), C(kLn2)), exp_core(n, r, rlo)));
    body = LET(nf, CALL1(F64, "tir.nearbyint", R(xs)), LET(n, tvm_tir_cast_take(I64, R(nf)), body));
    body = LET(xs, clamp_x(x, -1080, 1030), body);
    tvm_ffi_release(t);
    tvm_ffi_release(tlo);
  } else {
    /* t + tlo = x ln10, then as exp */
    static const double kLn10 = 2.302585092994046, kLn10Tail = -2.1707562233822494e-16;
    E rr = FMA(NEG(R(nf)), C(kLn2Lo), FMA(NEG(R(nf)), C(kLn2Hi), R(t)));
    body = LET(nf, CALL1(F64, "tir.nearbyint", MUL(R(t), C(kLog2e))),
               LET(n, tvm_tir_cast_take(I64, R(nf)), LET(r, rr, exp_core(n, r, R(tlo)))));
    body = LET(tlo, ADD(FMA(R(xs), C(kLn10), NEG(R(t))), MUL(R(xs), C(kLn10Tail))), body);
    body = LET(t, MUL(R(xs), C(kLn10)), body);
    body = LET(xs, clamp_x(x, -330, 310), body);
    tvm_ffi_release(fr);
  }
  return LET(x, x_in, SEL(ISNAN(R(x)), R(x), body));
}

enum { K_LN, K_LOG2, K_LOG10 };

/* log / log2 / log10 of x_in (consumed), fdlibm's reduction. */
static E expand_log(E x_in, int kind) {
  static const double Lg[7] = {6.666666666666735130e-01, 3.999999999940941908e-01,
                               2.857142874366239149e-01, 2.222219843214978396e-01,
                               1.818357216161805012e-01, 1.531383769920937332e-01,
                               1.479819860511658591e-01};
  tvm_tir_var_obj *x = V("x", F64), *sub = V("sub", TVM_TIR_BOOL), *b = V("b", I64),
                  *m0 = V("m0", F64), *big = V("big", TVM_TIR_BOOL), *m = V("m", F64),
                  *dk = V("dk", F64), *f = V("f", F64), *s = V("s", F64), *z = V("z", F64),
                  *w = V("w", F64), *rr = V("R", F64), *hfsq = V("hfsq", F64);
  /* R = z (Lg1 + w (Lg3 + w (Lg5 + w Lg7))) + w (Lg2 + w (Lg4 + w Lg6)) */
  double odd[4] = {Lg[6], Lg[4], Lg[2], Lg[0]}, even[3] = {Lg[5], Lg[3], Lg[1]};
  E rval = FMA(R(z), horner(w, odd, 4), MUL(R(w), horner(w, even, 3)));
  E result;
  if (kind == K_LN) {
    /* dk ln2_hi - ((hfsq - (s (hfsq + R) + dk ln2_lo)) - f) */
    E inner = FMA(R(s), ADD(R(hfsq), R(rr)), MUL(R(dk), C(kLn2Lo)));
    result = SUB(MUL(R(dk), C(kLn2Hi)), SUB(SUB(R(hfsq), inner), R(f)));
  } else {
    /* log(m) = f - (hfsq - s (hfsq + R)) */
    E lm = SUB(R(f), SUB(R(hfsq), MUL(R(s), ADD(R(hfsq), R(rr)))));
    if (kind == K_LOG2) {
      result = ADD(R(dk), MUL(lm, C(kLog2e)));
    } else {
      static const double kLog10_2Hi = 3.01029995663611771306e-01,
                          kLog10_2Lo = 3.69423907715893078616e-13,
                          kInvLn10 = 4.34294481903251816668e-01;
      result = ADD(MUL(R(dk), C(kLog10_2Hi)), FMA(lm, C(kInvLn10), MUL(R(dk), C(kLog10_2Lo))));
    }
  }
  E body = LET(hfsq, MUL(MUL(C(0.5), R(f)), R(f)), result);
  body = LET(rr, rval, body);
  body = LET(w, MUL(R(z), R(z)), body);
  body = LET(z, MUL(R(s), R(s)), body);
  body = LET(s, DIV(R(f), ADD(C(2), R(f))), body);
  body = LET(f, SUB(R(m), C(1)), body);
  E e0 = SUB(SUB(SHR(R(b), CI(52)), CI(1023)), SEL(R(sub), CI(54), CI(0)));
  body = LET(dk, tvm_tir_cast_take(F64, ADD(e0, SEL(R(big), CI(1), CI(0)))), body);
  body = LET(m, SEL(R(big), MUL(R(m0), C(0.5)), R(m0)), body);
  body = LET(big, GT(R(m0), C(1.4142135623730951)), body);
  body = LET(m0, FBITS(BOR(BAND(R(b), CI(0x000FFFFFFFFFFFFFLL)), CI(0x3FF0000000000000LL))), body);
  body = LET(b, BITS(SEL(R(sub), MUL(R(x), C(18014398509481984.0 /* 2^54 */)), R(x))), body);
  body = LET(sub, LT(R(x), C(2.2250738585072014e-308)), body);
  /* NaN and x < 0: NaN; 0: -inf; inf: inf */
  E special = SEL(OR(ISNAN(R(x)), LT(R(x), C(0))), C(NAN),
                  SEL(EQ(R(x), C(0)), C(-INFINITY), SEL(EQ(R(x), C(INFINITY)), C(INFINITY), body)));
  return LET(x, x_in, special);
}

/* expm1 of x_in (consumed): Kahan's (u - 1) x / log(u), u = e^x. */
static E expand_expm1(E x_in) {
  tvm_tir_var_obj *x = V("x", F64), *u = V("u", F64);
  E general = MUL(SUB(R(u), C(1)), DIV(R(x), expand_log(R(u), K_LN)));
  E body = SEL(EQ(R(u), C(1)), R(x),
               SEL(EQ(R(u), C(0)), C(-1), SEL(EQ(R(u), C(INFINITY)), C(INFINITY), general)));
  return LET(x, x_in, LET(u, expand_exp(R(x), K_EXP), body));
}

static E expand_log1p(E x_in) {
  tvm_tir_var_obj *x = V("x", F64), *u = V("u", F64);
  E general = MUL(expand_log(R(u), K_LN), DIV(R(x), SUB(R(u), C(1))));
  E body = SEL(EQ(R(u), C(1)), R(x), SEL(EQ(R(x), C(INFINITY)), C(INFINITY), general));
  return LET(x, x_in, LET(u, ADD(C(1), R(x)), body));
}

static E expand_tanh(E x_in) {
  tvm_tir_var_obj *x = V("x", F64), *a = V("a", F64), *t = V("t", F64);
  E r = LET(t, expand_expm1(MUL(C(2), R(a))), DIV(R(t), ADD(R(t), C(2))));
  return LET(x, x_in, LET(a, FABS(R(x)), COPYSIGN(SEL(GT(R(a), C(22)), C(1), r), R(x))));
}

static E expand_sinh_cosh(E x_in, bool sinh) {
  tvm_tir_var_obj *x = V("x", F64), *a = V("a", F64), *t = V("t", F64), *w = V("w", F64);
  E small;
  if (sinh) {
    small = LET(t, expand_expm1(R(a)), MUL(C(0.5), ADD(R(t), DIV(R(t), ADD(R(t), C(1))))));
  } else {
    small = LET(t, expand_exp(R(a), K_EXP), ADD(MUL(C(0.5), R(t)), DIV(C(0.5), R(t))));
  }
  E large = LET(w, expand_exp(MUL(C(0.5), R(a)), K_EXP), MUL(MUL(C(0.5), R(w)), R(w)));
  E r = SEL(LT(R(a), C(22)), small, large);
  if (sinh) r = COPYSIGN(r, R(x));
  return LET(x, x_in, LET(a, FABS(R(x)), r));
}

static E expand_sigmoid(E x_in) {
  tvm_tir_var_obj *x = V("x", F64), *e = V("e", F64);
  E body = SEL(GE(R(x), C(0)), DIV(C(1), ADD(C(1), R(e))), DIV(R(e), ADD(C(1), R(e))));
  return LET(x, x_in, LET(e, expand_exp(NEG(FABS(R(x))), K_EXP), body));
}

static E expand_erf(E x_in) {
  tvm_tir_var_obj *x = V("x", F64), *a = V("a", F64), *a2 = V("a2", F64), *a2lo = V("a2lo", F64),
                  *ex = V("ex", F64), *e = V("e", F64), *q = V("q", F64), *t = V("t", F64);
  /* e = e^-(a2 + a2lo) */
  E eval = LET(ex, expand_exp(NEG(R(a2)), K_EXP), FMA(R(ex), NEG(R(a2lo)), R(ex)));
  /* series: T = 1 + q/(2n+3) T from n = 44 down to 0, q = 2 a^2 */
  E T = C(1);
  for (int n = 44; n >= 0; --n) T = FMA(DIV(R(q), C(2 * n + 3)), T, C(1));
  E series = MUL(MUL(C(1.1283791670955126 /* 2/sqrt(pi) */), R(e)), MUL(R(a), T));
  series = LET(q, MUL(C(2), R(a2)), series);
  /* continued fraction: t = a + (k/2)/t from k = 60 down to 1 */
  E cf = R(a);
  for (int k = 60; k >= 1; --k) {
    tvm_tir_var_obj* tv = V("cf", F64);
    cf = LET(tv, cf, ADD(R(a), DIV(C(k / 2.0), R(tv))));
  }
  E tail = SUB(C(1), DIV(MUL(R(e), C(0.5641895835477563 /* 1/sqrt(pi) */)), R(t)));
  tail = LET(t, cf, tail);
  E body = COPYSIGN(SEL(LT(R(a), C(2)), series, tail), R(x));
  body = LET(e, eval, body);
  body = LET(a2lo, FMA(R(a), R(a), NEG(R(a2))), body);
  body = LET(a2, MUL(R(a), R(a)), body);
  /* |x| clamped to 6, where erf is 1 in float64 (and x^2 stays finite) */
  E ax = SEL(GT(FABS(R(x)), C(6)), C(6), FABS(R(x)));
  return LET(x, x_in, LET(a, ax, SEL(ISNAN(R(x)), R(x), body)));
}

/* sin / cos / tan of x_in (consumed): x = n pi/2 + r with pi/2 in fdlibm's four parts (33-bit
 * leading parts, so n p exact for |n| < 2^20), r as a double-double (r, rlo), then fdlibm's
 * sin and cos kernels on [-pi/4, pi/4] chosen and signed by n mod 4; tan = sin / cos. Accurate
 * for |x| < 2^20 pi/2; beyond, the reduction loses what n p's rounding loses. */
enum { K_SIN, K_COS, K_TAN };

static E sin_kernel(tvm_tir_var_obj* r, tvm_tir_var_obj* rlo) {
  static const double S[6] = {-1.66666666666666324348e-01, 8.33333333332248946124e-03,
                              -1.98412698298579493134e-04, 2.75573137070700676789e-06,
                              -2.50507602534068634195e-08, 1.58969099521155010221e-10};
  tvm_tir_var_obj *z = V("z", F64), *v = V("v", F64);
  double c[5] = {S[5], S[4], S[3], S[2], S[1]};
  /* r - ((z (rlo / 2 - v rr) - rlo) - v S1), rr = S2 + z (S3 + ...) */
  E rr = horner(z, c, 5);
  E body = SUB(R(r), SUB(SUB(MUL(R(z), SUB(MUL(C(0.5), R(rlo)), MUL(R(v), rr))), R(rlo)),
                         MUL(R(v), C(S[0]))));
  return LET(z, MUL(R(r), R(r)), LET(v, MUL(R(z), R(r)), body));
}

static E cos_kernel(tvm_tir_var_obj* r, tvm_tir_var_obj* rlo) {
  static const double Cc[6] = {4.16666666666666019037e-02, -1.38888888888741095749e-03,
                               2.48015872894767294178e-05, -2.75573143513906633035e-07,
                               2.08757232129817482790e-09, -1.13596475577881948265e-11};
  tvm_tir_var_obj *z = V("z", F64), *hz = V("hz", F64), *w = V("w", F64);
  double c[6] = {Cc[5], Cc[4], Cc[3], Cc[2], Cc[1], Cc[0]};
  /* w + (((1 - w) - hz) + (z rr - r rlo)), rr = z (C1 + z (C2 + ...)), hz = z / 2, w = 1 - hz */
  E rr = MUL(R(z), horner(z, c, 6));
  E body = ADD(R(w), ADD(SUB(SUB(C(1), R(w)), R(hz)), SUB(MUL(R(z), rr), MUL(R(r), R(rlo)))));
  return LET(z, MUL(R(r), R(r)), LET(hz, MUL(C(0.5), R(z)), LET(w, SUB(C(1), R(hz)), body)));
}

/* sin (or cos) of n pi/2 + r from s = sin r and c = cos r, q = n: the odd quadrants swap s and
 * c; sin is negative in quadrants 2 and 3, cos in 1 and 2. */
static E quadrant(tvm_tir_var_obj* q, tvm_tir_var_obj* sn, tvm_tir_var_obj* cs, bool cos) {
  E odd = EQ(BAND(R(q), CI(1)), CI(1));
  E v = cos ? SEL(odd, R(sn), R(cs)) : SEL(odd, R(cs), R(sn));
  E neg = EQ(BAND(cos ? ADD(R(q), CI(1)) : R(q), CI(2)), CI(2));
  tvm_tir_var_obj* t = V("t", F64);
  return LET(t, v, SEL(neg, NEG(R(t)), R(t)));
}

static E expand_trig(E x_in, int kind) {
  static const double kP1 = 1.57079632673412561417e+00, kP2 = 6.07710050630396597660e-11,
                      kP3 = 2.02226624871116645580e-21, kP3t = 8.47842766036889956997e-32,
                      kInvPio2 = 6.36619772367581382433e-01;
  tvm_tir_var_obj *x = V("x", F64), *xs = V("xs", F64), *nf = V("nf", F64), *q = V("q", I64),
                  *a = V("a", F64), *b = V("b", F64), *r1 = V("r1", F64), *bb = V("bb", F64),
                  *e1 = V("e1", F64), *lo = V("lo", F64), *r = V("r", F64), *rlo = V("rlo", F64),
                  *sn = V("sn", F64), *cs = V("cs", F64);
  /* quadrant results: sin q=0..3: s, c, -s, -c; cos: c, -s, -c, s */
  E result;
  if (kind == K_SIN) {
    result = quadrant(q, sn, cs, false);
  } else if (kind == K_COS) {
    result = quadrant(q, sn, cs, true);
  } else {
    result = DIV(quadrant(q, sn, cs, false), quadrant(q, sn, cs, true));
  }
  E body = LET(sn, sin_kernel(r, rlo), LET(cs, cos_kernel(r, rlo), result));
  body = LET(rlo, SUB(R(lo), SUB(R(r), R(r1))), body);
  body = LET(r, ADD(R(r1), R(lo)), body);
  body = LET(lo, SUB(SUB(R(e1), MUL(R(nf), C(kP3))), MUL(R(nf), C(kP3t))), body);
  /* TwoSum: r1 + e1 = a - b exactly */
  body = LET(e1, ADD(SUB(R(a), SUB(R(r1), R(bb))), SUB(NEG(R(b)), R(bb))), body);
  body = LET(bb, SUB(R(r1), R(a)), body);
  body = LET(r1, SUB(R(a), R(b)), body);
  body = LET(b, MUL(R(nf), C(kP2)), body); /* exact: 33 bits times n < 2^20 */
  body = LET(a, FMA(NEG(R(nf)), C(kP1), R(xs)), body);
  body = LET(q, tvm_tir_cast_take(I64, R(nf)), body);
  body = LET(nf, CALL1(F64, "tir.nearbyint", MUL(R(xs), C(kInvPio2))), body);
  /* NaN and infinities give NaN; |x| clamped so that n converts to an integer */
  body = LET(xs,
             SEL(CALL1(TVM_TIR_BOOL, "tir.isfinite", R(x)),
                 SEL(GT(FABS(R(x)), C(1e15)), COPYSIGN(C(1e15), R(x)), R(x)), C(0)),
             body);
  return LET(x, x_in, SEL(CALL1(TVM_TIR_BOOL, "tir.isfinite", R(x)), body, C(NAN)));
}

/* pow(x, y) for finite y and finite x > 0 (the caller handles the rest): y log(x) in
 * double-double, then e^(hi + lo). log(x) = k ln2 + log(m), m = 1 + f in [sqrt(1/2), sqrt(2)),
 * log(m) = 2 atanh(s) = 2s + s^3 (2/3 + 2 s^2/5 + ...), s = f / (2 + f) as a double-double,
 * the series tail in double (it is below 1% of 2s). */
static E pow_core(tvm_tir_var_obj* x, tvm_tir_var_obj* y) {
  tvm_tir_var_obj *sub = V("sub", TVM_TIR_BOOL), *b = V("b", I64), *m0 = V("m0", F64),
                  *big = V("big", TVM_TIR_BOOL), *f = V("f", F64), *dk = V("dk", F64),
                  *t = V("t", F64), *tlo = V("tlo", F64), *sh = V("sh", F64), *sl = V("sl", F64),
                  *z = V("z", F64), *tail = V("tail", F64), *hi = V("hi", F64), *lo = V("lo", F64),
                  *lh = V("lh", F64), *ll = V("ll", F64), *a = V("a", F64), *sm = V("sm", F64),
                  *e = V("e", F64), *lt = V("lt", F64), *ph = V("ph", F64), *pl = V("pl", F64),
                  *ok = V("ok", TVM_TIR_BOOL), *phc = V("phc", F64), *nf = V("nf", F64),
                  *n = V("n", I64), *r = V("r", F64), *s2 = V("s2", F64), *l2 = V("l2", F64);
  /* e^(phc + pl): as exp, the correction pl dropped where ph was clamped */
  E rr = FMA(NEG(R(nf)), C(kLn2Lo), FMA(NEG(R(nf)), C(kLn2Hi), R(phc)));
  E ex = LET(
      nf, CALL1(F64, "tir.nearbyint", MUL(R(phc), C(kLog2e))),
      LET(n, tvm_tir_cast_take(I64, R(nf)), LET(r, rr, exp_core(n, r, SEL(R(ok), R(pl), C(0))))));
  E body = LET(phc, SEL(R(ok), R(ph), SEL(LT(R(ph), C(0)), C(-746), C(710))), ex);
  body = LET(ok, tvm_tir_and_take(GT(R(ph), C(-746)), LT(R(ph), C(710))), body);
  /* y (s2 + l2) as ph + pl */
  body = LET(pl, FMA(R(y), R(l2), FMA(R(y), R(s2), NEG(R(ph)))), body);
  body = LET(ph, MUL(R(y), R(s2)), body);
  /* sm + lt renormalised (lt, k ln2_lo among it, may exceed an ulp of sm) */
  body = LET(l2, SUB(R(lt), SUB(R(s2), R(sm))), body);
  body = LET(s2, ADD(R(sm), R(lt)), body);
  /* k ln2_hi (exact) + lh by TwoSum as sm + e, the rest in lt */
  body = LET(lt, ADD(ADD(R(e), R(ll)), MUL(R(dk), C(kLn2Lo))), body);
  body = LET(e, ADD(SUB(R(a), SUB(R(sm), SUB(R(sm), R(a)))), SUB(R(lh), SUB(R(sm), R(a)))), body);
  body = LET(sm, ADD(R(a), R(lh)), body);
  body = LET(a, MUL(R(dk), C(kLn2Hi)), body);
  /* log(m) = hi + lo normalised to lh + ll */
  body = LET(ll, SUB(R(lo), SUB(R(lh), R(hi))), body);
  body = LET(lh, ADD(R(hi), R(lo)), body);
  body = LET(lo, FMA(C(2), R(sl), R(tail)), body);
  body = LET(hi, MUL(C(2), R(sh)), body);
  /* tail = s^3 (2/3 + 2/5 s^2 + ... + 2/25 s^22) */
  double c[11];
  for (int k = 0; k < 11; ++k) c[k] = 2.0 / (2 * (11 - k) + 1); /* 2/23 .. 2/3 */
  body = LET(tail, MUL(MUL(R(sh), R(z)), horner(z, c, 11)), body);
  body = LET(z, MUL(R(sh), R(sh)), body);
  /* s = f / t as sh + sl, t = 2 + f as t + tlo */
  body = LET(sl, DIV(SUB(FMA(NEG(R(sh)), R(t), R(f)), MUL(R(sh), R(tlo))), R(t)), body);
  body = LET(sh, DIV(R(f), R(t)), body);
  body = LET(tlo, SUB(R(f), SUB(R(t), C(2))), body);
  body = LET(t, ADD(C(2), R(f)), body);
  E e0 = SUB(SUB(SHR(R(b), CI(52)), CI(1023)), SEL(R(sub), CI(54), CI(0)));
  body = LET(dk, tvm_tir_cast_take(F64, ADD(e0, SEL(R(big), CI(1), CI(0)))), body);
  body = LET(f, SUB(SEL(R(big), MUL(R(m0), C(0.5)), R(m0)), C(1)), body);
  body = LET(big, GT(R(m0), C(1.4142135623730951)), body);
  body = LET(m0, FBITS(BOR(BAND(R(b), CI(0x000FFFFFFFFFFFFFLL)), CI(0x3FF0000000000000LL))), body);
  body = LET(b, BITS(SEL(R(sub), MUL(R(x), C(18014398509481984.0)), R(x))), body);
  return LET(sub, LT(R(x), C(2.2250738585072014e-308)), body);
}

/* pow with C99's special cases (Annex F): y == 0 or x == 1: 1; NaN; y infinite; x zero or
 * infinite; x < 0: a sign for odd integer y, NaN for non-integer y. */
static E expand_pow(E x_in, E y_in) {
  tvm_tir_var_obj *x = V("x", F64), *y = V("y", F64), *ax = V("ax", F64), *safe = V("xs", F64),
                  *ys = V("ys", F64), *yint = V("yint", TVM_TIR_BOOL),
                  *odd = V("odd", TVM_TIR_BOOL), *neg = V("neg", TVM_TIR_BOOL),
                  *mag = V("mag", F64), *half = V("h", F64);
  E isinf_y = CALL1(TVM_TIR_BOOL, "tir.isinf", R(y));
  E finite_pos = tvm_tir_and_take(CALL1(TVM_TIR_BOOL, "tir.isfinite", R(ax)), GT(R(ax), C(0)));
  /* the magnitude */
  E m = SEL(CALL1(TVM_TIR_BOOL, "tir.isinf", R(y)),
            SEL(EQ(R(ax), C(1)), C(1), SEL(EQ(LT(R(ax), C(1)), GT(R(y), C(0))), C(0), C(INFINITY))),
            SEL(EQ(R(ax), C(0)), SEL(LT(R(y), C(0)), C(INFINITY), C(0)),
                SEL(CALL1(TVM_TIR_BOOL, "tir.isinf", R(ax)), SEL(LT(R(y), C(0)), C(0), C(INFINITY)),
                    LET(safe, SEL(finite_pos, R(ax), C(1)),
                        LET(ys, SEL(CALL1(TVM_TIR_BOOL, "tir.isfinite", R(y)), R(y), C(0)),
                            pow_core(safe, ys))))));
  E signed_m = SEL(tvm_tir_and_take(R(neg), R(odd)), NEG(R(mag)), R(mag));
  E body =
      SEL(OR(EQ(R(y), C(0)), EQ(R(x), C(1))), C(1),
          SEL(OR(ISNAN(R(x)), ISNAN(R(y))), C(NAN),
              SEL(tvm_tir_and_take(LT(R(x), C(0)), tvm_tir_and_take(tvm_tir_not_take(R(yint)),
                                                                    tvm_tir_not_take(isinf_y))),
                  C(NAN), LET(mag, m, signed_m))));
  /* y an odd integer: y an integer whose half is not (|y| >= 2^53 and inf are even) */
  body =
      LET(odd,
          tvm_tir_and_take(R(yint), tvm_tir_ne_take(CALL1(F64, "tir.nearbyint", R(half)), R(half))),
          body);
  body = LET(half, MUL(R(y), C(0.5)), body);
  body = LET(yint, EQ(CALL1(F64, "tir.nearbyint", R(y)), R(y)), body);
  body = LET(neg, LT(COPYSIGN(C(1), R(x)), C(0)), body); /* -0 included */
  body = LET(ax, FABS(R(x)), body);
  return LET(x, x_in, LET(y, y_in, body));
}

/* ---- The pass --------------------------------------------------------------------------- */
static void* expand_call(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_call_obj* c = node;
  DLDataType t = c->expr.dtype;
  /* float32 / float16 erf and log1p, which PTX has no approximation of: in float64, rounded
   * back once */
  if (t.code == kDLFloat && (t.bits == 32 || t.bits == 16) && t.lanes == 1 &&
      tvm_tir_kind_of(c->op) == TVM_TIR_KIND_Op && tvm_tir_array_size(c->args) == 1 &&
      (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_erf) ||
       tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_log1p))) {
    E x = tvm_tir_cast_take(F64, tvm_tir_ref(tvm_tir_array_at(c->args, 0)));
    E r = tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_erf) ? expand_erf(x) : expand_log1p(x);
    return tvm_tir_cast_take(t, r);
  }
  if (t.code != kDLFloat || t.bits != 64 || t.lanes != 1 ||
      tvm_tir_kind_of(c->op) != TVM_TIR_KIND_Op)
    return tvm_tir_ref((void*)c);
  const void* op = c->op;
  if (tvm_tir_array_size(c->args) == 2 && tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_pow))
    return expand_pow(tvm_tir_ref(tvm_tir_array_at(c->args, 0)),
                      tvm_tir_ref(tvm_tir_array_at(c->args, 1)));
  if (tvm_tir_array_size(c->args) != 1) return tvm_tir_ref((void*)c);
  E x = tvm_tir_ref(tvm_tir_array_at(c->args, 0));
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_exp)) return expand_exp(x, K_EXP);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_exp2)) return expand_exp(x, K_EXP2);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_exp10)) return expand_exp(x, K_EXP10);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_log)) return expand_log(x, K_LN);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_log2)) return expand_log(x, K_LOG2);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_log10)) return expand_log(x, K_LOG10);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_log1p)) return expand_log1p(x);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tanh)) return expand_tanh(x);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_sinh)) return expand_sinh_cosh(x, true);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_cosh)) return expand_sinh_cosh(x, false);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_sigmoid)) return expand_sigmoid(x);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_erf)) return expand_erf(x);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_sin)) return expand_trig(x, K_SIN);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_cos)) return expand_trig(x, K_COS);
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tan)) return expand_trig(x, K_TAN);
  tvm_ffi_release(x);
  return tvm_tir_ref((void*)c);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_Call] = expand_call;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  if (!body) return NULL;
  if (body == f->body) {
    tvm_ffi_release(body);
    return tvm_tir_ref((void*)f);
  }
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_expand_f64_math(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
