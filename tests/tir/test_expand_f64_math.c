/*
 * test_expand_f64_math.c: expand_f64_math, the float64 transcendental functions written out as
 * arithmetic for CUDA kernels. Each function's expansion (B[i] = f(A[i]) after the pass, no call
 * of f left) is interpreted on the CPU, whose float64 arithmetic is IEEE's as the GPU's is, on
 * 20,000 points across its domain and the special values, and compared with the C library in
 * units in the last place: the largest distance must stay within the bound the pass documents
 * (docs/tir-decisions.md), and special values (NaN, infinities, zeros, subnormals) must match.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/tir/analysis.h>
#include <tvm/tir/builder.h>
#include <tvm/tir/interp.h>
#include <tvm/tir/transform.h>
#include <tvm/tir/visit.h>

#include "test_util.h"

/* B[i] = op(A[i]) over n float64 elements. */
static void* make_func(const char* op, int64_t n) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT64, n);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT64, n);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* store = tvm_tir_store_take(
      tvm_tir_ref(B),
      tvm_tir_call_take(TVM_TIR_FLOAT64, op, tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i))),
      tvm_tir_ref(i));
  void* loop = tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int((int32_t)n), store);
  return tvm_tir_func_take("f", tvm_tir_list_take(A, B), loop);
}

typedef struct {
  const void* op;
  int n;
} count_ctx;

static int count_call(tvm_tir_visitor* v, const void* node) {
  count_ctx* c = v->ctx;
  if (((const tvm_tir_call_obj*)node)->op == c->op) c->n++;
  return TVM_TIR_VISIT_CONTINUE;
}

static int calls_of(const void* f, const char* op) {
  count_ctx c = {tvm_tir_op_get(op), 0};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Call] = count_call;
  v.ctx = &c;
  tvm_tir_visit(&v, ((const tvm_tir_prim_func_obj*)f)->body);
  tvm_tir_visitor_free(&v);
  tvm_ffi_release((void*)c.op);
  return c.n;
}

/* Distance in units in the last place; 0 for two NaNs, huge for NaN against a number. */
static double ulps(double a, double b) {
  if (isnan(a) || isnan(b)) return isnan(a) && isnan(b) ? 0 : 1e300;
  if (a == b) return 0;
  int64_t ia, ib;
  memcpy(&ia, &a, 8);
  memcpy(&ib, &b, 8);
  if (ia < 0) ia = INT64_MIN - ia;
  if (ib < 0) ib = INT64_MIN - ib;
  __int128 d = (__int128)ia - (__int128)ib; /* exact: the keys are ordered like the doubles */
  return fabs((double)d);
}

/* e^x / (1 + e^x) for x < 0: 1 / (1 + e^-x) would lose the subnormal results */
static double sigmoid(double x) { return x < 0 ? exp(x) / (1 + exp(x)) : 1 / (1 + exp(-x)); }
static double exp10_(double x) { return pow(10, x); }

typedef struct {
  const char* op;
  double (*ref)(double);
  double lo, hi; /* the random points' range */
  double bound;  /* ulps allowed */
  bool bounded;  /* accurate inside [lo, hi] only */
} math_case;

#define N 20000

static void check(const math_case* c) {
  void* f = make_func(c->op, N);
  void* g = f ? tvm_tir_transform_expand_f64_math(f) : NULL;
  if (!g) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s: %s\n", c->op, e ? tvm_ffi_error_message(e) : "-");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    tvm_ffi_release(f);
    return;
  }
  CHECK_EQ_INT(calls_of(f, c->op), 1);
  CHECK_EQ_INT(calls_of(g, c->op), 0);
  if (tvm_tir_verify_well_formed(g) != 0) { /* every Let variable bound once */
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s: %s\n", c->op, e ? tvm_ffi_error_message(e) : "-");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  static double a[N], b[N];
  static const double special[] = {0.0,
                                   -0.0,
                                   INFINITY,
                                   -INFINITY,
                                   NAN,
                                   1.0,
                                   -1.0,
                                   0.5,
                                   2.0,
                                   1e-310,
                                   -1e-310,
                                   4.9e-324,
                                   2.2250738585072014e-308,
                                   1e-300,
                                   1e300,
                                   -1e300,
                                   709.7,
                                   709.78,
                                   710,
                                   -708,
                                   -745,
                                   -746,
                                   88,
                                   22,
                                   -22,
                                   21.99,
                                   2.5,
                                   -2.5,
                                   2,
                                   1.9999999,
                                   1.5707963267948966,
                                   3.141592653589793,
                                   4.71238898038469,
                                   -6.283185307179586,
                                   355.0,
                                   103993.0,
                                   1647099.0,
                                   6,
                                   -6,
                                   6.5,
                                   1e-20,
                                   -1e-20,
                                   0.3465735902799727,
                                   1.4142135623730951,
                                   0.7071067811865476};
  int ns = (int)(sizeof(special) / sizeof(special[0]));
  unsigned seed = 12345;
  for (int k = 0; k < N; ++k) {
    if (k < ns) {
      /* a bounded domain (sin, cos, tan) takes the special values inside it and the
       * non-finite ones */
      a[k] = special[k];
      if (c->bounded && isfinite(a[k]) && (a[k] < c->lo || a[k] > c->hi)) a[k] = 0;
      continue;
    }
    seed = seed * 1103515245u + 12345u;
    double u = (double)(seed >> 4) / (double)(1u << 28);
    seed = seed * 1103515245u + 12345u;
    u += (double)(seed >> 4) / (double)(1u << 28) / (double)(1u << 28);
    if (c->lo > 0 && k % 2) /* positive domains: also logarithmically spread */
      a[k] = exp(log(c->lo) + u * (log(c->hi) - log(c->lo)));
    else
      a[k] = c->lo + u * (c->hi - c->lo);
  }
  memset(b, 0, sizeof(b));
  DLTensor ta = {a, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, (int64_t[]){N}, NULL, 0};
  DLTensor tb = {b, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, (int64_t[]){N}, NULL, 0};
  TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb)};
  if (tvm_tir_interp_run(g, NULL, args, 2, NULL) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s: %s\n", c->op, e ? tvm_ffi_error_message(e) : "-");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  } else {
    double worst = 0, at = 0, got = 0;
    for (int k = 0; k < N; ++k) {
      double want = c->ref(a[k]);
      double d = ulps(b[k], want);
      /* results below the smallest normal count in units of the smallest subnormal */
      if (d > worst) {
        worst = d;
        at = a[k];
        got = b[k];
      }
    }
    printf("%-12s max %.0f ulp (at %.17g: %.17g, libm %.17g), bound %.0f\n", c->op, worst, at, got,
           c->ref(at), c->bound);
    if (worst > c->bound) {
      for (int k = 0; k < N; ++k)
        if (a[k] == at)
          fprintf(stderr, "%s(%.17g) = %.17g, libm %.17g\n", c->op, at, b[k], c->ref(at));
      g_test_failed_checks++;
    }
  }
  tvm_ffi_release(f);
  tvm_ffi_release(g);
}

TEST(against_libm) {
  static const math_case cases[] = {
      {"tir.exp", exp, -750, 712, 1},
      {"tir.exp2", exp2, -1080, 1030, 1},
      {"tir.exp10", exp10_, -330, 310, 2},
      {"tir.log", log, 1e-310, 1e308, 1},
      {"tir.log2", log2, 1e-310, 1e308, 2},
      {"tir.log10", log10, 1e-310, 1e308, 2},
      {"tir.log1p", log1p, -0.999, 1e6, 2},
      {"tir.tanh", tanh, -30, 30, 2},
      {"tir.sinh", sinh, -720, 720, 2},
      {"tir.cosh", cosh, -720, 720, 2},
      {"tir.sigmoid", sigmoid, -800, 800, 2},
      {"tir.erf", erf, -7, 7, 6},
      /* the reduction is exact for |x| < 2^20 pi/2 */
      {"tir.sin", sin, -1.6e6, 1.6e6, 2, true},
      {"tir.cos", cos, -1.6e6, 1.6e6, 2, true},
      {"tir.tan", tan, -1.6e6, 1.6e6, 4, true},
      {"tir.sin", sin, -4, 4, 2, true},
      {"tir.cos", cos, -4, 4, 2, true},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) check(&cases[k]);
}

/* pow(x, y): random x over [1e-5, 1e5] (both signs) and y over [-60, 60] (every fourth an
 * integer, so that negative x has values), and C99's special cases. */
TEST(pow_against_libm) {
  enum { M = 20000 };
  tvm_tir_buffer_obj* X = tvm_tir_buffer_decl("X", TVM_TIR_FLOAT64, M);
  tvm_tir_buffer_obj* Y = tvm_tir_buffer_decl("Y", TVM_TIR_FLOAT64, M);
  tvm_tir_buffer_obj* P = tvm_tir_buffer_decl("P", TVM_TIR_FLOAT64, M);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* store =
      tvm_tir_store_take(tvm_tir_ref(P),
                         tvm_tir_call_take(TVM_TIR_FLOAT64, "tir.pow",
                                           tvm_tir_load_take(tvm_tir_ref(X), tvm_tir_ref(i)),
                                           tvm_tir_load_take(tvm_tir_ref(Y), tvm_tir_ref(i))),
                         tvm_tir_ref(i));
  void* f = tvm_tir_func_take("p", tvm_tir_list_take(X, Y, P),
                              tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int(M), store));
  void* g = f ? tvm_tir_transform_expand_f64_math(f) : NULL;
  CHECK(g != NULL);
  if (!g) {
    tvm_ffi_release(f);
    return;
  }
  CHECK_EQ_INT(calls_of(g, "tir.pow"), 0);
  CHECK_EQ_INT(tvm_tir_verify_well_formed(g), 0);
  static double x[M], y[M], p[M];
  static const double sp[][2] = {
      {2, 0},          {NAN, 0},        {1, NAN},         {1, INFINITY},    {-1, INFINITY},
      {-1, -INFINITY}, {0.5, INFINITY}, {2, INFINITY},    {0.5, -INFINITY}, {2, -INFINITY},
      {0, 3},          {-0.0, 3},       {-0.0, -3},       {0, -2},          {-0.0, -2.5},
      {-0.0, 2.5},     {INFINITY, 2},   {INFINITY, -2},   {-INFINITY, 3},   {-INFINITY, -3},
      {-INFINITY, 2},  {-2, 3},         {-2, 2},          {-2, 0.5},        {-2, 1e300},
      {NAN, 1},        {2, NAN},        {10, 308},        {10, 309},        {2, -1074},
      {2, -1075},      {0.5, 1074},     {1.0000001, 1e9}, {-8, 1.0 / 3},    {3, 1e-300},
      {1e300, 1.5}};
  int ns = (int)(sizeof(sp) / sizeof(sp[0]));
  unsigned seed = 777;
  for (int k = 0; k < M; ++k) {
    if (k < ns) {
      x[k] = sp[k][0];
      y[k] = sp[k][1];
      continue;
    }
    seed = seed * 1103515245u + 12345u;
    double u = (double)(seed >> 4) / (double)(1u << 28);
    seed = seed * 1103515245u + 12345u;
    double v = (double)(seed >> 4) / (double)(1u << 28);
    x[k] = exp(log(1e-5) + u * (log(1e5) - log(1e-5))) * (seed & 1 ? -1 : 1);
    y[k] = -60 + 120 * v;
    if (k % 4 == 0) y[k] = nearbyint(y[k]);
  }
  DLTensor tx = {x, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, (int64_t[]){M}, NULL, 0};
  DLTensor ty = {y, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, (int64_t[]){M}, NULL, 0};
  DLTensor tp = {p, {kDLCPU, 0}, 1, {kDLFloat, 64, 1}, (int64_t[]){M}, NULL, 0};
  TVMFFIAny args[3] = {tvm_ffi_any_dltensor(&tx), tvm_ffi_any_dltensor(&ty),
                       tvm_ffi_any_dltensor(&tp)};
  if (tvm_tir_interp_run(g, NULL, args, 3, NULL) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "pow: %s\n", e ? tvm_ffi_error_message(e) : "-");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  } else {
    double worst = 0;
    int at = 0, bad_special = 0;
    for (int k = 0; k < M; ++k) {
      double want = pow(x[k], y[k]);
      double d = ulps(p[k], want);
      if (k < ns && (d != 0 || (!isnan(want) && signbit(p[k]) != signbit(want)))) {
        if (bad_special++ < 5)
          fprintf(stderr, "pow(%g, %g) = %.17g, libm %.17g\n", x[k], y[k], p[k], want);
      }
      if (d > worst) {
        worst = d;
        at = k;
      }
    }
    printf("%-12s max %.0f ulp (at pow(%.17g, %.17g): %.17g, libm %.17g), bound 2\n", "tir.pow",
           worst, x[at], y[at], p[at], pow(x[at], y[at]));
    CHECK(worst <= 2);
    CHECK_EQ_INT(bad_special, 0);
  }
  tvm_ffi_release(f);
  tvm_ffi_release(g);
}

/* float32 erf and log1p: computed in float64 and rounded once, within 1 ulp of erff / log1pf
 * (which are not correctly rounded either). */
TEST(float32_erf_log1p) {
  enum { M = 20000 };
  static const char* const ops[2] = {"tir.erf", "tir.log1p"};
  for (int o = 0; o < 2; ++o) {
    tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, M);
    tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, M);
    tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
    void* store =
        tvm_tir_store_take(tvm_tir_ref(B),
                           tvm_tir_call_take(TVM_TIR_FLOAT32, ops[o],
                                             tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i))),
                           tvm_tir_ref(i));
    void* f = tvm_tir_func_take("f", tvm_tir_list_take(A, B),
                                tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int(M), store));
    void* g = f ? tvm_tir_transform_expand_f64_math(f) : NULL;
    CHECK(g != NULL && calls_of(g, ops[o]) == 0);
    static float a[M], b[M];
    unsigned seed = 4242;
    for (int k = 0; k < M; ++k) {
      seed = seed * 1103515245u + 12345u;
      double u = (double)(seed >> 4) / (double)(1u << 28);
      a[k] = o == 0
                 ? (float)(-5 + 10 * u)
                 : (float)(exp(log(1e-6) + u * (log(1e6) - log(1e-6))) - (k % 3 == 0 ? 0.9999 : 0));
    }
    DLTensor ta = {a, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, (int64_t[]){M}, NULL, 0};
    DLTensor tb = {b, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, (int64_t[]){M}, NULL, 0};
    TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb)};
    if (!g || tvm_tir_interp_run(g, NULL, args, 2, NULL) != 0) {
      void* e = tvm_ffi_error_take();
      fprintf(stderr, "%s float32: %s\n", ops[o], e ? tvm_ffi_error_message(e) : "-");
      tvm_ffi_release(e);
      g_test_failed_checks++;
    } else {
      int worst = 0;
      for (int k = 0; k < M; ++k) {
        float want = o == 0 ? erff(a[k]) : log1pf(a[k]);
        int32_t x, y;
        memcpy(&x, &b[k], 4);
        memcpy(&y, &want, 4);
        if (x < 0) x = INT32_MIN - x;
        if (y < 0) y = INT32_MIN - y;
        int d = abs(x - y);
        if (d > worst) worst = d;
      }
      printf("%-12s float32 max %d ulp against libm's %s, bound 1\n", ops[o], worst,
             o == 0 ? "erff" : "log1pf");
      CHECK(worst <= 1);
    }
    tvm_ffi_release(f);
    tvm_ffi_release(g);
  }
}

/* What the pass leaves alone: float32 calls, the functions it does not write out (atan). */
TEST(leaves_the_rest) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body =
      tvm_tir_store_take(tvm_tir_ref(A),
                         tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp",
                                           tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i))),
                         tvm_tir_ref(i));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(A),
                              tvm_tir_serial_take(i, tvm_tir_int(0), tvm_tir_int(4), body));
  void* g = f ? tvm_tir_transform_expand_f64_math(f) : NULL;
  CHECK(g != NULL && g == f); /* nothing changed: the same function */
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  void* s = make_func("tir.atan", 8);
  void* t = s ? tvm_tir_transform_expand_f64_math(s) : NULL;
  CHECK(t != NULL && calls_of(t, "tir.atan") == 1);
  tvm_ffi_release(s);
  tvm_ffi_release(t);
}

int main(void) {
  RUN(against_libm);
  RUN(pow_against_libm);
  RUN(float32_erf_log1p);
  RUN(leaves_the_rest);
  return test_summary();
}
