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
      a[k] = special[k];
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
      {"tir.exp", exp, -750, 712, 1},         {"tir.exp2", exp2, -1080, 1030, 1},
      {"tir.exp10", exp10_, -330, 310, 2},    {"tir.log", log, 1e-310, 1e308, 1},
      {"tir.log2", log2, 1e-310, 1e308, 2},   {"tir.log10", log10, 1e-310, 1e308, 2},
      {"tir.log1p", log1p, -0.999, 1e6, 2},   {"tir.tanh", tanh, -30, 30, 2},
      {"tir.sinh", sinh, -720, 720, 2},       {"tir.cosh", cosh, -720, 720, 2},
      {"tir.sigmoid", sigmoid, -800, 800, 2}, {"tir.erf", erf, -7, 7, 6},
  };
  for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); ++k) check(&cases[k]);
}

/* What the pass leaves alone: float32, vectors' elements are not expanded, sin, pow. */
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
  void* s = make_func("tir.sin", 8);
  void* t = s ? tvm_tir_transform_expand_f64_math(s) : NULL;
  CHECK(t != NULL && calls_of(t, "tir.sin") == 1);
  tvm_ffi_release(s);
  tvm_ffi_release(t);
}

int main(void) {
  RUN(against_libm);
  RUN(leaves_the_rest);
  return test_summary();
}
