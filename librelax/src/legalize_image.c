/*
 * legalize_image.c: the kernels of image.resize2d in NCHW and image.resize3d in NCDHW, methods
 * nearest_neighbor and linear,
 * following upstream's topi resize: each output coordinate maps to an input coordinate (in
 * float32) by the coordinate transformation mode (half_pixel, align_corners, asymmetric,
 * pytorch_half_pixel, tf_half_pixel_for_nn); nearest rounds it by the rounding method and
 * clamps it into the input, linear blends the two neighbours (clamped) per axis as
 * a * (1 - t) + b * t, the last axis first; cubic sums the 16 (64) taps around the
 * coordinate with upstream's spline weights (cubic_alpha, cubic_exclude). tf_crop_and_resize is
 * a NotImplementedError. An input with an empty spatial axis and a non-empty output is an
 * error: a ValueError at inference for constant dims, the kernel's assertion otherwise. image.affine_grid (2-d and 3-d) and vision.roi_align are in
 * legalize_vision.c.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

static bool is(const char* s, const char* want) { return s && strcmp(s, want) == 0; }

#define F32 tvm_tir_dtype_float(32)
static void* fc(double v) { return tvm_tir_const_float(F32, v); }
static void* as_f(void* e) { return tvm_tir_cast_take(F32, e); }

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
static void* cubic_value(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* x, void* const* v,
                         void* const* coord, int s) {
  double alpha = tvm_relax__call_attr_float(call, "cubic_alpha", -0.75);
  bool exclude = tvm_relax__call_attr_int(call, "cubic_exclude", 0) != 0;
  int n = s + 2;
  void *w[3][4], *ix[3][4];
  for (int i = 0; i < s; ++i) {
    void* h = tvm_ffi_seq_obj_at(x->shape, 2 + i);
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
    void* idx[5] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), NULL, NULL, NULL};
    for (int i = 0; i < s; ++i) idx[2 + i] = tvm_tir_ref(ix[i][(c / (nc / 4 >> (2 * i))) % 4]);
    p[c] = as_f(tvm_tir_load_takev(tvm_tir_ref(x), n, idx));
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
  int s = (int)tvm_ffi_seq_size(x->shape) - 2;
  const char* canon = s == 3 ? "NCDHW" : "NCHW";
  bool nearest = is(method, "nearest_neighbor"), cubic = is(method, "cubic");
  if ((s != 2 && s != 3) || (layout && !is(layout, canon)) ||
      (!nearest && !cubic && !is(method, "linear"))) {
    tvm_ffi_raise("NotImplementedError",
                  "%s: only the %s layout and the nearest_neighbor, linear and cubic methods "
                  "have a kernel", name, canon);
    return NULL;
  }
  /* upstream's default rounding of nearest_neighbor when none is given */
  if (!rounding || !*rounding) rounding = is(mode, "tf_half_pixel_for_nn") ? "floor" : "round";
  DLDataType t = o->dtype;
  int n = s + 2;
  void* v[5];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  void* coord[3] = {NULL, NULL, NULL};
  bool ok = true;
  for (int i = 0; ok && i < s; ++i) {
    coord[i] = in_coord(mode, v[2 + i], tvm_ffi_seq_obj_at(x->shape, 2 + i), tvm_ffi_seq_obj_at(o->shape, 2 + i));
    ok = coord[i] != NULL;
  }
  void* value = NULL;
  if (ok && nearest) {
    void* idx[5] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), NULL, NULL, NULL};
    for (int i = 0; ok && i < s; ++i) {
      idx[2 + i] = nearest_index(rounding, tvm_tir_ref(coord[i]), tvm_ffi_seq_obj_at(x->shape, 2 + i));
      ok = idx[2 + i] != NULL;
    }
    if (ok) {
      value = tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(x), n, idx));
    } else {
      tvm_relax__release_all(idx, n);
    }
  } else if (ok && cubic) {
    value = tvm_tir_cast_take(t, cubic_value(call, x, v, coord, s));
  } else if (ok) {
    /* the two neighbours and the weight of the second, per axis */
    void *lo[3], *hi[3], *w[3];
    for (int i = 0; i < s; ++i) {
      void* h = tvm_ffi_seq_obj_at(x->shape, 2 + i);
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
      void* idx[5] = {tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), NULL, NULL, NULL};
      for (int i = 0; i < s; ++i) idx[2 + i] = tvm_tir_ref((c >> (s - 1 - i)) & 1 ? hi[i] : lo[i]);
      p[c] = as_f(tvm_tir_load_takev(tvm_tir_ref(x), n, idx));
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
  void* body = value ? tvm_relax__store_all(o, v, value) : NULL;
  /* An empty input axis has no pixel to read: unless the output is empty, the kernel stops with
   * an error (upstream's topi reads index -1). Inference refuses the constant case. */
  void* empty_out = tvm_tir_bool(false);
  void* empty_in = tvm_tir_bool(false);
  for (int i = 0; i < n; ++i) {
    empty_out = tvm_tir_or_take(empty_out, tvm_tir_eq_take(tvm_tir_ref(tvm_ffi_seq_obj_at(o->shape, i)), tvm_tir_i64(0)));
    if (i >= 2)
      empty_in = tvm_tir_or_take(empty_in, tvm_tir_eq_take(tvm_tir_ref(tvm_ffi_seq_obj_at(x->shape, i)), tvm_tir_i64(0)));
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
