/*
 * test_relax_nn_extra_ops.c: quantize / dequantize, atan2, nn.leakyrelu, nn.prelu,
 * nn.group_norm, nn.nll_loss, nn.cross_entropy_with_logits, nn.conv3d, nn.conv1d_transpose and
 * nn.max_pool3d / avg_pool3d, each as a one-call model legalized, then run twice: by the Relax
 * reference evaluator (the kernel in libtir's interpreter) and compiled to a VM executable with
 * LLVM kernels (bytecode mode here, compiled mode in the _compiled twin) run in libvm. Both
 * results are compared with plain C loops on random inputs. memory.view (no kernel: a view,
 * runtime.TVMTensorCreateView once compiled) and to_vdevice to the CPU (a copy) likewise, read
 * through a kernel.
 */
#include <math.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/attr_value.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "values_testing.h"
/* after relax_testing.h (CHECK) */
#include "exec_mode_testing.h"
#include "one_op_testing.h"

#define I8 tvm_tir_dtype_int(8)
#define U8 tvm_tir_dtype_uint(8)
#define I32T tvm_tir_dtype_int(32)

/* A tensor of dtype with random values: floats in [-2, 2) * mul, ints in [lo, hi). */
static void* tensor(DLDataType dt, int ndim, const int64_t* shape, double mul, int64_t lo,
                    int64_t hi) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, dt, (DLDevice){kDLCPU, 0});
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  int64_t n = tvm_ffi_dltensor_numel(dl);
  for (int64_t i = 0; i < n; ++i) {
    double r = rv_rnd();
    int64_t v = lo + (int64_t)((r + 2.0) / 4.0 * (double)(hi - lo));
    if (dt.code == kDLFloat)
      ((float*)dl->data)[i] = (float)(r * mul);
    else if (dt.bits == 8 && dt.code == kDLInt)
      ((int8_t*)dl->data)[i] = (int8_t)v;
    else if (dt.bits == 8)
      ((uint8_t*)dl->data)[i] = (uint8_t)v;
    else if (dt.bits == 32)
      ((int32_t*)dl->data)[i] = (int32_t)v;
    else
      ((int64_t*)dl->data)[i] = v;
  }
  return t;
}

static float* fdata(void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* op on tensors (attrs borrowed) against want (nwant elements of dtype dt), interpreted and
 * compiled; releases the tensors. */
static void check_op(const char* op, void* attrs, int n, void** tensors, DLDataType dt,
                     const double* want, int64_t nwant, double tol) {
  oot_expect e = oot_one(dt, want, nwant, tol);
  oot_check_op(op, attrs, n, tensors, NULL, &e);
}

/* An ffi.Array of n ints, kept in *keep for release_kept (attribute values rt_attrs retains). */
static void* ints_of(void** keep, int n, const int64_t* v) {
  TVMFFIAny a[8];
  for (int i = 0; i < n && i < 8; ++i) a[i] = tvm_ffi_any_int(v[i]);
  return *keep = tvm_ffi_array_new(a, n);
}

static float clampf(float v, float lo, float hi) { return v < lo ? lo : v > hi ? hi : v; }

TEST(quantize_per_axis_and_scalar) {
  /* x (3, 4) * 60 hits int8's clipping; per-row (axis 0) scale and zero point. */
  int64_t sx[2] = {3, 4}, sp[1] = {3};
  void* t[3] = {tensor(F32, 2, sx, 60, 0, 0), tensor(F32, 1, sp, 0, 0, 0),
                tensor(I8, 1, sp, 0, -9, 9)};
  float *x = fdata(t[0]), *s = fdata(t[1]);
  const int8_t* z = tvm_ffi_tensor_dl(t[2])->data;
  s[0] = 0.5f, s[1] = 1.25f, s[2] = 0.75f;
  /* ties: 1.25 / 0.5 = 2.5 and -1.75 / 0.5 = -3.5 round to even (2, -4), as llvm.nearbyint. */
  x[0] = 1.25f, x[1] = -1.75f, x[2] = 300.0f, x[3] = -300.0f;
  double want[12];
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      float q = nearbyintf(x[i * 4 + j] / s[i]) + (float)z[i];
      want[i * 4 + j] = (int8_t)clampf(q, -128.0f, 127.0f);
    }
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_int(0));
  check_op("relax.quantize", attrs, 3, t, I8, want, 12, 0);
  tvm_ffi_release(attrs);
  /* uint8 with a scalar scale and zero point (axis -1 default). */
  int64_t s0[1] = {0};
  void* u[3] = {tensor(F32, 2, sx, 100, 0, 0), tensor(F32, 0, s0, 0, 0, 0),
                tensor(I8, 0, s0, 0, 0, 0)};
  fdata(u[1])[0] = 0.5f;
  ((int8_t*)tvm_ffi_tensor_dl(u[2])->data)[0] = 5;
  for (int i = 0; i < 12; ++i) {
    float q = nearbyintf(fdata(u[0])[i] / 0.5f) + 5.0f;
    want[i] = (uint8_t)clampf(q, 0.0f, 255.0f);
  }
  TVMFFIAny u8 = tvm_ffi_any_dtype(U8);
  attrs = rt_attrs(1, "out_dtype", u8);
  check_op("relax.quantize", attrs, 3, u, U8, want, 12, 0);
  tvm_ffi_release(attrs);
}

TEST(dequantize) {
  int64_t sx[2] = {3, 5}, sp[1] = {5};
  void* t[3] = {tensor(I8, 2, sx, 0, -128, 128), tensor(F32, 1, sp, 0.5, 0, 0),
                tensor(I8, 1, sp, 0, -20, 20)};
  const int8_t* x = tvm_ffi_tensor_dl(t[0])->data;
  const int8_t* z = tvm_ffi_tensor_dl(t[2])->data;
  const float* s = fdata(t[1]);
  double want[15];
  for (int i = 0; i < 15; ++i) want[i] = (float)((int32_t)x[i] - (int32_t)z[i % 5]) * s[i % 5];
  check_op("relax.dequantize", NULL, 3, t, F32, want, 15, 1e-6);
  /* int32 data along axis 0 */
  int64_t sr[1] = {3};
  void* u[3] = {tensor(I32T, 2, sx, 0, -1000, 1000), tensor(F32, 1, sr, 0.5, 0, 0),
                tensor(I8, 1, sr, 0, -20, 20)};
  const int32_t* xi = tvm_ffi_tensor_dl(u[0])->data;
  for (int i = 0; i < 15; ++i) {
    want[i] = (float)(xi[i] - (int32_t)((int8_t*)tvm_ffi_tensor_dl(u[2])->data)[i / 5]) *
              fdata(u[1])[i / 5];
  }
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_int(0));
  check_op("relax.dequantize", attrs, 3, u, F32, want, 15, 1e-6);
  tvm_ffi_release(attrs);
}

TEST(atan2_leakyrelu_prelu) {
  int64_t sa[2] = {3, 4}, sb[1] = {4};
  void* t[2] = {tensor(F32, 2, sa, 1, 0, 0), tensor(F32, 1, sb, 1, 0, 0)};
  double want[24];
  for (int i = 0; i < 12; ++i) want[i] = atan2f(fdata(t[0])[i], fdata(t[1])[i % 4]);
  check_op("relax.atan2", NULL, 2, t, F32, want, 12, 1e-5);

  void* x = tensor(F32, 2, sa, 1, 0, 0);
  for (int i = 0; i < 12; ++i) {
    float v = fdata(x)[i];
    want[i] = v > 0 ? v : v * 0.2f;
  }
  void* attrs = rt_attrs(1, "alpha", tvm_ffi_any_float(0.2));
  check_op("relax.nn.leakyrelu", attrs, 1, &x, F32, want, 12, 1e-6);
  tvm_ffi_release(attrs);

  int64_t sx[3] = {2, 3, 4}, sal[1] = {3};
  void* p[2] = {tensor(F32, 3, sx, 1, 0, 0), tensor(F32, 1, sal, 1, 0, 0)};
  for (int i = 0; i < 24; ++i) {
    float v = fdata(p[0])[i];
    want[i] = v > 0 ? v : v * fdata(p[1])[(i / 4) % 3];
  }
  check_op("relax.nn.prelu", NULL, 2, p, F32, want, 24, 1e-6);
  /* one slope for all channels (new tensors: check_op released p) */
  int64_t one[1] = {1};
  void* q[2] = {tensor(F32, 3, sx, 1, 0, 0), tensor(F32, 1, one, 1, 0, 0)};
  for (int i = 0; i < 24; ++i) {
    float v = fdata(q[0])[i];
    want[i] = v > 0 ? v : v * fdata(q[1])[0];
  }
  check_op("relax.nn.prelu", NULL, 2, q, F32, want, 24, 1e-6);
}

TEST(group_norm) {
  /* (2, 6, 5), 3 groups over channel axis 1, axes [2] */
  int64_t sx[3] = {2, 6, 5}, sg[1] = {6};
  void* t[3] = {tensor(F32, 3, sx, 1, 0, 0), tensor(F32, 1, sg, 1, 0, 0),
                tensor(F32, 1, sg, 1, 0, 0)};
  const float *x = fdata(t[0]), *g = fdata(t[1]), *b = fdata(t[2]);
  double want[60];
  for (int n = 0; n < 2; ++n)
    for (int grp = 0; grp < 3; ++grp) {
      double mean = 0, var = 0;
      for (int c = grp * 2; c < grp * 2 + 2; ++c)
        for (int w = 0; w < 5; ++w) mean += x[(n * 6 + c) * 5 + w];
      mean /= 10;
      for (int c = grp * 2; c < grp * 2 + 2; ++c)
        for (int w = 0; w < 5; ++w)
          var += (x[(n * 6 + c) * 5 + w] - mean) * (x[(n * 6 + c) * 5 + w] - mean);
      var /= 10;
      for (int c = grp * 2; c < grp * 2 + 2; ++c)
        for (int w = 0; w < 5; ++w) {
          int i = (n * 6 + c) * 5 + w;
          want[i] = (x[i] - mean) / sqrt(var + 1e-5) * g[c] + b[c];
        }
    }
  TVMFFIAny ax = tvm_ffi_any_int(2);
  void* axes = tvm_ffi_array_new(&ax, 1);
  void* attrs = rt_attrs(3, "num_groups", tvm_ffi_any_int(3), "channel_axis", tvm_ffi_any_int(1),
                         "axes", tvm_ffi_any_obj(axes));
  check_op("relax.nn.group_norm", attrs, 3, t, F32, want, 60, 1e-4);
  tvm_ffi_release(attrs), tvm_ffi_release(axes);
}

TEST(nll_loss) {
  /* predictions (3, 5, 2), targets (3, 2) with one ignored (-100), weights (5,) */
  int64_t sp[3] = {3, 5, 2}, st[2] = {3, 2}, sw[1] = {5};
  static const char* const reds[3] = {"mean", "sum", "none"};
  for (int r = 0; r < 3; ++r) {
    for (int weighted = 0; weighted < 2; ++weighted) {
      void* t[3] = {tensor(F32, 3, sp, 1, 0, 0), tensor(I64, 2, st, 0, 0, 5),
                    tensor(F32, 1, sw, 1, 0, 0)};
      int64_t* tg = tvm_ffi_tensor_dl(t[1])->data;
      tg[3] = -100;
      const float *p = fdata(t[0]), *w = fdata(t[2]);
      double want[6], sum = 0, wsum = 0;
      for (int n = 0; n < 3; ++n)
        for (int d = 0; d < 2; ++d) {
          int64_t c = tg[n * 2 + d];
          double wc = c == -100 ? 0 : weighted ? w[c] : 1.0;
          double l = c == -100 ? 0 : -(double)p[(n * 5 + c) * 2 + d] * wc;
          want[n * 2 + d] = l;
          sum += l, wsum += wc;
        }
      if (r == 0) want[0] = sum / wsum;
      if (r == 1) want[0] = sum;
      TVMFFIAny red = tvm_ffi_string(reds[r]);
      void* attrs = rt_attrs(1, "reduction", red);
      tvm_ffi_any_release(&red);
      if (!weighted) tvm_ffi_release(t[2]);
      check_op("relax.nn.nll_loss", attrs, weighted ? 3 : 2, t, F32, want, r == 2 ? 6 : 1, 1e-5);
      tvm_ffi_release(attrs);
    }
  }
  /* 1-d predictions: one sample */
  int64_t sc[1] = {5}, s0[1] = {0};
  void* u[2] = {tensor(F32, 1, sc, 1, 0, 0), tensor(I64, 0, s0, 0, 0, 5)};
  double want1 = -fdata(u[0])[((int64_t*)tvm_ffi_tensor_dl(u[1])->data)[0]];
  check_op("relax.nn.nll_loss", NULL, 2, u, F32, &want1, 1, 1e-6);
  /* a target not ignored outside the 5 classes (5, or -1: no count from the end) fails both
   * ways, for every reduction and weighted or not */
  static const int64_t kBad[2] = {5, -1};
  for (int r = 0; r < 3; ++r) {
    for (int b = 0; b < 2; ++b) {
      void* t[3] = {tensor(F32, 3, sp, 1, 0, 0), tensor(I64, 2, st, 0, 0, 5),
                    tensor(F32, 1, sw, 1, 0, 0)};
      ((int64_t*)tvm_ffi_tensor_dl(t[1])->data)[4] = kBad[b];
      TVMFFIAny red = tvm_ffi_string(reds[r]);
      void* attrs = rt_attrs(1, "reduction", red);
      tvm_ffi_any_release(&red);
      if (b == 1) tvm_ffi_release(t[2]);
      oot_check_op_error("relax.nn.nll_loss", attrs, b == 1 ? 2 : 3, t, NULL, "AssertionError",
                         "relax.nn.nll_loss: an index is out of range");
      tvm_ffi_release(attrs);
    }
  }
}

TEST(cross_entropy_with_logits) {
  int64_t s[2] = {3, 5};
  void* t[2] = {tensor(F32, 2, s, 1, 0, 0), tensor(F32, 2, s, 1, 0, 0)};
  double sum = 0;
  for (int i = 0; i < 15; ++i) sum += (double)fdata(t[0])[i] * fdata(t[1])[i];
  double want = -sum / 3;
  check_op("relax.nn.cross_entropy_with_logits", NULL, 2, t, F32, &want, 1, 1e-5);
  int64_t s1[1] = {6};
  void* u[2] = {tensor(F32, 1, s1, 1, 0, 0), tensor(F32, 1, s1, 1, 0, 0)};
  sum = 0;
  for (int i = 0; i < 6; ++i) sum += (double)fdata(u[0])[i] * fdata(u[1])[i];
  want = -sum;
  check_op("relax.nn.cross_entropy_with_logits", NULL, 2, u, F32, &want, 1, 1e-5);
}

TEST(conv3d) {
  /* x (1, 2, 5, 5, 4), w (3, 2, 3, 3, 2), padding 1, strides (1, 2, 1): out (1, 3, 5, 3, 5) */
  int64_t sx[5] = {1, 2, 5, 5, 4}, sw[5] = {3, 2, 3, 3, 2};
  void* t[2] = {tensor(F32, 5, sx, 1, 0, 0), tensor(F32, 5, sw, 1, 0, 0)};
  const float *x = fdata(t[0]), *w = fdata(t[1]);
  int64_t od = 5, oh = 3, ow = 5;
  double want[3 * 5 * 3 * 5];
  for (int o = 0; o < 3; ++o)
    for (int d = 0; d < od; ++d)
      for (int h = 0; h < oh; ++h)
        for (int q = 0; q < ow; ++q) {
          double acc = 0;
          for (int c = 0; c < 2; ++c)
            for (int kd = 0; kd < 3; ++kd)
              for (int kh = 0; kh < 3; ++kh)
                for (int kw = 0; kw < 2; ++kw) {
                  int id = d - 1 + kd, ih = h * 2 - 1 + kh, iw = q - 1 + kw;
                  if (id < 0 || id >= 5 || ih < 0 || ih >= 5 || iw < 0 || iw >= 4) continue;
                  acc += (double)x[((c * 5 + id) * 5 + ih) * 4 + iw] *
                         w[(((o * 2 + c) * 3 + kd) * 3 + kh) * 2 + kw];
                }
          want[((o * od + d) * oh + h) * ow + q] = acc;
        }
  void* strides = tvm_ffi_array_new(
      (TVMFFIAny[]){tvm_ffi_any_int(1), tvm_ffi_any_int(2), tvm_ffi_any_int(1)}, 3);
  void* pad = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(1)}, 1);
  void* attrs = rt_attrs(2, "strides", tvm_ffi_any_obj(strides), "padding", tvm_ffi_any_obj(pad));
  check_op("relax.nn.conv3d", attrs, 2, t, F32, want, 225, 1e-5);
  tvm_ffi_release(attrs), tvm_ffi_release(strides), tvm_ffi_release(pad);
}

TEST(conv1d_transpose) {
  /* x (1, 4, 5), w IOW (4, 3, 3), strides 2, padding 1, output_padding 1: out (1, 3, 10) */
  int64_t sx[3] = {1, 4, 5}, sw[3] = {4, 3, 3};
  void* t[2] = {tensor(F32, 3, sx, 1, 0, 0), tensor(F32, 3, sw, 1, 0, 0)};
  const float *x = fdata(t[0]), *w = fdata(t[1]);
  double want[30] = {0};
  /* scatter form: x[c, i] contributes to out[o, i * 2 - 1 + k] */
  for (int c = 0; c < 4; ++c)
    for (int i = 0; i < 5; ++i)
      for (int o = 0; o < 3; ++o)
        for (int k = 0; k < 3; ++k) {
          int y = i * 2 - 1 + k;
          if (y >= 0 && y < 10) want[o * 10 + y] += (double)x[c * 5 + i] * w[(c * 3 + o) * 3 + k];
        }
  void* two = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(2)}, 1);
  void* one = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(1)}, 1);
  void* attrs = rt_attrs(3, "strides", tvm_ffi_any_obj(two), "padding", tvm_ffi_any_obj(one),
                         "output_padding", tvm_ffi_any_obj(one));
  check_op("relax.nn.conv1d_transpose", attrs, 2, t, F32, want, 30, 1e-5);
  tvm_ffi_release(attrs), tvm_ffi_release(two), tvm_ffi_release(one);
}

TEST(pool3d) {
  /* x (1, 2, 5, 6, 4), pool 2, strides 2, padding 1: out (1, 2, 3, 4, 3) */
  int64_t sx[5] = {1, 2, 5, 6, 4};
  int64_t in[3] = {5, 6, 4}, out[3] = {3, 4, 3};
  for (int kind = 0; kind < 3; ++kind) { /* max, avg, avg with count_include_pad */
    void* t = tensor(F32, 5, sx, 1, 0, 0);
    const float* x = fdata(t);
    double want[2 * 3 * 4 * 3];
    for (int c = 0; c < 2; ++c)
      for (int d = 0; d < out[0]; ++d)
        for (int h = 0; h < out[1]; ++h)
          for (int q = 0; q < out[2]; ++q) {
            double m = -INFINITY, s = 0;
            int cnt = 0;
            for (int kd = 0; kd < 2; ++kd)
              for (int kh = 0; kh < 2; ++kh)
                for (int kw = 0; kw < 2; ++kw) {
                  int id = d * 2 - 1 + kd, ih = h * 2 - 1 + kh, iw = q * 2 - 1 + kw;
                  if (id < 0 || id >= in[0] || ih < 0 || ih >= in[1] || iw < 0 || iw >= in[2])
                    continue;
                  double v = x[((c * 5 + id) * 6 + ih) * 4 + iw];
                  m = v > m ? v : m, s += v, ++cnt;
                }
            want[((c * 3 + d) * 4 + h) * 3 + q] = kind == 0 ? m : kind == 1 ? s / cnt : s / 8;
          }
    void* two = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(2)}, 1);
    void* one = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(1)}, 1);
    void* attrs =
        rt_attrs(4, "pool_size", tvm_ffi_any_obj(two), "strides", tvm_ffi_any_obj(two), "padding",
                 tvm_ffi_any_obj(one), "count_include_pad", tvm_ffi_any_bool(kind == 2));
    check_op(kind == 0 ? "relax.nn.max_pool3d" : "relax.nn.avg_pool3d", attrs, 1, &t, F32, want, 72,
             1e-5);
    tvm_ffi_release(attrs), tvm_ffi_release(two), tvm_ffi_release(one);
  }
}

/* pool1d over x (2, 3, 11): pool 3 dilated 2, stride 2, padding (1, 2), with and without
 * ceil_mode (6 or 5 windows). The oracle walks each window's taps: max and the average of the
 * taps inside x, or with count_include_pad of those inside the padded input [-1, 13). */
static void pool1d_case(int kind, bool ceil_mode) {
  enum { C = 6, W = 11, KS = 3, S = 2, D = 2, PL = 1, PR = 2 };
  int ow = ceil_mode ? 6 : 5;
  int64_t sx[3] = {2, 3, W};
  void* t = tensor(F32, 3, sx, 1, 0, 0);
  const float* x = fdata(t);
  double want[C * 6];
  for (int c = 0; c < C; ++c) {
    for (int o = 0; o < ow; ++o) {
      double m = -INFINITY, sum = 0;
      int inside = 0, padded = 0;
      for (int j = 0; j < KS; ++j) {
        int pos = o * S - PL + j * D;
        padded += pos >= -PL && pos < W + PR;
        if (pos < 0 || pos >= W) continue;
        double v = x[c * W + pos];
        m = v > m ? v : m, sum += v, ++inside;
      }
      want[c * ow + o] = kind == 0 ? m : kind == 1 ? sum / (inside ? inside : 1) : sum / padded;
    }
  }
  void* k[4];
  /* (kind 3: count_include_pad not given, upstream's avg_pool1d default, True) */
  void* attrs = rt_attrs(kind == 3 ? 5 : 6,
                         "pool_size", tvm_ffi_any_obj(ints_of(&k[0], 1, (int64_t[]){KS})),
                         "strides", tvm_ffi_any_obj(ints_of(&k[1], 1, (int64_t[]){S})),
                         "dilation", tvm_ffi_any_obj(ints_of(&k[2], 1, (int64_t[]){D})),
                         "padding", tvm_ffi_any_obj(ints_of(&k[3], 2, (int64_t[]){PL, PR})),
                         "ceil_mode", tvm_ffi_any_bool(ceil_mode), "count_include_pad",
                         tvm_ffi_any_bool(kind == 2));
  check_op(kind == 0 ? "relax.nn.max_pool1d" : "relax.nn.avg_pool1d", attrs, 1, &t, F32, want,
           C * ow, 1e-5);
  tvm_ffi_release(attrs);
  for (int i = 0; i < 4; ++i) tvm_ffi_release(k[i]);
}

TEST(pool1d) {
  /* max, avg, avg with count_include_pad, avg by default (which counts the padding in) */
  for (int kind = 0; kind < 4; ++kind) {
    pool1d_case(kind, false);
    pool1d_case(kind, true);
  }
}

/* Pooling in permuted layouts: the indices placed by layout and out_layout. max_pool1d over x
 * (1, 5, 2) in NWC, pool 2: out NWC (1, 4, 2) and, with out_layout NCW, (1, 2, 4); avg_pool2d
 * over x (1, 4, 4, 3) in NHWC, pool 2 stride 2: out NHWC (1, 2, 2, 3). */
TEST(pool_layouts) {
  for (int ncw_out = 0; ncw_out < 2; ++ncw_out) {
    int64_t sx[3] = {1, 5, 2};
    void* t = tensor(F32, 3, sx, 1, 0, 0);
    const float* x = fdata(t);
    double want[8];
    for (int o = 0; o < 4; ++o) {
      for (int c = 0; c < 2; ++c) {
        double a = x[o * 2 + c], b = x[(o + 1) * 2 + c];
        want[ncw_out ? c * 4 + o : o * 2 + c] = a > b ? a : b;
      }
    }
    void* k;
    void* attrs = rt_attrs(3, "pool_size", tvm_ffi_any_obj(ints_of(&k, 1, (int64_t[]){2})),
                           "layout", tvm_ffi_string("NWC"), "out_layout",
                           tvm_ffi_string(ncw_out ? "NCW" : "NWC"));
    check_op("relax.nn.max_pool1d", attrs, 1, &t, F32, want, 8, 1e-6);
    tvm_ffi_release(attrs), tvm_ffi_release(k);
  }
  int64_t s2[4] = {1, 4, 4, 3};
  void* t = tensor(F32, 4, s2, 1, 0, 0);
  const float* x = fdata(t);
  double want[12];
  for (int h = 0; h < 2; ++h)
    for (int w = 0; w < 2; ++w)
      for (int c = 0; c < 3; ++c) {
        double sum = 0;
        for (int a = 0; a < 2; ++a)
          for (int b = 0; b < 2; ++b) sum += x[((h * 2 + a) * 4 + w * 2 + b) * 3 + c];
        want[(h * 2 + w) * 3 + c] = sum / 4;
      }
  void *k1, *k2;
  void* attrs = rt_attrs(3, "pool_size", tvm_ffi_any_obj(ints_of(&k1, 1, (int64_t[]){2})),
                         "strides", tvm_ffi_any_obj(ints_of(&k2, 1, (int64_t[]){2})), "layout",
                         tvm_ffi_string("NHWC"));
  check_op("relax.nn.avg_pool2d", attrs, 1, &t, F32, want, 12, 1e-6);
  tvm_ffi_release(attrs), tvm_ffi_release(k1), tvm_ffi_release(k2);
}

/* adaptive_avg_pool1d (2, 3, 10) -> 4 and adaptive_avg_pool3d (1, 2, 5, 4, 3) -> (2, 3, 2): the
 * mean of the window [floor(o * n / m), ceil((o + 1) * n / m)) along each spatial dim (windows
 * overlap where m does not divide n). */
static void adaptive_window(int o, int n, int m, int* lo, int* hi) {
  *lo = (int)floor((double)o * n / m);
  *hi = (int)ceil((double)(o + 1) * n / m);
}

TEST(adaptive_avg_pool1d_3d) {
  int64_t s1[3] = {2, 3, 10};
  void* t = tensor(F32, 3, s1, 1, 0, 0);
  const float* x = fdata(t);
  double w1[6 * 4];
  for (int c = 0; c < 6; ++c) {
    for (int o = 0; o < 4; ++o) {
      int lo, hi;
      adaptive_window(o, 10, 4, &lo, &hi);
      double sum = 0;
      for (int i = lo; i < hi; ++i) sum += x[c * 10 + i];
      w1[c * 4 + o] = sum / (hi - lo);
    }
  }
  void* k;
  void* attrs = rt_attrs(1, "output_size", tvm_ffi_any_obj(ints_of(&k, 1, (int64_t[]){4})));
  check_op("relax.nn.adaptive_avg_pool1d", attrs, 1, &t, F32, w1, 24, 1e-5);
  tvm_ffi_release(attrs), tvm_ffi_release(k);
  int64_t s3[5] = {1, 2, 5, 4, 3}, in[3] = {5, 4, 3}, out[3] = {2, 3, 2};
  t = tensor(F32, 5, s3, 1, 0, 0);
  x = fdata(t);
  double w3[2 * 12];
  for (int c = 0; c < 2; ++c) {
    for (int od = 0; od < 2; ++od)
      for (int oh = 0; oh < 3; ++oh)
        for (int ow = 0; ow < 2; ++ow) {
          int lo[3], hi[3], o[3] = {od, oh, ow};
          for (int d = 0; d < 3; ++d) adaptive_window(o[d], (int)in[d], (int)out[d], &lo[d], &hi[d]);
          double sum = 0;
          for (int a = lo[0]; a < hi[0]; ++a)
            for (int b = lo[1]; b < hi[1]; ++b)
              for (int e = lo[2]; e < hi[2]; ++e) sum += x[((c * 5 + a) * 4 + b) * 3 + e];
          int area = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
          w3[((c * 2 + od) * 3 + oh) * 2 + ow] = sum / area;
        }
  }
  /* and the same into out_layout NDHWC (a second input of the same values) */
  void* t2 = tensor(F32, 5, s3, 1, 0, 0);
  memcpy(fdata(t2), x, 2 * 5 * 4 * 3 * sizeof(float));
  double w3l[2 * 12];
  for (int c = 0; c < 2; ++c)
    for (int e = 0; e < 12; ++e) w3l[e * 2 + c] = w3[c * 12 + e];
  attrs = rt_attrs(1, "output_size", tvm_ffi_any_obj(ints_of(&k, 3, out)));
  check_op("relax.nn.adaptive_avg_pool3d", attrs, 1, &t, F32, w3, 24, 1e-5);
  tvm_ffi_release(attrs);
  attrs = rt_attrs(2, "output_size", tvm_ffi_any_obj(k), "out_layout",
                   tvm_ffi_string("NDHWC"));
  check_op("relax.nn.adaptive_avg_pool3d", attrs, 1, &t2, F32, w3l, 24, 1e-5);
  tvm_ffi_release(attrs), tvm_ffi_release(k);
}

/*
 * memory.view: main(x: (4, 6) float32):
 *   a = view(x, (2, 5), void, offset 16) (elements 4..13); s = a + a (a kernel reading the view)
 *   b = view(x, (24,), int32) (x's bits as int32); c = view(x) (x itself)
 *   return (s, b, c)
 * interpreted and compiled (LowerRuntimeBuiltin: runtime.TVMTensorCreateView), against x.
 */
static tvm_tir_ir_module_obj* view_model(void) {
  int64_t sx[2] = {4, 6};
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_of_ints(sx, 2, F32));
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  void* empty = tvm_ffi_array_new(NULL, 0);
  tvm_relax_expr_obj* vd = tvm_relax_tuple_new(empty);
  tvm_relax_expr_obj* sh = tvm_relax_shape_expr_of_ints((int64_t[]){2, 5}, 2);
  tvm_relax_expr_obj* sh24 = tvm_relax_shape_expr_of_ints((int64_t[]){24}, 1);
  tvm_relax_expr_obj* off = tvm_relax_prim_value_int64(16);
  tvm_relax_expr_obj* i32 = tvm_relax_dtype_imm_new(I32T);
  tvm_relax_expr_obj* ca = tvm_relax_call_op("relax.memory.view", NULL, 4, x, sh, vd, off);
  tvm_relax_var_obj* a = ca ? tvm_relax_bb_emit(bb, ca, NULL) : NULL;
  tvm_relax_expr_obj* cs = a ? tvm_relax_call_op("relax.add", NULL, 2, a, a) : NULL;
  tvm_relax_var_obj* sv = cs ? tvm_relax_bb_emit(bb, cs, NULL) : NULL;
  tvm_relax_expr_obj* cb = tvm_relax_call_op("relax.memory.view", NULL, 4, x, sh24, i32, vd);
  tvm_relax_var_obj* b = cb ? tvm_relax_bb_emit(bb, cb, NULL) : NULL;
  tvm_relax_expr_obj* cc = tvm_relax_call_op("relax.memory.view", NULL, 4, x, vd, vd, vd);
  tvm_relax_var_obj* c = cc ? tvm_relax_bb_emit(bb, cc, NULL) : NULL;
  void* rf = sv && b && c ? rt_array(3, sv, b, c) : NULL;
  tvm_relax_expr_obj* ret = rf ? tvm_relax_tuple_new(rf) : NULL;
  tvm_tir_global_var_obj* g = ret ? tvm_relax_bb_function_end(bb, ret, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  void* objs[] = {mod, g,  ret, rf,  c,    cc, b,  cb,    sv,     cs,
                  a,   ca, i32, off, sh24, sh, vd, empty, params, x};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

static void check_views(const TVMFFIAny* r, const float* x) {
  CHECK(r->type_index == kTVMFFIArray && tvm_ffi_seq_size(r->v_obj) == 3);
  if (r->type_index != kTVMFFIArray || tvm_ffi_seq_size(r->v_obj) != 3) return;
  double want[24];
  for (int i = 0; i < 10; ++i) want[i] = 2.0 * x[4 + i];
  CHECK_EQ_INT(oot_bad(tvm_ffi_seq_at(r->v_obj, 0), F32, want, 10, 1e-6), 0);
  int32_t bits[24];
  memcpy(bits, x, sizeof(bits));
  for (int i = 0; i < 24; ++i) want[i] = bits[i];
  CHECK_EQ_INT(oot_bad(tvm_ffi_seq_at(r->v_obj, 1), I32T, want, 24, 0), 0);
  for (int i = 0; i < 24; ++i) want[i] = x[i];
  CHECK_EQ_INT(oot_bad(tvm_ffi_seq_at(r->v_obj, 2), F32, want, 24, 0), 0);
}

TEST(memory_view) {
  tvm_tir_ir_module_obj* mod = view_model();
  if (!mod) CHECK_OK(-1);
  int64_t sx[2] = {4, 6};
  void* x = tensor(F32, 2, sx, 1, 0, 0);
  TVMFFIAny arg = tvm_ffi_any_obj(x), got;
  if (mod) {
    CHECK_OK(tvm_relax_eval(mod, "main", &arg, 1, &got));
    check_views(&got, fdata(x));
    tvm_ffi_any_release(&got);
  }
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (mod && !exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  if (vm) {
    CHECK_OK(tvm_vm_invoke(vm, "main", &arg, 1, &got));
    check_views(&got, fdata(x));
    tvm_ffi_any_release(&got);
    /* the runtime function refuses a view past the tensor's bytes */
    int64_t s5[1] = {5};
    void* shp = tvm_ffi_shape_new(s5, 1);
    TVMFFIAny a4[4] = {arg, tvm_ffi_any_obj(shp), tvm_ffi_any_dtype(F32), tvm_ffi_any_int(80)};
    CHECK(tvm_ffi_global_call("runtime.TVMTensorCreateView", a4, 4, &got) != 0);
    CHECK_RAISED("ValueError", "does not fit in a compact tensor of 96 bytes");
    tvm_ffi_release(shp);
    tvm_vm_release(vm);
  }
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  tvm_ffi_release(x);
}

/* to_vdevice to a CPU virtual device: a copy (vm.builtin.to_device once compiled), read by a
 * kernel; another target kind is refused by the evaluator and by LowerRuntimeBuiltin. */
static tvm_tir_ir_module_obj* to_vdevice_model(const char* kind) {
  int64_t sx[2] = {3, 4};
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_of_ints(sx, 2, F32));
  void* params = rt_array(1, x);
  tvm_tir_target_obj* target = tvm_tir_target_new(kind, NULL);
  tvm_tir_vdevice_obj* vd = target ? tvm_tir_vdevice_new(target, 0, NULL) : NULL;
  void* attrs = vd ? rt_attrs(1, "dst_vdevice", tvm_ffi_any_obj(vd)) : NULL;
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_relax_expr_obj* cy = attrs ? tvm_relax_call_op("relax.to_vdevice", attrs, 1, x) : NULL;
  tvm_relax_var_obj* y = cy ? tvm_relax_bb_emit(bb, cy, NULL) : NULL;
  tvm_relax_expr_obj* cz = y ? tvm_relax_call_op("relax.add", NULL, 2, y, y) : NULL;
  tvm_relax_var_obj* z = cz ? tvm_relax_bb_emit(bb, cz, NULL) : NULL;
  void* rf = z ? rt_array(2, y, z) : NULL;
  tvm_relax_expr_obj* ret = rf ? tvm_relax_tuple_new(rf) : NULL;
  tvm_tir_global_var_obj* g = ret ? tvm_relax_bb_function_end(bb, ret, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  void* objs[] = {mod, g, ret, rf, z, cz, y, cy, attrs, vd, target, params, x};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

TEST(to_vdevice) {
  tvm_tir_ir_module_obj* mod = to_vdevice_model("llvm");
  if (!mod) CHECK_OK(-1);
  int64_t sx[2] = {3, 4};
  void* x = tensor(F32, 2, sx, 1, 0, 0);
  TVMFFIAny arg = tvm_ffi_any_obj(x), got;
  double want[12], twice[12];
  for (int i = 0; i < 12; ++i) want[i] = fdata(x)[i], twice[i] = 2.0 * fdata(x)[i];
  for (int compiled = 0; mod && compiled < 2; ++compiled) {
    tvm_vm_executable* exec =
        compiled ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    if (compiled && !vm) CHECK_OK(-1);
    int rc = compiled ? (vm ? tvm_vm_invoke(vm, "main", &arg, 1, &got) : -1)
                      : tvm_relax_eval(mod, "main", &arg, 1, &got);
    CHECK_OK(rc);
    if (rc == 0 && got.type_index == kTVMFFIArray) {
      const TVMFFIAny* y = tvm_ffi_seq_at(got.v_obj, 0);
      CHECK_EQ_INT(oot_bad(y, F32, want, 12, 0), 0);
      CHECK_EQ_INT(oot_bad(tvm_ffi_seq_at(got.v_obj, 1), F32, twice, 12, 1e-6), 0);
      /* a copy, not the input itself */
      CHECK(y->type_index == kTVMFFITensor && tvm_ffi_tensor_dl(y->v_obj)->data != fdata(x));
    }
    if (rc == 0) tvm_ffi_any_release(&got);
    if (vm) tvm_vm_release(vm);
    tvm_ffi_release(exec);
  }
  tvm_ffi_release(mod);
  /* a device the evaluator cannot reach, and one LowerRuntimeBuiltin has no device type for */
  mod = to_vdevice_model("cuda");
  CHECK(mod && tvm_relax_eval(mod, "main", &arg, 1, &got) != 0);
  CHECK_RAISED("NotImplementedError", "relax.to_vdevice to a device other than the CPU");
  tvm_ffi_release(mod);
  mod = to_vdevice_model("metal");
  tvm_vm_executable* exec = mod ? tvm_codegen_relax_build(mod, test_opts()) : NULL;
  CHECK(mod && !exec);
  CHECK_RAISED("ValueError",
               "relax.to_vdevice to a virtual device whose target kind has no device here");
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  tvm_ffi_release(x);
}

/* hint_on_device(x, cpu) + x: interpreted and compiled (the hint dropped); a CUDA hint is
 * refused by the evaluator and by LowerRuntimeBuiltin. */
static tvm_tir_ir_module_obj* hint_model(int64_t device_type) {
  int64_t sx[1] = {5};
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_of_ints(sx, 1, F32));
  void* params = rt_array(1, x);
  void* attrs = rt_attrs(1, "device_type", tvm_ffi_any_int(device_type));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", params, NULL, true));
  tvm_relax_expr_obj* ch = tvm_relax_call_op("relax.hint_on_device", attrs, 1, x);
  tvm_relax_var_obj* h = ch ? tvm_relax_bb_emit(bb, ch, NULL) : NULL;
  tvm_relax_expr_obj* cz = h ? tvm_relax_call_op("relax.add", NULL, 2, h, x) : NULL;
  tvm_relax_var_obj* z = cz ? tvm_relax_bb_emit(bb, cz, NULL) : NULL;
  tvm_tir_global_var_obj* g =
      z ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)z, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = g ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  void* objs[] = {mod, g, z, cz, h, ch, attrs, params, x};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
  tvm_relax_bb_free(bb);
  return legal;
}

TEST(hint_on_device) {
  int64_t sx[1] = {5};
  void* x = tensor(F32, 1, sx, 1, 0, 0);
  double want[5];
  for (int i = 0; i < 5; ++i) want[i] = 2.0 * fdata(x)[i];
  TVMFFIAny arg = tvm_ffi_any_obj(x), got;
  tvm_tir_ir_module_obj* mod = hint_model(kDLCPU);
  if (!mod) CHECK_OK(-1);
  if (mod) {
    CHECK_OK(tvm_relax_eval(mod, "main", &arg, 1, &got));
    CHECK_EQ_INT(oot_bad(&got, F32, want, 5, 1e-6), 0);
    tvm_ffi_any_release(&got);
  }
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (mod && !exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  if (vm) {
    CHECK_OK(tvm_vm_invoke(vm, "main", &arg, 1, &got));
    CHECK_EQ_INT(oot_bad(&got, F32, want, 5, 1e-6), 0);
    tvm_ffi_any_release(&got);
    tvm_vm_release(vm);
  }
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  mod = hint_model(kDLCUDA);
  CHECK(mod && tvm_relax_eval(mod, "main", &arg, 1, &got) != 0);
  CHECK_RAISED("NotImplementedError", "relax.hint_on_device to device type 2");
  exec = mod ? tvm_codegen_relax_build(mod, test_opts()) : NULL;
  CHECK(mod && !exec);
  CHECK_RAISED("ValueError", "relax.hint_on_device to device type 2: only the CPU");
  tvm_ffi_release(exec);
  tvm_ffi_release(mod);
  tvm_ffi_release(x);
}

TEST(bad_inputs_are_refused) {
  /* a legalization that cannot run reports the operator */
  int64_t sx[2] = {2, 3};
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_of_ints(sx, 2, F32));
  tvm_relax_var_obj* s = rt_var_take("s", tvm_relax_tensor_sinfo_of_ints(sx + 1, 1, F32));
  tvm_relax_var_obj* z = rt_var_take("z", tvm_relax_tensor_sinfo_of_ints(sx + 1, 1, I8));
  void* attrs = rt_attrs(1, "out_dtype", tvm_ffi_any_dtype(tvm_tir_dtype_float(32)));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.quantize", attrs, x, s, z), "ValueError",
                       "relax.quantize: attribute 'out_dtype' must be one of");
  tvm_ffi_release(attrs);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.nn.prelu", NULL, x, z), "TypeError",
                       "argument 'alpha' must have the dtype of 'data'");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.nn.cross_entropy_with_logits", NULL, x, s), "ValueError",
                       "argument 'labels' must have the ndim of 'predictions'");
  /* hint_on_device: data itself on the CPU; another device is refused when run */
  attrs = rt_attrs(1, "device_type", tvm_ffi_any_int(1));
  RT_EXPECT_SINFO(RT_CALL("relax.hint_on_device", attrs, x), "R.Tensor((2, 3), dtype=\"float32\")");
  tvm_ffi_release(attrs);
  attrs = rt_attrs(1, "device_type", tvm_ffi_any_int(0));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.hint_on_device", attrs, x), "ValueError",
                       "relax.hint_on_device: the device (0, 0) is not a device");
  tvm_ffi_release(attrs);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.hint_on_device", NULL, x), "ValueError",
                       "attribute 'device_type' is required");
  attrs = rt_attrs(1, "dst_vdevice", tvm_ffi_any_int(0));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.to_vdevice", attrs, x), "TypeError",
                       "relax.to_vdevice: attribute 'dst_vdevice' must be a VDevice");
  tvm_ffi_release(attrs);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.to_vdevice", NULL, x), "ValueError",
                       "attribute 'dst_vdevice' is required");
  tvm_ffi_release(x), tvm_ffi_release(s), tvm_ffi_release(z);
}

int main(void) {
  RUN(quantize_per_axis_and_scalar);
  RUN(dequantize);
  RUN(atan2_leakyrelu_prelu);
  RUN(group_norm);
  RUN(nll_loss);
  RUN(cross_entropy_with_logits);
  RUN(conv3d);
  RUN(conv1d_transpose);
  RUN(pool3d);
  RUN(pool1d);
  RUN(pool_layouts);
  RUN(adaptive_avg_pool1d_3d);
  RUN(memory_view);
  RUN(to_vdevice);
  RUN(hint_on_device);
  RUN(bad_inputs_are_refused);
  return test_summary();
}
