/*
 * legalize_vision.c: the kernels of image.affine_grid, vision.roi_align, vision.roi_pool,
 * vision.get_valid_counts, vision.non_max_suppression (hard and soft, returning indices or the
 * data), vision.all_class_non_max_suppression and vision.multibox_transform_loc, following
 * upstream's topi (image/grid_sample.py's affine_grid, vision/roi_align.py, vision/roi_pool.py,
 * vision/nms.py, vision/multibox_transform_loc.py).
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
 * truncated and clamped into [0, N) (upstream reads it unchecked); an empty input gives zeros.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "internal.h"

static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

/* ---- affine_grid ----------------------------------------------------------------------------- */
static void* affine_grid_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *th = in[0], *o = out[0];
  int s = (int)tvm_ffi_seq_size(o->shape) - 2, n = s + 2;
  bool align = tvm_relax__call_attr_bool(call, "align_corners", true);
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
/* The pooled pair of a call's pooled_size (one value for both dims, or two). */
static void pooled_of(const tvm_relax_call_obj* call, int64_t pooled[2]) {
  const TVMFFIAny* ps = tvm_relax_call_attr(call, "pooled_size");
  int64_t np = ps && ps->type_index == kTVMFFIArray ? tvm_ffi_seq_size(ps->v_obj) : 0;
  pooled[0] = pooled[1] = 1;
  for (int i = 0; i < 2 && np > 0; ++i)
    tvm_ffi_any_as_int(tvm_ffi_seq_at(ps->v_obj, np == 1 ? 0 : i), &pooled[i]);
}

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
  const char* layout = tvm_relax__call_attr_str(call, "layout", NULL);
  const char* mode = tvm_relax__call_attr_str(call, "mode", NULL);
  bool nchw = !layout || strcmp(layout, "NCHW") == 0;
  bool is_max = mode && strcmp(mode, "max") == 0;
  tvm_tir_buffer_obj *x = in[0], *rois = in[1], *o = out[0];
  DLDataType rt = rois->dtype, t = o->dtype;
  if (!tvm_tir_dtype_is_floating(rt) || !tvm_tir_dtype_is_floating(t)) {
    tvm_ffi_raise("NotImplementedError",
                  "vision.roi_align: only float data and rois have a kernel");
    return NULL;
  }
  int64_t pooled[2];
  pooled_of(call, pooled);
  double scale = tvm_relax__call_attr_float(call, "spatial_scale", 1.0);
  int64_t ratio = tvm_relax__call_attr_int(call, "sample_ratio", -1);
  bool aligned = tvm_relax__call_attr_bool(call, "aligned", false);
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
  /* an empty input (no batch, height or width) has nothing to sample: zeros */
  void* nonempty = NULL;
  for (int a = 0; a < 3; ++a) {
    void* c = tvm_tir_gt_take(tvm_tir_ref(dim(x, a == 0 ? 0 : nchw ? a + 1 : a)), tvm_tir_i64(0));
    nonempty = nonempty ? tvm_tir_and_take(nonempty, c) : c;
  }
  void* oz[4];
  for (int i = 0; i < 4; ++i) oz[i] = tvm_tir_ref(v[i]);
  inner = tvm_tir_if_take(nonempty, inner,
                          tvm_tir_store_takev(tvm_tir_ref(o), tvm_tir_const_float(t, 0.0), 4, oz));
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

/* ---- roi_pool -------------------------------------------------------------------------------- */
/* A constant of dtype t (float or integer). */
static void* const_of(DLDataType t, double v) {
  return tvm_tir_dtype_is_floating(t) ? (void*)tvm_tir_const_float(t, v)
                                      : (void*)tvm_tir_const_int(t, (int64_t)v);
}

/*
 * roi_pool (NCHW), as upstream's topi vision/roi_pool.py: roi r = [batch index, x1, y1, x2, y2];
 * each coordinate times spatial_scale rounded as floor(v + 0.5) (ties upward) in the rois'
 * dtype; the roi's size end - start + 1, at least 1, split into pooled bins of size / pooled
 * (in the rois' dtype); bin p covers [floor(p * bin), ceil((p + 1) * bin)) from the roi's start,
 * clamped into the image; out[r, c, ph, pw] is the max of data[b, c, y, x] over the bin, 0 for an
 * empty bin. Beyond topi: the batch index (truncated) is clamped into [0, N) (topi reads it
 * unchecked) and an empty batch gives zeros.
 */
static void* roi_pool_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                           tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *x = in[0], *rois = in[1], *o = out[0];
  DLDataType rt = rois->dtype, t = o->dtype, i64 = TVM_TIR_INT64;
  if (!tvm_tir_dtype_is_floating(rt)) {
    tvm_ffi_raise("NotImplementedError", "vision.roi_pool: only float rois have a kernel");
    return NULL;
  }
  int64_t pooled[2];
  pooled_of(call, pooled);
  double scale = tvm_relax__call_attr_float(call, "spatial_scale", 1.0);
  void *v[4], *s[2];
  if (tvm_relax__kernel_vars(v, 4, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(s, 2, "s") != 0) {
    tvm_relax__release_all(v, 4);
    return NULL;
  }
  void *r = v[0], *c = v[1], *p[2] = {v[2], v[3]};
  /* Let-bound per output element: the batch index; per dim (y, x) the roi's start, its bin size,
   * and the bin's clamped bounds [lo, hi). */
  tvm_tir_var_obj* bidx = tvm_tir_var("batch", i64);
  tvm_tir_var_obj *start[2], *bin[2], *lo[2], *hi[2];
  static const char *const sn[2] = {"start_y", "start_x"}, *const bn[2] = {"bin_y", "bin_x"},
                           *const ln[2] = {"lo_y", "lo_x"}, *const hn[2] = {"hi_y", "hi_x"};
  for (int i = 0; i < 2; ++i) {
    start[i] = tvm_tir_var(sn[i], i64), bin[i] = tvm_tir_var(bn[i], rt);
    lo[i] = tvm_tir_var(ln[i], i64), hi[i] = tvm_tir_var(hn[i], i64);
  }
  /* the max over the bin, or 0 when it is empty (or the batch is) */
  tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
  void* px = tvm_tir_load_take(tvm_tir_ref(x), tvm_tir_ref(bidx), tvm_tir_ref(c), tvm_tir_ref(s[0]),
                               tvm_tir_ref(s[1]));
  void* red = tvm_relax__scratch_store(acc, tvm_tir_max_take(tvm_relax__scratch_load(acc), px));
  for (int i = 1; i >= 0; --i) {
    red = tvm_tir_serial_take(tvm_tir_ref(s[i]), tvm_tir_ref(lo[i]),
                              tvm_tir_sub_take(tvm_tir_ref(hi[i]), tvm_tir_ref(lo[i])), red);
  }
  void* lowest = tvm_tir_dtype_is_floating(t)
                     ? (void*)tvm_tir_const_float(t, -INFINITY)
                     : (void*)tvm_tir_const_int(t, tvm_tir_dtype_min_int(t));
  void* oi[4];
  for (int i = 0; i < 4; ++i) oi[i] = tvm_tir_ref(v[i]);
  void* pool =
      tvm_tir_seq_take(tvm_relax__scratch_store(acc, lowest), red,
                       tvm_tir_store_takev(tvm_tir_ref(o), tvm_relax__scratch_load(acc), 4, oi));
  pool = tvm_relax__scratch_scope(acc, pool);
  void* nonempty = tvm_tir_and_take(tvm_tir_gt_take(tvm_tir_ref(hi[0]), tvm_tir_ref(lo[0])),
                                    tvm_tir_gt_take(tvm_tir_ref(hi[1]), tvm_tir_ref(lo[1])));
  int64_t nb;
  if (!(tvm_tir_as_const_int(dim(x, 0), &nb) && nb > 0)) /* the batch may be empty */
    nonempty = tvm_tir_and_take(tvm_tir_gt_take(tvm_tir_ref(dim(x, 0)), tvm_tir_i64(0)), nonempty);
  void* oz[4];
  for (int i = 0; i < 4; ++i) oz[i] = tvm_tir_ref(v[i]);
  void* inner =
      tvm_tir_if_take(nonempty, pool, tvm_tir_store_takev(tvm_tir_ref(o), const_of(t, 0.0), 4, oz));
  /* the bounds: lo = clamp(floor(p * bin) + start), hi = clamp(ceil((p + 1) * bin) + start) */
  for (int i = 1; i >= 0; --i) {
    void* ext = dim(x, 2 + i);
    void* pf = tvm_tir_cast_take(rt, tvm_tir_ref(p[i]));
    void* pf1 = tvm_tir_cast_take(rt, tvm_tir_add_take(tvm_tir_ref(p[i]), tvm_tir_i64(1)));
    void* lov = tvm_tir_cast_take(
        i64, tvm_tir_call_take(rt, "tir.floor", tvm_tir_mul_take(pf, tvm_tir_ref(bin[i]))));
    void* hiv = tvm_tir_cast_take(
        i64, tvm_tir_call_take(rt, "tir.ceil", tvm_tir_mul_take(pf1, tvm_tir_ref(bin[i]))));
    lov = tvm_tir_min_take(
        tvm_tir_max_take(tvm_tir_add_take(lov, tvm_tir_ref(start[i])), tvm_tir_i64(0)),
        tvm_tir_ref(ext));
    hiv = tvm_tir_min_take(
        tvm_tir_max_take(tvm_tir_add_take(hiv, tvm_tir_ref(start[i])), tvm_tir_i64(0)),
        tvm_tir_ref(ext));
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(hi[i]), hiv, inner);
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(lo[i]), lov, inner);
  }
  /* per dim: the rounded start and end, the size end - start + 1 (at least 1), bin = size /
   * pooled; rois[r] = [batch, x1, y1, x2, y2]: y at columns 2 and 4, x at 1 and 3 */
  for (int i = 1; i >= 0; --i) {
    int col = i == 0 ? 2 : 1;
    void* round_at[2];
    for (int e = 0; e < 2; ++e) {
      void* cv = tvm_tir_cast_take(
          rt, tvm_tir_load_take(tvm_tir_ref(rois), tvm_tir_ref(r), tvm_tir_i64(col + 2 * e)));
      void* scaled = tvm_tir_add_take(tvm_tir_mul_take(cv, tvm_tir_const_float(rt, scale)),
                                      tvm_tir_const_float(rt, 0.5));
      round_at[e] = tvm_tir_cast_take(i64, tvm_tir_call_take(rt, "tir.floor", scaled));
    }
    void* size = tvm_tir_max_take(
        tvm_tir_add_take(tvm_tir_sub_take(round_at[1], tvm_tir_ref(start[i])), tvm_tir_i64(1)),
        tvm_tir_i64(1));
    void* binv =
        tvm_tir_div_take(tvm_tir_cast_take(rt, size), tvm_tir_const_float(rt, (double)pooled[i]));
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(bin[i]), binv, inner);
    inner = tvm_tir_let_stmt_take(tvm_tir_ref(start[i]), round_at[0], inner);
  }
  void* bv =
      tvm_tir_cast_take(i64, tvm_tir_load_take(tvm_tir_ref(rois), tvm_tir_ref(r), tvm_tir_i64(0)));
  bv = tvm_tir_min_take(tvm_tir_max_take(bv, tvm_tir_i64(0)),
                        tvm_tir_sub_take(tvm_tir_ref(dim(x, 0)), tvm_tir_i64(1)));
  inner = tvm_tir_let_stmt_take(tvm_tir_ref(bidx), bv, inner);
  void* oext[4];
  for (int i = 0; i < 4; ++i) oext[i] = dim(o, i);
  void* body = tvm_relax__loop_nest(v, oext, 4, NULL, inner);
  tvm_ffi_release(acc), tvm_ffi_release(bidx);
  for (int i = 0; i < 2; ++i) {
    tvm_ffi_release(start[i]), tvm_ffi_release(bin[i]);
    tvm_ffi_release(lo[i]), tvm_ffi_release(hi[i]);
  }
  tvm_relax__release_all(s, 2);
  tvm_relax__release_all(v, 4);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_roi_pool(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, roi_pool_body);
}

/* ---- get_valid_counts ------------------------------------------------------------------------ */
/* score > thr as topi compares it, in the score's dtype t: a float threshold rounded to t (one
 * beyond t's range is an infinity); for an integer t the exact comparison score > floor(thr),
 * constant when floor(thr) lies outside t's range. score consumed. */
static void* score_above(void* score, double thr, DLDataType t) {
  if (tvm_tir_dtype_is_floating(t)) {
    double top = t.bits == 64          ? DBL_MAX
                 : t.bits == 32        ? FLT_MAX
                 : t.code == kDLBfloat ? 3.3895313892515355e38 /* bfloat16 */
                                       : 65504.0;              /* float16 */
    if (isfinite(thr) && fabs(thr) > top) thr = thr > 0 ? INFINITY : -INFINITY;
    return tvm_tir_gt_take(score, tvm_tir_const_float(t, thr));
  }
  double f = floor(thr);
  if (!(f < (double)tvm_tir_dtype_max_int(t))) { /* also NaN: nothing is above it */
    tvm_ffi_release(score);
    return tvm_tir_bool(false);
  }
  if (f < (double)tvm_tir_dtype_min_int(t)) {
    tvm_ffi_release(score);
    return tvm_tir_bool(true);
  }
  return tvm_tir_gt_take(score, tvm_tir_const_int(t, (int64_t)f));
}

/*
 * get_valid_counts, as upstream's topi (vision/nms.py _get_valid_counts_ir): per batch i, in
 * order, a box j whose score data[i, j, score_index] is above score_threshold (strictly) and,
 * when id_index >= 0, whose class data[i, j, id_index] is >= 0 is valid: it is copied to out's
 * next row, with j as that row's index. The rows after the valid ones are -1 (their index -1);
 * valid_count[i] counts them.
 */
static void* get_valid_counts_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                   int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *d = in[0], *cnt = out[0], *od = out[1], *oi = out[2];
  double thr = tvm_relax__call_attr_float(call, "score_threshold", 0.0);
  int64_t id = tvm_relax__call_attr_int(call, "id_index", 0);
  int64_t si = tvm_relax__call_attr_int(call, "score_index", 1);
  DLDataType t = d->dtype, i32 = {kDLInt, 32, 1};
  void *A = dim(d, 1), *L = dim(d, 2);
  void* v[5];
  if (tvm_relax__kernel_vars(v, 5, "j") != 0) return NULL;
  void *i = v[0], *j = v[1], *k = v[2], *j2 = v[3], *k2 = v[4];
  tvm_tir_buffer_obj* n = tvm_relax__scratch("count", TVM_TIR_INT64);
#define D(row, col) tvm_tir_load_take(tvm_tir_ref(d), tvm_tir_ref(i), row, col)
  void* valid = score_above(D(tvm_tir_ref(j), tvm_tir_i64(si)), thr, t);
  if (id >= 0)
    valid = tvm_tir_and_take(valid,
                             tvm_tir_ge_take(D(tvm_tir_ref(j), tvm_tir_i64(id)), const_of(t, 0)));
  /* the valid box to row n, its index j */
  void* copy = tvm_tir_serial_take(
      tvm_tir_ref(k), tvm_tir_i64(0), tvm_tir_ref(L),
      tvm_tir_store_take(tvm_tir_ref(od), D(tvm_tir_ref(j), tvm_tir_ref(k)), tvm_tir_ref(i),
                         tvm_relax__scratch_load(n), tvm_tir_ref(k)));
#undef D
  void* keep = tvm_tir_seq_take(
      copy,
      tvm_tir_store_take(tvm_tir_ref(oi), tvm_tir_cast_take(i32, tvm_tir_ref(j)), tvm_tir_ref(i),
                         tvm_relax__scratch_load(n)),
      tvm_relax__scratch_store(n, tvm_tir_add_take(tvm_relax__scratch_load(n), tvm_tir_i64(1))));
  void* scan = tvm_tir_serial_take(tvm_tir_ref(j), tvm_tir_i64(0), tvm_tir_ref(A),
                                   tvm_tir_if_take(valid, keep, NULL));
  /* the rows after them: -1 */
  void* clear = tvm_tir_seq_take(
      tvm_tir_serial_take(tvm_tir_ref(k2), tvm_tir_i64(0), tvm_tir_ref(L),
                          tvm_tir_store_take(tvm_tir_ref(od), const_of(t, -1.0), tvm_tir_ref(i),
                                             tvm_tir_ref(j2), tvm_tir_ref(k2))),
      tvm_tir_store_take(tvm_tir_ref(oi), tvm_tir_const(i32, -1), tvm_tir_ref(i), tvm_tir_ref(j2)));
  void* pad = tvm_tir_serial_take(
      tvm_tir_ref(j2), tvm_tir_i64(0), tvm_tir_ref(A),
      tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(j2), tvm_relax__scratch_load(n)), clear, NULL));
  void* per_batch = tvm_tir_seq_take(
      tvm_relax__scratch_store(n, tvm_tir_i64(0)), scan, pad,
      tvm_tir_store_take(tvm_tir_ref(cnt), tvm_tir_cast_take(i32, tvm_relax__scratch_load(n)),
                         tvm_tir_ref(i)));
  void* body = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_ref(dim(d, 0)),
                                   tvm_relax__scratch_scope(n, per_batch));
  tvm_ffi_release(n);
  tvm_relax__release_all(v, 5);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_get_valid_counts(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, get_valid_counts_body);
}

/* ---- non_max_suppression --------------------------------------------------------------------- */
/*
 * Hard NMS returning indices, as upstream's topi (_classic_nms_ir): per batch i, n =
 * valid_count[i] (clamped into [0, A]) and nkeep = min(n, top_k) when top_k > 0; box_indices
 * first holds the first n boxes ranked by score, descending (ties: the lower index first, as a
 * stable sort), cut to nkeep, -1 after. In rank order, a box still held whose score is positive
 * is kept while fewer than max_output_size (when positive) are, and then drops (-1) every later
 * held box of positive score whose IoU with it is >= iou_threshold (of its class unless
 * force_suppress or id_index < 0); any other box drops itself. The kept ones map through
 * `indices`, move to the front in order, -1 after them; valid_box_count[i, 0] counts them. A
 * box's corners are the min / max of its two coordinate pairs; boxes are read only at indices
 * checked to be held (>= 0).
 */
typedef struct {
  tvm_tir_buffer_obj* d;
  void* i;      /* the batch variable (borrowed) */
  int64_t cs;   /* coord_start */
  DLDataType t; /* the data's dtype */
} nms_ctx;

/* The intersection over union of two boxes given by their corners e[q] = {left, top, right,
 * bottom} (consumed), in dtype t; 0 when the union is empty. */
static void* iou_of_corners(void* e[2][4], DLDataType t) {
  void* ext[2];
  for (int a = 0; a < 2; ++a) {
    ext[a] = tvm_tir_max_take(
        tvm_tir_const_float(t, 0.0),
        tvm_tir_sub_take(tvm_tir_min_take(tvm_tir_ref(e[0][2 + a]), tvm_tir_ref(e[1][2 + a])),
                         tvm_tir_max_take(tvm_tir_ref(e[0][a]), tvm_tir_ref(e[1][a]))));
  }
  void* area = tvm_tir_mul_take(ext[0], ext[1]);
  void* sz[2];
  for (int q = 0; q < 2; ++q) {
    sz[q] = tvm_tir_mul_take(tvm_tir_sub_take(tvm_tir_ref(e[q][2]), tvm_tir_ref(e[q][0])),
                             tvm_tir_sub_take(tvm_tir_ref(e[q][3]), tvm_tir_ref(e[q][1])));
  }
  void* u = tvm_tir_sub_take(tvm_tir_add_take(sz[0], sz[1]), tvm_tir_ref(area));
  for (int q = 0; q < 2; ++q) tvm_relax__release_all(e[q], 4);
  return tvm_tir_select_take(tvm_tir_le_take(tvm_tir_ref(u), tvm_tir_const_float(t, 0.0)),
                             tvm_tir_const_float(t, 0.0), tvm_tir_div_take(area, u));
}

/* d[i, b, col] (b borrowed). */
static void* nms_ld(const nms_ctx* k, void* b, int64_t col) {
  return tvm_tir_load_take(tvm_tir_ref(k->d), tvm_tir_ref(k->i), tvm_tir_ref(b), tvm_tir_i64(col));
}

/* The IoU of boxes a and b (borrowed int64 box indices). */
static void* nms_iou(const nms_ctx* k, void* a, void* b) {
  void* e[2][4]; /* left, top, right, bottom of a and b */
  void* box[2] = {a, b};
  for (int q = 0; q < 2; ++q)
    for (int axis = 0; axis < 2; ++axis) {
      e[q][axis] =
          tvm_tir_min_take(nms_ld(k, box[q], k->cs + axis), nms_ld(k, box[q], k->cs + axis + 2));
      e[q][2 + axis] =
          tvm_tir_max_take(nms_ld(k, box[q], k->cs + axis), nms_ld(k, box[q], k->cs + axis + 2));
    }
  return iou_of_corners(e, k->t);
}

/* od[i, row, :] = -1 and bi[i, row] = -1 (when there is bi); all borrowed. */
static void* clear_row(tvm_tir_buffer_obj* od, tvm_tir_buffer_obj* bi, void* i, void* row, void* cv,
                       void* L) {
  void* st = tvm_tir_serial_take(
      tvm_tir_ref(cv), tvm_tir_i64(0), tvm_tir_ref(L),
      tvm_tir_store_take(tvm_tir_ref(od), tvm_tir_const_float(od->dtype, -1.0), tvm_tir_ref(i),
                         tvm_tir_ref(row), tvm_tir_ref(cv)));
  if (!bi) return st;
  return tvm_tir_seq_take(st, tvm_tir_store_take(tvm_tir_ref(bi), tvm_tir_const((DLDataType){kDLInt, 32, 1}, -1),
                                                 tvm_tir_ref(i), tvm_tir_ref(row)));
}

/*
 * Soft-NMS (soft_nms_sigma > 0) and the forms returning the data (return_indices=False), as
 * upstream's topi _classic_nms_ir with its out_data: per batch i, the first nkeep boxes ranked
 * as above copied into out_data's rows in rank order, -1 rows after (their box_indices -1). In
 * rank order a box whose score (in out_data) is above thresh (score_threshold for soft-NMS, 0
 * otherwise) while fewer than a positive max_output_size are kept is kept, and every later box
 * of score above thresh (of its class unless force_suppress or id_index < 0) whose IoU with it
 * is >= iou_threshold has its score multiplied by exp(-iou^2 / sigma) (soft), or set to -1 and
 * its index to -1 (hard); any other box becomes a row of -1 (index -1). No re-ranking after a
 * decay, as upstream. Returning indices (soft): (out_data, box_indices compacted through
 * `indices` as above, valid_box_count). Without: out_data, its rows of non-negative score moved
 * to the front (in place, in order) and -1 rows after when invalid_to_bottom.
 */
static void* nms_data_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                           int nout, tvm_tir_buffer_obj* const* out) {
  tvm_tir_buffer_obj *d = in[0], *vc = in[1], *ix = in[2], *od = out[0];
  tvm_tir_buffer_obj *bi = nout == 3 ? out[1] : NULL, *cnt = nout == 3 ? out[2] : NULL;
  int64_t max_out = tvm_relax__call_attr_int(call, "max_output_size", -1),
          top_k = tvm_relax__call_attr_int(call, "top_k", -1);
  int64_t si = tvm_relax__call_attr_int(call, "score_index", 1),
          id = tvm_relax__call_attr_int(call, "id_index", 0);
  bool force = tvm_relax__call_attr_bool(call, "force_suppress", false);
  bool bottom = tvm_relax__call_attr_bool(call, "invalid_to_bottom", false);
  double thr = tvm_relax__call_attr_float(call, "iou_threshold", 0.5);
  double sigma = tvm_relax__call_attr_float(call, "soft_nms_sigma", 0.0);
  bool soft = sigma > 0.0;
  double sthr = soft ? tvm_relax__call_attr_float(call, "score_threshold", 0.0) : 0.0;
  DLDataType t = d->dtype, i32 = {kDLInt, 32, 1};
  void *A = dim(d, 1), *L = dim(d, 2);
  void* v[13];
  if (tvm_relax__kernel_vars(v, 13, "j") != 0) return NULL;
  void *i = v[0], *j0 = v[1], *c0 = v[2], *j1 = v[3], *k1 = v[4], *c1 = v[5], *j2 = v[6],
       *k2 = v[7], *c2 = v[8], *j3 = v[9], *j4 = v[10], *c3 = v[11], *c4 = v[12];
  nms_ctx k = {od, i, tvm_relax__call_attr_int(call, "coord_start", 2), t};
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT64);
  tvm_tir_var_obj* iou = tvm_tir_var("iou", t);
  tvm_tir_buffer_obj* rank = tvm_relax__scratch("rank", TVM_TIR_INT64);
  tvm_tir_buffer_obj* nvalid = tvm_relax__scratch("nvalid", TVM_TIR_INT64);
  tvm_tir_buffer_obj* vi = tvm_relax__scratch("vi", TVM_TIR_INT64);
#define OD(row, col) tvm_tir_load_take(tvm_tir_ref(od), tvm_tir_ref(i), row, col)
#define SET_OD(row, col, val) tvm_tir_store_take(tvm_tir_ref(od), val, tvm_tir_ref(i), row, col)
#define SET_BI(row, val) tvm_tir_store_take(tvm_tir_ref(bi), val, tvm_tir_ref(i), row)
#define INC(buf) \
  tvm_relax__scratch_store(buf, tvm_tir_add_take(tvm_relax__scratch_load(buf), tvm_tir_i64(1)))
#define NEG1 tvm_tir_const_float(t, -1.0)
#define CLEAR_ROW(row, cv) clear_row(od, bi, i, row, cv, L)
  void* nkeep = top_k > 0 ? tvm_tir_min_take(tvm_tir_ref(n), tvm_tir_i64(top_k)) : tvm_tir_ref(n);
  void* init = tvm_tir_serial_take(tvm_tir_ref(j0), tvm_tir_i64(0), tvm_tir_ref(A), CLEAR_ROW(j0, c0));
  /* each of the first n boxes to out_data's row of its rank, when the rank is below nkeep */
  void* sk = tvm_tir_load_take(tvm_tir_ref(d), tvm_tir_ref(i), tvm_tir_ref(k1), tvm_tir_i64(si));
  void* sj = tvm_tir_load_take(tvm_tir_ref(d), tvm_tir_ref(i), tvm_tir_ref(j1), tvm_tir_i64(si));
  void* before = tvm_tir_or_take(
      tvm_tir_gt_take(tvm_tir_ref(sk), tvm_tir_ref(sj)),
      tvm_tir_and_take(tvm_tir_eq_take(sk, sj), tvm_tir_lt_take(tvm_tir_ref(k1), tvm_tir_ref(j1))));
  void* count = tvm_tir_serial_take(tvm_tir_ref(k1), tvm_tir_i64(0), tvm_tir_ref(n),
                                    tvm_tir_if_take(before, INC(rank), NULL));
  void* copy = tvm_tir_serial_take(
      tvm_tir_ref(c1), tvm_tir_i64(0), tvm_tir_ref(L),
      SET_OD(tvm_relax__scratch_load(rank), tvm_tir_ref(c1),
             tvm_tir_load_take(tvm_tir_ref(d), tvm_tir_ref(i), tvm_tir_ref(j1), tvm_tir_ref(c1))));
  if (bi) copy = tvm_tir_seq_take(copy, SET_BI(tvm_relax__scratch_load(rank), tvm_tir_cast_take(i32, tvm_tir_ref(j1))));
  void* place = tvm_tir_if_take(tvm_tir_lt_take(tvm_relax__scratch_load(rank), tvm_tir_ref(nkeep)), copy, NULL);
  void* sort = tvm_tir_serial_take(
      tvm_tir_ref(j1), tvm_tir_i64(0), tvm_tir_ref(n),
      tvm_tir_seq_take(tvm_relax__scratch_store(rank, tvm_tir_i64(0)), count, place));
  /* the greedy pass */
  void* cond = tvm_tir_and_take(tvm_tir_gt_take(tvm_tir_ref(k2), tvm_tir_ref(j2)),
                                tvm_tir_gt_take(OD(tvm_tir_ref(k2), tvm_tir_i64(si)), tvm_tir_const_float(t, sthr)));
  if (!force && id >= 0)
    cond = tvm_tir_and_take(cond, tvm_tir_eq_take(OD(tvm_tir_ref(j2), tvm_tir_i64(id)),
                                                  OD(tvm_tir_ref(k2), tvm_tir_i64(id))));
  void* hit;
  if (soft) {
    void* decay = tvm_tir_call_take(
        t, "tir.exp",
        tvm_tir_div_take(tvm_tir_neg_take(tvm_tir_mul_take(tvm_tir_ref(iou), tvm_tir_ref(iou))),
                         tvm_tir_const_float(t, sigma)));
    hit = SET_OD(tvm_tir_ref(k2), tvm_tir_i64(si), tvm_tir_mul_take(OD(tvm_tir_ref(k2), tvm_tir_i64(si)), decay));
  } else {
    hit = SET_OD(tvm_tir_ref(k2), tvm_tir_i64(si), NEG1);
  }
  void* suppress = tvm_tir_let_stmt_take(
      tvm_tir_ref(iou), nms_iou(&k, j2, k2),
      tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(iou), tvm_tir_const_float(t, thr)), hit, NULL));
  void* others = tvm_tir_serial_take(tvm_tir_ref(k2), tvm_tir_i64(0), tvm_tir_ref(nkeep),
                                     tvm_tir_if_take(cond, suppress, NULL));
  void* take = tvm_tir_gt_take(OD(tvm_tir_ref(j2), tvm_tir_i64(si)), tvm_tir_const_float(t, sthr));
  if (max_out > 0)
    take = tvm_tir_and_take(take, tvm_tir_lt_take(tvm_relax__scratch_load(nvalid), tvm_tir_i64(max_out)));
  void* greedy = tvm_tir_serial_take(
      tvm_tir_ref(j2), tvm_tir_i64(0), tvm_tir_ref(nkeep),
      tvm_tir_if_take(take, tvm_tir_seq_take(INC(nvalid), others), CLEAR_ROW(j2, c2)));
  tvm_ffi_release(nkeep);
  void* tail = NULL;
  if (bi) {
    /* the kept ones through `indices` to the front, -1 after them, and their count */
    void* b3 = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_take(tvm_tir_ref(bi), tvm_tir_ref(i), tvm_tir_ref(j3)));
    void* move = tvm_tir_if_take(
        tvm_tir_ge_take(tvm_tir_ref(b3), tvm_tir_i64(0)),
        tvm_tir_seq_take(SET_BI(tvm_relax__scratch_load(vi),
                                tvm_tir_load_take(tvm_tir_ref(ix), tvm_tir_ref(i), tvm_tir_ref(b3))),
                         INC(vi)),
        NULL);
    tvm_ffi_release(b3);
    void* pad = tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(j4), tvm_relax__scratch_load(vi)),
                                SET_BI(tvm_tir_ref(j4), tvm_tir_const(i32, -1)), NULL);
    tail = tvm_tir_seq_take(
        tvm_relax__scratch_store(vi, tvm_tir_i64(0)),
        tvm_tir_serial_take(tvm_tir_ref(j3), tvm_tir_i64(0), tvm_tir_ref(A), move),
        tvm_tir_serial_take(tvm_tir_ref(j4), tvm_tir_i64(0), tvm_tir_ref(A), pad),
        tvm_tir_store_take(tvm_tir_ref(cnt), tvm_tir_cast_take(i32, tvm_relax__scratch_load(vi)),
                           tvm_tir_ref(i), tvm_tir_i64(0)));
  } else if (bottom) {
    /* rows of non-negative score to the front, in order (row vi <= j3: in place), -1 after */
    void* mv = tvm_tir_serial_take(tvm_tir_ref(c3), tvm_tir_i64(0), tvm_tir_ref(L),
                                   SET_OD(tvm_relax__scratch_load(vi), tvm_tir_ref(c3), OD(tvm_tir_ref(j3), tvm_tir_ref(c3))));
    void* move = tvm_tir_if_take(tvm_tir_ge_take(OD(tvm_tir_ref(j3), tvm_tir_i64(si)), tvm_tir_const_float(t, 0.0)),
                                 tvm_tir_seq_take(mv, INC(vi)), NULL);
    void* pad = tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(j4), tvm_relax__scratch_load(vi)),
                                tvm_tir_serial_take(tvm_tir_ref(c4), tvm_tir_i64(0), tvm_tir_ref(L),
                                                    SET_OD(tvm_tir_ref(j4), tvm_tir_ref(c4), NEG1)),
                                NULL);
    tail = tvm_tir_seq_take(tvm_relax__scratch_store(vi, tvm_tir_i64(0)),
                            tvm_tir_serial_take(tvm_tir_ref(j3), tvm_tir_i64(0), tvm_tir_ref(A), move),
                            tvm_tir_serial_take(tvm_tir_ref(j4), tvm_tir_i64(0), tvm_tir_ref(A), pad));
  }
#undef OD
#undef SET_OD
#undef SET_BI
#undef INC
#undef NEG1
#undef CLEAR_ROW
  void* body = tvm_tir_seq_take(init, sort, tvm_relax__scratch_store(nvalid, tvm_tir_i64(0)), greedy);
  if (tail) body = tvm_tir_seq_take(body, tail);
  body = tvm_relax__scratch_scope(
      vi, tvm_relax__scratch_scope(nvalid, tvm_relax__scratch_scope(rank, body)));
  void* nv = tvm_tir_min_take(
      tvm_tir_max_take(
          tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_take(tvm_tir_ref(vc), tvm_tir_ref(i))),
          tvm_tir_i64(0)),
      tvm_tir_ref(A));
  body = tvm_tir_let_stmt_take(tvm_tir_ref(n), nv, body);
  body = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_ref(dim(d, 0)), body);
  tvm_ffi_release(n), tvm_ffi_release(iou);
  tvm_ffi_release(rank), tvm_ffi_release(nvalid), tvm_ffi_release(vi);
  tvm_relax__release_all(v, 13);
  return body;
}

static void* nms_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                      tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin;
  if (!tvm_relax__call_attr_bool(call, "return_indices", true) ||
      tvm_relax__call_attr_float(call, "soft_nms_sigma", 0.0) > 0.0) {
    return nms_data_body(call, in, nout, out);
  }
  tvm_tir_buffer_obj *d = in[0], *vc = in[1], *ix = in[2], *bi = out[0], *cnt = out[1];
  int64_t max_out = tvm_relax__call_attr_int(call, "max_output_size", -1),
          top_k = tvm_relax__call_attr_int(call, "top_k", -1);
  int64_t si = tvm_relax__call_attr_int(call, "score_index", 1),
          id = tvm_relax__call_attr_int(call, "id_index", 0);
  bool force = tvm_relax__call_attr_bool(call, "force_suppress", false);
  double thr = tvm_relax__call_attr_float(call, "iou_threshold", 0.5);
  DLDataType t = d->dtype, i32 = {kDLInt, 32, 1};
  void* A = dim(d, 1);
  void* v[8]; /* i, then the loops' variables */
  if (tvm_relax__kernel_vars(v, 8, "j") != 0) return NULL;
  void *i = v[0], *j0 = v[1], *j1 = v[2], *k1 = v[3], *j2 = v[4], *k2 = v[5], *j3 = v[6],
       *j4 = v[7];
  nms_ctx k = {d, i, tvm_relax__call_attr_int(call, "coord_start", 2), t};
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT64);
  tvm_tir_buffer_obj* rank = tvm_relax__scratch("rank", TVM_TIR_INT64);
  tvm_tir_buffer_obj* nvalid = tvm_relax__scratch("nvalid", TVM_TIR_INT64);
  tvm_tir_buffer_obj* vi = tvm_relax__scratch("vi", TVM_TIR_INT64);
#define BI(jv)                     \
  tvm_tir_cast_take(TVM_TIR_INT64, \
                    tvm_tir_load_take(tvm_tir_ref(bi), tvm_tir_ref(i), tvm_tir_ref(jv)))
#define SET_BI(jv, val) tvm_tir_store_take(tvm_tir_ref(bi), val, tvm_tir_ref(i), jv)
#define INC(buf) \
  tvm_relax__scratch_store(buf, tvm_tir_add_take(tvm_relax__scratch_load(buf), tvm_tir_i64(1)))
  void* nkeep = top_k > 0 ? tvm_tir_min_take(tvm_tir_ref(n), tvm_tir_i64(top_k)) : tvm_tir_ref(n);
  /* box_indices[i, rank of j] = j for the first nkeep ranks, -1 elsewhere */
  void* init = tvm_tir_serial_take(tvm_tir_ref(j0), tvm_tir_i64(0), tvm_tir_ref(A),
                                   SET_BI(tvm_tir_ref(j0), tvm_tir_const(i32, -1)));
  void *sk = nms_ld(&k, k1, si), *sj = nms_ld(&k, j1, si);
  void* before = tvm_tir_or_take(
      tvm_tir_gt_take(tvm_tir_ref(sk), tvm_tir_ref(sj)),
      tvm_tir_and_take(tvm_tir_eq_take(sk, sj), tvm_tir_lt_take(tvm_tir_ref(k1), tvm_tir_ref(j1))));
  void* count = tvm_tir_serial_take(tvm_tir_ref(k1), tvm_tir_i64(0), tvm_tir_ref(n),
                                    tvm_tir_if_take(before, INC(rank), NULL));
  void* place = tvm_tir_if_take(
      tvm_tir_lt_take(tvm_relax__scratch_load(rank), tvm_tir_ref(nkeep)),
      SET_BI(tvm_relax__scratch_load(rank), tvm_tir_cast_take(i32, tvm_tir_ref(j1))), NULL);
  void* sort = tvm_tir_serial_take(
      tvm_tir_ref(j1), tvm_tir_i64(0), tvm_tir_ref(n),
      tvm_tir_seq_take(tvm_relax__scratch_store(rank, tvm_tir_i64(0)), count, place));
  /* suppression in rank order: a kept box drops the later held ones overlapping it */
  void *bj = BI(j2), *bk = BI(k2);
  void* drop = tvm_tir_if_take(tvm_tir_ge_take(nms_iou(&k, bj, bk), tvm_tir_const_float(t, thr)),
                               SET_BI(tvm_tir_ref(k2), tvm_tir_const(i32, -1)), NULL);
  void* cond = tvm_tir_gt_take(nms_ld(&k, bk, si), tvm_tir_const_float(t, 0.0));
  if (!force && id >= 0)
    cond = tvm_tir_and_take(cond, tvm_tir_eq_take(nms_ld(&k, bj, id), nms_ld(&k, bk, id)));
  void* later = tvm_tir_if_take(tvm_tir_gt_take(tvm_tir_ref(k2), tvm_tir_ref(j2)),
                                tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(bk), tvm_tir_i64(0)),
                                                tvm_tir_if_take(cond, drop, NULL), NULL),
                                NULL);
  void* others = tvm_tir_serial_take(tvm_tir_ref(k2), tvm_tir_i64(0), tvm_tir_ref(nkeep), later);
  void* take = tvm_tir_gt_take(nms_ld(&k, bj, si), tvm_tir_const_float(t, 0.0));
  if (max_out > 0)
    take = tvm_tir_and_take(take,
                            tvm_tir_lt_take(tvm_relax__scratch_load(nvalid), tvm_tir_i64(max_out)));
  void* held = tvm_tir_if_take(take, tvm_tir_seq_take(INC(nvalid), others),
                               SET_BI(tvm_tir_ref(j2), tvm_tir_const(i32, -1)));
  void* nms = tvm_tir_serial_take(
      tvm_tir_ref(j2), tvm_tir_i64(0), tvm_tir_ref(nkeep),
      tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(bj), tvm_tir_i64(0)), held, NULL));
  tvm_ffi_release(bj), tvm_ffi_release(bk), tvm_ffi_release(nkeep);
  void* stage1 =
      tvm_tir_seq_take(init, sort, tvm_relax__scratch_store(nvalid, tvm_tir_i64(0)), nms);
  /* the held ones through `indices` to the front, -1 after them */
  void* b3 = BI(j3);
  void* move = tvm_tir_if_take(
      tvm_tir_ge_take(tvm_tir_ref(b3), tvm_tir_i64(0)),
      tvm_tir_seq_take(SET_BI(tvm_relax__scratch_load(vi),
                              tvm_tir_load_take(tvm_tir_ref(ix), tvm_tir_ref(i), tvm_tir_ref(b3))),
                       INC(vi)),
      NULL);
  tvm_ffi_release(b3);
  void* pad = tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(j4), tvm_relax__scratch_load(vi)),
                              SET_BI(tvm_tir_ref(j4), tvm_tir_const(i32, -1)), NULL);
  void* compact = tvm_tir_seq_take(
      tvm_relax__scratch_store(vi, tvm_tir_i64(0)),
      tvm_tir_serial_take(tvm_tir_ref(j3), tvm_tir_i64(0), tvm_tir_ref(A), move),
      tvm_tir_serial_take(tvm_tir_ref(j4), tvm_tir_i64(0), tvm_tir_ref(A), pad),
      tvm_tir_store_take(tvm_tir_ref(cnt), tvm_tir_cast_take(i32, tvm_relax__scratch_load(vi)),
                         tvm_tir_ref(i), tvm_tir_i64(0)));
#undef BI
#undef SET_BI
#undef INC
  void* body = tvm_tir_seq_take(stage1, compact);
  body = tvm_relax__scratch_scope(
      vi, tvm_relax__scratch_scope(nvalid, tvm_relax__scratch_scope(rank, body)));
  void* nv = tvm_tir_min_take(
      tvm_tir_max_take(
          tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_take(tvm_tir_ref(vc), tvm_tir_ref(i))),
          tvm_tir_i64(0)),
      tvm_tir_ref(A));
  body = tvm_tir_let_stmt_take(tvm_tir_ref(n), nv, body);
  body = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_ref(dim(d, 0)), body);
  tvm_ffi_release(n), tvm_ffi_release(rank), tvm_ffi_release(nvalid), tvm_ffi_release(vi);
  tvm_relax__release_all(v, 8);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_nms(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, nms_body);
}

/* ---- all_class_non_max_suppression ----------------------------------------------------------- */
/*
 * As upstream's topi (argsort, the count of scores above score_threshold, _nms_loop, then the
 * collection): per batch b and class c, the boxes ranked by scores[b, c, :] descending (ties:
 * the lower index first), the first `valid` (scores > score_threshold) considered in rank order;
 * a box not dropped whose score is > score_threshold and > -1 is selected while fewer than
 * max_output_boxes_per_class are, and drops every later considered box of positive score whose
 * IoU with it is >= iou_threshold. Nothing is selected when iou_threshold <= 0. "onnx": rows
 * [b, c, box] of every (b, c) in order, then zeros; the count of rows. "tensorflow": per batch
 * rows [c, box] with their scores, class after class, then zeros; the count per batch.
 * The three scalars are read from their tensors (0-d or one element); R.prim_value scalars have
 * no kernel. The ranking and drop state of a (b, c) live in the output rows it may fill and the
 * ones after them (column 0: box in rank order, column 1: dropped), which are free at that time:
 * a selection is written to row `offset + selected so far` only after that rank was read.
 */
typedef struct {
  tvm_tir_buffer_obj* o; /* the index output */
  bool onnx;
  void* b; /* the batch variable (borrowed) */
} acn_ctx;

static void* acn_at(const acn_ctx* k, void* row, int64_t col) {
  return k->onnx ? tvm_tir_load_take(tvm_tir_ref(k->o), row, tvm_tir_i64(col))
                 : tvm_tir_load_take(tvm_tir_ref(k->o), tvm_tir_ref(k->b), row, tvm_tir_i64(col));
}

static void* acn_set(const acn_ctx* k, void* row, int64_t col, void* value) {
  return k->onnx ? tvm_tir_store_take(tvm_tir_ref(k->o), value, row, tvm_tir_i64(col))
                 : tvm_tir_store_take(tvm_tir_ref(k->o), value, tvm_tir_ref(k->b), row,
                                      tvm_tir_i64(col));
}

/* A scalar tensor's value (0-d, or element 0). */
static void* scalar(tvm_tir_buffer_obj* t) {
  int64_t nd = tvm_ffi_seq_size(t->shape);
  void* idx[4];
  for (int64_t q = 0; q < nd && q < 4; ++q) idx[q] = tvm_tir_i64(0);
  return tvm_tir_load_takev(tvm_tir_ref(t), nd, idx);
}

static void* acn_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                      tvm_tir_buffer_obj* const* out, int nout) {
  if (nin != 5) {
    tvm_ffi_raise("NotImplementedError",
                  "vision.all_class_non_max_suppression: only tensor scalars have a kernel "
                  "(max_output_boxes_per_class, iou_threshold and score_threshold as R.prim_value "
                  "do not)");
    return NULL;
  }
  const char* fmt = tvm_relax__call_attr_str(call, "output_format", NULL);
  bool onnx = !fmt || strcmp(fmt, "onnx") == 0;
  tvm_tir_buffer_obj *bx = in[0], *sc = in[1], *o = out[0];
  DLDataType ft = sc->dtype, bt = bx->dtype, i64 = TVM_TIR_INT64;
  void *B = dim(sc, 0), *C = dim(sc, 1), *N = dim(sc, 2);
  void* v[9];
  if (tvm_relax__kernel_vars(v, 9, "q") != 0) return NULL;
  void *b = v[0], *c = v[1], *j = v[2], *k = v[3], *j2 = v[4], *k2 = v[5], *z = v[6], *z2 = v[7],
       *z3 = v[8];
  acn_ctx x = {o, onnx, b};
  tvm_tir_buffer_obj* off = tvm_relax__scratch("offset", i64);
  tvm_tir_buffer_obj* rank = tvm_relax__scratch("rank", i64);
  tvm_tir_buffer_obj* valid = tvm_relax__scratch("valid", i64);
  tvm_tir_buffer_obj* nsel = tvm_relax__scratch("selected", i64);
  tvm_tir_buffer_obj* abox = tvm_relax__scratch("box", i64);
#define LD(buf) tvm_relax__scratch_load(buf)
#define ST(buf, val) tvm_relax__scratch_store(buf, val)
#define INC(buf) ST(buf, tvm_tir_add_take(LD(buf), tvm_tir_i64(1)))
#define ROW(e) tvm_tir_add_take(LD(off), e)
#define SCORE(box) tvm_tir_load_take(tvm_tir_ref(sc), tvm_tir_ref(b), tvm_tir_ref(c), box)
  /* rank of box j among the class's boxes; its row (offset + rank) gets j, not dropped */
  void *sk = SCORE(tvm_tir_ref(k)), *sj = SCORE(tvm_tir_ref(j));
  void* before = tvm_tir_or_take(
      tvm_tir_gt_take(tvm_tir_ref(sk), tvm_tir_ref(sj)),
      tvm_tir_and_take(tvm_tir_eq_take(sk, sj), tvm_tir_lt_take(tvm_tir_ref(k), tvm_tir_ref(j))));
  void* count = tvm_tir_serial_take(tvm_tir_ref(k), tvm_tir_i64(0), tvm_tir_ref(N),
                                    tvm_tir_if_take(before, INC(rank), NULL));
  void* place = tvm_tir_seq_take(acn_set(&x, ROW(LD(rank)), 0, tvm_tir_ref(j)),
                                 acn_set(&x, ROW(LD(rank)), 1, tvm_tir_i64(0)));
  void* above =
      tvm_tir_if_take(tvm_tir_gt_take(SCORE(tvm_tir_ref(j)), tvm_tir_cast_take(ft, scalar(in[4]))),
                      INC(valid), NULL);
  void* sort = tvm_tir_serial_take(tvm_tir_ref(j), tvm_tir_i64(0), tvm_tir_ref(N),
                                   tvm_tir_seq_take(ST(rank, tvm_tir_i64(0)), count, place, above));
  /* selection in rank order */
  void* bj = acn_at(&x, ROW(tvm_tir_ref(j2)), 0);
  void* bk = acn_at(&x, ROW(tvm_tir_ref(k2)), 0);
  /* IoU of the selected box and bk, boxes[b, ., :] corners min / max of (0, 2) and (1, 3) */
  void* e[2][4];
  void* which[2] = {LD(abox), bk};
  for (int q = 0; q < 2; ++q)
    for (int a = 0; a < 2; ++a) {
      void* p0 =
          tvm_tir_load_take(tvm_tir_ref(bx), tvm_tir_ref(b), tvm_tir_ref(which[q]), tvm_tir_i64(a));
      void* p1 = tvm_tir_load_take(tvm_tir_ref(bx), tvm_tir_ref(b), tvm_tir_ref(which[q]),
                                   tvm_tir_i64(a + 2));
      e[q][a] = tvm_tir_min_take(tvm_tir_ref(p0), tvm_tir_ref(p1));
      e[q][2 + a] = tvm_tir_max_take(p0, p1);
    }
  tvm_ffi_release(which[0]);
  void* iou = iou_of_corners(e, bt);
  void* drop = tvm_tir_if_take(tvm_tir_ge_take(iou, tvm_tir_cast_take(bt, scalar(in[3]))),
                               acn_set(&x, ROW(tvm_tir_ref(k2)), 1, tvm_tir_i64(1)), NULL);
  void* alive_k =
      tvm_tir_and_take(tvm_tir_eq_take(acn_at(&x, ROW(tvm_tir_ref(k2)), 1), tvm_tir_i64(0)),
                       tvm_tir_gt_take(SCORE(tvm_tir_ref(bk)), tvm_tir_const_float(ft, 0.0)));
  void* later = tvm_tir_if_take(tvm_tir_gt_take(tvm_tir_ref(k2), tvm_tir_ref(j2)),
                                tvm_tir_if_take(alive_k, drop, NULL), NULL);
  void* others = tvm_tir_serial_take(tvm_tir_ref(k2), tvm_tir_i64(0), LD(valid), later);
  /* write the selection at row offset + selected (a rank already read), then drop the others */
  void* record;
  if (onnx) {
    record = tvm_tir_seq_take(acn_set(&x, ROW(LD(nsel)), 0, tvm_tir_ref(b)),
                              acn_set(&x, ROW(LD(nsel)), 1, tvm_tir_ref(c)),
                              acn_set(&x, ROW(LD(nsel)), 2, LD(abox)));
  } else {
    record = tvm_tir_seq_take(
        acn_set(&x, ROW(LD(nsel)), 0, tvm_tir_ref(c)), acn_set(&x, ROW(LD(nsel)), 1, LD(abox)),
        tvm_tir_store_take(tvm_tir_ref(out[1]), tvm_tir_cast_take(out[1]->dtype, SCORE(LD(abox))),
                           tvm_tir_ref(b), ROW(LD(nsel))));
  }
  void* sj2 = SCORE(tvm_tir_ref(bj));
  void* take = tvm_tir_and_take(
      tvm_tir_and_take(tvm_tir_eq_take(acn_at(&x, ROW(tvm_tir_ref(j2)), 1), tvm_tir_i64(0)),
                       tvm_tir_lt_take(LD(nsel), tvm_tir_cast_take(i64, scalar(in[2])))),
      tvm_tir_and_take(tvm_tir_gt_take(tvm_tir_ref(sj2), tvm_tir_cast_take(ft, scalar(in[4]))),
                       tvm_tir_gt_take(sj2, tvm_tir_const_float(ft, -1.0))));
  void* step = tvm_tir_if_take(
      take, tvm_tir_seq_take(ST(abox, tvm_tir_ref(bj)), record, INC(nsel), others), NULL);
  tvm_ffi_release(bj), tvm_ffi_release(bk);
  void* nms = tvm_tir_serial_take(tvm_tir_ref(j2), tvm_tir_i64(0), LD(valid), step);
  nms = tvm_tir_if_take(tvm_tir_and_take(tvm_tir_gt_take(tvm_tir_cast_take(bt, scalar(in[3])),
                                                         tvm_tir_const_float(bt, 0.0)),
                                         tvm_tir_gt_take(LD(valid), tvm_tir_i64(0))),
                        nms, NULL);
  void* per_class = tvm_tir_seq_take(ST(valid, tvm_tir_i64(0)), sort, ST(nsel, tvm_tir_i64(0)), nms,
                                     ST(off, tvm_tir_add_take(LD(off), LD(nsel))));
  per_class = tvm_tir_serial_take(tvm_tir_ref(c), tvm_tir_i64(0), tvm_tir_ref(C), per_class);
  void* body;
  if (onnx) {
    /* rows after the selected ones: zeros; the count */
    void* rows = dim(o, 0);
    void* zero_row = tvm_tir_if_take(
        tvm_tir_ge_take(tvm_tir_ref(z), LD(off)),
        tvm_tir_seq_take(
            tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_i64(0), tvm_tir_ref(z), tvm_tir_i64(0)),
            tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_i64(0), tvm_tir_ref(z), tvm_tir_i64(1)),
            tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_i64(0), tvm_tir_ref(z), tvm_tir_i64(2))),
        NULL);
    body = tvm_tir_seq_take(
        ST(off, tvm_tir_i64(0)),
        tvm_tir_serial_take(tvm_tir_ref(b), tvm_tir_i64(0), tvm_tir_ref(B), per_class),
        tvm_tir_serial_take(tvm_tir_ref(z), tvm_tir_i64(0), tvm_tir_ref(rows), zero_row),
        tvm_tir_store_take(tvm_tir_ref(out[1]), LD(off), tvm_tir_i64(0)));
  } else {
    void* rows = dim(o, 1);
    void* zero_row = tvm_tir_if_take(
        tvm_tir_ge_take(tvm_tir_ref(z2), LD(off)),
        tvm_tir_seq_take(
            tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_i64(0), tvm_tir_ref(b), tvm_tir_ref(z2),
                               tvm_tir_i64(0)),
            tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_i64(0), tvm_tir_ref(b), tvm_tir_ref(z2),
                               tvm_tir_i64(1)),
            tvm_tir_store_take(tvm_tir_ref(out[1]), tvm_tir_const_float(out[1]->dtype, 0.0),
                               tvm_tir_ref(b), tvm_tir_ref(z2))),
        NULL);
    void* per_batch = tvm_tir_seq_take(
        ST(off, tvm_tir_i64(0)), per_class,
        tvm_tir_serial_take(tvm_tir_ref(z2), tvm_tir_i64(0), tvm_tir_ref(rows), zero_row),
        tvm_tir_store_take(tvm_tir_ref(out[2]), LD(off), tvm_tir_ref(b)));
    body = tvm_tir_serial_take(tvm_tir_ref(b), tvm_tir_i64(0), tvm_tir_ref(B), per_batch);
  }
#undef LD
#undef ST
#undef INC
#undef ROW
#undef SCORE
  tvm_tir_buffer_obj* bufs[5] = {off, rank, valid, nsel, abox};
  for (int q = 0; q < 5; ++q) body = tvm_relax__scratch_scope(bufs[q], body);
  for (int q = 0; q < 5; ++q) tvm_ffi_release(bufs[q]);
  (void)z3, (void)nout;
  tvm_relax__release_all(v, 9);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_all_class_nms(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, acn_body);
}

/* ---- multibox_transform_loc ------------------------------------------------------------------ */
/*
 * multibox_transform_loc, as upstream's topi (vision/multibox_transform_loc.py, TFLite's
 * DecodeCenterSizeBoxes), in the inputs' dtype. Per batch b and anchor a, with the prior
 * [l, t, r, br] = anchor[0, a] and the encoding [ex, ey, ew, eh] = loc_pred[b, 4a .. 4a + 3]:
 *   yc = ey * vy * (br - t) + (t + br) * 0.5     xc = ex * vx * (r - l) + (l + r) * 0.5
 *   hh = 0.5 * exp(eh * vh) * (br - t)           hw = 0.5 * exp(ew * vw) * (r - l)
 * boxes[b, a] = [yc - hh, xc - hw, yc + hh, xc + hw], each max(0, min(1, v)) with clip, for the
 * variances [vx, vy, vw, vh]. scores[b, c, n] = s * (s >= threshold) (the comparison cast to the
 * dtype, as topi's mask), s the softmax of cls_pred[b, :, n] over the classes (max-subtracted,
 * exp(x - max) / sum, as topi's nn.softmax) or, without apply_softmax, cls_pred[b, c, n]; class
 * 0 is 0 without keep_background. Where inference could not prove loc_pred (B, 4 * N) and anchor
 * (1, N, 4) for cls_pred (B, C, N), the kernel asserts them before reading (topi reshapes
 * loc_pred and reads anchor unchecked).
 */
static void* multibox_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                           tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *cls = in[0], *loc = in[1], *anc = in[2], *ob = out[0], *os = out[1];
  DLDataType t = ob->dtype;
  if (!tvm_tir_dtype_is_floating(t)) {
    tvm_ffi_raise("NotImplementedError",
                  "vision.multibox_transform_loc: only float inputs have a kernel");
    return NULL;
  }
  double var[4] = {1.0, 1.0, 1.0, 1.0};
  const TVMFFIAny* va = tvm_relax_call_attr(call, "variances");
  for (int64_t i = 0; va && va->type_index == kTVMFFIArray && i < 4; ++i) {
    tvm_ffi_any_as_float(tvm_ffi_seq_at(va->v_obj, i), &var[i]);
  }
  bool clip = tvm_relax__call_attr_bool(call, "clip", false);
  bool keep_bg = tvm_relax__call_attr_bool(call, "keep_background", true);
  bool softmax = tvm_relax__call_attr_bool(call, "apply_softmax", true);
  double thr = tvm_relax__call_attr_float(call, "threshold", 0.0);
  /* loop variables: boxes (b, a), scores (b, n) and the class loops (max, sum, output) */
  void* v[7];
  if (tvm_relax__kernel_vars(v, 7, "i") != 0) return NULL;
  void *b = v[0], *a = v[1], *sb = v[2], *sn = v[3], *c1 = v[4], *c2 = v[5], *c3 = v[6];
  /* boxes: the centre and half sizes let-bound per anchor */
  tvm_tir_var_obj* yc = tvm_tir_var("ycenter", t);
  tvm_tir_var_obj* xc = tvm_tir_var("xcenter", t);
  tvm_tir_var_obj* hh = tvm_tir_var("half_h", t);
  tvm_tir_var_obj* hw = tvm_tir_var("half_w", t);
  void* prior[4];
  void* enc[4]; /* x, y, w, h */
  for (int k = 0; k < 4; ++k) {
    prior[k] = tvm_tir_load_take(tvm_tir_ref(anc), tvm_tir_i64(0), tvm_tir_ref(a), tvm_tir_i64(k));
    enc[k] = tvm_tir_load_take(tvm_tir_ref(loc), tvm_tir_ref(b),
                               tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(a), tvm_tir_i64(4)),
                                                tvm_tir_i64(k)));
  }
  void* ah = tvm_tir_sub_take(tvm_tir_ref(prior[3]), tvm_tir_ref(prior[1]));
  void* aw = tvm_tir_sub_take(tvm_tir_ref(prior[2]), tvm_tir_ref(prior[0]));
  void* ay = tvm_tir_mul_take(tvm_tir_add_take(prior[1], prior[3]), tvm_tir_const_float(t, 0.5));
  void* ax = tvm_tir_mul_take(tvm_tir_add_take(prior[0], prior[2]), tvm_tir_const_float(t, 0.5));
  void* ycv = tvm_tir_add_take(
      tvm_tir_mul_take(tvm_tir_mul_take(enc[1], tvm_tir_const_float(t, var[1])), tvm_tir_ref(ah)),
      ay);
  void* xcv = tvm_tir_add_take(
      tvm_tir_mul_take(tvm_tir_mul_take(enc[0], tvm_tir_const_float(t, var[0])), tvm_tir_ref(aw)),
      ax);
  void* hhv = tvm_tir_mul_take(
      tvm_tir_mul_take(tvm_tir_const_float(t, 0.5),
                       tvm_tir_call_take(t, "tir.exp",
                                         tvm_tir_mul_take(enc[3], tvm_tir_const_float(t, var[3])))),
      ah);
  void* hwv = tvm_tir_mul_take(
      tvm_tir_mul_take(tvm_tir_const_float(t, 0.5),
                       tvm_tir_call_take(t, "tir.exp",
                                         tvm_tir_mul_take(enc[2], tvm_tir_const_float(t, var[2])))),
      aw);
  /* [ymin, xmin, ymax, xmax] */
  void* corner[4] = {tvm_tir_sub_take(tvm_tir_ref(yc), tvm_tir_ref(hh)),
                     tvm_tir_sub_take(tvm_tir_ref(xc), tvm_tir_ref(hw)),
                     tvm_tir_add_take(tvm_tir_ref(yc), tvm_tir_ref(hh)),
                     tvm_tir_add_take(tvm_tir_ref(xc), tvm_tir_ref(hw))};
  void* stores[4];
  for (int k = 0; k < 4; ++k) {
    void* val = corner[k];
    if (clip) {
      val = tvm_tir_max_take(tvm_tir_const_float(t, 0.0),
                             tvm_tir_min_take(tvm_tir_const_float(t, 1.0), val));
    }
    stores[k] = tvm_tir_store_take(tvm_tir_ref(ob), val, tvm_tir_ref(b), tvm_tir_ref(a),
                                   tvm_tir_i64(k));
  }
  void* box = tvm_tir_seq_take(stores[0], stores[1], stores[2], stores[3]);
  box = tvm_tir_let_stmt_take(tvm_tir_ref(hw), hwv, box);
  box = tvm_tir_let_stmt_take(tvm_tir_ref(hh), hhv, box);
  box = tvm_tir_let_stmt_take(tvm_tir_ref(xc), xcv, box);
  box = tvm_tir_let_stmt_take(tvm_tir_ref(yc), ycv, box);
  void* bext[2] = {dim(ob, 0), dim(ob, 1)};
  void* boxes = tvm_relax__loop_nest(v, bext, 2, NULL, box);
  /* scores: per (b, n) the class max and the sum of exp(x - max), then each class */
  tvm_tir_buffer_obj* mx = tvm_relax__scratch("max", t);
  tvm_tir_buffer_obj* sum = tvm_relax__scratch("sum", t);
  tvm_tir_var_obj* sv = tvm_tir_var("score", t);
  void* nc = dim(os, 1);
#define X(cv) tvm_tir_load_take(tvm_tir_ref(cls), tvm_tir_ref(sb), tvm_tir_ref(cv), tvm_tir_ref(sn))
  void* score = X(c3);
  void* prep = NULL;
  if (softmax) {
    score = tvm_tir_div_take(
        tvm_tir_call_take(t, "tir.exp", tvm_tir_sub_take(score, tvm_relax__scratch_load(mx))),
        tvm_relax__scratch_load(sum));
    void* max_loop = tvm_tir_serial_take(
        tvm_tir_ref(c1), tvm_tir_i64(0), tvm_tir_ref(nc),
        tvm_relax__scratch_store(mx, tvm_tir_max_take(tvm_relax__scratch_load(mx), X(c1))));
    void* e = tvm_tir_call_take(t, "tir.exp", tvm_tir_sub_take(X(c2), tvm_relax__scratch_load(mx)));
    void* sum_loop =
        tvm_tir_serial_take(tvm_tir_ref(c2), tvm_tir_i64(0), tvm_tir_ref(nc),
                            tvm_relax__scratch_store(
                                sum, tvm_tir_add_take(tvm_relax__scratch_load(sum), e)));
    prep = tvm_tir_seq_take(tvm_relax__scratch_store(mx, tvm_tir_const_float(t, -INFINITY)),
                            max_loop, tvm_relax__scratch_store(sum, tvm_tir_const_float(t, 0.0)),
                            sum_loop);
  }
#undef X
  /* s * (s >= threshold), class 0 zeroed without keep_background */
  void* masked = tvm_tir_mul_take(
      tvm_tir_ref(sv),
      tvm_tir_cast_take(t, tvm_tir_ge_take(tvm_tir_ref(sv), tvm_tir_const_float(t, thr))));
  if (!keep_bg) {
    masked = tvm_tir_select_take(tvm_tir_eq_take(tvm_tir_ref(c3), tvm_tir_i64(0)),
                                 tvm_tir_const_float(t, 0.0), masked);
  }
  void* write = tvm_tir_let_stmt_take(tvm_tir_ref(sv), score,
                                      tvm_tir_store_take(tvm_tir_ref(os), masked, tvm_tir_ref(sb),
                                                         tvm_tir_ref(c3), tvm_tir_ref(sn)));
  void* per_anchor = tvm_tir_serial_take(tvm_tir_ref(c3), tvm_tir_i64(0), tvm_tir_ref(nc), write);
  if (prep) {
    per_anchor = tvm_tir_seq_take(prep, per_anchor);
    per_anchor = tvm_relax__scratch_scope(sum, tvm_relax__scratch_scope(mx, per_anchor));
  }
  void* sext[2] = {dim(os, 0), dim(os, 2)};
  void* scores = tvm_relax__loop_nest(v + 2, sext, 2, NULL, per_anchor);
  void* body = tvm_tir_seq_take(boxes, scores);
  /* loc_pred (B, 4 * N) and anchor (1, N, 4) for cls_pred (B, C, N), where not proved */
  void *nb = dim(cls, 0), *na = dim(cls, 2);
  void* one = tvm_tir_i64(1);
  void* four = tvm_tir_i64(4);
  void* four_n = tvm_tir_mul_take(tvm_tir_ref(na), tvm_tir_ref(four));
  void* want[5][2] = {{dim(loc, 0), nb}, {dim(loc, 1), four_n}, {dim(anc, 0), one},
                      {dim(anc, 1), na}, {dim(anc, 2), four}};
  void* ok = NULL;
  for (int k = 0; k < 5; ++k) {
    if (tvm_relax__dim_equal(want[k][0], want[k][1])) continue;
    void* eq = tvm_tir_eq_take(tvm_tir_ref(want[k][0]), tvm_tir_ref(want[k][1]));
    ok = ok ? tvm_tir_and_take(ok, eq) : eq;
  }
  if (ok) {
    body = tvm_tir_assert_take(ok,
                               "relax.vision.multibox_transform_loc: loc_pred must be (B, 4 * N) "
                               "and anchor (1, N, 4) for cls_pred (B, C, N)",
                               body);
  }
  tvm_ffi_release(one), tvm_ffi_release(four);
  tvm_ffi_release(four_n);
  tvm_ffi_release(yc), tvm_ffi_release(xc), tvm_ffi_release(hh), tvm_ffi_release(hw);
  tvm_ffi_release(mx), tvm_ffi_release(sum), tvm_ffi_release(sv);
  tvm_relax__release_all(v, 7);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_multibox_transform_loc(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, multibox_body);
}
