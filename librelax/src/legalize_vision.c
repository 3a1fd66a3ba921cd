/*
 * legalize_vision.c: the kernels of image.affine_grid and vision.roi_align, following upstream's
 * topi (image/grid_sample.py's affine_grid, vision/roi_align.py).
 *
 * affine_grid: out[n, k, i, j] = theta[n, k, 0] * x_j + theta[n, k, 1] * y_i + theta[n, k, 2]
 * with x_j = x_start + j * x_step (likewise y), in data's dtype: align_corners starts at -1 with
 * steps (2 - 1e-7) / (W - 1) (upstream's constant; a dim of 1 gives the start alone), otherwise
 * starts at 1 / W - 1 with steps 2 / W. The 3-d form (theta (N, 3, 4), size (D, H, W)) adds
 * theta[n, k, 2] * z_d and the constant theta[n, k, 3].
 *
 * roi_align (NCHW or NHWC, avg or max): roi r = [batch index, x1, y1, x2, y2] scaled by
 * spatial_scale; its size max(end - start, 1) (aligned: end - start, no clamp); bins of size /
 * pooled; sample_ratio samples per bin and dim, or ceil(size / pooled) when not positive; each
 * sample bilinear at start + (p + (s + 0.5) / grid) * bin, 0 when it lies beyond [-1, H] x [-1, W],
 * the coordinates clamped into the input otherwise; avg sums sample / count, max keeps the largest
 * (the dtype's lowest for an empty grid). Arithmetic in the rois' dtype. The batch index is
 * truncated and clamped into [0, N) (upstream reads it unchecked).
 */
#include <float.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "internal.h"

static const char* attr_str(const tvm_relax_call_obj* call, const char* name) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  TVMFFIByteArray b;
  if (!a || (a->type_index != kTVMFFIStr && a->type_index != kTVMFFISmallStr)) return NULL;
  return tvm_ffi_any_as_bytes(a, &b) ? b.data : NULL;
}

static bool attr_bool(const tvm_relax_call_obj* call, const char* name, bool dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  bool r = dflt;
  if (a) tvm_ffi_any_as_bool(a, &r);
  return r;
}

static int64_t attr_int(const tvm_relax_call_obj* call, const char* name, int64_t dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  int64_t r = dflt;
  if (a) tvm_ffi_any_as_int(a, &r);
  return r;
}

static double attr_float(const tvm_relax_call_obj* call, const char* name, double dflt) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  double r = dflt;
  if (a) tvm_ffi_any_as_float(a, &r);
  return r;
}

static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

/* ---- affine_grid ----------------------------------------------------------------------------- */
static void* affine_grid_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *th = in[0], *o = out[0];
  int s = (int)tvm_ffi_seq_size(o->shape) - 2, n = s + 2;
  bool align = attr_bool(call, "align_corners", true);
  DLDataType t = o->dtype;
  void* v[5];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  /* coordinate of output index v[2 + a] along spatial axis a (extent e) */
  void* value = tvm_tir_cast_take(
      t, tvm_tir_load_take(tvm_tir_ref(th), tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), tvm_tir_i64(s)));
  for (int a = 0; a < s; ++a) {
    void* e = dim(o, 2 + a);
    void *start, *step;
    if (align) {
      start = tvm_tir_const_float(t, -1.0);
      step = tvm_tir_div_take(
          tvm_tir_const_float(t, 2.0 - 1e-7),
          tvm_tir_cast_take(t, tvm_tir_max_take(tvm_tir_sub_take(tvm_tir_ref(e), tvm_tir_i64(1)),
                                                tvm_tir_i64(1))));
    } else {
      void* ef = tvm_tir_cast_take(t, tvm_tir_ref(e));
      start = tvm_tir_sub_take(tvm_tir_div_take(tvm_tir_const_float(t, 1.0), tvm_tir_ref(ef)),
                               tvm_tir_const_float(t, 1.0));
      step = tvm_tir_div_take(tvm_tir_const_float(t, 2.0), ef);
    }
    void* c = tvm_tir_add_take(start,
                               tvm_tir_mul_take(tvm_tir_cast_take(t, tvm_tir_ref(v[2 + a])), step));
    /* theta's column: x (the last axis) is column 0, y column 1, z column 2 */
    void* w = tvm_tir_cast_take(t, tvm_tir_load_take(tvm_tir_ref(th), tvm_tir_ref(v[0]),
                                                     tvm_tir_ref(v[1]), tvm_tir_i64(s - 1 - a)));
    value = tvm_tir_add_take(tvm_tir_mul_take(w, c), value);
  }
  void* body = tvm_relax__store_all(o, v, value);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_affine_grid(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, affine_grid_body);
}

/* ---- roi_align ------------------------------------------------------------------------------- */
typedef struct {
  tvm_tir_buffer_obj* x;
  bool nchw;
  DLDataType rt; /* the arithmetic dtype: the rois' */
  void *b, *c;   /* batch index, channel (borrowed) */
} roi_ctx;

/* data[b, c, y, x] at integer indices (consumed), as rt. */
static void* at(const roi_ctx* k, void* y, void* x) {
  void* b = tvm_tir_ref(k->b);
  void* c = tvm_tir_ref(k->c);
  void* l = k->nchw ? tvm_tir_load_take(tvm_tir_ref(k->x), b, c, y, x)
                    : tvm_tir_load_take(tvm_tir_ref(k->x), b, y, x, c);
  return tvm_tir_cast_take(k->rt, l);
}

/* The bilinear sample at (y, x) (consumed, rt). */
static void* sample(const roi_ctx* k, void* y, void* x) {
  void* h = dim(k->x, k->nchw ? 2 : 1);
  void* w = dim(k->x, k->nchw ? 3 : 2);
  DLDataType rt = k->rt;
  void* outside = tvm_tir_or_take(
      tvm_tir_or_take(tvm_tir_lt_take(tvm_tir_ref(y), tvm_tir_const_float(rt, -1.0)),
                      tvm_tir_lt_take(tvm_tir_ref(x), tvm_tir_const_float(rt, -1.0))),
      tvm_tir_or_take(tvm_tir_gt_take(tvm_tir_ref(y), tvm_tir_cast_take(rt, tvm_tir_ref(h))),
                      tvm_tir_gt_take(tvm_tir_ref(x), tvm_tir_cast_take(rt, tvm_tir_ref(w)))));
  void* pt[2] = {y, x};
  void* ext[2] = {h, w};
  void *lo[2], *hi[2], *f[2];
  for (int i = 0; i < 2; ++i) {
    void* last = tvm_tir_sub_take(tvm_tir_ref(ext[i]), tvm_tir_i64(1));
    void* cl = tvm_tir_min_take(tvm_tir_max_take(pt[i], tvm_tir_const_float(rt, 0.0)),
                                tvm_tir_cast_take(rt, tvm_tir_ref(last)));
    void* fl = tvm_tir_call_take(rt, "tir.floor", tvm_tir_ref(cl));
    f[i] = tvm_tir_sub_take(cl, tvm_tir_ref(fl));
    lo[i] = tvm_tir_cast_take(TVM_TIR_INT64, fl);
    hi[i] = tvm_tir_min_take(tvm_tir_add_take(tvm_tir_ref(lo[i]), tvm_tir_i64(1)), last);
  }
  void* top = tvm_tir_add_take(
      tvm_tir_mul_take(at(k, tvm_tir_ref(lo[0]), tvm_tir_ref(lo[1])),
                       tvm_tir_sub_take(tvm_tir_const_float(rt, 1.0), tvm_tir_ref(f[1]))),
      tvm_tir_mul_take(at(k, tvm_tir_ref(lo[0]), tvm_tir_ref(hi[1])), tvm_tir_ref(f[1])));
  void* bottom = tvm_tir_add_take(
      tvm_tir_mul_take(at(k, tvm_tir_ref(hi[0]), tvm_tir_ref(lo[1])),
                       tvm_tir_sub_take(tvm_tir_const_float(rt, 1.0), tvm_tir_ref(f[1]))),
      tvm_tir_mul_take(at(k, tvm_tir_ref(hi[0]), tvm_tir_ref(hi[1])), tvm_tir_ref(f[1])));
  void* val = tvm_tir_add_take(
      tvm_tir_mul_take(top, tvm_tir_sub_take(tvm_tir_const_float(rt, 1.0), tvm_tir_ref(f[0]))),
      tvm_tir_mul_take(bottom, tvm_tir_ref(f[0])));
  tvm_relax__release_all(lo, 2), tvm_relax__release_all(hi, 2), tvm_relax__release_all(f, 2);
  return tvm_tir_select_take(outside, tvm_tir_const_float(rt, 0.0), val);
}

static void* roi_align_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                            tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  const char* layout = attr_str(call, "layout");
  const char* mode = attr_str(call, "mode");
  bool nchw = !layout || strcmp(layout, "NCHW") == 0;
  bool is_max = mode && strcmp(mode, "max") == 0;
  tvm_tir_buffer_obj *x = in[0], *rois = in[1], *o = out[0];
  DLDataType rt = rois->dtype, t = o->dtype;
  if (!tvm_tir_dtype_is_floating(rt) || !tvm_tir_dtype_is_floating(t)) {
    tvm_ffi_raise("NotImplementedError",
                  "vision.roi_align: only float data and rois have a kernel");
    return NULL;
  }
  const TVMFFIAny* ps = tvm_relax_call_attr(call, "pooled_size");
  int64_t np = ps && ps->type_index == kTVMFFIArray ? tvm_ffi_seq_size(ps->v_obj) : 0;
  int64_t pooled[2] = {1, 1};
  for (int i = 0; i < 2 && np > 0; ++i)
    tvm_ffi_any_as_int(tvm_ffi_seq_at(ps->v_obj, np == 1 ? 0 : i), &pooled[i]);
  double scale = attr_float(call, "spatial_scale", 1.0);
  int64_t ratio = attr_int(call, "sample_ratio", -1);
  bool aligned = attr_bool(call, "aligned", false);
  void* v[4];
  if (tvm_relax__kernel_vars(v, 4, "i") != 0) return NULL;
  /* v in the output's order; the logical (roi, channel, ph, pw) */
  void* r = v[0];
  void* c = v[nchw ? 1 : 3];
  void* p[2] = {v[nchw ? 2 : 1], v[nchw ? 3 : 2]};
  /* Let-bound per output element: the batch index, the roi's start (y, x), bin size and grid. */
  tvm_tir_var_obj* bidx = tvm_tir_var("batch", TVM_TIR_INT64);
  tvm_tir_var_obj *start[2], *bin[2], *grid[2];
  static const char *const sn[2] = {"start_y", "start_x"}, *const bn[2] = {"bin_y", "bin_x"},
                           *const gn[2] = {"grid_y", "grid_x"};
  for (int i = 0; i < 2; ++i) {
    start[i] = tvm_tir_var(sn[i], rt), bin[i] = tvm_tir_var(bn[i], rt),
    grid[i] = tvm_tir_var(gn[i], TVM_TIR_INT64);
  }
  void* rs[2];
  if (tvm_relax__kernel_vars(rs, 2, "s") != 0) {
    tvm_relax__release_all(v, 4);
    return NULL;
  }
  roi_ctx k = {x, nchw, rt, bidx, c};
  void* coord[2];
  for (int i = 0; i < 2; ++i) {
    /* start + (s + 0.5) * bin / grid */
    coord[i] = tvm_tir_add_take(
        tvm_tir_ref(start[i]),
        tvm_tir_div_take(
            tvm_tir_mul_take(tvm_tir_add_take(tvm_tir_cast_take(rt, tvm_tir_ref(rs[i])),
                                              tvm_tir_const_float(rt, 0.5)),
                             tvm_tir_ref(bin[i])),
            tvm_tir_cast_take(rt, tvm_tir_ref(grid[i]))));
  }
  void* sv = sample(&k, coord[0], coord[1]);
  tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", rt);
  void* update;
  if (is_max) {
    update = tvm_relax__scratch_store(acc, tvm_tir_max_take(tvm_relax__scratch_load(acc), sv));
  } else {
    void* count =
        tvm_tir_cast_take(rt, tvm_tir_mul_take(tvm_tir_ref(grid[0]), tvm_tir_ref(grid[1])));
    update = tvm_relax__scratch_store(
        acc, tvm_tir_add_take(tvm_relax__scratch_load(acc), tvm_tir_div_take(sv, count)));
  }
  void* gext[2] = {grid[0], grid[1]};
  void* red = tvm_relax__loop_nest(rs, gext, 2, NULL, update);
  void* init =
      tvm_relax__scratch_store(acc, tvm_tir_const_float(rt, is_max ? (rt.bits == 64   ? -DBL_MAX
                                                                      : rt.bits == 16 ? -65504.0
                                                                                      : -FLT_MAX)
                                                                   : 0.0));
  void* oi[4];
  for (int i = 0; i < 4; ++i) oi[i] = tvm_tir_ref(v[i]);
  void* inner = tvm_tir_seq_take(
      init, red,
      tvm_tir_store_takev(tvm_tir_ref(o), tvm_tir_cast_take(t, tvm_relax__scratch_load(acc)), 4,
                          oi));
  inner = tvm_relax__scratch_scope(acc, inner);
  /* The lets, outermost first: the batch index, then per dim bin, start (which reads bin), grid. */
  for (int i = 1; i >= 0; --i) {
    /* rois[r] = [batch, x1, y1, x2, y2]: y starts at column 2, x at column 1, ends 2 later */
    int col = i == 0 ? 2 : 1;
    void* st = tvm_tir_mul_take(
        tvm_tir_cast_take(rt,
                          tvm_tir_load_take(tvm_tir_ref(rois), tvm_tir_ref(r), tvm_tir_i64(col))),
        tvm_tir_const_float(rt, scale));
    void* en = tvm_tir_mul_take(
        tvm_tir_cast_take(
            rt, tvm_tir_load_take(tvm_tir_ref(rois), tvm_tir_ref(r), tvm_tir_i64(col + 2))),
        tvm_tir_const_float(rt, scale));
    void* size = tvm_tir_sub_take(en, tvm_tir_ref(st));
    if (!aligned) size = tvm_tir_max_take(size, tvm_tir_const_float(rt, 1.0));
    void* binv = tvm_tir_div_take(tvm_tir_ref(size), tvm_tir_const_float(rt, (double)pooled[i]));
    void* gridv =
        ratio > 0 ? (tvm_ffi_release(size), tvm_tir_i64(ratio))
                  : tvm_tir_cast_take(
                        TVM_TIR_INT64,
                        tvm_tir_call_take(
                            rt, "tir.ceil",
                            tvm_tir_div_take(size, tvm_tir_const_float(rt, (double)pooled[i]))));
    /* start of this output bin: roi start + p * bin */
    void* bstart = tvm_tir_add_take(
        st, tvm_tir_mul_take(tvm_tir_cast_take(rt, tvm_tir_ref(p[i])), tvm_tir_ref(bin[i])));
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(grid[i]), gridv, inner);
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(start[i]), bstart, inner);
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(bin[i]), binv, inner);
  }
  void* bv = tvm_tir_cast_take(
      TVM_TIR_INT64, tvm_tir_load_take(tvm_tir_ref(rois), tvm_tir_ref(r), tvm_tir_i64(0)));
  bv = tvm_tir_min_take(tvm_tir_max_take(bv, tvm_tir_i64(0)),
                        tvm_tir_sub_take(tvm_tir_ref(dim(x, 0)), tvm_tir_i64(1)));
  inner = tvm_tir_let_stmt_take(tvm_tir_ref(bidx), bv, inner);
  void* oext[4];
  for (int i = 0; i < 4; ++i) oext[i] = dim(o, i);
  void* body = tvm_relax__loop_nest(v, oext, 4, NULL, inner);
  tvm_ffi_release(acc), tvm_ffi_release(bidx);
  for (int i = 0; i < 2; ++i)
    tvm_ffi_release(start[i]), tvm_ffi_release(bin[i]), tvm_ffi_release(grid[i]);
  tvm_relax__release_all(rs, 2);
  tvm_relax__release_all(v, 4);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_roi_align(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, roi_align_body);
}
