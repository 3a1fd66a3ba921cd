/*
 * test_relax_more_ops.c: nn.batch_flatten, outer, eye, eye_like and nn.pixel_shuffle
 * (tests/corpus/relax/more_ops.py, one function each) legalized, then run two ways on random
 * inputs: in the Relax reference evaluator (the kernels in libtir's interpreter) and compiled
 * (LLVM kernels in libvm), each checked against the operator written as plain C loops below;
 * symbolic functions at two sizes. Then the located errors of bad calls.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "exec_mode_testing.h"
#include "script_testing.h"
#include "values_testing.h"
#include "corpus_ops_testing.h"

static float* F(void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* ---- nn.batch_flatten ------------------------------------------------------------------------ */
/* Row b of the result is sample b's elements in row-major order: x's buffer itself. */
TEST(batch_flatten) {
  void* x[1] = {rv_rand(4, (int64_t[]){2, 3, 4, 5})};
  double want[120];
  for (int b = 0; b < 2; ++b) {
    for (int c = 0; c < 3; ++c)
      for (int h = 0; h < 4; ++h)
        for (int w = 0; w < 5; ++w) want[b * 60 + (c * 4 + h) * 5 + w] = F(x[0])[((b * 3 + c) * 4 + h) * 5 + w];
  }
  expect2("bflat", x, 1, 2, (int64_t[]){2, 60}, F32, want);
  release_all(x, 1);
  /* (n, 3, m) at n = 2, m = 5 and n = 4, m = 1 */
  static const int64_t kSizes[2][2] = {{2, 5}, {4, 1}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], m = kSizes[s][1];
    void* y[1] = {rv_rand(3, (int64_t[]){n, 3, m})};
    double w[60];
    for (int64_t b = 0; b < n; ++b)
      for (int64_t c = 0; c < 3; ++c)
        for (int64_t k = 0; k < m; ++k) w[b * 3 * m + c * m + k] = F(y[0])[(b * 3 + c) * m + k];
    expect2("bflat_sym", y, 1, 2, (int64_t[]){n, 3 * m}, F32, w);
    release_all(y, 1);
  }
}

/* ---- outer ----------------------------------------------------------------------------------- */
TEST(outer) {
  void* a[2] = {rv_rand(1, (int64_t[]){3}), rv_rand(1, (int64_t[]){4})};
  double want[64];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) want[i * 4 + j] = (double)(F(a[0])[i] * F(a[1])[j]);
  expect2("outer", a, 2, 2, (int64_t[]){3, 4}, F32, want);
  release_all(a, 2);
  static const int64_t kSizes[2][2] = {{5, 2}, {1, 7}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], m = kSizes[s][1];
    void* b[2] = {rv_rand(1, &n), rv_rand(1, &m)};
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < m; ++j) want[i * m + j] = (double)(F(b[0])[i] * F(b[1])[j]);
    expect2("outer_sym", b, 2, 2, (int64_t[]){n, m}, F32, want);
    release_all(b, 2);
  }
  /* x1's dtype (int64) is the result's; x2's float32 elements are cast (truncated) to it */
  void* c[2] = {rv_rand_int(1, (int64_t[]){3}, -50, 50), rv_rand(1, (int64_t[]){2})};
  const int64_t* ci = tvm_ffi_tensor_dl(c[0])->data;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 2; ++j) want[i * 2 + j] = (double)(ci[i] * (int64_t)F(c[1])[j]);
  expect2("outer_mixed", c, 2, 2, (int64_t[]){3, 2}, tvm_tir_dtype_int(64), want);
  release_all(c, 2);
}

/* ---- eye, eye_like --------------------------------------------------------------------------- */
/* Result i of a tuple-returning fn, both ways, matches want i (ndims 2). */
static void expect2_fields(const char* fn, void** args, int n, int nf, const int64_t (*shapes)[2],
                           const DLDataType* dts, const double* const* wants) {
  TVMFFIAny r[2];
  if (run2(fn, args, n, r)) {
    for (int w = 0; w < 2; ++w) {
      CHECK(r[w].type_index == kTVMFFIArray && tvm_ffi_seq_size(r[w].v_obj) == nf);
      if (r[w].type_index != kTVMFFIArray || tvm_ffi_seq_size(r[w].v_obj) != nf) continue;
      for (int f = 0; f < nf; ++f) {
        int bad = mismatches(tvm_ffi_seq_at(r[w].v_obj, f), 2, shapes[f], dts[f], wants[f]);
        if (bad) {
          fprintf(stderr, "%s field %d (%s): %d differ\n", fn, f, w ? "compiled" : "eval", bad);
        }
        CHECK_EQ_INT(bad, 0);
      }
    }
  }
  tvm_ffi_any_release(&r[0]), tvm_ffi_any_release(&r[1]);
}

/* eye(n, m, k)[i][j] = 1 on the diagonal j == i + k. */
static void eye_of(int64_t n, int64_t m, int64_t k, double* out) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < m; ++j) out[i * m + j] = j == i + k ? 1.0 : 0.0;
}

TEST(eye) {
  /* eye(3, 5, 1); eye(4, k=-1, int32); eye_like(x); eye_like(x, 2, int64) of a (3, 5) x */
  void* x[1] = {rv_rand(2, (int64_t[]){3, 5})};
  double w0[15], w1[16], w2[15], w3[15];
  eye_of(3, 5, 1, w0), eye_of(4, 4, -1, w1), eye_of(3, 5, 0, w2), eye_of(3, 5, 2, w3);
  const int64_t shapes[4][2] = {{3, 5}, {4, 4}, {3, 5}, {3, 5}};
  const DLDataType dts[4] = {F32, tvm_tir_dtype_int(32), F32, tvm_tir_dtype_int(64)};
  const double* wants[4] = {w0, w1, w2, w3};
  expect2_fields("eye", x, 1, 4, shapes, dts, wants);
  release_all(x, 1);
  /* (n, m) at (4, 6) and (5, 2): eye(n, m, -1) and eye_like(x, -2) */
  static const int64_t kSizes[2][2] = {{4, 6}, {5, 2}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], m = kSizes[s][1];
    void* y[1] = {rv_rand(2, (int64_t[]){n, m})};
    double a[30], b[30];
    eye_of(n, m, -1, a), eye_of(n, m, -2, b);
    const int64_t sh[2][2] = {{n, m}, {n, m}};
    const DLDataType dt[2] = {F32, F32};
    const double* wt[2] = {a, b};
    expect2_fields("eye_sym", y, 1, 2, sh, dt, wt);
    release_all(y, 1);
  }
}

/* ---- nn.pixel_shuffle ------------------------------------------------------------------------ */
/* out[b, c, h, w] = x[b, c * r * r + (h % r) * r + w % r, h / r, w / r] (PyTorch's order),
 * for x of shape (nb, cin, hin, win). */
static void pixel_shuffle_of(const float* x, int64_t nb, int64_t cin, int64_t hin, int64_t win,
                             int64_t r, double* out) {
  int64_t co = cin / (r * r), ho = hin * r, wo = win * r;
  for (int64_t b = 0; b < nb; ++b)
    for (int64_t c = 0; c < co; ++c)
      for (int64_t h = 0; h < ho; ++h)
        for (int64_t w = 0; w < wo; ++w) {
          int64_t ci = c * r * r + (h % r) * r + w % r;
          out[((b * co + c) * ho + h) * wo + w] = x[((b * cin + ci) * hin + h / r) * win + w / r];
        }
}

TEST(pixel_shuffle) {
  void* x[1] = {rv_rand(4, (int64_t[]){2, 8, 3, 2})};
  double want[96];
  pixel_shuffle_of(F(x[0]), 2, 8, 3, 2, 2, want);
  expect2("pshuffle", x, 1, 4, (int64_t[]){2, 2, 6, 4}, F32, want);
  release_all(x, 1);
  /* (n, 9, h, w), r = 3, at (1, 2, 3) and (2, 1, 1) */
  static const int64_t kSizes[2][3] = {{1, 2, 3}, {2, 1, 1}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], h = kSizes[s][1], w = kSizes[s][2];
    void* y[1] = {rv_rand(4, (int64_t[]){n, 9, h, w})};
    double ws[108];
    pixel_shuffle_of(F(y[0]), n, 9, h, w, 3, ws);
    expect2("pshuffle_sym", y, 1, 4, (int64_t[]){n, 1, 3 * h, 3 * w}, F32, ws);
    release_all(y, 1);
  }
}

/* ---- Errors, located at the call ------------------------------------------------------------- */
#define SIG(params) "    def f(" params "):\n"
TEST(bad_inputs) {
  test_expect_relax_error(SIG("x: R.Tensor((3,), \"float32\")")
                     "        return R.nn.batch_flatten(x)\n",
                     "ValueError", "bad.py:9:35: error: R.nn.batch_flatten: argument 'data' "
                     "must have ndim >= 2, got 1");
  test_expect_relax_error(SIG("x: R.Shape((3, 4))")
                     "        return R.nn.batch_flatten(x)\n",
                     "TypeError", "R.nn.batch_flatten: argument 'data' must be a tensor");
  test_expect_relax_error(SIG("a: R.Tensor((3, 2), \"float32\"), b: R.Tensor((4,), \"float32\")")
                     "        return R.outer(a, b)\n",
                     "ValueError", "R.outer: argument 'x1' must be a 1-d tensor, got ndim 2");
  test_expect_relax_error(SIG("a: R.Tensor((3,), \"float32\"), b: R.Tensor(\"float32\")")
                     "        return R.outer(a, b)\n",
                     "ValueError", "argument 'x2' must be a 1-d tensor, got unknown ndim");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.eye(3, -2)\n",
                     "ValueError", "R.eye: argument 'm' must be non-negative, got -2");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.eye(3, k=1.5)\n",
                     "TypeError",
                     "R.eye: argument 'k' must be an integer scalar, got dtype float32");
  test_expect_relax_error(SIG("x: R.Tensor((3, 5), \"float32\")")
                     "        return R.eye(x)\n",
                     "TypeError", "R.eye: argument 'n' must be a scalar value (R.Prim)");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3, 5), \"float32\")")
                     "        return R.eye_like(x, 1)\n",
                     "ValueError", "R.eye_like: argument 'x' must have ndim 2, got 3");
  test_expect_relax_error(SIG("x: R.Tensor((1, 6, 3, 4), \"float32\")")
                     "        return R.nn.pixel_shuffle(x, 2)\n",
                     "ValueError", "R.nn.pixel_shuffle: argument 'data' must have channels");
  test_expect_relax_error(SIG("x: R.Tensor((1, 4, 3, 4), \"float32\")")
                     "        return R.nn.pixel_shuffle(x, upscale_factor=-1)\n",
                     "ValueError", "attribute 'upscale_factor' must be in [1, 2147483647], got -1");
  test_expect_relax_error(SIG("x: R.Tensor((4, 4), \"float32\")")
                     "        return R.nn.pixel_shuffle(x, 2)\n",
                     "ValueError", "argument 'data' must have ndim >= 3, got 2");
}

int main(void) {
  corpus_ops_setup("more_ops.py", 1e-6);
  RUN(batch_flatten);
  RUN(outer);
  RUN(eye);
  RUN(pixel_shuffle);
  RUN(bad_inputs);
  corpus_ops_teardown();
  return test_summary();
}
