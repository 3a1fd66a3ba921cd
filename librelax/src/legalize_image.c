/*
 * legalize_image.c: the kernel of image.resize2d in NCHW, methods nearest_neighbor and linear,
 * following upstream's topi resize: each output coordinate maps to an input coordinate (in
 * float32) by the coordinate transformation mode (half_pixel, align_corners, asymmetric,
 * pytorch_half_pixel, tf_half_pixel_for_nn); nearest rounds it by the rounding method and
 * clamps it into the input, linear blends the two neighbours (clamped) per axis as
 * a * (1 - t) + b * t. cubic and tf_crop_and_resize are NotImplementedErrors.
 */
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

static const char* attr_str(const tvm_relax_call_obj* call, const char* name) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  TVMFFIByteArray b;
  if (!a || (a->type_index != kTVMFFIStr && a->type_index != kTVMFFISmallStr)) return NULL;
  return tvm_ffi_any_as_bytes(a, &b) ? b.data : NULL;
}

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
  tvm_ffi_raise("NotImplementedError", "image.resize2d: coordinate_transformation_mode \"%s\" has no kernel",
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
    tvm_ffi_raise("NotImplementedError", "image.resize2d: rounding_method \"%s\" has no kernel", rounding);
    return NULL;
  }
  return clamp_index(tvm_tir_cast_take(TVM_TIR_INT64, r), h);
}

static void* resize_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  const char* method = attr_str(call, "method");
  const char* mode = attr_str(call, "coordinate_transformation_mode");
  const char* rounding = attr_str(call, "rounding_method");
  const char* layout = attr_str(call, "layout");
  bool nearest = is(method, "nearest_neighbor");
  if ((layout && !is(layout, "NCHW")) || (!nearest && !is(method, "linear"))) {
    tvm_ffi_raise("NotImplementedError",
                  "image.resize2d: only the NCHW layout and the nearest_neighbor and linear "
                  "methods have a kernel");
    return NULL;
  }
  /* upstream's default rounding of nearest_neighbor when none is given */
  if (!rounding || !*rounding) rounding = is(mode, "tf_half_pixel_for_nn") ? "floor" : "round";
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  DLDataType t = o->dtype;
  void* v[4];
  if (tvm_relax__kernel_vars(v, 4, "i") != 0) return NULL;
  void* coord[2] = {NULL, NULL};
  bool ok = true;
  for (int i = 0; ok && i < 2; ++i) {
    coord[i] = in_coord(mode, v[2 + i], tvm_ffi_seq_obj_at(x->shape, 2 + i), tvm_ffi_seq_obj_at(o->shape, 2 + i));
    ok = coord[i] != NULL;
  }
  void* value = NULL;
  if (ok && nearest) {
    void* iy = nearest_index(rounding, tvm_tir_ref(coord[0]), tvm_ffi_seq_obj_at(x->shape, 2));
    void* ix = iy ? nearest_index(rounding, tvm_tir_ref(coord[1]), tvm_ffi_seq_obj_at(x->shape, 3)) : NULL;
    if (ix) {
      value = tvm_tir_cast_take(t, tvm_tir_load_take(tvm_tir_ref(x), tvm_tir_ref(v[0]), tvm_tir_ref(v[1]), iy, ix));
    } else {
      tvm_ffi_release(iy);
    }
  } else if (ok) {
    /* the two neighbours and the weight of the second, per axis */
    void* lo[2], *hi[2], *w[2];
    for (int i = 0; i < 2; ++i) {
      void* h = tvm_ffi_seq_obj_at(x->shape, 2 + i);
      void* fl = tvm_tir_call_take(F32, "tir.floor", tvm_tir_ref(coord[i]));
      w[i] = tvm_tir_sub_take(tvm_tir_ref(coord[i]), tvm_tir_ref(fl));
      void* base = tvm_tir_cast_take(TVM_TIR_INT64, fl);
      lo[i] = clamp_index(tvm_tir_ref(base), h);
      hi[i] = clamp_index(tvm_tir_add_take(base, tvm_tir_i64(1)), h);
    }
    void* p[2][2];
    for (int a = 0; a < 2; ++a)
      for (int b = 0; b < 2; ++b) {
        p[a][b] = as_f(tvm_tir_load_take(tvm_tir_ref(x), tvm_tir_ref(v[0]), tvm_tir_ref(v[1]),
                                         tvm_tir_ref(a ? hi[0] : lo[0]), tvm_tir_ref(b ? hi[1] : lo[1])));
      }
    void* row[2];
    for (int a = 0; a < 2; ++a) {
      row[a] = tvm_tir_add_take(tvm_tir_mul_take(p[a][0], tvm_tir_sub_take(fc(1), tvm_tir_ref(w[1]))),
                                tvm_tir_mul_take(p[a][1], tvm_tir_ref(w[1])));
    }
    value = tvm_tir_add_take(tvm_tir_mul_take(row[0], tvm_tir_sub_take(fc(1), tvm_tir_ref(w[0]))),
                             tvm_tir_mul_take(row[1], tvm_tir_ref(w[0])));
    value = tvm_tir_cast_take(t, value);
    tvm_relax__release_all(lo, 2), tvm_relax__release_all(hi, 2), tvm_relax__release_all(w, 2);
  }
  void* body = value ? tvm_relax__store_all(o, v, value) : NULL;
  tvm_ffi_release(coord[0]), tvm_ffi_release(coord[1]);
  tvm_relax__release_all(v, 4);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_resize2d(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, resize_body);
}
