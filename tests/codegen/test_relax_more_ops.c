/*
 * test_relax_more_ops.c: nn.batch_flatten, outer, eye, eye_like, nn.pixel_shuffle,
 * collapse_sum_like, collapse_sum_to, gather_nd, nn.instance_norm, meshgrid, bucketize,
 * multinomial_from_uniform and image.grid_sample
 * (tests/corpus/relax/more_ops.py, one function each) legalized, then run two ways on random
 * inputs: in the Relax reference evaluator (the kernels in libtir's interpreter) and compiled
 * (LLVM kernels in libvm), each checked against the operator written as plain C loops below;
 * symbolic functions at two sizes. Then the located errors of bad calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
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

/* wrap_param: the parameter cast to the dtype (float64 here: exactly the float32 values). */
TEST(wrap_param) {
  void* w[1] = {rv_rand(2, (int64_t[]){2, 3})};
  double want[6];
  for (int i = 0; i < 6; ++i) want[i] = (double)F(w[0])[i];
  expect2("wrap", w, 1, 2, (int64_t[]){2, 3}, tvm_tir_dtype_float(64), want);
  release_all(w, 1);
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

/* ---- collapse_sum_like, collapse_sum_to ------------------------------------------------------ */
/* The oracle: each element of x (shape xs, rank n) added into out (shape os, rank m <= n) at
 * its index with x's leading n - m dims dropped and the dims where os is 1 read at 0; float32
 * sums rounded at each step, as the kernel adds (in the same order per output element). */
static void collapse_of(const DLTensor* x, const int64_t* os, int m, bool f32, double* out) {
  int n = x->ndim, lead = n - m;
  int64_t total = 1, ototal = 1;
  for (int i = 0; i < n; ++i) total *= x->shape[i];
  for (int j = 0; j < m; ++j) ototal *= os[j];
  for (int64_t o = 0; o < ototal; ++o) out[o] = 0;
  for (int64_t e = 0; e < total; ++e) {
    int64_t rest = e, idx[8];
    for (int i = n - 1; i >= 0; --i) idx[i] = rest % x->shape[i], rest /= x->shape[i];
    int64_t o = 0;
    for (int j = 0; j < m; ++j) o = o * os[j] + (os[j] == 1 ? 0 : idx[j + lead]);
    out[o] = f32 ? (double)(float)(out[o] + rv_elem(x, e)) : out[o] + rv_elem(x, e);
  }
}

TEST(collapse_sum) {
  void* x[2] = {rv_rand(3, (int64_t[]){2, 3, 4}), rv_rand(2, (int64_t[]){3, 1})};
  const DLTensor* xd = tvm_ffi_tensor_dl(x[0]);
  double w0[3], w1[4], w2[12];
  collapse_of(xd, (int64_t[]){3, 1}, 2, true, w0);
  collapse_of(xd, (int64_t[]){1, 4}, 2, true, w1);
  collapse_of(xd, (int64_t[]){3, 4}, 2, true, w2);
  const int64_t shapes[3][2] = {{3, 1}, {1, 4}, {3, 4}};
  const DLDataType dts[3] = {F32, F32, F32};
  const double* wants[3] = {w0, w1, w2};
  expect2_fields("csum", x, 2, 3, shapes, dts, wants);
  release_all(x, 2);
  /* int64, summed exactly over the leading dim */
  void* y[1] = {rv_rand_int(2, (int64_t[]){3, 4}, -1000, 1000)};
  double wi[4];
  collapse_of(tvm_ffi_tensor_dl(y[0]), (int64_t[]){4}, 1, false, wi);
  expect2("csum_int", y, 1, 1, (int64_t[]){4}, tvm_tir_dtype_int(64), wi);
  release_all(y, 1);
  /* (n, 3, m) to (1, m) and (3, m), at (n, m) = (2, 5) and (4, 1) */
  static const int64_t kSizes[2][2] = {{2, 5}, {4, 1}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], m = kSizes[s][1];
    void* z[2] = {rv_rand(3, (int64_t[]){n, 3, m}), rv_rand(2, (int64_t[]){1, m})};
    double a[5], b[15];
    collapse_of(tvm_ffi_tensor_dl(z[0]), (int64_t[]){1, m}, 2, true, a);
    collapse_of(tvm_ffi_tensor_dl(z[0]), (int64_t[]){3, m}, 2, true, b);
    const int64_t sh[2][2] = {{1, m}, {3, m}};
    const DLDataType dt[2] = {F32, F32};
    const double* wt[2] = {a, b};
    expect2_fields("csum_sym", z, 2, 2, sh, dt, wt);
    release_all(z, 2);
  }
}

/* ---- gather_nd ------------------------------------------------------------------------------- */
/* out[b, x, t] = x[b, i[b, x, 0..l), t] for x of shape xs (rank xn) and i of shape is (rank in),
 * batch_dims bd; a negative index counts from the end of its dim. */
static void gather_nd_of(const float* x, const int64_t* xs, int xn, const int64_t* i,
                         const int64_t* is, int in, int bd, double* out) {
  int64_t l = is[in - 1], nx = 1, nt = 1;
  for (int d = 0; d < in - 1; ++d) nx *= is[d];
  for (int d = bd + (int)l; d < xn; ++d) nt *= xs[d];
  int64_t nb = 1;
  for (int d = 0; d < bd; ++d) nb *= is[d];
  int64_t per_b = nx / nb; /* index tuples per batch */
  for (int64_t p = 0; p < nx; ++p) {
    int64_t b = p / per_b, off = 0, rest = b, bidx[8];
    for (int d = bd - 1; d >= 0; --d) bidx[d] = rest % is[d], rest /= is[d];
    for (int d = 0; d < xn; ++d) {
      int64_t c = d < bd ? bidx[d] : d < bd + l ? i[p * l + (d - bd)] : 0;
      if (c < 0) c += xs[d];
      off = off * xs[d] + c;
    }
    for (int64_t t = 0; t < nt; ++t) out[p * nt + t] = x[off + t];
  }
}

TEST(gather_nd) {
  void* a[3] = {rv_rand(3, (int64_t[]){3, 4, 5}), rv_rand_int(2, (int64_t[]){2, 2}, -3, 3),
                rv_rand_int(2, (int64_t[]){3, 1}, -4, 4)};
  int64_t* ai = tvm_ffi_tensor_dl(a[1])->data;
  ai[1] = 3, ai[2] = -3; /* in range only for the dim each reads: 4 and 3 */
  double w0[10], w1[15];
  gather_nd_of(F(a[0]), (int64_t[]){3, 4, 5}, 3, ai, (int64_t[]){2, 2}, 2, 0, w0);
  gather_nd_of(F(a[0]), (int64_t[]){3, 4, 5}, 3, tvm_ffi_tensor_dl(a[2])->data,
               (int64_t[]){3, 1}, 2, 1, w1);
  const int64_t shapes[2][2] = {{2, 5}, {3, 5}};
  const DLDataType dts[2] = {F32, F32};
  const double* wants[2] = {w0, w1};
  expect2_fields("gnd", a, 3, 2, shapes, dts, wants);
  /* an index outside its dim stops both runs with the kernel's error */
  ai[0] = 3;
  expect2_error("gnd", a, 3, "AssertionError", "relax.gather_nd: an index is out of range");
  release_all(a, 3);
  /* (n, 4) gathered by (k, 1) at (n, k) = (5, 3) and (2, 6) */
  static const int64_t kSizes[2][2] = {{5, 3}, {2, 6}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], k = kSizes[s][1];
    void* b[2] = {rv_rand(2, (int64_t[]){n, 4}), rv_rand_int(2, (int64_t[]){k, 1}, -n, n)};
    double w[24];
    gather_nd_of(F(b[0]), (int64_t[]){n, 4}, 2, tvm_ffi_tensor_dl(b[1])->data,
                 (int64_t[]){k, 1}, 2, 0, w);
    expect2("gnd_sym", b, 2, 2, (int64_t[]){k, 4}, F32, w);
    release_all(b, 2);
  }
  /* batch_dims 1 with the batch dims symbolic, n of x against m of i: equal (3) they gather;
   * apart (m = 5 > n = 3 would read past x) both runs fail before reading, as with an index
   * outside its dim */
  void* c[2] = {rv_rand(2, (int64_t[]){3, 4}), rv_rand_int(3, (int64_t[]){3, 2, 1}, -4, 4)};
  double wc[6];
  gather_nd_of(F(c[0]), (int64_t[]){3, 4}, 2, tvm_ffi_tensor_dl(c[1])->data,
               (int64_t[]){3, 2, 1}, 3, 1, wc);
  expect2("gnd_batch_sym", c, 2, 2, (int64_t[]){3, 2}, F32, wc);
  ((int64_t*)tvm_ffi_tensor_dl(c[1])->data)[3] = 4;
  expect2_error("gnd_batch_sym", c, 2, "AssertionError",
                "relax.gather_nd: an index is out of range");
  tvm_ffi_release(c[1]);
  c[1] = rv_rand_int(3, (int64_t[]){5, 2, 1}, -4, 4);
  expect2_error("gnd_batch_sym", c, 2, "AssertionError",
                "relax.gather_nd: the batch dims of data and indices differ");
  release_all(c, 2);
}

/* ---- nn.instance_norm ----------------------------------------------------------------------- */
/* x of shape xs (rank n), channel axis ch, the other axes `red` normalised per (kept index,
 * channel): float32 sums in row-major order, mean and biased variance, as the kernel computes
 * them; then * gamma[c] (scale) + beta[c] (center). */
static void instance_norm_of(const float* x, const int64_t* xs, int n, int ch, const bool* red,
                             const float* g, const float* b, float eps, bool center, double* out) {
  int64_t total = 1;
  for (int d = 0; d < n; ++d) total *= xs[d];
  for (int64_t e = 0; e < total; ++e) {
    int64_t idx[8], rest = e;
    for (int d = n - 1; d >= 0; --d) idx[d] = rest % xs[d], rest /= xs[d];
    /* the elements of e's group, in row-major order over the reduced axes */
    float sum = 0, var = 0, count = 1;
    for (int d = 0; d < n; ++d) count *= red[d] ? (float)xs[d] : 1.0f;
    for (int pass = 0; pass < 2; ++pass) {
      float mean = sum / count;
      for (int64_t f = 0; f < total; ++f) {
        int64_t jdx[8], r2 = f;
        bool same = true;
        for (int d = n - 1; d >= 0; --d) jdx[d] = r2 % xs[d], r2 /= xs[d];
        for (int d = 0; d < n; ++d) same = same && (red[d] || jdx[d] == idx[d]);
        if (!same) continue;
        if (pass == 0) sum += x[f];
        else var += (x[f] - mean) * (x[f] - mean);
      }
    }
    float mean = sum / count, v = var / count;
    float y = (x[e] - mean) / sqrtf(v + eps) * g[idx[ch]];
    out[e] = center ? y + b[idx[ch]] : y;
  }
}

TEST(instance_norm) {
  void* a[4] = {rv_rand(4, (int64_t[]){2, 3, 4, 5}), rv_rand(1, (int64_t[]){3}),
                rv_rand(1, (int64_t[]){3}), rv_rand(3, (int64_t[]){2, 4, 3})};
  double w0[120], w1[24];
  instance_norm_of(F(a[0]), (int64_t[]){2, 3, 4, 5}, 4, 1, (bool[]){false, false, true, true},
                   F(a[1]), F(a[2]), 1e-5f, true, w0);
  instance_norm_of(F(a[3]), (int64_t[]){2, 4, 3}, 3, 2, (bool[]){false, true, false}, F(a[1]),
                   F(a[2]), 1e-3f, false, w1);
  TVMFFIAny r[2];
  if (run2("inorm", a, 4, r)) {
    for (int w = 0; w < 2; ++w) {
      CHECK(r[w].type_index == kTVMFFIArray && tvm_ffi_seq_size(r[w].v_obj) == 2);
      if (r[w].type_index != kTVMFFIArray || tvm_ffi_seq_size(r[w].v_obj) != 2) continue;
      CHECK_EQ_INT(mismatches(tvm_ffi_seq_at(r[w].v_obj, 0), 4, (int64_t[]){2, 3, 4, 5}, F32, w0),
                   0);
      CHECK_EQ_INT(mismatches(tvm_ffi_seq_at(r[w].v_obj, 1), 3, (int64_t[]){2, 4, 3}, F32, w1), 0);
    }
  }
  tvm_ffi_any_release(&r[0]), tvm_ffi_any_release(&r[1]);
  release_all(a, 4);
  /* integer data passes inference, as upstream's rule, but has no kernel */
  static const char kInt[] =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\n"
      "class M:\n    @R.function\n"
      "    def f(x: R.Tensor((2, 3, 4), \"int32\"), g: R.Tensor((3,), \"int32\")):\n"
      "        return R.nn.instance_norm(x, g, g, 1, [2])\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* m = tvm_script_parse(kInt, strlen(kInt), &opts);
  CHECK(m != NULL);
  void* lm = m ? tvm_relax_transform_legalize_ops(m) : NULL;
  CHECK(lm == NULL);
  CHECK_RAISED("NotImplementedError",
               "relax.nn.instance_norm: only floating-point tensors have a kernel");
  tvm_ffi_release(lm), tvm_ffi_release(m);
  /* (n, c, h) over h, at (2, 3, 4) and (1, 5, 2) */
  static const int64_t kSizes[2][3] = {{2, 3, 4}, {1, 5, 2}};
  for (int s = 0; s < 2; ++s) {
    int64_t n = kSizes[s][0], c = kSizes[s][1], h = kSizes[s][2];
    void* b[3] = {rv_rand(3, (int64_t[]){n, c, h}), rv_rand(1, &c), rv_rand(1, &c)};
    double w[24];
    instance_norm_of(F(b[0]), (int64_t[]){n, c, h}, 3, 1, (bool[]){false, false, true}, F(b[1]),
                     F(b[2]), 1e-5f, true, w);
    expect2("inorm_sym", b, 3, 3, (int64_t[]){n, c, h}, F32, w);
    release_all(b, 3);
  }
}

/* ---- meshgrid, bucketize: tuple results ------------------------------------------------------ */
/* Field f of a tuple-returning fn's results, both ways, matches wants[f] (of rank ndims[f], shape
 * shapes[f] and dtype dts[f]). */
static void expect2_tuple(const char* fn, void** args, int n, int nf, const int* ndims,
                          const int64_t* const* shapes, const DLDataType* dts,
                          const double* const* wants) {
  TVMFFIAny r[2];
  if (run2(fn, args, n, r)) {
    for (int w = 0; w < 2; ++w) {
      bool tuple = r[w].type_index == kTVMFFIArray && tvm_ffi_seq_size(r[w].v_obj) == nf;
      CHECK(tuple);
      for (int f = 0; tuple && f < nf; ++f) {
        int bad = mismatches(tvm_ffi_seq_at(r[w].v_obj, f), ndims[f], shapes[f], dts[f], wants[f]);
        if (bad) {
          fprintf(stderr, "%s field %d (%s): %d differ\n", fn, f, w ? "compiled" : "eval", bad);
        }
        CHECK_EQ_INT(bad, 0);
      }
    }
  }
  tvm_ffi_any_release(&r[0]), tvm_ffi_any_release(&r[1]);
}

/*
 * numpy.meshgrid(x_0, ..., x_{N-1}, indexing): with "ij", grid k of shape (len_0, ..., len_{N-1})
 * holds x_k[i_k] at index i; "xy" is numpy's Cartesian form, each "ij" grid with its first two
 * axes swapped (N >= 2). Grid k's values into out, its shape into shape.
 */
static void meshgrid_of(int nx, const double* const* xs, const int64_t* lens, bool xy, int k,
                        int64_t* shape, double* out) {
  int64_t total = 1;
  for (int d = 0; d < nx; ++d) total *= lens[d];
  for (int64_t p = 0; p < total; ++p) {
    int64_t idx[8], rest = p; /* p's "ij" index */
    for (int d = nx - 1; d >= 0; --d) idx[d] = rest % lens[d], rest /= lens[d];
    double v = xs[k][idx[k]];
    if (xy && nx >= 2) { /* element idx of the "ij" grid goes to (idx_1, idx_0, ...) */
      int64_t t = idx[0];
      idx[0] = idx[1], idx[1] = t;
    }
    int64_t q = 0;
    for (int d = 0; d < nx; ++d) {
      int64_t len = xy && nx >= 2 && d < 2 ? lens[1 - d] : lens[d];
      q = q * len + idx[d];
    }
    out[q] = v;
  }
  for (int d = 0; d < nx; ++d) shape[d] = xy && nx >= 2 && d < 2 ? lens[1 - d] : lens[d];
}

/* fn(x_0, ..., x_{N-1}) both ways against meshgrid_of (want: N grids of dtype dt). */
static void meshgrid_case(const char* fn, void** x, int nx, bool xy, DLDataType dt) {
  double vals[4][8], grids[4][256];
  const double *xs[4], *wants[4];
  int64_t lens[4], shapes[4][4];
  const int64_t* sp[4];
  int ndims[4];
  DLDataType dts[4];
  for (int k = 0; k < nx; ++k) {
    const DLTensor* t = tvm_ffi_tensor_dl(x[k]);
    lens[k] = t->shape[0];
    for (int64_t i = 0; i < lens[k]; ++i) vals[k][i] = rv_elem(t, i);
    xs[k] = vals[k];
  }
  for (int k = 0; k < nx; ++k) {
    meshgrid_of(nx, xs, lens, xy, k, shapes[k], grids[k]);
    wants[k] = grids[k], sp[k] = shapes[k], ndims[k] = nx, dts[k] = dt;
  }
  expect2_tuple(fn, x, nx, nx, ndims, sp, dts, wants);
}

TEST(meshgrid) {
  void* x[3] = {rv_rand(1, (int64_t[]){2}), rv_rand(1, (int64_t[]){3}), rv_rand(1, (int64_t[]){4})};
  meshgrid_case("mgrid", x, 3, false, F32);   /* three (2, 3, 4) grids */
  meshgrid_case("mgrid_xy", x, 3, true, F32); /* three (3, 2, 4) grids */
  release_all(x, 3);
  x[0] = rv_rand(1, (int64_t[]){5});
  meshgrid_case("mgrid_one", x, 1, true, F32); /* one (5,) grid */
  release_all(x, 1);
  /* (n,) and (m,) int64 in a tuple variable, "xy": (m, n) grids, at (4, 7) and (1, 3) */
  static const int64_t kSizes[2][2] = {{4, 7}, {1, 3}};
  for (int s = 0; s < 2; ++s) {
    void* y[2] = {rv_rand_int(1, &kSizes[s][0], -100, 100), rv_rand_int(1, &kSizes[s][1], -9, 9)};
    meshgrid_case("mgrid_sym", y, 2, true, tvm_tir_dtype_int(64));
    release_all(y, 2);
  }
}

/* torch.bucketize(x, b, right): the number of boundaries below x (b[k] < x), or with right at
 * or below it (b[k] <= x): for non-decreasing boundaries the bucket i of b[i - 1] < x <= b[i]
 * (right: b[i - 1] <= x < b[i]), 0 below the first and M above the last. */
static void bucketize_of(const DLTensor* x, const DLTensor* b, bool right, double* out) {
  int64_t n = tvm_ffi_dltensor_numel(x), m = b->shape[0];
  for (int64_t i = 0; i < n; ++i) {
    double v = rv_elem(x, i);
    int64_t c = 0;
    for (int64_t k = 0; k < m; ++k) c += right ? rv_elem(b, k) <= v : rv_elem(b, k) < v;
    out[i] = (double)c;
  }
}

/* A float32 tensor of sorted random values, the one at `dup` repeated after it (when >= 0). */
static void* sorted_rand(int64_t m, int64_t dup) {
  void* t = rv_rand(1, &m);
  float* p = F(t);
  for (int64_t i = 1; i < m; ++i) /* insertion sort */
    for (int64_t j = i; j > 0 && p[j - 1] > p[j]; --j) {
      float s = p[j];
      p[j] = p[j - 1], p[j - 1] = s;
    }
  if (dup >= 0 && dup + 1 < m) p[dup + 1] = p[dup];
  return t;
}

TEST(bucketize) {
  for (int trial = 0; trial < 3; ++trial) {
    /* boundaries with one repeated value; x random with elements equal to each boundary, below
     * the first and above the last */
    void* a[2] = {rv_rand(2, (int64_t[]){3, 4}), sorted_rand(5, trial)};
    float *x = F(a[0]), *b = F(a[1]);
    for (int k = 0; k < 5; ++k) x[2 * k + trial % 2] = b[k];
    x[10] = b[4] + 0.5f, x[11] = b[0] - 1.0f;
    const DLTensor *xd = tvm_ffi_tensor_dl(a[0]), *bd = tvm_ffi_tensor_dl(a[1]);
    double left[12], right[12];
    bucketize_of(xd, bd, false, left), bucketize_of(xd, bd, true, right);
    const int64_t* sh[4] = {xd->shape, xd->shape, xd->shape, xd->shape};
    const DLDataType i32 = tvm_tir_dtype_int(32), i64 = tvm_tir_dtype_int(64);
    expect2_tuple("bucket", a, 2, 4, (int[]){2, 2, 2, 2}, sh, (DLDataType[]){i64, i64, i32, i32},
                  (const double*[]){left, right, left, right});
    release_all(a, 2);
  }
  /* int64 (n,) against (m,) boundaries: m = 0 (every bucket 0), 1, and 6 with repeats; x in a
   * range past both ends, so equal to boundaries often */
  static const int64_t kSizes[3][2] = {{5, 0}, {4, 1}, {20, 6}};
  for (int s = 0; s < 3; ++s) {
    int64_t n = kSizes[s][0], m = kSizes[s][1];
    void* c[2] = {rv_rand_int(1, &n, -6, 7), rv_rand_int(1, &m, -5, 6)};
    int64_t* cb = tvm_ffi_tensor_dl(c[1])->data;
    for (int64_t i = 1; i < m; ++i)
      for (int64_t j = i; j > 0 && cb[j - 1] > cb[j]; --j) {
        int64_t t = cb[j];
        cb[j] = cb[j - 1], cb[j - 1] = t;
      }
    double left[20], right[20];
    bucketize_of(tvm_ffi_tensor_dl(c[0]), tvm_ffi_tensor_dl(c[1]), false, left);
    bucketize_of(tvm_ffi_tensor_dl(c[0]), tvm_ffi_tensor_dl(c[1]), true, right);
    expect2_tuple("bucket_sym", c, 2, 2, (int[]){1, 1}, (const int64_t*[]){&n, &n},
                  (DLDataType[]){tvm_tir_dtype_int(64), tvm_tir_dtype_int(32)},
                  (const double*[]){left, right});
    release_all(c, 2);
  }
  /* int32 elements against float32 boundaries (compared as float32), and a 0-d float32 x equal
   * to a boundary with right=True */
  void* d[3] = {tensor(2, (int64_t[]){2, 3}, tvm_tir_dtype_int(32)), tensor(1, (int64_t[]){4}, F32),
                tensor(0, NULL, F32)};
  static const int32_t kX[6] = {-3, 0, 1, 2, 5, -1};
  static const float kB[4] = {-1.0f, 0.5f, 1.0f, 2.5f};
  memcpy(tvm_ffi_tensor_dl(d[0])->data, kX, sizeof(kX));
  memcpy(F(d[1]), kB, sizeof(kB));
  F(d[2])[0] = 1.0f;
  double wi[6], ws[1];
  bucketize_of(tvm_ffi_tensor_dl(d[0]), tvm_ffi_tensor_dl(d[1]), false, wi);
  bucketize_of(tvm_ffi_tensor_dl(d[2]), tvm_ffi_tensor_dl(d[1]), true, ws);
  CHECK(wi[1] == 1 && wi[2] == 2 && wi[5] == 0 && ws[0] == 3); /* the oracle itself */
  expect2_tuple("bucket_mixed", d, 3, 2, (int[]){2, 0}, (const int64_t*[]){(int64_t[]){2, 3}, NULL},
                (DLDataType[]){tvm_tir_dtype_int(64), tvm_tir_dtype_int(64)},
                (const double*[]){wi, ws});
  release_all(d, 3);
}

/* ---- multinomial_from_uniform --------------------------------------------------------------- */
/* Sampling by inversion: sample i draws from row r = idx[i] of prob (a negative r counted from
 * the end of the batch) the first category k whose running total prob[r][0] + ... + prob[r][k],
 * added up left to right in float32, is above u[i]; the last category when no total is (0 for
 * a row without categories). */
static void multinomial_of(const DLTensor* p, const DLTensor* u, const DLTensor* idx,
                           double* out) {
  int64_t batch = p->shape[0], vocab = p->shape[1], n = u->shape[0];
  for (int64_t i = 0; i < n; ++i) {
    int64_t r = (int64_t)rv_elem(idx, i);
    if (r < 0) r += batch;
    double draw = rv_elem(u, i);
    int64_t k = 0;
    float total = 0.0f;
    for (; k < vocab; ++k) {
      total += (float)rv_elem(p, r * vocab + k);
      if (draw < (double)total) break;
    }
    out[i] = vocab == 0 ? 0 : (double)(k < vocab ? k : vocab - 1);
  }
}

/* A (b, v) float32 tensor of random rows of non-negative values summing to about 1. */
static void* prob_rows(int64_t b, int64_t v) {
  void* t = rv_rand(2, (int64_t[]){b, v});
  float* p = F(t);
  for (int64_t r = 0; r < b; ++r) {
    float sum = 0.0f;
    for (int64_t k = 0; k < v; ++k) sum += p[r * v + k] = fabsf(p[r * v + k]);
    for (int64_t k = 0; k < v; ++k) p[r * v + k] /= sum;
  }
  return t;
}

TEST(multinomial_from_uniform) {
  for (int trial = 0; trial < 3; ++trial) {
    /* 7 draws from 3 rows of 5: uniform draws, one equal to a running total (not above it: the
     * next category), one past the row's total (the last category), one 0; row -1 is row 2 */
    void* a[3] = {prob_rows(3, 5), rv_rand(2, (int64_t[]){7, 1}),
                  rv_rand_int(2, (int64_t[]){7, 1}, -3, 3)};
    float *p = F(a[0]), *u = F(a[1]);
    for (int i = 0; i < 7; ++i) u[i] = (u[i] + 2.0f) / 4.0f;
    int64_t* ix = tvm_ffi_tensor_dl(a[2])->data;
    ix[0] = -1;
    float total = 0.0f;
    int64_t row = ix[1] < 0 ? ix[1] + 3 : ix[1];
    for (int k = 0; k <= trial + 1; ++k) total += p[row * 5 + k];
    u[1] = total, u[2] = 1.5f, u[3] = 0.0f;
    double want[7];
    multinomial_of(tvm_ffi_tensor_dl(a[0]), tvm_ffi_tensor_dl(a[1]), tvm_ffi_tensor_dl(a[2]), want);
    CHECK(want[1] == trial + 2 && want[2] == 4); /* the oracle itself */
    const int64_t shape[2] = {7, 1};
    expect2_tuple("multinomial", a, 3, 2, (int[]){2, 2}, (const int64_t*[]){shape, shape},
                  (DLDataType[]){tvm_tir_dtype_int(64), tvm_tir_dtype_int(32)},
                  (const double*[]){want, want});
    release_all(a, 3);
  }
  /* (b, v) rows, n float64 draws (compared in float64 with the float32 running totals) and
   * int32 indices from -b: (2, 6, 9), one category (every result 0), and rows without
   * categories (every result 0, nothing read) */
  static const int64_t kSizes[3][3] = {{2, 6, 9}, {4, 1, 3}, {2, 0, 4}};
  for (int s = 0; s < 3; ++s) {
    int64_t b = kSizes[s][0], v = kSizes[s][1], n = kSizes[s][2];
    void* c[3] = {prob_rows(b, v), rv_rand_dtype(tvm_tir_dtype_float(64), 2, (int64_t[]){n, 1}),
                  tensor(2, (int64_t[]){n, 1}, tvm_tir_dtype_int(32))};
    double* u = tvm_ffi_tensor_dl(c[1])->data;
    int32_t* ix = tvm_ffi_tensor_dl(c[2])->data;
    for (int64_t i = 0; i < n; ++i) u[i] = (u[i] + 2.0) / 4.0, ix[i] = (int32_t)(i % (2 * b) - b);
    double want[9];
    multinomial_of(tvm_ffi_tensor_dl(c[0]), tvm_ffi_tensor_dl(c[1]), tvm_ffi_tensor_dl(c[2]), want);
    expect2("multinomial_sym", c, 3, 2, (int64_t[]){n, 1}, tvm_tir_dtype_int(64), want);
    release_all(c, 3);
  }
  /* a sample index outside the batch stops the kernel (upstream reads past prob) */
  void* d[3] = {prob_rows(3, 5), rv_rand(2, (int64_t[]){7, 1}),
                rv_rand_int(2, (int64_t[]){7, 1}, 0, 3)};
  ((int64_t*)tvm_ffi_tensor_dl(d[2])->data)[4] = 3;
  expect2_error("multinomial", d, 3, "AssertionError",
                "relax.multinomial_from_uniform: an index is out of range");
  ((int64_t*)tvm_ffi_tensor_dl(d[2])->data)[4] = -4;
  expect2_error("multinomial", d, 3, "AssertionError", "an index is out of range");
  release_all(d, 3);
}

/* ---- image.grid_sample ----------------------------------------------------------------------- */
/*
 * PyTorch's grid_sampler written from its definition (data (N, C, *in), grid in TVM's layout (N,
 * s, *out), grid[:, 0] the coordinate along the last axis): a coordinate g of [-1, 1] maps to
 * ((g + 1) / 2) * (size - 1) with align_corners, else ((g + 1) * size - 1) / 2; border clamps it
 * into [0, size - 1], reflection reflects it at the borders (0 and size - 1, or -0.5 and size -
 * 0.5) then clamps; bilinear blends the 2^s neighbours, nearest rounds half to even, bicubic sums
 * the 4 x 4 taps around with the A = -0.75 convolution weights, each tap padded on its own.
 * Taps outside the input read 0. The coordinates are computed in the grid's precision (each step
 * rounded to float32 for a float32 grid), the blend in double.
 */
typedef struct {
  int s, method, pad; /* method: 0 bilinear, 1 nearest, 2 bicubic; pad: 0 zeros, 1 border, 2 refl */
  bool align, f32;
} gs_ref;

static double gs_round(const gs_ref* r, double v) { return r->f32 ? (double)(float)v : v; }

static double gs_unnorm(const gs_ref* r, double g, int64_t size) {
  if (r->align) return gs_round(r, gs_round(r, gs_round(r, g + 1) / 2) * (double)(size - 1));
  return gs_round(r, gs_round(r, gs_round(r, gs_round(r, g + 1) * (double)size) - 1) / 2);
}

static double gs_clamp(double c, int64_t size) { return fmin(fmax(c, 0), (double)(size - 1)); }

/* reflect_coordinates(c, twice_low, twice_high) */
static double gs_reflect_ref(const gs_ref* r, double c, int64_t twice_low, int64_t twice_high) {
  if (twice_low == twice_high) return 0;
  double lo = (double)twice_low / 2, span = (double)(twice_high - twice_low) / 2;
  double in = fabs(gs_round(r, c - lo)), extra = fmod(in, span);
  int64_t flips = (int64_t)floor(in / span);
  return flips % 2 == 0 ? gs_round(r, extra + lo) : gs_round(r, gs_round(r, span - extra) + lo);
}

static double gs_pad(const gs_ref* r, double c, int64_t size) {
  if (r->pad == 2) {
    c = r->align ? gs_reflect_ref(r, c, 0, 2 * (size - 1)) : gs_reflect_ref(r, c, -1, 2 * size - 1);
  }
  return r->pad ? gs_clamp(c, size) : c;
}

/* x[b, ch, idx...], 0 outside x */
static double gs_at(const DLTensor* x, int s, int64_t b, int64_t ch, const int64_t* idx) {
  int64_t off = b * x->shape[1] + ch;
  for (int a = 0; a < s; ++a) {
    if (idx[a] < 0 || idx[a] >= x->shape[2 + a]) return 0;
    off = off * x->shape[2 + a] + idx[a];
  }
  return rv_elem(x, off);
}

static double cubic1(double t) { return ((-0.75 + 2) * t - (-0.75 + 3)) * t * t + 1; }
static double cubic2(double t) { return ((-0.75 * t + 3.75) * t - 6) * t + 3; }

static double cubic_blend(const double* v, double t) {
  return v[0] * cubic2(t + 1) + v[1] * cubic1(t) + v[2] * cubic1(1 - t) + v[3] * cubic2(2 - t);
}

static void grid_sample_of(const gs_ref* r, const DLTensor* x, const DLTensor* g, double* out) {
  int s = r->s;
  int64_t np = 1;
  for (int a = 0; a < s; ++a) np *= g->shape[2 + a];
  for (int64_t b = 0; b < x->shape[0]; ++b)
    for (int64_t ch = 0; ch < x->shape[1]; ++ch)
      for (int64_t p = 0; p < np; ++p) {
        double c[3], v = 0;
        int64_t idx[3];
        for (int a = 0; a < s; ++a) {
          c[a] = gs_unnorm(r, rv_elem(g, (b * s + s - 1 - a) * np + p), x->shape[2 + a]);
        }
        if (r->method == 1) {
          for (int a = 0; a < s; ++a) idx[a] = (int64_t)nearbyint(gs_pad(r, c[a], x->shape[2 + a]));
          v = gs_at(x, s, b, ch, idx);
        } else if (r->method == 0) {
          double t[3];
          for (int a = 0; a < s; ++a) {
            c[a] = gs_pad(r, c[a], x->shape[2 + a]);
            t[a] = c[a] - floor(c[a]);
          }
          for (int k = 0; k < 1 << s; ++k) {
            double w = 1;
            for (int a = 0; a < s; ++a) {
              bool up = (k >> a) & 1;
              idx[a] = (int64_t)floor(c[a]) + up, w *= up ? t[a] : 1 - t[a];
            }
            v += w * gs_at(x, s, b, ch, idx);
          }
        } else { /* bicubic, 2-d: rows along x, then along y */
          double rows[4], taps[4];
          for (int i = 0; i < 4; ++i) {
            for (int q = 0; q < 4; ++q) {
              double ty = floor(c[0]) - 1 + i, tx = floor(c[1]) - 1 + q;
              idx[0] = (int64_t)gs_pad(r, ty, x->shape[2]);
              idx[1] = (int64_t)gs_pad(r, tx, x->shape[3]);
              taps[q] = gs_at(x, 2, b, ch, idx);
            }
            rows[i] = cubic_blend(taps, c[1] - floor(c[1]));
          }
          v = cubic_blend(rows, c[0] - floor(c[0]));
        }
        out[(b * x->shape[1] + ch) * np + p] = v;
      }
}

/* fn(x, g) against grid_sample_of for each of its nf results (methods[i], align[i]; one padding
 * mode), the output (N, C, *grid's spatial dims) in float32. */
static void grid_sample_case(const char* fn, void* x, void* g, int s, int pad, int nf,
                             const int* methods, const bool* align) {
  const DLTensor *xd = tvm_ffi_tensor_dl(x), *gd = tvm_ffi_tensor_dl(g);
  int64_t shape[5] = {xd->shape[0], xd->shape[1], 1, 1, 1}, n = xd->shape[0] * xd->shape[1];
  for (int a = 0; a < s; ++a) n *= shape[2 + a] = gd->shape[2 + a];
  double* want = calloc((size_t)(nf * n), sizeof(double));
  const double* wants[6];
  const int64_t* shapes[6];
  int ndims[6];
  DLDataType dts[6];
  for (int f = 0; f < nf; ++f) {
    gs_ref r = {s, methods[f], pad, align[f], gd->dtype.bits == 32};
    grid_sample_of(&r, xd, gd, want + f * n);
    wants[f] = want + f * n, shapes[f] = shape, ndims[f] = s + 2, dts[f] = F32;
  }
  void* args[2] = {x, g};
  expect2_tuple(fn, args, 2, nf, ndims, shapes, dts, wants);
  free(want);
}

TEST(grid_sample) {
  g_ops.rtol = 1e-5; /* the kernels blend in float32, the reference in double */
  static const int kMethods[6] = {0, 0, 1, 1, 2, 2};
  static const bool kAlign[6] = {false, true, false, true, false, true};
  static const char* const kFns[3] = {"gsample_zeros", "gsample_border", "gsample_reflection"};
  for (int pad = 0; pad < 3; ++pad) {
    /* coordinates in [-2, 2): half inside the input, the rest up to a width beyond it, with
     * some exactly on the borders and some halfway between two pixels (nearest rounds them to
     * the even one: x = 0.5 with align_corners at [2], y = 0.5 without at [42 + 5]) */
    void* x = rv_rand(4, (int64_t[]){2, 3, 4, 5});
    void* g = rv_rand(4, (int64_t[]){2, 2, 6, 7});
    F(g)[0] = -1.0f, F(g)[1] = 1.0f, F(g)[2] = -0.75f, F(g)[43] = 1.0f, F(g)[44] = -1.0f;
    F(g)[45] = 0.0f, F(g)[47] = -0.5f;
    grid_sample_case(kFns[pad], x, g, 2, pad, 6, kMethods, kAlign);
    tvm_ffi_release(x), tvm_ffi_release(g);
  }
  /* 3-d: trilinear and nearest */
  void* x3 = rv_rand(5, (int64_t[]){1, 2, 3, 4, 5});
  void* g3 = rv_rand(5, (int64_t[]){1, 3, 2, 3, 4});
  const DLTensor *xd = tvm_ffi_tensor_dl(x3), *gd = tvm_ffi_tensor_dl(g3);
  static const int kPads3[6] = {0, 1, 2, 2, 0, 2}, kMethods3[6] = {0, 0, 0, 0, 1, 1};
  static const bool kAlign3[6] = {false, true, false, true, true, false};
  double want3[6][2 * 24];
  static const int64_t kShape3[5] = {1, 2, 2, 3, 4};
  const double* wants3[6];
  const int64_t* shapes3[6];
  for (int f = 0; f < 6; ++f) {
    gs_ref r = {3, kMethods3[f], kPads3[f], kAlign3[f], true};
    grid_sample_of(&r, xd, gd, want3[f]);
    wants3[f] = want3[f], shapes3[f] = kShape3;
  }
  expect2_tuple("gsample_3d", (void*[]){x3, g3}, 2, 6, (int[]){5, 5, 5, 5, 5, 5}, shapes3,
                (DLDataType[]){F32, F32, F32, F32, F32, F32}, wants3);
  tvm_ffi_release(x3), tvm_ffi_release(g3);
  /* symbolic, a float64 grid (coordinates and blend in float64, the result float32): (n, c, h,
   * w) to (oh, ow) at (2, 3, 5, 4) to (3, 2), and h = 1 (reflection with align_corners has
   * nothing to reflect in: every row is row 0) */
  static const int64_t kSizes[2][6] = {{2, 3, 5, 4, 3, 2}, {1, 2, 1, 4, 2, 5}};
  for (int z = 0; z < 2; ++z) {
    const int64_t* k = kSizes[z];
    void* xs = rv_rand(4, (int64_t[]){k[0], k[1], k[2], k[3]});
    void* gs = rv_rand_dtype(tvm_tir_dtype_float(64), 4, (int64_t[]){k[0], 2, k[4], k[5]});
    grid_sample_case("gsample_sym", xs, gs, 2, 2, 2, (int[]){0, 2}, (bool[]){true, true});
    tvm_ffi_release(xs), tvm_ffi_release(gs);
  }
  /* data (n, ...) and grid (m, k, ...), which inference cannot tell apart: the kernel checks
   * m = n and k = 2 before reading (upstream's reads the grid unchecked) */
  void* xb = rv_rand(4, (int64_t[]){2, 2, 3, 4});
  void* gb[3] = {rv_rand(4, (int64_t[]){2, 2, 2, 2}), rv_rand(4, (int64_t[]){1, 2, 2, 2}),
                 rv_rand(4, (int64_t[]){2, 1, 2, 2})};
  double wb[2 * 2 * 4];
  gs_ref rb = {2, 1, 0, false, true};
  grid_sample_of(&rb, tvm_ffi_tensor_dl(xb), tvm_ffi_tensor_dl(gb[0]), wb);
  expect2("gsample_batch", (void*[]){xb, gb[0]}, 2, 4, (int64_t[]){2, 2, 2, 2}, F32, wb);
  for (int k = 1; k < 3; ++k) {
    expect2_error("gsample_batch", (void*[]){xb, gb[k]}, 2, "AssertionError",
                  "relax.image.grid_sample: the grid's batch or number of coordinates does not "
                  "fit data");
  }
  tvm_ffi_release(xb), release_all(gb, 3);
  g_ops.rtol = 1e-6;
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
  test_expect_relax_error(SIG("x: R.Tensor((2, 3), \"float32\"), t: R.Tensor((4, 1), \"float32\")")
                     "        return R.collapse_sum_like(x, t)\n",
                     "ValueError", "R.collapse_sum_like: argument 'collapse_target' dim 0 (4) "
                     "must be 1 or equal dim 0 of 'data' (2)");
  test_expect_relax_error(SIG("x: R.Tensor((\"n\", 3), \"float32\")")
                     "        return R.collapse_sum_to(x, (5, 3))\n",
                     "ValueError", "R.collapse_sum_to: argument 'shape' dim 0 (5) cannot be shown "
                     "to equal dim 0 of 'data' (n); match_cast them first");
  test_expect_relax_error(SIG("x: R.Tensor((3,), \"float32\")")
                     "        return R.collapse_sum_to(x, (1, 3))\n",
                     "ValueError", "argument 'shape' must have ndim <= that of 'data' (1), got 2");
  test_expect_relax_error(SIG("x: R.Tensor((3,), \"float32\")")
                     "        return R.collapse_sum_to(x, x)\n",
                     "TypeError", "R.collapse_sum_to: argument 'shape' must be a shape (R.Shape)");
  test_expect_relax_error(SIG("x: R.Tensor((3,), \"float32\"), s: R.Shape((3,))")
                     "        return R.collapse_sum_like(x, s)\n",
                     "TypeError",
                     "R.collapse_sum_like: argument 'collapse_target' must be a tensor");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((2, 3), \"int64\")")
                     "        return R.gather_nd(x, i)\n",
                     "ValueError", "R.gather_nd: argument 'indices' must have a last dim in [0, 2] "
                     "(the ndim of 'data' minus batch_dims), got 3");
  test_expect_relax_error(SIG("x: R.Tensor((3, 4), \"float32\"), i: R.Tensor((2, 1), \"int32\")")
                     "        return R.gather_nd(x, i)\n",
                     "TypeError",
                     "R.gather_nd: argument 'indices' must have dtype int64, got int32");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3, 4), \"float32\"), g: R.Tensor((4,), \"float32\")")
                     "        return R.nn.instance_norm(x, g, g, 1, [2])\n",
                     "ValueError", "R.nn.instance_norm: argument 'gamma' has 4 values but 'data' "
                     "has 3 at the channel axis");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3, 4), \"float32\"), g: R.Tensor((3,), \"float32\")")
                     "        return R.nn.instance_norm(x, g, g, 1, [1, 2])\n",
                     "ValueError", "R.nn.instance_norm: attribute 'axes' must not contain the "
                     "channel axis 1");
  test_expect_relax_error(SIG("a: R.Tensor((2,), \"float32\"), b: R.Tensor((3, 4), \"float32\")")
                     "        return R.meshgrid((a, b))\n",
                     "ValueError", "bad.py:9:16: error: R.meshgrid: tensors have different ndims "
                     "1 and 2 (each must be 1-d)");
  test_expect_relax_error(SIG("a: R.Tensor((2,), \"float32\"), b: R.Tensor((3,), \"int32\")")
                     "        return R.meshgrid([a, b], indexing=\"xy\")\n",
                     "TypeError", "R.meshgrid: tensors have different dtypes float32 and int32");
  test_expect_relax_error(SIG("a: R.Tensor((2,), \"float32\")")
                     "        return R.meshgrid((a,), indexing=\"yx\")\n",
                     "ValueError", "R.meshgrid: attribute 'indexing' must be \"ij\" or \"xy\", "
                     "got \"yx\"");
  test_expect_relax_error(SIG("a: R.Tensor((2,), \"float32\")")
                     "        return R.meshgrid(a)\n",
                     "TypeError", "R.meshgrid: argument 'tensors' must be a tuple of tensors");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3), \"float32\"), b: R.Tensor((2, 2), \"float32\")")
                     "        return R.bucketize(x, b, right=True)\n",
                     "ValueError", "bad.py:9:31: error: R.bucketize: argument 'boundaries' must "
                     "be a 1-d tensor, got ndim 2");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3), \"float32\"), b: R.Tensor((4,), \"float32\")")
                     "        return R.bucketize(x, b, out_int32=\"yes\")\n",
                     "TypeError", "R.bucketize: attribute 'out_int32' must be a bool");
  test_expect_relax_error(SIG("p: R.Tensor((3, 5), \"float32\"), u: R.Tensor((4, 2), \"float32\"), "
                              "i: R.Tensor((4, 1), \"int64\")")
                     "        return R.multinomial_from_uniform(p, u, i)\n",
                     "ValueError", "bad.py:9:46: error: R.multinomial_from_uniform: argument "
                     "'uniform_sample' must have shape (n, 1), got a second dim of 2");
  test_expect_relax_error(SIG("p: R.Tensor((3, 5), \"int32\"), u: R.Tensor((4, 1), \"float32\"), "
                              "i: R.Tensor((4, 1), \"int64\")")
                     "        return R.multinomial_from_uniform(p, u, i)\n",
                     "TypeError", "bad.py:9:43: error: R.multinomial_from_uniform: argument 'prob' "
                     "must have a float dtype, got int32");
  test_expect_relax_error(SIG("p: R.Tensor((3, 5), \"float32\"), u: R.Tensor((4, 1), \"float32\"), "
                              "i: R.Tensor((4, 1), \"int64\")")
                     "        return R.multinomial_from_uniform(p, u, i, dtype=\"float16\")\n",
                     "TypeError", "R.multinomial_from_uniform: attribute 'dtype' must be an "
                     "integer dtype, got float16");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3, 4, 5), \"float32\"), g: R.Tensor((2, 2, 6, 7), "
                              "\"float32\")")
                     "        return R.image.grid_sample(x, g, method=\"bilinar\")\n",
                     "ValueError", "R.image.grid_sample: attribute 'method' must be \"bilinear\", "
                     "\"nearest\" or \"bicubic\", got \"bilinar\"");
  test_expect_relax_error(SIG("x: R.Tensor((2, 3, 4, 5), \"float32\"), g: R.Tensor((2, 6, 7, 2), "
                              "\"float32\")")
                     "        return R.image.grid_sample(x, g, padding_mode=\"border\")\n",
                     "ValueError", "bad.py:9:39: error: R.image.grid_sample: argument 'grid' must "
                     "have 2 coordinates (dim 1) for layout NCHW, got 6");
  test_expect_relax_error(SIG("x: R.Tensor((1, 2, 3, 4, 5), \"float32\"), g: R.Tensor((1, 3, 2, 3, "
                              "4), \"float32\")")
                     "        return R.image.grid_sample(x, g, \"bicubic\", \"NCDHW\")\n",
                     "ValueError", "R.image.grid_sample: method \"bicubic\" is 2-d only, got "
                     "layout NCDHW");
}

int main(void) {
  corpus_ops_setup("more_ops.py", 1e-6);
  RUN(batch_flatten);
  RUN(outer);
  RUN(wrap_param);
  RUN(eye);
  RUN(pixel_shuffle);
  RUN(collapse_sum);
  RUN(gather_nd);
  RUN(instance_norm);
  RUN(meshgrid);
  RUN(bucketize);
  RUN(multinomial_from_uniform);
  RUN(grid_sample);
  RUN(bad_inputs);
  corpus_ops_teardown();
  return test_summary();
}
