/*
 * transform_expand_f64_math.c: expand_f64_math, float64 transcendental functions written out as
 * TIR arithmetic (add, mul, fma, div, nearbyint, reinterpret and integer bit operations), for
 * targets without a math library: CUDA kernels, where libdevice is not used (libcodegen runs it
 * on a CUDA build's functions after the GPU passes). Every scalar float64 call of exp, exp2,
 * exp10, log, log2, log10, log1p, sinh, cosh, tanh, sigmoid and erf becomes Let-bound
 * arithmetic; other calls (sin, cos, pow, vectors, other dtypes) are left alone.
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
static E NEG(E a) { return tvm_tir_neg_take(a); }
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

/* ---- The pass --------------------------------------------------------------------------- */
static void* expand_call(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_call_obj* c = node;
  DLDataType t = c->expr.dtype;
  if (t.code != kDLFloat || t.bits != 64 || t.lanes != 1 ||
      tvm_tir_kind_of(c->op) != TVM_TIR_KIND_Op || tvm_tir_array_size(c->args) != 1)
    return tvm_tir_ref((void*)c);
  const void* op = c->op;
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
