/*
 * legalize_image.c: the kernels of image.resize2d and image.resize3d in the layouts of NCHW /
 * NCDHW (permuted, N or C possibly packed as in NCHW16c: those dims pass through), methods
 * nearest_neighbor, linear and cubic,
 * following upstream's topi resize: each output coordinate maps to an input coordinate (in
 * float32) by the coordinate transformation mode (half_pixel, align_corners, asymmetric,
 * pytorch_half_pixel, tf_half_pixel_for_nn); nearest rounds it by the rounding method and
 * clamps it into the input, linear blends the two neighbours (clamped) per axis as
 * a * (1 - t) + b * t, the last axis first; cubic sums the 16 (64) taps around the
 * coordinate with upstream's spline weights (cubic_alpha, cubic_exclude). tf_crop_and_resize is
 * a NotImplementedError. An input with an empty spatial axis and a non-empty output is an
 * error: a ValueError at inference for constant dims, the kernel's assertion otherwise. image.affine_grid (2-d and 3-d) and vision.roi_align are in
 * legalize_vision.c.
 * image.grid_sample in NCHW (bilinear, nearest, bicubic) and NCDHW (bilinear, nearest), as
 * upstream's topi grid_sample: each output element reads its coordinates from the grid, maps
 * them into the input (align_corners or not), pads them (zeros, border, reflection) and
 * interpolates; the blend is in the wider float of data's and the grid's dtypes.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

static bool is(const char* s, const char* want) { return s && strcmp(s, want) == 0; }

#define F32 tvm_tir_dtype_float(32)
static void* fc(double v) { return tvm_tir_const_float(F32, v); }
static void* as_f(void* e) { return tvm_tir_cast_take(F32, e); }

/* x[...] at the logical index v (borrowed; N, C, the spatial dims, then the packed sub-axes of
 * layout L) with the spatial indices sp (consumed) in place of v's: the dims other than the
 * spatial ones pass through, wherever the layout puts them. */
static void* load_at(tvm_tir_buffer_obj* x, const tvm_relax__layout* L, void* const* v,
                     void* const* sp) {
  void* idx[TVM_RELAX_LAYOUT_MAX];
  int s = L->nprimal - 2;
  for (int k = 0; k < L->rank; ++k) {
    idx[L->pos[k]] = k >= 2 && k < 2 + s ? sp[k - 2] : tvm_tir_ref(v[k]);
  }
  return tvm_tir_load_takev(tvm_tir_ref(x), L->rank, idx);
}

/* The input coordinate of output index y (borrowed) for input extent h and output extent oh
 * (borrowed), as float32; NULL + error for an unknown mode. */
static void* in_coord(const char* mode, void* y, void* h, void* oh) {
  void* yf = as_f(tvm_tir_ref(y));
  void* scale = tvm_tir_div_take(as_f(tvm_tir_ref(h)), as_f(tvm_tir_ref(oh)));
  if (is(mode, "half_pixel") || is(mode, "pytorch_half_pixel")) {
    void* c = tvm_tir_sub_take(tvm_tir_mul_take(tvm_tir_add_take(yf, fc(0.5)), scale), fc(0.5));
    if (is(mode, "half_pixel")) return c;
    return tvm_tir_select_take(tvm_tir_gt_take(tvm_tir_ref(oh), tvm_tir_i64(1)), c, fc(0));
  }
  if (is(mode, "align_corners")) {
    /* (h - 1) / (oh - 1) * y, and 0 for a single output */
    void* num = as_f(tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1)));
    void* den = as_f(tvm_tir_max_take(tvm_tir_sub_take(tvm_tir_ref(oh), tvm_tir_i64(1)), tvm_tir_i64(1)));
    tvm_ffi_release(scale);
    return tvm_tir_mul_take(tvm_tir_div_take(num, den), yf);
  }
  if (is(mode, "asymmetric")) return tvm_tir_mul_take(yf, scale);
  if (is(mode, "tf_half_pixel_for_nn")) return tvm_tir_mul_take(tvm_tir_add_take(yf, fc(0.5)), scale);
  tvm_ffi_release(yf), tvm_ffi_release(scale);
  tvm_ffi_raise("NotImplementedError", "image.resize: coordinate_transformation_mode \"%s\" has no kernel",
                mode ? mode : "");
  return NULL;
}

/* i (int64, consumed) clamped into [0, h - 1]. */
static void* clamp_index(void* i, void* h) {
  return tvm_tir_min_take(tvm_tir_max_take(i, tvm_tir_i64(0)),
                          tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1)));
}

/* The nearest input index of coordinate c (consumed) by the rounding method. */
static void* nearest_index(const char* rounding, void* c, void* h) {
  void* r;
  if (is(rounding, "round")) r = tvm_tir_call_take(F32, "tir.round", c);
  else if (is(rounding, "round_prefer_floor")) r = tvm_tir_call_take(F32, "tir.ceil", tvm_tir_sub_take(c, fc(0.5)));
  else if (is(rounding, "round_prefer_ceil")) r = tvm_tir_call_take(F32, "tir.floor", tvm_tir_add_take(c, fc(0.5)));
  /* floor and ceil move by an epsilon first, as upstream does against rounding errors */
  else if (is(rounding, "floor")) r = tvm_tir_call_take(F32, "tir.floor", tvm_tir_add_take(c, fc(1e-5)));
  else if (is(rounding, "ceil")) r = tvm_tir_call_take(F32, "tir.ceil", tvm_tir_sub_take(c, fc(1e-5)));
  else {
    tvm_ffi_release(c);
    tvm_ffi_raise("NotImplementedError", "image.resize: rounding_method \"%s\" has no kernel", rounding);
    return NULL;
  }
  return clamp_index(tvm_tir_cast_take(TVM_TIR_INT64, r), h);
}

/* upstream's cubic spline weights of the four taps around fraction t (borrowed), alpha a. */
static void cubic_weights(void* t, double a, void* w[4]) {
  void* t2 = tvm_tir_mul_take(tvm_tir_ref(t), tvm_tir_ref(t));
  void* t3 = tvm_tir_mul_take(tvm_tir_ref(t2), tvm_tir_ref(t));
  /* a (t3 - 2 t2 + t) */
  w[0] = tvm_tir_mul_take(fc(a), tvm_tir_add_take(tvm_tir_sub_take(tvm_tir_ref(t3), tvm_tir_mul_take(fc(2), tvm_tir_ref(t2))), tvm_tir_ref(t)));
  /* (a + 2) t3 - (3 + a) t2 + 1 */
  w[1] = tvm_tir_add_take(tvm_tir_sub_take(tvm_tir_mul_take(fc(a + 2), tvm_tir_ref(t3)), tvm_tir_mul_take(fc(3 + a), tvm_tir_ref(t2))), fc(1));
  /* -(a + 2) t3 + (3 + 2 a) t2 - a t */
  w[2] = tvm_tir_sub_take(tvm_tir_add_take(tvm_tir_mul_take(fc(-(a + 2)), tvm_tir_ref(t3)), tvm_tir_mul_take(fc(3 + 2 * a), tvm_tir_ref(t2))),
                          tvm_tir_mul_take(fc(a), tvm_tir_ref(t)));
  /* -a t3 + a t2 */
  w[3] = tvm_tir_add_take(tvm_tir_mul_take(fc(-a), t3), tvm_tir_mul_take(fc(a), t2));
}

/* The cubic value at the output index v (borrowed) with input coordinates coord (borrowed), as
 * upstream's topi: per axis the taps floor(c) - 1 .. floor(c) + 2 (clamped into the input) with
 * the spline weights of c - floor(c) (cubic_alpha); with cubic_exclude the taps outside the
 * input get weight 0 and the rest are normalised to sum 1. The taps are summed along the last
 * axis first, w0 p0 + w1 p1 + w2 p2 + w3 p3, in float32. */
static void* cubic_value(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* x,
                         const tvm_relax__layout* L, void* const* v, void* const* coord, int s) {
  double alpha = tvm_relax__call_attr_float(call, "cubic_alpha", -0.75);
  bool exclude = tvm_relax__call_attr_int(call, "cubic_exclude", 0) != 0;
  void *w[3][4], *ix[3][4];
  for (int i = 0; i < s; ++i) {
    void* h = tvm_ffi_seq_obj_at(x->shape, L->pos[2 + i]);
    void* fl = tvm_tir_call_take(F32, "tir.floor", tvm_tir_ref(coord[i]));
    void* frac = tvm_tir_sub_take(tvm_tir_ref(coord[i]), tvm_tir_ref(fl));
    void* base = tvm_tir_cast_take(TVM_TIR_INT64, fl);
    cubic_weights(frac, alpha, w[i]);
    tvm_ffi_release(frac);
    for (int q = 0; q < 4; ++q) {
      void* pos = tvm_tir_add_take(tvm_tir_ref(base), tvm_tir_i64(q - 1));
      if (exclude) {
        void* out = tvm_tir_or_take(tvm_tir_lt_take(tvm_tir_ref(pos), tvm_tir_i64(0)),
                                    tvm_tir_ge_take(tvm_tir_ref(pos), tvm_tir_ref(h)));
        w[i][q] = tvm_tir_select_take(out, fc(0), w[i][q]);
      }
      ix[i][q] = clamp_index(pos, h);
    }
    tvm_ffi_release(base);
    if (exclude) {
      void* sum = tvm_tir_add_take(tvm_tir_add_take(tvm_tir_add_take(tvm_tir_ref(w[i][0]), tvm_tir_ref(w[i][1])),
                                                    tvm_tir_ref(w[i][2])),
                                   tvm_tir_ref(w[i][3]));
      for (int q = 0; q < 4; ++q) w[i][q] = tvm_tir_div_take(w[i][q], tvm_tir_ref(sum));
      tvm_ffi_release(sum);
    }
  }
  /* the 4^s taps, tap c reading ix[i][digit i of c in base 4, the first axis most significant] */
  void* p[64];
  int nc = 1;
  for (int i = 0; i < s; ++i) nc *= 4;
  for (int c = 0; c < nc; ++c) {
    void* sp[3];
    for (int i = 0; i < s; ++i) sp[i] = tvm_tir_ref(ix[i][(c / (nc / 4 >> (2 * i))) % 4]);
    p[c] = as_f(load_at(x, L, v, sp));
  }
  for (int i = s - 1; i >= 0; --i, nc /= 4) {
    for (int c = 0; c < nc / 4; ++c) {
      void* acc = tvm_tir_mul_take(tvm_tir_ref(w[i][0]), p[4 * c]);
      for (int q = 1; q < 4; ++q) acc = tvm_tir_add_take(acc, tvm_tir_mul_take(tvm_tir_ref(w[i][q]), p[4 * c + q]));
      p[c] = acc;
    }
  }
  for (int i = 0; i < s; ++i) tvm_relax__release_all(w[i], 4), tvm_relax__release_all(ix[i], 4);
  return p[0];
}

static void* resize_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  const char* name = tvm_relax_op_info_of(call->op)->name;
  const char* method = tvm_relax__call_attr_str(call, "method", NULL);
  const char* mode = tvm_relax__call_attr_str(call, "coordinate_transformation_mode", NULL);
  const char* rounding = tvm_relax__call_attr_str(call, "rounding_method", NULL);
  const char* layout = tvm_relax__call_attr_str(call, "layout", NULL);
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  /* the spatial rank from the layout's primal axes (NCHW16c is 2-d), the rank when none */
  int s = (layout ? tvm_relax__layout_primal_count(layout) : (int)tvm_ffi_seq_size(x->shape)) - 2;
  const char* canon = s == 3 ? "NCDHW" : "NCHW";
  bool nearest = is(method, "nearest_neighbor"), cubic = is(method, "cubic");
  tvm_relax__layout L;
  char err[200];
  if ((s != 2 && s != 3) ||
      tvm_relax__layout_parse(layout ? layout : canon, canon, "DHW", &L, err, sizeof(err)) != 0 ||
      (!nearest && !cubic && !is(method, "linear"))) {
    tvm_ffi_raise("NotImplementedError",
                  "%s: only the layouts of %s (permuted, N or C possibly packed as in "
                  "NCHW16c) and the nearest_neighbor, linear and cubic methods have a kernel",
                  name, canon);
    return NULL;
  }
  /* upstream's default rounding of nearest_neighbor when none is given */
  if (!rounding || !*rounding) rounding = is(mode, "tf_half_pixel_for_nn") ? "floor" : "round";
  DLDataType t = o->dtype;
  /* v: the logical indices (N, C, the spatial ones, the sub-axes); the output has x's layout */
  int n = L.rank;
  const int32_t* pos = L.pos;
  void* v[TVM_RELAX_LAYOUT_MAX];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  void* coord[3] = {NULL, NULL, NULL};
  bool ok = true;
  for (int i = 0; ok && i < s; ++i) {
    coord[i] = in_coord(mode, v[2 + i], tvm_ffi_seq_obj_at(x->shape, pos[2 + i]),
                        tvm_ffi_seq_obj_at(o->shape, pos[2 + i]));
    ok = coord[i] != NULL;
  }
  void* value = NULL;
  if (ok && nearest) {
    void* sp[3] = {NULL, NULL, NULL};
    for (int i = 0; ok && i < s; ++i) {
      sp[i] = nearest_index(rounding, tvm_tir_ref(coord[i]),
                            tvm_ffi_seq_obj_at(x->shape, pos[2 + i]));
      ok = sp[i] != NULL;
    }
    if (ok) {
      value = tvm_tir_cast_take(t, load_at(x, &L, v, sp));
    } else {
      tvm_relax__release_all(sp, s);
    }
  } else if (ok && cubic) {
    value = tvm_tir_cast_take(t, cubic_value(call, x, &L, v, coord, s));
  } else if (ok) {
    /* the two neighbours and the weight of the second, per axis */
    void *lo[3], *hi[3], *w[3];
    for (int i = 0; i < s; ++i) {
      void* h = tvm_ffi_seq_obj_at(x->shape, pos[2 + i]);
      void* fl = tvm_tir_call_take(F32, "tir.floor", tvm_tir_ref(coord[i]));
      w[i] = tvm_tir_sub_take(tvm_tir_ref(coord[i]), tvm_tir_ref(fl));
      void* base = tvm_tir_cast_take(TVM_TIR_INT64, fl);
      lo[i] = clamp_index(tvm_tir_ref(base), h);
      hi[i] = clamp_index(tvm_tir_add_take(base, tvm_tir_i64(1)), h);
    }
    /* corner c reads hi on axis i when bit (s - 1 - i) of c is set; the corners are blended
     * along the last axis first, a * (1 - t) + b * t, then the one before, ... */
    void* p[8];
    int nc = 1 << s;
    for (int c = 0; c < nc; ++c) {
      void* sp[3];
      for (int i = 0; i < s; ++i) sp[i] = tvm_tir_ref((c >> (s - 1 - i)) & 1 ? hi[i] : lo[i]);
      p[c] = as_f(load_at(x, &L, v, sp));
    }
    for (int i = s - 1; i >= 0; --i, nc /= 2) {
      for (int c = 0; c < nc / 2; ++c) {
        p[c] = tvm_tir_add_take(tvm_tir_mul_take(p[2 * c], tvm_tir_sub_take(fc(1), tvm_tir_ref(w[i]))),
                                tvm_tir_mul_take(p[2 * c + 1], tvm_tir_ref(w[i])));
      }
    }
    value = tvm_tir_cast_take(t, p[0]);
    tvm_relax__release_all(lo, s), tvm_relax__release_all(hi, s), tvm_relax__release_all(w, s);
  }
  void* ov[TVM_RELAX_LAYOUT_MAX];
  for (int k = 0; k < n; ++k) ov[pos[k]] = v[k];
  void* body = value ? tvm_relax__store_all(o, ov, value) : NULL;
  /* An empty input axis has no pixel to read: unless the output is empty, the kernel stops with
   * an error (upstream's topi reads index -1). Inference refuses the constant case. */
  void* empty_out = tvm_tir_bool(false);
  void* empty_in = tvm_tir_bool(false);
  for (int i = 0; i < n; ++i) {
    empty_out = tvm_tir_or_take(empty_out, tvm_tir_eq_take(tvm_tir_ref(tvm_ffi_seq_obj_at(o->shape, i)), tvm_tir_i64(0)));
    if (i >= 2 && i < 2 + s)
      empty_in = tvm_tir_or_take(
          empty_in,
          tvm_tir_eq_take(tvm_tir_ref(tvm_ffi_seq_obj_at(x->shape, pos[i])), tvm_tir_i64(0)));
  }
  char msg[160];
  snprintf(msg, sizeof(msg), "%s: a spatial dim of the input is 0 but the output is not empty", name);
  void* guard = tvm_tir_or_take(empty_out, tvm_tir_not_take(empty_in));
  if (body) body = tvm_tir_assert_take(guard, msg, body);
  else tvm_ffi_release(guard);
  tvm_relax__release_all(coord, s);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_resize2d(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, resize_body);
}

/* ---- grid_sample ----------------------------------------------------------------------------- */
/* What the pieces of a grid_sample kernel share: the coordinates' dtype (the grid's), the dtype
 * values are blended in, align_corners and padding_mode. */
typedef struct {
  DLDataType ct, bt;
  bool align;
  const char* pad;
} gs_ctx;

static void* gc(const gs_ctx* g, double v) { return tvm_tir_const_float(g->ct, v); }

/* upstream's unnormalize: grid coordinate c (consumed) of [-1, 1] onto an input axis of extent
 * h (borrowed): (c + 1) * (h - 1) / 2 with align_corners (-1 and 1 the corner pixels' centres),
 * else -0.5 + (c + 1) * h / 2 (-1 and 1 the corner pixels' outer edges). */
static void* gs_unnormalize(const gs_ctx* g, void* c, void* h) {
  void* c1 = tvm_tir_add_take(c, gc(g, 1));
  void* hf = tvm_tir_cast_take(g->ct, g->align ? tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1))
                                               : tvm_tir_ref(h));
  void* v = tvm_tir_div_take(tvm_tir_mul_take(c1, hf), gc(g, 2));
  return g->align ? v : tvm_tir_add_take(gc(g, -0.5), v);
}

/* c (consumed, of the coordinates' dtype) clamped into [0, h - 1]. */
static void* gs_clip(const gs_ctx* g, void* c, void* h) {
  void* last = tvm_tir_cast_take(g->ct, tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1)));
  return tvm_tir_min_take(tvm_tir_max_take(c, gc(g, 0)), last);
}

/*
 * upstream's reflection of c (borrowed) at the borders lo and lo + span of an axis of extent h
 * (lo = 0 and span = h - 1 with align_corners, else lo = -0.5 and span = h): inside it stays;
 * outside, with d = |c - lo| = flips * span + extra (flips = floor(d) // span, as upstream's
 * integer division), lo + extra after an even number of flips, lo + span - extra after an odd
 * one. The caller clips the result into the input. A span of 0 (h = 1 with align_corners, where
 * upstream divides by zero) divides by 1 instead: the clip then gives 0, as PyTorch.
 */
static void* gs_reflect(const gs_ctx* g, void* c, void* h) {
  DLDataType i64 = tvm_tir_dtype_int(64);
  double lo = g->align ? 0.0 : -0.5;
  void* span = g->align ? tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1)) : tvm_tir_ref(h);
  void* hi = tvm_tir_add_take(tvm_tir_cast_take(g->ct, tvm_tir_ref(span)), gc(g, lo));
  void* inside = tvm_tir_and_take(tvm_tir_le_take(gc(g, lo), tvm_tir_ref(c)),
                                  tvm_tir_le_take(tvm_tir_ref(c), tvm_tir_ref(hi)));
  void* div = tvm_tir_max_take(tvm_tir_ref(span), tvm_tir_i64(1));
  void* d = tvm_tir_call_take(g->ct, "tir.fabs", tvm_tir_sub_take(tvm_tir_ref(c), gc(g, lo)));
  void* flips = tvm_tir_floordiv_take(tvm_tir_cast_take(i64, tvm_tir_ref(d)), tvm_tir_ref(div));
  void* extra = tvm_tir_sub_take(d, tvm_tir_cast_take(g->ct, tvm_tir_mul_take(tvm_tir_ref(flips),
                                                                             div)));
  void* even = tvm_tir_eq_take(tvm_tir_floormod_take(flips, tvm_tir_i64(2)), tvm_tir_i64(0));
  void* out = tvm_tir_select_take(even, tvm_tir_add_take(tvm_tir_ref(extra), gc(g, lo)),
                                  tvm_tir_sub_take(hi, extra));
  tvm_ffi_release(span);
  return tvm_tir_select_take(inside, tvm_tir_ref(c), out);
}

/* x[v0, v1, idx...] (idx consumed) in the blend dtype, 0 when an index is outside x: only the
 * taps inside are read (tir.if_then_else), so the padding never reads out of bounds. */
static void* gs_tap(const gs_ctx* g, tvm_tir_buffer_obj* x, void* const* v, void** idx, int s) {
  void* ok = tvm_tir_bool(true);
  void* ind[5] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), NULL, NULL, NULL};
  for (int a = 0; a < s; ++a) {
    ok = tvm_tir_and_take(ok, tvm_relax__in_range(idx[a], tvm_ffi_seq_obj_at(x->shape, 2 + a)));
    ind[2 + a] = idx[a];
  }
  void* val = tvm_tir_cast_take(g->bt, tvm_tir_load_takev(tvm_tir_ref(x), s + 2, ind));
  return tvm_tir_call_take(g->bt, "tir.if_then_else", ok, val,
                           tvm_tir_const_float(g->bt, 0));
}

/* Bilinear (trilinear for 3 axes) at the padded coordinates c (borrowed): the 2^s corners
 * floor(c) and floor(c) + 1 per axis, corner k taking + 1 on axis a when bit (s - 1 - a) of k is
 * set, each weighted by (1 - t) or t per axis (t = c - floor(c)), summed in corner order:
 * upstream's v00 (1 - ty)(1 - tx) + v01 (1 - ty) tx + v10 ty (1 - tx) + v11 ty tx in 2-d. */
static void* gs_linear(const gs_ctx* g, tvm_tir_buffer_obj* x, void* const* v, void* const* c,
                       int s) {
  void *lo[3], *w[3][2];
  for (int a = 0; a < s; ++a) {
    void* fl = tvm_tir_call_take(g->ct, "tir.floor", tvm_tir_ref(c[a]));
    void* t = tvm_tir_cast_take(g->bt, tvm_tir_sub_take(tvm_tir_ref(c[a]), tvm_tir_ref(fl)));
    lo[a] = tvm_tir_cast_take(tvm_tir_dtype_int(64), fl);
    w[a][0] = tvm_tir_sub_take(tvm_tir_const_float(g->bt, 1), tvm_tir_ref(t));
    w[a][1] = t;
  }
  void* sum = NULL;
  for (int k = 0; k < 1 << s; ++k) {
    void* idx[3];
    void* term = NULL;
    for (int a = 0; a < s; ++a) {
      int bit = (k >> (s - 1 - a)) & 1;
      idx[a] = bit ? tvm_tir_add_take(tvm_tir_ref(lo[a]), tvm_tir_i64(1)) : tvm_tir_ref(lo[a]);
    }
    term = gs_tap(g, x, v, idx, s);
    for (int a = 0; a < s; ++a) {
      term = tvm_tir_mul_take(term, tvm_tir_ref(w[a][(k >> (s - 1 - a)) & 1]));
    }
    sum = sum ? tvm_tir_add_take(sum, term) : term;
  }
  for (int a = 0; a < s; ++a) tvm_relax__release_all(w[a], 2);
  tvm_relax__release_all(lo, s);
  return sum;
}

/* upstream's bicubic weights (A = -0.75, PyTorch's) of the taps floor(c) - 1 .. floor(c) + 2 at
 * fraction t (borrowed): w1(t + 1), w0(t), w0(1 - t), w1(2 - t) with w0(u) = ((A + 2) u - (A +
 * 3)) u u + 1 and w1(u) = ((A u - 5 A) u + 8 A) u - 4 A. */
static void gs_cubic_weights(const gs_ctx* g, void* t, void* w[4]) {
  const double A = -0.75;
  for (int q = 0; q < 4; ++q) {
    void* u = q == 0   ? tvm_tir_add_take(tvm_tir_ref(t), gc(g, 1))
              : q == 1 ? tvm_tir_ref(t)
              : q == 2 ? tvm_tir_sub_take(gc(g, 1), tvm_tir_ref(t))
                       : tvm_tir_sub_take(gc(g, 2), tvm_tir_ref(t));
    if (q == 1 || q == 2) {
      void* p = tvm_tir_sub_take(tvm_tir_mul_take(gc(g, A + 2), tvm_tir_ref(u)), gc(g, A + 3));
      p = tvm_tir_mul_take(tvm_tir_mul_take(p, tvm_tir_ref(u)), tvm_tir_ref(u));
      w[q] = tvm_tir_add_take(p, gc(g, 1));
    } else {
      void* p = tvm_tir_sub_take(tvm_tir_mul_take(gc(g, A), tvm_tir_ref(u)), gc(g, 5 * A));
      p = tvm_tir_add_take(tvm_tir_mul_take(p, tvm_tir_ref(u)), gc(g, 8 * A));
      w[q] = tvm_tir_sub_take(tvm_tir_mul_take(p, tvm_tir_ref(u)), gc(g, 4 * A));
    }
    tvm_ffi_release(u);
    w[q] = tvm_tir_cast_take(g->bt, w[q]);
  }
}

/* Bicubic (2-d) at the unpadded coordinates c (borrowed), as upstream's topi: per axis the taps
 * floor(c) - 1 .. floor(c) + 2, each padded on its own (border: clamped into the input;
 * reflection: reflected, clamped, truncated to an index; zeros: 0 outside); each of the four
 * rows blended along x (w0 p0 + w1 p1 + w2 p2 + w3 p3), then the rows along y. The taps'
 * indices and weights are variables (iy0..iy3, ix0..ix3, wy0..wy3, wx0..wx3), each used up to 16
 * times: lets[2k] is the k-th (a new reference), lets[2k + 1] its value, for the caller to bind
 * around the store (16 of them). */
static void* gs_cubic(const gs_ctx* g, tvm_tir_buffer_obj* x, void* const* v, void* const* c,
                      void* lets[32]) {
  DLDataType i64 = tvm_tir_dtype_int(64);
  void *w[2][4], *ix[2][4];
  for (int a = 0; a < 2; ++a) {
    void* h = tvm_ffi_seq_obj_at(x->shape, 2 + a);
    void* fl = tvm_tir_call_take(g->ct, "tir.floor", tvm_tir_ref(c[a]));
    void* t = tvm_tir_sub_take(tvm_tir_ref(c[a]), tvm_tir_ref(fl));
    gs_cubic_weights(g, t, w[a]);
    tvm_ffi_release(t);
    void* base = tvm_tir_cast_take(i64, fl);
    for (int q = 0; q < 4; ++q) {
      void* pos = tvm_tir_add_take(tvm_tir_ref(base), tvm_tir_i64(q - 1));
      if (is(g->pad, "border")) {
        pos = tvm_tir_min_take(tvm_tir_max_take(pos, tvm_tir_i64(0)),
                               tvm_tir_sub_take(tvm_tir_ref(h), tvm_tir_i64(1)));
      } else if (is(g->pad, "reflection")) {
        void* pf = tvm_tir_cast_take(g->ct, pos);
        void* r = gs_reflect(g, pf, h);
        tvm_ffi_release(pf);
        pos = tvm_tir_cast_take(i64, gs_clip(g, r, h));
      }
      ix[a][q] = pos;
    }
    tvm_ffi_release(base);
    /* (the names: i or w, the axis, the tap) */
    for (int q = 0; q < 4; ++q) {
      char name[4] = {'i', a ? 'x' : 'y', (char)('0' + q), '\0'};
      void** slot[2] = {&ix[a][q], &w[a][q]};
      for (int k = 0; k < 2; ++k) {
        name[0] = k ? 'w' : 'i';
        void* var = tvm_tir_var(name, k ? g->bt : i64);
        int at = 2 * (8 * a + 4 * k + q);
        lets[at] = var;
        lets[at + 1] = *slot[k];
        *slot[k] = tvm_tir_ref(var);
      }
    }
  }
  void* rows[4];
  for (int i = 0; i < 4; ++i) {
    void* acc = NULL;
    for (int q = 0; q < 4; ++q) {
      void* idx[2] = {tvm_tir_ref(ix[0][i]), tvm_tir_ref(ix[1][q])};
      void* term = tvm_tir_mul_take(gs_tap(g, x, v, idx, 2), tvm_tir_ref(w[1][q]));
      acc = acc ? tvm_tir_add_take(acc, term) : term;
    }
    rows[i] = acc;
  }
  void* out = NULL;
  for (int i = 0; i < 4; ++i) {
    void* term = tvm_tir_mul_take(rows[i], tvm_tir_ref(w[0][i]));
    out = out ? tvm_tir_add_take(out, term) : term;
  }
  for (int a = 0; a < 2; ++a) tvm_relax__release_all(w[a], 4), tvm_relax__release_all(ix[a], 4);
  return out;
}

/* The wider of two float dtypes (float32 for float16 against bfloat16). */
static DLDataType gs_blend_dtype(DLDataType a, DLDataType b) {
  if (tvm_ffi_dtype_equal(a, b)) return a;
  return a.bits != b.bits ? (a.bits > b.bits ? a : b) : F32;
}

static void* grid_sample_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *x = in[0], *grid = in[1], *o = out[0];
  const char* layout = tvm_relax__call_attr_str(call, "layout", "NCHW");
  const char* method = tvm_relax__call_attr_str(call, "method", "bilinear");
  int n = (int)tvm_ffi_seq_size(x->shape), s = n - 2;
  if ((s != 2 && s != 3) || !is(layout, s == 2 ? "NCHW" : "NCDHW") ||
      tvm_ffi_seq_size(grid->shape) != n || (s == 3 && is(method, "bicubic"))) {
    tvm_ffi_raise("NotImplementedError",
                  "relax.image.grid_sample: only the NCHW (bilinear, nearest, bicubic) and NCDHW "
                  "(bilinear, nearest) layouts have a kernel, got %s with method %s",
                  layout, method);
    return NULL;
  }
  gs_ctx g = {grid->dtype, gs_blend_dtype(x->dtype, grid->dtype),
              tvm_relax__call_attr_bool(call, "align_corners", false),
              tvm_relax__call_attr_str(call, "padding_mode", "zeros")};
  bool cubic = is(method, "bicubic");
  void* v[5];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  /* raw[a]: axis a's coordinate in the input (D, H, W order: grid channel s - 1 - a); c[a]: it
   * padded (bicubic pads its taps instead) */
  static const char* const kRaw[3] = {"z", "y", "x"}, *const kPad[3] = {"zp", "yp", "xp"};
  void *raw[3], *c[3];
  for (int a = 0; a < s; ++a) {
    raw[a] = tvm_tir_var(kRaw[3 - s + a], g.ct);
    c[a] = tvm_tir_var(kPad[3 - s + a], g.ct);
  }
  void* value;
  void* lets[32] = {NULL};
  if (cubic) {
    value = gs_cubic(&g, x, v, raw, lets);
  } else if (is(method, "nearest")) {
    void* idx[3];
    for (int a = 0; a < s; ++a) {
      void* r = tvm_tir_call_take(g.ct, "tir.nearbyint", tvm_tir_ref(c[a]));
      idx[a] = tvm_tir_cast_take(tvm_tir_dtype_int(64), r);
    }
    value = gs_tap(&g, x, v, idx, s);
  } else {
    value = gs_linear(&g, x, v, c, s);
  }
  void* oi[5];
  for (int i = 0; i < n; ++i) oi[i] = tvm_tir_ref(v[i]);
  void* body = tvm_tir_store_takev(tvm_tir_ref(o), tvm_tir_cast_take(o->dtype, value), n, oi);
  for (int k = cubic ? 15 : -1; k >= 0; --k) {
    body = tvm_tir_let_stmt_take(lets[2 * k], lets[2 * k + 1], body);
  }
  for (int a = s - 1; !cubic && a >= 0; --a) {
    void* h = tvm_ffi_seq_obj_at(x->shape, 2 + a);
    void* p = tvm_tir_ref(raw[a]);
    if (is(g.pad, "reflection")) {
      void* r = gs_reflect(&g, raw[a], h);
      tvm_ffi_release(p);
      p = r;
    }
    if (!is(g.pad, "zeros")) p = gs_clip(&g, p, h);
    body = tvm_tir_let_stmt_take(tvm_tir_ref(c[a]), p, body);
  }
  for (int a = s - 1; a >= 0; --a) {
    void* gi[5] = {tvm_tir_ref(v[0]), tvm_tir_i64(s - 1 - a), NULL, NULL, NULL};
    for (int i = 2; i < n; ++i) gi[i] = tvm_tir_ref(v[i]);
    void* gv = tvm_tir_cast_take(g.ct, tvm_tir_load_takev(tvm_tir_ref(grid), n, gi));
    body = tvm_tir_let_stmt_take(tvm_tir_ref(raw[a]),
                                 gs_unnormalize(&g, gv, tvm_ffi_seq_obj_at(x->shape, 2 + a)), body);
  }
  void* ext[5];
  for (int i = 0; i < n; ++i) ext[i] = tvm_ffi_seq_obj_at(o->shape, i);
  body = tvm_relax__loop_nest(v, ext, n, NULL, body);
  /* The grid's batch and coordinate count, when inference could not prove them, are checked
   * before any read (the output's batch is data's). */
  void* nb = tvm_ffi_seq_obj_at(x->shape, 0), *gb = tvm_ffi_seq_obj_at(grid->shape, 0);
  void* gs = tvm_ffi_seq_obj_at(grid->shape, 1);
  int64_t cs;
  bool batch_ok = tvm_relax__dim_equal(nb, gb);
  bool coords_ok = tvm_tir_as_const_int(gs, &cs) && cs == s;
  if (!batch_ok || !coords_ok) {
    void* ok = tvm_tir_and_take(tvm_tir_eq_take(tvm_tir_ref(nb), tvm_tir_ref(gb)),
                                tvm_tir_eq_take(tvm_tir_ref(gs), tvm_tir_i64(s)));
    body = tvm_tir_assert_take(ok, "relax.image.grid_sample: the grid's batch or number of "
                               "coordinates does not fit data", body);
  }
  tvm_relax__release_all(raw, s), tvm_relax__release_all(c, s);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_grid_sample(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, grid_sample_body);
}
