/*
 * test_relax_grad_ops.c: median, grad.nll_loss_backward, grad.max_pool2d_backward /
 * avg_pool2d_backward and grad.take_backward, each as a one-call model legalized, then run by
 * the Relax reference evaluator (the kernel in libtir's interpreter) and compiled to a VM
 * executable with LLVM kernels (bytecode mode here, compiled mode in the _compiled twin), both
 * compared with plain C on random inputs (median: a C sort; the backward operators: the
 * derivative written out in C loops, and for nll_loss a finite difference of nll_loss's own
 * kernel). Then the corpus programs tests/corpus/relax/grad_ops.py (the markers legalized away)
 * and vm_builtins.py (call_builtin_with_ctx, vm.call_tir_dyn, call_tir with tir_vars,
 * call_tir_with_grad) built and run in the VM, and the located errors of the VM-level forms.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/printer.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "values_testing.h"
/* after relax_testing.h (CHECK) */
#include "exec_mode_testing.h"
#include "one_op_testing.h"
#include "script_testing.h"

#define I64T tvm_tir_dtype_int(64)

/* A tensor of dtype with random values: floats in [-2, 2) * mul (rounded to halves when
 * `ties`), ints in [lo, hi). */
static void* tensor(DLDataType dt, int ndim, const int64_t* shape, double mul, int64_t lo,
                    int64_t hi) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, dt, (DLDevice){kDLCPU, 0});
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  int64_t n = tvm_ffi_dltensor_numel(dl);
  for (int64_t i = 0; i < n; ++i) {
    if (dt.code == kDLFloat) {
      ((float*)dl->data)[i] = (float)(rv_rnd() * mul);
    } else {
      ((int64_t*)dl->data)[i] = rv_rnd_int(lo, hi);
    }
  }
  return t;
}

static float* fdata(void* t) { return tvm_ffi_tensor_dl(t)->data; }
static int64_t* idata(void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* ---- median ---------------------------------------------------------------------------------- */
typedef struct {
  float v;
  int64_t i;
} vi;

static int vi_cmp(const void* a, const void* b) {
  const vi *x = a, *y = b;
  if (x->v != y->v) return x->v < y->v ? -1 : 1;
  return x->i < y->i ? -1 : x->i > y->i;
}

/* The lower median (and its index in the reduced elements' row-major order) of x (shape dims,
 * rank n) over the axes marked in red, per output element in row-major order of the kept dims. */
static int64_t median_ref(const float* x, const int64_t* dims, int n, const bool* red, double* val,
                          double* idx) {
  int64_t kept = 1, K = 1;
  for (int d = 0; d < n; ++d) {
    if (red[d])
      K *= dims[d];
    else
      kept *= dims[d];
  }
  vi* buf = malloc((size_t)K * sizeof(vi));
  for (int64_t o = 0; o < kept; ++o) {
    for (int64_t j = 0; j < K; ++j) {
      /* coordinates: kept dims from o, reduced dims from j (row-major each) */
      int64_t co[16], ro = o, rj = j, flat = 0;
      for (int d = n - 1; d >= 0; --d) {
        if (red[d])
          co[d] = rj % dims[d], rj /= dims[d];
        else
          co[d] = ro % dims[d], ro /= dims[d];
      }
      for (int d = 0; d < n; ++d) flat = flat * dims[d] + co[d];
      buf[j] = (vi){x[flat], j};
    }
    qsort(buf, (size_t)K, sizeof(vi), vi_cmp);
    val[o] = buf[(K - 1) / 2].v;
    if (idx) idx[o] = (double)buf[(K - 1) / 2].i;
  }
  free(buf);
  return kept;
}

TEST(median) {
  int64_t sx[3] = {3, 5, 4};
  double v[64], ix[64];
  void* t = tensor(F32, 3, sx, 1, 0, 0);
  /* halves: ties in most rows, so the stable order decides the index */
  for (int i = 0; i < 60; ++i) fdata(t)[i] = roundf(fdata(t)[i] * 2) / 2;
  /* axis None: the lower median of all 60 */
  bool all[3] = {true, true, true};
  median_ref(fdata(t), sx, 3, all, v, NULL);
  oot_expect e = oot_one(F32, v, 1, 0);
  tvm_ffi_retain(t);
  oot_check_op("relax.median", NULL, 1, &t, NULL, &e);
  /* axis 1 (5 values: odd) -> values and indices (3, 4) */
  bool a1[3] = {false, true, false};
  int64_t k = median_ref(fdata(t), sx, 3, a1, v, ix);
  void* axes = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(1)}, 1);
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_obj(axes));
  tvm_ffi_release(axes);
  e = (oot_expect){2, {F32, I64T}, {v, ix}, {k, k}, 0};
  tvm_ffi_retain(t);
  oot_check_op("relax.median", attrs, 1, &t, NULL, &e);
  tvm_ffi_release(attrs);
  /* axis -1 (4 values: even, the lower one) with keepdims */
  bool a2[3] = {false, false, true};
  k = median_ref(fdata(t), sx, 3, a2, v, ix);
  axes = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(-1)}, 1);
  attrs = rt_attrs(2, "axis", tvm_ffi_any_obj(axes), "keepdims", tvm_ffi_any_bool(true));
  tvm_ffi_release(axes);
  e = (oot_expect){2, {F32, I64T}, {v, ix}, {k, k}, 0};
  tvm_ffi_retain(t);
  oot_check_op("relax.median", attrs, 1, &t, NULL, &e);
  tvm_ffi_release(attrs);
  /* axes [0, 2]: 12 values per output, values only */
  bool a3[3] = {true, false, true};
  k = median_ref(fdata(t), sx, 3, a3, v, NULL);
  axes = tvm_ffi_array_new((TVMFFIAny[]){tvm_ffi_any_int(0), tvm_ffi_any_int(2)}, 2);
  attrs = rt_attrs(1, "axis", tvm_ffi_any_obj(axes));
  tvm_ffi_release(axes);
  e = oot_one(F32, v, k, 0);
  oot_check_op("relax.median", attrs, 1, &t, NULL, &e);
  tvm_ffi_release(attrs);
}

/* ---- nll_loss_backward ----------------------------------------------------------------------- */
/* The forward loss of the project's nll_loss kernel (legalize_nn_extra.c) in C, for the finite
 * difference: p (N, C), t (N), w (C) or NULL. */
static double nll_ref(const float* p, const int64_t* t, const float* w, int N, int C,
                      const char* red, int64_t ignore, double* per) {
  double s = 0, ws = 0;
  for (int n = 0; n < N; ++n) {
    bool ok = t[n] != ignore;
    double wt = ok ? (w ? w[t[n]] : 1.0) : 0.0;
    double l = ok ? -p[n * C + t[n]] * wt : 0;
    if (per) per[n] = l;
    s += l, ws += wt;
  }
  return strcmp(red, "mean") == 0 ? s / ws : s;
}

/* per_target: for "sum" / "mean", an output gradient per target (upstream broadcasts it to
 * targets' shape), not the loss's one value. */
static void nll_backward_case(const char* red, int64_t ignore, bool weights, bool per_target) {
  enum { N = 6, C = 5 };
  int64_t sp[2] = {N, C}, st[1] = {N}, sw[1] = {C}, s0[1] = {0};
  bool none = strcmp(red, "none") == 0;
  bool per = none || per_target;
  void* g = per ? tensor(F32, 1, st, 1, 0, 0) : tensor(F32, 0, s0, 1, 0, 0);
  void* p = tensor(F32, 2, sp, 1, 0, 0);
  void* t = tensor(I64T, 1, st, 0, 0, C);
  idata(t)[1] = ignore < C && ignore >= 0 ? ignore : idata(t)[1];
  void* w = weights ? tensor(F32, 1, sw, 1, 0, 0) : NULL;
  if (w) {
    for (int c = 0; c < C; ++c) fdata(w)[c] = 0.5f + fabsf(fdata(w)[c]);
  }
  double want[N * C];
  const float* gp = fdata(g);
  double den = 0;
  for (int n = 0; n < N; ++n) {
    if (idata(t)[n] != ignore) den += w ? fdata(w)[idata(t)[n]] : 1.0;
  }
  for (int n = 0; n < N; ++n) {
    for (int c = 0; c < C; ++c) {
      int64_t tn = idata(t)[n];
      double gv = per ? gp[n] : gp[0];
      double d = strcmp(red, "mean") == 0 ? den : 1;
      want[n * C + c] = c == tn && tn != ignore ? -(w ? fdata(w)[tn] : 1.0) * gv / d : 0;
    }
  }
  /* The same from a central difference of the loss (a linear function of p: exact up to
   * rounding). */
  float* pp = fdata(p);
  for (int i = 0; i < N * C; ++i) {
    float keep = pp[i];
    const float h = 0.25f;
    pp[i] = keep + h;
    double per_hi[N], per_lo[N];
    double hi = nll_ref(pp, idata(t), w ? fdata(w) : NULL, N, C, red, ignore, per_hi);
    pp[i] = keep - h;
    double lo = nll_ref(pp, idata(t), w ? fdata(w) : NULL, N, C, red, ignore, per_lo);
    pp[i] = keep;
    double fd = 0;
    if (per) {
      /* (mean: each target's loss over the weight sum, which does not depend on p) */
      double d = strcmp(red, "mean") == 0 ? den : 1;
      for (int n = 0; n < N; ++n) fd += gp[n] * (per_hi[n] - per_lo[n]) / (2 * h) / d;
    } else {
      fd = gp[0] * (hi - lo) / (2 * h);
    }
    CHECK(fabs(fd - want[i]) <= 1e-4 * (1 + fabs(want[i])));
  }
  void* attrs =
      rt_attrs(2, "reduction", tvm_ffi_string(red), "ignore_index", tvm_ffi_any_int(ignore));
  void* ts[4] = {g, p, t, w};
  oot_expect e = oot_one(F32, want, N * C, 1e-5);
  oot_check_op("relax.grad.nll_loss_backward", attrs, w ? 4 : 3, ts, NULL, &e);
  tvm_ffi_release(attrs);
}

/* A target not ignored outside the C classes (C, or -1) fails both ways. */
static void nll_backward_bad_target(const char* red, bool weights, int64_t bad) {
  enum { N = 6, C = 5 };
  int64_t sp[2] = {N, C}, st[1] = {N}, sw[1] = {C}, s0[1] = {0};
  bool none = strcmp(red, "none") == 0;
  void* ts[4] = {none ? tensor(F32, 1, st, 1, 0, 0) : tensor(F32, 0, s0, 1, 0, 0),
                 tensor(F32, 2, sp, 1, 0, 0), tensor(I64T, 1, st, 0, 0, C),
                 weights ? tensor(F32, 1, sw, 1, 0, 0) : NULL};
  idata(ts[2])[3] = bad;
  void* attrs = rt_attrs(1, "reduction", tvm_ffi_string(red));
  oot_check_op_error("relax.grad.nll_loss_backward", attrs, weights ? 4 : 3, ts, NULL,
                     "AssertionError", "relax.grad.nll_loss_backward: an index is out of range");
  tvm_ffi_release(attrs);
}

TEST(nll_loss_backward) {
  nll_backward_case("mean", -100, true, false);
  nll_backward_case("mean", 2, false, false);
  nll_backward_case("sum", 3, true, false);
  nll_backward_case("none", -100, true, false);
  nll_backward_case("none", 1, false, false);
  nll_backward_case("mean", 2, true, true);
  nll_backward_case("sum", -100, false, true);
  nll_backward_bad_target("mean", true, 5);
  nll_backward_bad_target("sum", true, -1);
  nll_backward_bad_target("none", false, 5);
  nll_backward_bad_target("mean", false, -1);
}

/* ---- max_pool2d_backward / avg_pool2d_backward ----------------------------------------------- */
typedef struct {
  int64_t k[2], s[2], d[2], pad[4];
  bool ceil, include_pad;
} pool_cfg;

static int64_t pool_out(int64_t in, const pool_cfg* c, int i) {
  int64_t num = in + c->pad[i] + c->pad[2 + i] - c->d[i] * (c->k[i] - 1) - 1;
  if (c->ceil) num += c->s[i] - 1;
  int64_t o = num / c->s[i] + 1;
  if (c->ceil && (o - 1) * c->s[i] >= in + c->pad[i]) --o;
  return o;
}

static void pool_backward_case(bool is_max, const pool_cfg* c) {
  enum { N = 1, CH = 2, H = 7, W = 6 };
  int64_t oh = pool_out(H, c, 0), ow = pool_out(W, c, 1);
  int64_t sx[4] = {N, CH, H, W}, sg[4] = {N, CH, oh, ow};
  void* x = tensor(F32, 4, sx, 1, 0, 0);
  void* g = tensor(F32, 4, sg, 1, 0, 0);
  const float *xp = fdata(x), *gp = fdata(g);
  double want[N * CH * H * W] = {0};
  for (int64_t nc = 0; nc < N * CH; ++nc) {
    for (int64_t y = 0; y < oh; ++y) {
      for (int64_t z = 0; z < ow; ++z) {
        double gv = gp[(nc * oh + y) * ow + z];
        int64_t h0 = y * c->s[0] - c->pad[0], w0 = z * c->s[1] - c->pad[1];
        int64_t bh = -1, bw = -1, taps = 0, padded = 1;
        float best = 0;
        for (int64_t a = 0; a < c->k[0]; ++a) {
          for (int64_t b = 0; b < c->k[1]; ++b) {
            int64_t hh = h0 + a * c->d[0], ww = w0 + b * c->d[1];
            if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;
            ++taps;
            float v = xp[(nc * H + hh) * W + ww];
            if (bh < 0 || v > best) best = v, bh = hh, bw = ww;
          }
        }
        if (is_max) {
          if (bh >= 0) want[(nc * H + bh) * W + bw] += gv;
          continue;
        }
        /* the divisor of the forward kernel: the taps inside the padded input, or inside */
        for (int i = 0; i < 2; ++i) {
          int64_t st = i == 0 ? h0 : w0, in = i == 0 ? H : W;
          int64_t last = st + (c->k[i] - 1) * c->d[i];
          if (last > in + c->pad[2 + i] - 1) last = in + c->pad[2 + i] - 1;
          padded *= (last - st) / c->d[i] + 1;
        }
        double div = c->include_pad ? (double)padded : (double)(taps > 0 ? taps : 1);
        for (int64_t a = 0; a < c->k[0]; ++a) {
          for (int64_t b = 0; b < c->k[1]; ++b) {
            int64_t hh = h0 + a * c->d[0], ww = w0 + b * c->d[1];
            if (hh < 0 || hh >= H || ww < 0 || ww >= W) continue;
            want[(nc * H + hh) * W + ww] += gv / div;
          }
        }
      }
    }
  }
  TVMFFIAny l[4][4];
  const int64_t* vals[4] = {c->k, c->s, c->d, c->pad};
  const int lens[4] = {2, 2, 2, 4};
  void* arrs[4];
  for (int i = 0; i < 4; ++i) {
    for (int j = 0; j < lens[i]; ++j) l[i][j] = tvm_ffi_any_int(vals[i][j]);
    arrs[i] = tvm_ffi_array_new(l[i], lens[i]);
  }
  void* attrs = rt_attrs(6, "pool_size", tvm_ffi_any_obj(arrs[0]), "strides",
                         tvm_ffi_any_obj(arrs[1]), "dilation", tvm_ffi_any_obj(arrs[2]), "padding",
                         tvm_ffi_any_obj(arrs[3]), "ceil_mode", tvm_ffi_any_bool(c->ceil),
                         "count_include_pad", tvm_ffi_any_bool(c->include_pad));
  for (int i = 0; i < 4; ++i) tvm_ffi_release(arrs[i]);
  void* ts[2] = {g, x};
  oot_expect e = oot_one(F32, want, N * CH * H * W, 1e-5);
  oot_check_op(is_max ? "relax.grad.max_pool2d_backward" : "relax.grad.avg_pool2d_backward", attrs,
               2, ts, NULL, &e);
  tvm_ffi_release(attrs);
}

TEST(pool2d_backward) {
  /* overlapping windows with padding; strided; ceil_mode; dilation */
  pool_cfg a = {{3, 3}, {1, 1}, {1, 1}, {1, 1, 1, 1}, false, false};
  pool_cfg b = {{2, 2}, {2, 2}, {1, 1}, {0, 0, 0, 0}, false, false};
  pool_cfg c = {{3, 2}, {2, 2}, {1, 1}, {1, 0, 1, 1}, true, true};
  pool_cfg d = {{2, 2}, {1, 2}, {2, 2}, {0, 1, 0, 1}, false, false};
  const pool_cfg* cfgs[4] = {&a, &b, &c, &d};
  for (int i = 0; i < 4; ++i) {
    pool_backward_case(true, cfgs[i]);
    pool_backward_case(false, cfgs[i]);
  }
  pool_cfg e = a;
  e.include_pad = true;
  pool_backward_case(false, &e);
}

/* ---- take_backward --------------------------------------------------------------------------- */
TEST(take_backward) {
  /* axis 1 of (3, 10), 6 indices with repeats and a negative one */
  int64_t sx[2] = {3, 10}, si[1] = {6}, sg[2] = {3, 6};
  void* g = tensor(F32, 2, sg, 1, 0, 0);
  void* x = tensor(F32, 2, sx, 1, 0, 0);
  void* idx = tensor(I64T, 1, si, 0, 0, 10);
  idata(idx)[2] = idata(idx)[0];
  idata(idx)[4] = -3;
  double want[30] = {0};
  for (int r = 0; r < 3; ++r) {
    for (int l = 0; l < 6; ++l) {
      int64_t j = idata(idx)[l] < 0 ? idata(idx)[l] + 10 : idata(idx)[l];
      want[r * 10 + j] += fdata(g)[r * 6 + l];
    }
  }
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_int(1));
  void* ts[3] = {g, x, idx};
  oot_expect e = oot_one(F32, want, 30, 1e-6);
  oot_check_op("relax.grad.take_backward", attrs, 3, ts, NULL, &e);
  tvm_ffi_release(attrs);
  /* axis None on a 1-d x; a 0-d index along axis 0 of a 2-d x */
  int64_t s1[1] = {8}, sg1[1] = {6};
  void* g1 = tensor(F32, 1, sg1, 1, 0, 0);
  void* x1 = tensor(F32, 1, s1, 1, 0, 0);
  void* i1 = tensor(I64T, 1, si, 0, 0, 8);
  idata(i1)[5] = idata(i1)[3];
  double w1[8] = {0};
  for (int l = 0; l < 6; ++l) w1[idata(i1)[l]] += fdata(g1)[l];
  void* t1[3] = {g1, x1, i1};
  e = oot_one(F32, w1, 8, 1e-6);
  oot_check_op("relax.grad.take_backward", NULL, 3, t1, NULL, &e);
  int64_t s2[2] = {4, 3}, sg2[1] = {3}, s0[1] = {0};
  void* g2 = tensor(F32, 1, sg2, 1, 0, 0);
  void* x2 = tensor(F32, 2, s2, 1, 0, 0);
  void* i2 = tensor(I64T, 0, s0, 0, 0, 4);
  double w2[12] = {0};
  for (int j = 0; j < 3; ++j) w2[idata(i2)[0] * 3 + j] = fdata(g2)[j];
  attrs = rt_attrs(1, "axis", tvm_ffi_any_int(0));
  void* t2[3] = {g2, x2, i2};
  e = oot_one(F32, w2, 12, 1e-6);
  oot_check_op("relax.grad.take_backward", attrs, 3, t2, NULL, &e);
  tvm_ffi_release(attrs);
  /* an index outside [-10, 10) on axis 1 of (3, 10) fails both ways, as take's */
  static const int64_t kBad[2] = {10, -11};
  for (int b = 0; b < 2; ++b) {
    void* tb[3] = {tensor(F32, 2, sg, 1, 0, 0), tensor(F32, 2, sx, 1, 0, 0),
                   tensor(I64T, 1, si, 0, 0, 10)};
    idata(tb[2])[3] = kBad[b];
    attrs = rt_attrs(1, "axis", tvm_ffi_any_int(1));
    oot_check_op_error("relax.grad.take_backward", attrs, 3, tb, NULL, "AssertionError",
                       "relax.grad.take_backward: an index is out of range");
    tvm_ffi_release(attrs);
  }
}

/* ---- The corpus programs built and run ------------------------------------------------------- */
static bool has_op(const tvm_tir_ir_module_obj* mod, const char* name) {
  TVMFFIAny m = tvm_ffi_any_obj((void*)mod);
  void* text = tvm_script_print(&m, NULL);
  TVMFFIByteArray b = {"", 0};
  TVMFFIAny t = tvm_ffi_any_obj(text);
  if (text) tvm_ffi_any_as_bytes(&t, &b);
  bool found = text && strstr(b.data, name) != NULL;
  tvm_ffi_release(text);
  return found;
}

TEST(markers_legalized_away) {
  tvm_tir_ir_module_obj* mod = test_parse_file(TVM_CORPUS_DIR "/relax", "grad_ops.py");
  if (!mod) return;
  tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
  CHECK(legal != NULL);
  CHECK(has_op(mod, "R.grad.start_checkpoint") && has_op(mod, "R.builtin.stop_lift_params"));
  CHECK(legal && !has_op(legal, "R.grad.") && !has_op(legal, "stop_lift_params"));
  tvm_ffi_release(legal);
  /* checkpointed(x, w) = exp(x * w + w) */
  int64_t s[2] = {2, 3};
  void* x = tensor(F32, 2, s, 1, 0, 0);
  void* w = tensor(F32, 2, s, 1, 0, 0);
  double want[6];
  for (int i = 0; i < 6; ++i) want[i] = expf(fdata(x)[i] * fdata(w)[i] + fdata(w)[i]);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(w)};
  oot_expect e = oot_one(F32, want, 6, 1e-5);
  /* (the evaluator needs the kernels: it runs the legalized module) */
  tvm_tir_ir_module_obj* lm = tvm_relax_transform_legalize_ops(mod);
  if (lm) oot_run_both(lm, "checkpointed", "checkpointed", args, 2, &e, true);
  tvm_ffi_release(lm);
  tvm_ffi_release(x), tvm_ffi_release(w);
  tvm_ffi_release(mod);
}

TEST(vm_builtins) {
  tvm_tir_ir_module_obj* mod = test_parse_file(TVM_CORPUS_DIR "/relax", "vm_builtins.py");
  if (!mod) return;
  int64_t s4[1] = {4};
  void* x = tensor(F32, 1, s4, 1, 0, 0);
  TVMFFIAny a = tvm_ffi_any_obj(x);
  double want[7];
  /* with_ctx: storage from vm.builtin.alloc_storage(vm, ...), add_one into a view of it (the
   * VM only: the evaluator has no VM context) */
  for (int i = 0; i < 4; ++i) want[i] = fdata(x)[i] + 1.0f;
  oot_expect e = oot_one(F32, want, 4, 1e-6);
  oot_run_both(mod, "with_ctx", "with_ctx", &a, 1, &e, false);
  TVMFFIAny got;
  CHECK(tvm_relax_eval(mod, "with_ctx", &a, 1, &got) != 0);
  CHECK_RAISED("NotImplementedError", "relax.call_builtin_with_ctx");
  /* dyn: vm.call_tir_dyn(scale, (x, y, R.shape([3]))) */
  for (int i = 0; i < 4; ++i) want[i] = fdata(x)[i] * 3.0f + 1.0f;
  oot_run_both(mod, "dyn", "dyn", &a, 1, &e, true);
  /* with_grad: add_one twice */
  for (int i = 0; i < 4; ++i) want[i] = (fdata(x)[i] + 1.0f) + 1.0f;
  tvm_tir_ir_module_obj* lm = tvm_relax_transform_legalize_ops(mod);
  CHECK(lm && !has_op(lm, "call_tir_with_grad"));
  if (lm) oot_run_both(lm, "with_grad", "with_grad", &a, 1, &e, true);
  tvm_ffi_release(lm);
  /* tir_vars: scale_n(x, y, k) on a symbolic n = 7, k from the shape argument */
  int64_t s7[1] = {7}, kk[1] = {5};
  void* x7 = tensor(F32, 1, s7, 1, 0, 0);
  void* ks = tvm_ffi_shape_new(kk, 1);
  TVMFFIAny a2[2] = {tvm_ffi_any_obj(x7), tvm_ffi_any_obj(ks)};
  for (int i = 0; i < 7; ++i) want[i] = fdata(x7)[i] * 5.0f;
  e = oot_one(F32, want, 7, 1e-6);
  oot_run_both(mod, "tir_vars", "tir_vars", a2, 2, &e, true);
  tvm_ffi_release(x7), tvm_ffi_release(ks);
  tvm_ffi_release(x);
  tvm_ffi_release(mod);
}

/* A module around one binding `stmt` of an impure function of x: (4,) f32; the parse must fail
 * with kind and `part` in its message, pointing at the line. */
static void check_bad(const char* stmt, const char* kind, const char* part) {
  char src[2048];
  snprintf(src, sizeof(src),
           "@I.ir_module\n"
           "class M:\n"
           "    @T.prim_func\n"
           "    def k(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
           "        for i in range(4):\n"
           "            B[i] = A[i]\n"
           "\n"
           "    @R.function(pure=False)\n"
           "    def main(x: R.Tensor((4,), \"float32\")):\n"
           "        cls = M\n"
           "        %s\n"
           "        return x\n",
           stmt);
  void* ir = tvm_script_parse(src, strlen(src), NULL);
  CHECK(ir == NULL);
  tvm_ffi_release(ir);
  CHECK_RAISED(kind, part);
}

TEST(vm_forms_bad_inputs) {
  check_bad("s = R.call_builtin_with_ctx(cls.k, (x,))", "TypeError",
            "argument 'func' of R.call_builtin_with_ctx must be a builtin's name");
  check_bad("s = R.call_builtin_with_ctx(\"vm.builtin.f\", (x,), sinfo_args=3)", "TypeError",
            "sinfo_args");
  check_bad("_ = R.vm.call_tir_dyn(cls.k, (x, x))", "TypeError",
            "R.vm.call_tir_dyn: argument 'args' must be a tuple of the tensors then the shape");
  check_bad("_ = R.vm.call_tir_dyn(x, (x, R.shape([1])))", "TypeError",
            "R.vm.call_tir_dyn: argument 'func' must be a GlobalVar of a PrimFunc");
  check_bad("y = R.call_tir_with_grad(cls.k, (x,), out_sinfo=R.Tensor((4,), \"float32\"))",
            "TypeError", "missing required argument 'te_grad_name'");
  check_bad(
      "y = R.call_tir_with_grad(cls.k, (x,), out_sinfo=R.Tensor((4,), \"float32\"), "
      "te_grad_name=\"g\", te_grad_kwargs=3)",
      "TypeError", "attribute 'te_grad_kwargs' must be a dict");
  check_bad("y = R.grad.start_checkpoint(R.const(1.0, \"float32\"))", "TypeError",
            "R.grad.start_checkpoint: argument 'input' must be a variable");
  check_bad("y = R.median(x, axis=3)", "ValueError", "R.median: axis 3 is out of range");
}

int main(void) {
  RUN(median);
  RUN(nll_loss_backward);
  RUN(pool2d_backward);
  RUN(take_backward);
  RUN(markers_legalized_away);
  RUN(vm_builtins);
  RUN(vm_forms_bad_inputs);
  return test_summary();
}
