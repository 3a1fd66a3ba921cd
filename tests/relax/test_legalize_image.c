/*
 * test_legalize_image.c: the kernel of image.resize2d (NCHW, and packed NCHW2c / NHWC2c
 * against the NCHW oracle packed; nearest_neighbor with each
 * rounding method, linear; each coordinate transformation mode; up- and downscaling), legalized
 * and run by the reference evaluator on random inputs, against the mapping computed here in
 * float32 as upstream's topi resize does; and that image.grid_sample's layouts without a kernel
 * (its kernels are tested in tests/codegen/test_relax_more_ops.c) fail at legalization.
 */
#include "legalize_testing.h"

static const char* const k_modes[5] = {"half_pixel", "align_corners", "asymmetric",
                                       "pytorch_half_pixel", "tf_half_pixel_for_nn"};

static float coord(int mode, int64_t y, int64_t h, int64_t oh) {
  float scale = (float)h / (float)oh, yf = (float)y;
  switch (mode) {
    case 0: return (yf + 0.5f) * scale - 0.5f;
    case 1: return (float)(h - 1) / (float)(oh > 1 ? oh - 1 : 1) * yf;
    case 2: return yf * scale;
    case 3: return oh > 1 ? (yf + 0.5f) * scale - 0.5f : 0.0f;
    default: return (yf + 0.5f) * scale;
  }
}

static int64_t clampi(int64_t i, int64_t h) { return i < 0 ? 0 : i > h - 1 ? h - 1 : i; }

static int64_t nearest(const char* rounding, float c, int64_t h) {
  float r;
  if (strcmp(rounding, "round") == 0) r = roundf(c);
  else if (strcmp(rounding, "round_prefer_floor") == 0) r = ceilf(c - 0.5f);
  else if (strcmp(rounding, "round_prefer_ceil") == 0) r = floorf(c + 0.5f);
  else if (strcmp(rounding, "floor") == 0) r = floorf(c + 1e-5f);
  else r = ceilf(c - 1e-5f);
  return clampi((int64_t)r, h);
}

/* The resize of the nc planes of p (h, w) to (oh, ow), as upstream's topi computes it. */
static void resize_ref(const float* p, int nc, int64_t h, int64_t w, int64_t oh, int64_t ow,
                       const char* method, int mode, const char* rounding, double* want) {
  for (int c = 0; c < nc; ++c)
    for (int64_t y = 0; y < oh; ++y)
      for (int64_t z = 0; z < ow; ++z) {
        float cy = coord(mode, y, h, oh), cz = coord(mode, z, w, ow);
        const float* q = p + c * h * w;
        double v;
        if (method[0] == 'n') {
          v = q[nearest(rounding, cy, h) * w + nearest(rounding, cz, w)];
        } else {
          float fy = floorf(cy), fz = floorf(cz), ty = cy - fy, tz = cz - fz;
          int64_t y0 = clampi((int64_t)fy, h), y1 = clampi((int64_t)fy + 1, h);
          int64_t z0 = clampi((int64_t)fz, w), z1 = clampi((int64_t)fz + 1, w);
          float r0 = q[y0 * w + z0] * (1 - tz) + q[y0 * w + z1] * tz;
          float r1 = q[y1 * w + z0] * (1 - tz) + q[y1 * w + z1] * tz;
          v = r0 * (1 - ty) + r1 * ty;
        }
        want[(c * oh + y) * ow + z] = v;
      }
}

/* resize (1, 4, h, w) to (oh, ow) and compare; with `layout` (NCHW2c, NHWC2c: pos places its
 * logical axes N, C / 2, H, W, 2) the input and the oracle's result are packed that way. */
static void check_in(int64_t h, int64_t w, int64_t oh, int64_t ow, const char* method, int mode,
                     const char* rounding, const char* layout, const int* pos) {
  int64_t xs[4] = {1, 4, h, w};
  void* t0 = rv_rand(4, xs);
  void* t = t0;
  if (layout) t = lg_packed_tensor(t0, 2, pos);
  else tvm_ffi_retain(t0);
  tvm_relax_var_obj* x = rt_var_take("x", lg_sinfo_of(t));
  void* params = rt_array(1, x);
  tvm_relax_expr_obj* size = tvm_relax_shape_expr_of_ints((int64_t[]){oh, ow}, 2);
  TVMFFIAny am = tvm_ffi_string(method), cm = tvm_ffi_string(k_modes[mode]);
  TVMFFIAny rm = tvm_ffi_string(rounding);
  TVMFFIAny lm = tvm_ffi_string(layout ? layout : "NCHW");
  void* attrs = rt_attrs(4, "method", am, "coordinate_transformation_mode", cm, "rounding_method",
                         rm, "layout", lm);
  tvm_ffi_any_release(&am), tvm_ffi_any_release(&cm), tvm_ffi_any_release(&rm);
  tvm_ffi_any_release(&lm);
  TVMFFIAny a = tvm_ffi_any_obj(t), out;
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.image.resize2d", attrs, 2, x, size);
  CHECK_OK(lg_eval(params, call, &a, 1, &out));
  double want[4 * 64], packed[4 * 64];
  resize_ref(lg_f(t0), 4, h, w, oh, ow, method, mode, rounding, want);
  if (layout) {
    int64_t os[4] = {1, 4, oh, ow}, ds[5];
    lg_pack_nchw(want, os, 2, pos, packed, ds);
    memcpy(want, packed, sizeof(double) * 4 * (size_t)(oh * ow));
    if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 5, ds));
  }
  int nbad = lg_bad(&out, want, 4 * oh * ow, 1e-5);
  if (nbad) {
    fprintf(stderr, "  resize %s %s %s %s: %d bad\n", layout ? layout : "NCHW", method,
            k_modes[mode], rounding, nbad);
  }
  CHECK_EQ_INT(nbad, 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(attrs), tvm_ffi_release(size), tvm_ffi_release(params), tvm_ffi_release(x);
  tvm_ffi_release(t), tvm_ffi_release(t0);
}

static void check(int64_t h, int64_t w, int64_t oh, int64_t ow, const char* method, int mode,
                  const char* rounding) {
  check_in(h, w, oh, ow, method, mode, rounding, NULL, NULL);
}

/* Packed layouts (upstream's test_image_resize2d_symbolic uses NCHW16c): the sub-axis passes
 * through like C; NHWC2c also moves the spatial axes. */
TEST(resize2d_packed) {
  static const int nchw2c[5] = {0, 1, 2, 3, 4}, nhwc2c[5] = {0, 3, 1, 2, 4};
  for (int mode = 0; mode < 5; ++mode) {
    check_in(3, 5, 7, 4, "nearest_neighbor", mode, "round", "NCHW2c", nchw2c);
    check_in(6, 4, 3, 8, "linear", mode, "", "NCHW2c", nchw2c);
    check_in(3, 5, 7, 4, "linear", mode, "", "NHWC2c", nhwc2c);
    check_in(6, 4, 3, 8, "nearest_neighbor", mode, "floor", "NHWC2c", nhwc2c);
  }
}

TEST(resize2d_nearest) {
  static const char* const roundings[5] = {"round", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil"};
  for (int mode = 0; mode < 5; ++mode)
    for (int r = 0; r < 5; ++r) {
      check(3, 5, 7, 4, "nearest_neighbor", mode, roundings[r]); /* up in h, down in w */
      check(6, 4, 3, 8, "nearest_neighbor", mode, roundings[r]);
    }
}

TEST(resize2d_linear) {
  for (int mode = 0; mode < 5; ++mode) {
    check(3, 5, 7, 4, "linear", mode, "");
    check(6, 4, 3, 8, "linear", mode, "");
    check(4, 4, 1, 1, "linear", mode, "");
  }
}

/* grid_sample in NHWC (or another permutation of NCDHW than NCDHW) infers, as upstream's rule,
 * but has no kernel (upstream's topi asserts NCHW / NCDHW): LegalizeOps raises naming it. */
TEST(grid_sample_layout_without_kernel) {
  static const char* const layouts[2] = {"NHWC", "NDHWC"};
  for (int k = 0; k < 2; ++k) {
    int s = k + 2;
    int64_t xs[5] = {1, 4, 5, 3, 3}, gs[5] = {1, s, 6, 7, 2};
    tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_of_ints(xs, s + 2, F32));
    tvm_relax_var_obj* g = rt_var_take("g", tvm_relax_tensor_sinfo_of_ints(gs, s + 2, F32));
    void* params = rt_array(2, x, g);
    TVMFFIAny lv = tvm_ffi_string(layouts[k]);
    void* attrs = rt_attrs(1, "layout", lv);
    tvm_ffi_any_release(&lv);
    tvm_relax_expr_obj* call = tvm_relax_call_op("relax.image.grid_sample", attrs, 2, x, g);
    CHECK(call != NULL); /* inference accepts the layout */
    tvm_tir_ir_module_obj* legal = call ? lg_legalize(params, call) : NULL;
    CHECK(legal == NULL);
    CHECK_RAISED("NotImplementedError", "relax.image.grid_sample: only the NCHW (bilinear, "
                 "nearest, bicubic) and NCDHW (bilinear, nearest) layouts have a kernel, got");
    tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
    tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(g);
  }
}

int main(void) {
  RUN(resize2d_nearest);
  RUN(resize2d_linear);
  RUN(resize2d_packed);
  RUN(grid_sample_layout_without_kernel);
  return test_summary();
}
