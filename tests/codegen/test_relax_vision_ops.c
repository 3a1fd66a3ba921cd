/*
 * test_relax_vision_ops.c: nn.conv3d_transpose, image.resize3d, image.affine_grid and
 * vision.roi_align, each as a one-call model legalized, then run twice: by the Relax reference
 * evaluator (the kernel in libtir's interpreter) and compiled to a VM executable with LLVM
 * kernels (bytecode mode here, compiled mode in the _compiled twin) run in libvm. Both results
 * are compared with plain C loops on random inputs. vision.non_max_suppression (hard returning
 * indices, soft-NMS, and the data forms of return_indices=False with or without
 * invalid_to_bottom) and all_class_non_max_suppression (both output formats) likewise, the
 * indices compared exactly; vision.roi_pool (float and int data) and vision.get_valid_counts
 * compared exactly with their C references, and bad calls of the two written in TVMScript
 * refused at the place written. vision.multibox_transform_loc against its C reference (every
 * attribute, symbolic shapes, the kernel's assertion on inputs that do not fit) and refused bad
 * calls likewise.
 */
#include <math.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "values_testing.h"
/* after relax_testing.h (CHECK) */
#include "exec_mode_testing.h"
#include "one_op_testing.h"
#include "script_testing.h"

/* A float32 tensor of random values in [-2, 2) * mul. */
static void* ftensor(int ndim, const int64_t* shape, double mul) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, F32, (DLDevice){kDLCPU, 0});
  DLTensor* dl = tvm_ffi_tensor_dl(t);
  int64_t n = tvm_ffi_dltensor_numel(dl);
  for (int64_t i = 0; i < n; ++i) ((float*)dl->data)[i] = (float)(rv_rnd() * mul);
  return t;
}

static float* fdata(void* t) { return tvm_ffi_tensor_dl(t)->data; }

static void* ints(int n, const int64_t* v) {
  TVMFFIAny items[8];
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(v[i]);
  return tvm_ffi_array_new(items, n);
}

/* op on float32 tensors (+ extra; attrs borrowed) against want (nwant float32 elements),
 * interpreted and compiled; releases the tensors. */
static void check_op(const char* op, void* attrs, int n, void** tensors, tvm_relax_expr_obj* extra,
                     const double* want, int64_t nwant, double tol) {
  oot_expect e = oot_one(F32, want, nwant, tol);
  oot_check_op(op, attrs, n, tensors, extra, &e);
}

static tvm_relax_expr_obj* shape_expr(int n, const int64_t* v) {
  void* dims[3];
  for (int i = 0; i < n; ++i) dims[i] = tvm_tir_const_int(I64, v[i]);
  void* arr = tvm_ffi_array_of_objects(dims, n);
  tvm_relax_expr_obj* s = tvm_relax_shape_expr_new(arr);
  for (int i = 0; i < n; ++i) tvm_ffi_release(dims[i]);
  tvm_ffi_release(arr);
  return s;
}

TEST(conv3d_transpose) {
  /* x (1, 4, 3, 4, 3), w IODHW (4, 1, 2, 3, 2), groups 2 (2 output channels), strides (2, 1, 2),
   * padding 1, output_padding (1, 0, 1): out (1, 2, 5, 4, 5) */
  int64_t sx[5] = {1, 4, 3, 4, 3}, sw[5] = {4, 1, 2, 3, 2};
  int64_t in[3] = {3, 4, 3}, k[3] = {2, 3, 2}, st[3] = {2, 1, 2}, op[3] = {1, 0, 1}, od[3];
  for (int i = 0; i < 3; ++i) od[i] = (in[i] - 1) * st[i] - 2 + (k[i] - 1) + op[i] + 1;
  CHECK_EQ_INT(od[0] * 100 + od[1] * 10 + od[2], 545);
  void* t[2] = {ftensor(5, sx, 1), ftensor(5, sw, 1)};
  const float *x = fdata(t[0]), *w = fdata(t[1]);
  double want[2 * 5 * 4 * 5] = {0};
  /* scatter form: x[c, d, h, q] reaches out[c / 2, d * s - 1 + kd, ...] */
  for (int c = 0; c < 4; ++c)
    for (int d = 0; d < 3; ++d)
      for (int h = 0; h < 4; ++h)
        for (int q = 0; q < 3; ++q)
          for (int kd = 0; kd < 2; ++kd)
            for (int kh = 0; kh < 3; ++kh)
              for (int kw = 0; kw < 2; ++kw) {
                int64_t y[3] = {d * 2 - 1 + kd, h - 1 + kh, q * 2 - 1 + kw};
                if (y[0] < 0 || y[0] >= od[0] || y[1] < 0 || y[1] >= od[1] || y[2] < 0 ||
                    y[2] >= od[2])
                  continue;
                int o = c / 2;
                want[((o * od[0] + y[0]) * od[1] + y[1]) * od[2] + y[2]] +=
                    (double)x[((c * 3 + d) * 4 + h) * 3 + q] * w[((c * 2 + kd) * 3 + kh) * 2 + kw];
              }
  void* strides = ints(3, st);
  void* pad = ints(1, (int64_t[]){1});
  void* opad = ints(3, op);
  void* attrs = rt_attrs(4, "strides", tvm_ffi_any_obj(strides), "padding", tvm_ffi_any_obj(pad),
                         "output_padding", tvm_ffi_any_obj(opad), "groups", tvm_ffi_any_int(2));
  check_op("relax.nn.conv3d_transpose", attrs, 2, t, NULL, want, 200, 1e-5);
  tvm_ffi_release(attrs), tvm_ffi_release(strides), tvm_ffi_release(pad), tvm_ffi_release(opad);
}

/* ---- resize3d -------------------------------------------------------------------------------- */
static double clampd(double v, double lo, double hi) { return v < lo ? lo : v > hi ? hi : v; }

TEST(resize3d) {
  /* x (1, 2, 3, 4, 5) -> (4, 3, 7): linear half_pixel, nearest asymmetric / floor, linear
   * align_corners */
  int64_t sx[5] = {1, 2, 3, 4, 5}, in[3] = {3, 4, 5}, out[3] = {4, 3, 7};
  for (int kind = 0; kind < 3; ++kind) {
    void* t[1] = {ftensor(5, sx, 1)};
    const float* x = fdata(t[0]);
    double want[2 * 4 * 3 * 7];
    for (int c = 0; c < 2; ++c)
      for (int a = 0; a < out[0]; ++a)
        for (int b = 0; b < out[1]; ++b)
          for (int e = 0; e < out[2]; ++e) {
            int64_t o[3] = {a, b, e};
            double co[3];
            for (int i = 0; i < 3; ++i) {
              double sc = (double)in[i] / (double)out[i];
              co[i] = kind == 0   ? (o[i] + 0.5) * sc - 0.5
                      : kind == 1 ? o[i] * sc
                                  : (double)o[i] * (double)(in[i] - 1) / (double)(out[i] - 1);
            }
            double v = 0;
            if (kind == 1) {
              int64_t ix[3];
              for (int i = 0; i < 3; ++i)
                ix[i] = (int64_t)clampd(floor(co[i] + 1e-5), 0, in[i] - 1);
              v = x[((c * 3 + ix[0]) * 4 + ix[1]) * 5 + ix[2]];
            } else {
              /* the 8 corners weighted by the product of per-axis weights */
              for (int corner = 0; corner < 8; ++corner) {
                double wgt = 1;
                int64_t ix[3];
                for (int i = 0; i < 3; ++i) {
                  double f = floor(co[i]);
                  int hi = (corner >> (2 - i)) & 1;
                  ix[i] = (int64_t)clampd(f + hi, 0, in[i] - 1);
                  wgt *= hi ? co[i] - f : 1 - (co[i] - f);
                }
                v += wgt * x[((c * 3 + ix[0]) * 4 + ix[1]) * 5 + ix[2]];
              }
            }
            want[((c * 4 + a) * 3 + b) * 7 + e] = v;
          }
    static const char* const modes[3] = {"half_pixel", "asymmetric", "align_corners"};
    TVMFFIAny strs[3] = {tvm_ffi_string(kind == 1 ? "nearest_neighbor" : "linear"),
                         tvm_ffi_string(modes[kind]),
                         tvm_ffi_string(kind == 1 ? "floor" : "round")};
    /* rt_attrs retains the values */
    void* attrs = rt_attrs(3, "method", strs[0], "coordinate_transformation_mode", strs[1],
                           "rounding_method", strs[2]);
    tvm_relax_expr_obj* size = shape_expr(3, out);
    /* the same in NDHWC (the kernel places the axes by the layout): x and want transposed */
    void* tl[1] = {tvm_ffi_tensor_empty((int64_t[]){1, 3, 4, 5, 2}, 5, F32, (DLDevice){kDLCPU, 0})};
    double wantl[2 * 4 * 3 * 7];
    for (int c = 0; c < 2; ++c) {
      for (int i = 0; i < 60; ++i) fdata(tl[0])[i * 2 + c] = x[c * 60 + i];
      for (int i = 0; i < 84; ++i) wantl[i * 2 + c] = want[c * 84 + i];
    }
    check_op("relax.image.resize3d", attrs, 1, t, size, want, 2 * 4 * 3 * 7, 1e-5);
    TVMFFIAny lay = tvm_ffi_string("NDHWC");
    void* attrsl = rt_attrs(4, "method", strs[0], "coordinate_transformation_mode", strs[1],
                            "rounding_method", strs[2], "layout", lay);
    tvm_ffi_any_release(&lay);
    for (int q = 0; q < 3; ++q) tvm_ffi_any_release(&strs[q]);
    check_op("relax.image.resize3d", attrsl, 1, tl, size, wantl, 2 * 4 * 3 * 7, 1e-5);
    tvm_ffi_release(attrs), tvm_ffi_release(attrsl), tvm_ffi_release(size);
  }
}

TEST(resize3d_without_kernel) {
  /* other methods are NotImplementedErrors naming the operator, not wrong kernels (every
   * layout has one: TEST(resize3d) runs NDHWC) */
  int64_t sx[5] = {1, 4, 5, 6, 2}, out[3] = {2, 3, 4};
  for (int kind = 0; kind < 2; ++kind) {
    void* t[1] = {ftensor(5, sx, 1)};
    if (kind == 0) { /* (once NDHWC; still drawn: the tests after read the same random stream) */
      tvm_ffi_release(t[0]);
      continue;
    }
    TVMFFIAny str = tvm_ffi_string(kind == 0 ? "NDHWC" : "tf_crop_and_resize");
    void* attrs = rt_attrs(1, kind == 0 ? "layout" : "coordinate_transformation_mode", str);
    tvm_ffi_any_release(&str);
    tvm_relax_expr_obj* size = shape_expr(3, out);
    CHECK(oot_model("relax.image.resize3d", attrs, 1, t, size) == NULL);
    CHECK_RAISED("NotImplementedError", kind == 0 ? "relax.image.resize3d: only the NCDHW layout"
                                                  : "coordinate_transformation_mode \"tf_crop_and_resize\" has no kernel");
    tvm_ffi_release(attrs), tvm_ffi_release(size), tvm_ffi_release(t[0]);
  }
}

/* ---- resize2d / resize3d cubic, and an empty input axis --------------------------------------- */
/* upstream's cubic spline weights at fraction t */
static void cubic_w(double t, double a, double* w) {
  double t2 = t * t, t3 = t2 * t;
  w[0] = a * (t3 - 2 * t2 + t);
  w[1] = (a + 2) * t3 - (3 + a) * t2 + 1;
  w[2] = -(a + 2) * t3 + (3 + 2 * a) * t2 - a * t;
  w[3] = -a * t3 + a * t2;
}

/* input coordinate of output index o (extent in -> out) by mode */
static double cubic_coord(const char* mode, int64_t o, int64_t in, int64_t out) {
  double sc = (double)in / (double)out;
  if (!strcmp(mode, "half_pixel")) return (o + 0.5) * sc - 0.5;
  if (!strcmp(mode, "pytorch_half_pixel")) return out > 1 ? (o + 0.5) * sc - 0.5 : 0;
  if (!strcmp(mode, "align_corners")) return out > 1 ? (double)o * (in - 1) / (double)(out - 1) : 0;
  return o * sc; /* asymmetric */
}

/* x (1, C, spatial s dims `in`) resized to `out` by the cubic method, NC[D]HW, plain loops. */
static void cubic_oracle(const float* x, int64_t C, int s, const int64_t* in, const int64_t* out,
                         const char* mode, double alpha, bool exclude, double* want) {
  int64_t on = 1, inn = 1;
  for (int i = 0; i < s; ++i) on *= out[i], inn *= in[i];
  for (int64_t c = 0; c < C; ++c)
    for (int64_t e = 0; e < on; ++e) {
      int64_t o[3], rem = e;
      for (int i = s - 1; i >= 0; --i) o[i] = rem % out[i], rem /= out[i];
      double w[3][4];
      int64_t tap[3][4];
      for (int i = 0; i < s; ++i) {
        double co = cubic_coord(mode, o[i], in[i], out[i]), f = floor(co);
        cubic_w(co - f, alpha, w[i]);
        double sum = 0;
        for (int q = 0; q < 4; ++q) {
          int64_t p = (int64_t)f - 1 + q;
          if (exclude && (p < 0 || p >= in[i])) w[i][q] = 0;
          sum += w[i][q];
          tap[i][q] = p < 0 ? 0 : p > in[i] - 1 ? in[i] - 1 : p;
        }
        if (exclude)
          for (int q = 0; q < 4; ++q) w[i][q] /= sum;
      }
      double v = 0;
      int nt = s == 2 ? 16 : 64;
      for (int t = 0; t < nt; ++t) {
        double wt = 1;
        int64_t flat = c;
        for (int i = 0; i < s; ++i) {
          int q = (t >> (2 * (s - 1 - i))) & 3;
          wt *= w[i][q];
          flat = flat * in[i] + tap[i][q];
        }
        v += wt * x[flat];
      }
      want[c * on + e] = v;
    }
}

TEST(resize_cubic) {
  static const char* const modes[4] = {"half_pixel", "align_corners", "asymmetric",
                                       "pytorch_half_pixel"};
  for (int kind = 0; kind < 8; ++kind) {
    int s = kind < 4 ? 2 : 3;
    const char* mode = modes[kind % 4];
    double alpha = kind % 2 ? -0.5 : -0.75;
    bool exclude = kind == 1 || kind == 2 || kind == 4 || kind == 7;
    int64_t in2[2] = {5, 4}, out2[2] = {7, 3}, in3[3] = {3, 4, 5}, out3[3] = {4, 6, 2};
    const int64_t *in = s == 2 ? in2 : in3, *out = s == 2 ? out2 : out3;
    int64_t sx[5] = {1, 2, in[0], in[1], s == 3 ? in[2] : 0};
    void* t[1] = {ftensor(s + 2, sx, 1)};
    double want[2 * 4 * 6 * 2];
    cubic_oracle(fdata(t[0]), 2, s, in, out, mode, alpha, exclude, want);
    TVMFFIAny strs[2] = {tvm_ffi_string("cubic"), tvm_ffi_string(mode)};
    void* attrs = rt_attrs(4, "method", strs[0], "coordinate_transformation_mode", strs[1],
                           "cubic_alpha", tvm_ffi_any_float(alpha), "cubic_exclude",
                           tvm_ffi_any_int(exclude));
    for (int q = 0; q < 2; ++q) tvm_ffi_any_release(&strs[q]);
    tvm_relax_expr_obj* size = shape_expr(s, out);
    int64_t nwant = 2 * out[0] * out[1] * (s == 3 ? out[2] : 1);
    check_op(s == 2 ? "relax.image.resize2d" : "relax.image.resize3d", attrs, 1, t, size, want,
             nwant, 1e-5);
    tvm_ffi_release(attrs), tvm_ffi_release(size);
  }
}

/* An input with an empty spatial axis and a non-empty output: with a symbolic axis, the kernel's
 * assertion, interpreted and compiled; an empty output is fine. (The constant case is an
 * inference error: tests/relax/test_op_nn.c.) */
TEST(resize_empty_input) {
  static const char src[] =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((1, 2, \"h\", 4), \"float32\")) -> R.Tensor((1, 2, 3, 3), \"float32\"):\n"
      "        y = R.image.resize2d(x, R.shape([3, 3]), method=\"cubic\")\n"
      "        return y\n"
      "    @R.function\n"
      "    def empty(x: R.Tensor((\"n\", 2, \"h\", 4), \"float32\")) -> R.Tensor((\"n\", 2, 3, 3), \"float32\"):\n"
      "        y = R.image.resize2d(x, R.shape([3, 3]))\n"
      "        return y\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  tvm_tir_ir_module_obj* mod = tvm_script_parse(src, strlen(src), &opts);
  CHECK_OK(mod ? 0 : -1);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (mod) CHECK_OK(legal ? 0 : -1);
  tvm_vm_executable* exec = legal ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (legal) CHECK_OK(exec ? 0 : -1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  void* x = tvm_ffi_tensor_empty((int64_t[]){1, 2, 0, 4}, 4, F32, (DLDevice){kDLCPU, 0});
  void* x0 = tvm_ffi_tensor_empty((int64_t[]){0, 2, 0, 4}, 4, F32, (DLDevice){kDLCPU, 0});
  TVMFFIAny a = tvm_ffi_any_obj(x), a0 = tvm_ffi_any_obj(x0), got = tvm_ffi_any_none();
  for (int w = 0; legal && vm && w < 2; ++w) {
    int rc = w ? tvm_vm_invoke(vm, "main", &a, 1, &got) : tvm_relax_eval(legal, "main", &a, 1, &got);
    CHECK(rc != 0);
    CHECK_RAISED("AssertionError", "relax.image.resize2d: a spatial dim of the input is 0 but the output is not empty");
    rc = w ? tvm_vm_invoke(vm, "empty", &a0, 1, &got) : tvm_relax_eval(legal, "empty", &a0, 1, &got);
    CHECK_OK(rc);
    CHECK(got.type_index == kTVMFFITensor && tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(got.v_obj)) == 0);
    tvm_ffi_any_release(&got);
  }
  tvm_ffi_release(x), tvm_ffi_release(x0);
  if (vm) tvm_vm_release(vm);
  tvm_ffi_release(exec), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* ---- affine_grid ----------------------------------------------------------------------------- */
TEST(affine_grid) {
  for (int kind = 0; kind < 3; ++kind) { /* 2-d aligned, 2-d not aligned, 3-d not aligned */
    int s = kind == 2 ? 3 : 2;
    bool align = kind == 0;
    int64_t st[3] = {2, s, s + 1};
    int64_t size[3] = {4, 5, 3};
    int64_t batch = 2, cells = size[0] * size[1] * (s == 3 ? size[2] : 1);
    void* t[1] = {ftensor(3, st, 1)};
    const float* th = fdata(t[0]);
    double want[2 * 3 * 60];
    for (int64_t n = 0; n < batch; ++n)
      for (int k = 0; k < s; ++k)
        for (int64_t cell = 0; cell < cells; ++cell) {
          /* cell's index along each spatial axis, the last fastest */
          int64_t idx[3], rem = cell;
          for (int a = s - 1; a >= 0; --a) idx[a] = rem % size[a], rem /= size[a];
          double v = th[(n * s + k) * (s + 1) + s];
          for (int a = 0; a < s; ++a) {
            double c = align ? -1.0 + 2.0 * idx[a] / (double)(size[a] - 1)
                             : (2.0 * idx[a] + 1.0) / (double)size[a] - 1.0;
            /* x (the last axis) multiplies column 0 */
            v += th[(n * s + k) * (s + 1) + (s - 1 - a)] * c;
          }
          want[(n * s + k) * cells + cell] = v;
        }
    void* attrs = rt_attrs(1, "align_corners", tvm_ffi_any_bool(align));
    tvm_relax_expr_obj* sz = shape_expr(s, size);
    check_op("relax.image.affine_grid", attrs, 1, t, sz, want, batch * s * cells, 1e-5);
    tvm_ffi_release(attrs), tvm_ffi_release(sz);
  }
}

/* Two rois pooled (2 x 2) from an empty batch (0, 3, 8, 9) by op (roi_align or roi_pool): zeros,
 * never a read outside the data. */
static void empty_batch_pools_zeros(const char* op) {
  int64_t se[4] = {0, 3, 8, 9}, sr[2] = {2, 5};
  void* e[2] = {ftensor(4, se, 1), ftensor(2, sr, 1)};
  double zeros[2 * 3 * 2 * 2] = {0};
  void* pooled = ints(1, (int64_t[]){2});
  void* attrs =
      rt_attrs(2, "pooled_size", tvm_ffi_any_obj(pooled), "spatial_scale", tvm_ffi_any_float(1.0));
  check_op(op, attrs, 2, e, NULL, zeros, 24, 0);
  tvm_ffi_release(attrs), tvm_ffi_release(pooled);
}

/* ---- roi_align ------------------------------------------------------------------------------- */
typedef struct {
  const float* x;
  bool nchw;
  int64_t c, h, w;
} img;

static double pixel(const img* m, int64_t b, int64_t c, int64_t y, int64_t x) {
  return m->nchw ? m->x[((b * m->c + c) * m->h + y) * m->w + x]
                 : m->x[((b * m->h + y) * m->w + x) * m->c + c];
}

static double bilinear(const img* m, int64_t b, int64_t c, double y, double x) {
  if (y < -1.0 || x < -1.0 || y > (double)m->h || x > (double)m->w) return 0;
  y = clampd(y, 0, (double)(m->h - 1)), x = clampd(x, 0, (double)(m->w - 1));
  int64_t y0 = (int64_t)floor(y), x0 = (int64_t)floor(x);
  int64_t y1 = y0 + 1 < m->h ? y0 + 1 : m->h - 1, x1 = x0 + 1 < m->w ? x0 + 1 : m->w - 1;
  double fy = y - (double)y0, fx = x - (double)x0;
  return pixel(m, b, c, y0, x0) * (1 - fy) * (1 - fx) + pixel(m, b, c, y0, x1) * (1 - fy) * fx +
         pixel(m, b, c, y1, x0) * fy * (1 - fx) + pixel(m, b, c, y1, x1) * fy * fx;
}

TEST(roi_align) {
  /* data (2, 3, 8, 9) (or NHWC), 5 rois on an image twice as large (spatial_scale 0.5), pooled
   * (2, 3). Kinds: avg sample_ratio 2, max adaptive, avg adaptive aligned, NHWC avg ratio 1. */
  const int64_t N = 2, C = 3, H = 8, W = 9, R = 5, PH = 2, PW = 3;
  for (int kind = 0; kind < 4; ++kind) {
    bool nchw = kind != 3, is_max = kind == 1, aligned = kind == 2;
    int64_t ratio = kind == 0 ? 2 : kind == 3 ? 1 : -1;
    int64_t sd[4] = {N, nchw ? C : H, nchw ? H : W, nchw ? W : C}, sr[2] = {R, 5};
    void* t[2] = {ftensor(4, sd, 1), ftensor(2, sr, 1)};
    float* rois = fdata(t[1]);
    for (int64_t r = 0; r < R; ++r) {
      float* q = rois + r * 5;
      q[0] = (float)(r % 2);
      q[1] = (float)((rv_rnd() + 2.0) * 4.0);        /* x1 in [0, 16) */
      q[2] = (float)((rv_rnd() + 2.0) * 4.0);        /* y1 */
      q[3] = q[1] + (float)((rv_rnd() + 2.0) * 2.5); /* x2: up to 10 further (past the image) */
      q[4] = q[2] + (float)((rv_rnd() + 2.0) * 2.5);
    }
    rois[3 * 5 + 3] = rois[3 * 5 + 1] - 1.5f; /* a malformed roi: x2 < x1 */
    img m = {fdata(t[0]), nchw, C, H, W};
    double want[5 * 3 * 2 * 3];
    for (int64_t r = 0; r < R; ++r) {
      const float* q = rois + r * 5;
      int64_t b = (int64_t)q[0];
      /* the kernel's float32 arithmetic for the bins and grids */
      float sy = q[2] * 0.5f, sx = q[1] * 0.5f, ey = q[4] * 0.5f, ex = q[3] * 0.5f;
      float rh = ey - sy, rw = ex - sx;
      if (!aligned) rh = rh > 1.0f ? rh : 1.0f, rw = rw > 1.0f ? rw : 1.0f;
      float bh = rh / (float)PH, bw = rw / (float)PW;
      int64_t gh = ratio > 0 ? ratio : (int64_t)ceilf(rh / (float)PH);
      int64_t gw = ratio > 0 ? ratio : (int64_t)ceilf(rw / (float)PW);
      for (int64_t c = 0; c < C; ++c)
        for (int64_t ph = 0; ph < PH; ++ph)
          for (int64_t pw = 0; pw < PW; ++pw) {
            double acc = is_max ? -3.4028234663852886e38 : 0;
            for (int64_t iy = 0; iy < gh; ++iy)
              for (int64_t ix = 0; ix < gw; ++ix) {
                double y = sy + ph * (double)bh + (iy + 0.5) * bh / (double)gh;
                double x = sx + pw * (double)bw + (ix + 0.5) * bw / (double)gw;
                double v = bilinear(&m, b, c, y, x);
                acc = is_max ? (v > acc ? v : acc) : acc + v / (double)(gh * gw);
              }
            int64_t at =
                nchw ? ((r * C + c) * PH + ph) * PW + pw : ((r * PH + ph) * PW + pw) * C + c;
            want[at] = acc;
          }
    }
    void* pooled = ints(2, (int64_t[]){PH, PW});
    void* attrs = rt_attrs(
        6, "pooled_size", tvm_ffi_any_obj(pooled), "spatial_scale", tvm_ffi_any_float(0.5),
        "sample_ratio", tvm_ffi_any_int(ratio), "aligned", tvm_ffi_any_bool(aligned), "layout",
        tvm_ffi_string(nchw ? "NCHW" : "NHWC"), "mode", tvm_ffi_string(is_max ? "max" : "avg"));
    check_op("relax.vision.roi_align", attrs, 2, t, NULL, want, R * C * PH * PW, 1e-4);
    tvm_ffi_release(attrs), tvm_ffi_release(pooled);
  }
  empty_batch_pools_zeros("relax.vision.roi_align");
}

/* ---- roi_pool -------------------------------------------------------------------------------- */
/* floor(v + 0.5) of v in float32, as an integer: the rounding of topi's roi_pool. */
static int64_t round_up_half(float v) { return (int64_t)floorf(v + 0.5f); }

static int64_t clampi(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : v > hi ? hi : v; }

/* Fast R-CNN's roi pooling, written from its definition with topi's rounding: data (N, C, H, W)
 * as doubles, rois (R, 5) float32, pooled (PH, PW); out (R, C, PH, PW). */
static void ref_roi_pool(const double* x, int64_t N, int64_t C, int64_t H, int64_t W,
                         const float* rois, int64_t R, int64_t PH, int64_t PW, float scale,
                         double* out) {
  for (int64_t r = 0; r < R; ++r) {
    const float* q = rois + r * 5;
    int64_t b = clampi((int64_t)q[0], 0, N - 1);
    int64_t x1 = round_up_half(q[1] * scale), y1 = round_up_half(q[2] * scale);
    int64_t x2 = round_up_half(q[3] * scale), y2 = round_up_half(q[4] * scale);
    int64_t rh = y2 - y1 + 1 > 1 ? y2 - y1 + 1 : 1, rw = x2 - x1 + 1 > 1 ? x2 - x1 + 1 : 1;
    float bh = (float)rh / (float)PH, bw = (float)rw / (float)PW;
    for (int64_t c = 0; c < C; ++c)
      for (int64_t ph = 0; ph < PH; ++ph)
        for (int64_t pw = 0; pw < PW; ++pw) {
          int64_t hs = clampi((int64_t)floorf((float)ph * bh) + y1, 0, H);
          int64_t he = clampi((int64_t)ceilf((float)(ph + 1) * bh) + y1, 0, H);
          int64_t ws = clampi((int64_t)floorf((float)pw * bw) + x1, 0, W);
          int64_t we = clampi((int64_t)ceilf((float)(pw + 1) * bw) + x1, 0, W);
          double m = 0;
          bool any = false;
          for (int64_t y = hs; y < he; ++y)
            for (int64_t xx = ws; xx < we; ++xx) {
              double v = x[((b * C + c) * H + y) * W + xx];
              if (!any || v > m) m = v;
              any = true;
            }
          out[((r * C + c) * PH + ph) * PW + pw] = N > 0 && any ? m : 0.0;
        }
  }
}

TEST(roi_pool) {
  /* data (2, 3, 7, 9) random (negative values too: a bin's max may be below 0), 9 rois: on a
   * grid of quarters (with scale 0.5, odd halves round upward: 2.5 -> 3, -1.5 -> -1) or
   * continuous, partly outside the image, one malformed (x2 < x1), one wholly outside (all bins
   * empty: 0), one with a fractional batch index (truncated), one with batch index 5 (clamped).
   * Kinds: float32 scale 0.5 pooled (3, 2); float32 scale 1 pooled 2 (one value for both);
   * int32 data scale 0.25 pooled (2, 4). */
  const int64_t N = 2, C = 3, H = 7, W = 9, R = 9;
  for (int kind = 0; kind < 3; ++kind) {
    const float scale = kind == 0 ? 0.5f : kind == 1 ? 1.0f : 0.25f;
    const int64_t PH = kind == 0 ? 3 : 2, PW = kind == 0 ? 2 : kind == 1 ? 2 : 4;
    bool is_int = kind == 2;
    DLDataType dt = is_int ? tvm_tir_dtype_int(32) : F32;
    int64_t sd[4] = {N, C, H, W}, sr[2] = {R, 5};
    void* t[2] = {tvm_ffi_tensor_empty(sd, 4, dt, (DLDevice){kDLCPU, 0}), ftensor(2, sr, 1)};
    double xd[2 * 3 * 7 * 9];
    for (int64_t i = 0; i < N * C * H * W; ++i) {
      double v = rv_rnd() * 3.0;
      if (is_int) {
        ((int32_t*)tvm_ffi_tensor_dl(t[0])->data)[i] = (int32_t)floor(v * 10.0);
        xd[i] = floor(v * 10.0);
      } else {
        fdata(t[0])[i] = (float)v;
        xd[i] = (float)v;
      }
    }
    /* coordinates in the raw image, whose extent is the data's divided by scale */
    float iw = (float)W / scale, ih = (float)H / scale;
    float* rois = fdata(t[1]);
    for (int64_t r = 0; r < R; ++r) {
      float* q = rois + r * 5;
      q[0] = (float)(r % 2);
      for (int e = 0; e < 2; ++e) {
        float ext = e == 0 ? iw : ih;
        /* start in [-ext / 4, ext), size up to 3 / 4 of the image: some end beyond it */
        float st = (float)((rv_rnd() + 2.0) / 4.0 * 1.25 - 0.25) * ext;
        float sz = (float)((rv_rnd() + 2.0) / 4.0 * 0.75) * ext;
        if (r % 3 != 2) st = floorf(st * 4.0f) / 4.0f, sz = floorf(sz * 4.0f) / 4.0f;
        q[1 + e] = st, q[3 + e] = st + sz;
      }
    }
    /* x1 * scale = 3, x2 * scale = 5.5: rounds to 6 */
    rois[1 * 5 + 1] = 3.0f / scale, rois[1 * 5 + 3] = 5.5f / scale;
    rois[2 * 5 + 2] = -3.0f / scale * 0.5f;                   /* y1 * scale = -1.5: rounds to -1 */
    rois[3 * 5 + 3] = rois[3 * 5 + 1] - 3.0f;                 /* x2 < x1: one column wide */
    rois[4 * 5 + 1] = iw + 4.0f, rois[4 * 5 + 3] = iw + 9.0f; /* beyond the right edge */
    rois[5 * 5 + 0] = 1.7f;                                   /* batch 1 */
    rois[6 * 5 + 0] = 5.0f;                                   /* clamped to the last batch */
    double want[9 * 3 * 3 * 4];
    ref_roi_pool(xd, N, C, H, W, rois, R, PH, PW, scale, want);
    int64_t nout = R * C * PH * PW;
    /* the roi wholly outside the image gives zeros (empty bins) */
    bool zero4 = true;
    for (int64_t i = 4 * C * PH * PW; i < 5 * C * PH * PW; ++i) zero4 = zero4 && want[i] == 0;
    CHECK(zero4);
    void* pooled = kind == 1 ? ints(1, (int64_t[]){2}) : ints(2, (int64_t[]){PH, PW});
    void* attrs = rt_attrs(2, "pooled_size", tvm_ffi_any_obj(pooled), "spatial_scale",
                           tvm_ffi_any_float(scale));
    oot_expect e = oot_one(dt, want, nout, 0);
    oot_check_op("relax.vision.roi_pool", attrs, 2, t, NULL, &e);
    tvm_ffi_release(attrs), tvm_ffi_release(pooled);
  }
  empty_batch_pools_zeros("relax.vision.roi_pool");
}

/* ---- non_max_suppression --------------------------------------------------------------------- */
typedef struct {
  double iou;
  bool force;
  int64_t top_k, max_out, id;
} nms_case;

static float ref_iou(const float* a, const float* b) {
  float al = fminf(a[0], a[2]), at = fminf(a[1], a[3]), ar = fmaxf(a[0], a[2]),
        ab = fmaxf(a[1], a[3]);
  float bl = fminf(b[0], b[2]), bt = fminf(b[1], b[3]), br = fmaxf(b[0], b[2]),
        bb = fmaxf(b[1], b[3]);
  float w = fmaxf(0.0f, fminf(ar, br) - fmaxf(al, bl)),
        h = fmaxf(0.0f, fminf(ab, bb) - fmaxf(at, bt));
  float area = w * h, u = (ar - al) * (ab - at) + (br - bl) * (bb - bt) - area;
  return u <= 0.0f ? 0.0f : area / u;
}

/* Reference of one batch row: data (A, 6) [class, score, x1, y1, x2, y2]. */
static void ref_nms(const float* d, int64_t A, int32_t vc, const int32_t* ix, const nms_case* c,
                    int32_t* out, int32_t* count) {
  int64_t n = vc < 0 ? 0 : vc > A ? A : vc;
  int32_t order[16];
  float score[16];
  for (int64_t j = 0; j < n; ++j) { /* stable insertion by score, descending */
    int64_t p = j;
    while (p > 0 && d[order[p - 1] * 6 + 1] < d[j * 6 + 1]) order[p] = order[p - 1], --p;
    order[p] = (int32_t)j;
  }
  int64_t nkeep = c->top_k > 0 && c->top_k < n ? c->top_k : n, nvalid = 0;
  for (int64_t j = 0; j < nkeep; ++j) score[j] = d[order[j] * 6 + 1];
  /* greedy: a box of positive score (still there) is kept and removes the later ones it covers */
  for (int64_t j = 0; j < nkeep; ++j) {
    if (score[j] > 0 && (c->max_out <= 0 || nvalid < c->max_out)) {
      ++nvalid;
      for (int64_t k = j + 1; k < nkeep; ++k) {
        if (score[k] <= 0) continue;
        if (!c->force && c->id >= 0 && d[order[j] * 6] != d[order[k] * 6]) continue;
        if (ref_iou(d + order[j] * 6 + 2, d + order[k] * 6 + 2) >= (float)c->iou) score[k] = -1;
      }
    } else {
      score[j] = -1;
    }
  }
  int32_t m = 0;
  for (int64_t j = 0; j < nkeep; ++j)
    if (score[j] > 0) out[m++] = ix[order[j]];
  for (int64_t j = m; j < A; ++j) out[j] = -1;
  *count = m;
}

static int int_mismatches(const TVMFFIAny* got, const int32_t* want, int64_t n) {
  if (got->type_index != kTVMFFITensor) return 1000;
  const DLTensor* dl = tvm_ffi_tensor_dl(got->v_obj);
  if (tvm_ffi_dltensor_numel(dl) != n || dl->dtype.code != kDLInt || dl->dtype.bits != 32)
    return 1000;
  int k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (((const int32_t*)dl->data)[i] != want[i]) {
      if (k < 3)
        fprintf(stderr, "  element %lld: got %d, want %d\n", (long long)i,
                ((const int32_t*)dl->data)[i], want[i]);
      ++k;
    }
  }
  return k;
}

static int nms_bad(const TVMFFIAny* got, const int32_t* want_idx, const int32_t* want_cnt,
                   int64_t B, int64_t A) {
  if (got->type_index != kTVMFFIArray || tvm_ffi_seq_size(got->v_obj) != 2) return 1000;
  return int_mismatches(tvm_ffi_seq_at(got->v_obj, 0), want_idx, B * A) +
         int_mismatches(tvm_ffi_seq_at(got->v_obj, 1), want_cnt, B);
}

TEST(non_max_suppression) {
  enum { B = 2, A = 12 };
  const nms_case cases[4] = {{0.5, false, -1, -1, 0},
                             {0.3, true, 7, 3, 0},
                             {0.4, false, -1, -1, -1},
                             {0.0, false, 4, 0, 0}};
  for (int ci = 0; ci < 4; ++ci) {
    const nms_case* c = &cases[ci];
    int64_t sd[3] = {B, A, 6}, sv[1] = {B}, si[2] = {B, A};
    void* t[3] = {ftensor(3, sd, 1),
                  tvm_ffi_tensor_empty(sv, 1, (DLDataType){kDLInt, 32, 1}, (DLDevice){kDLCPU, 0}),
                  tvm_ffi_tensor_empty(si, 2, (DLDataType){kDLInt, 32, 1}, (DLDevice){kDLCPU, 0})};
    float* d = fdata(t[0]);
    int32_t* vc = tvm_ffi_tensor_dl(t[1])->data;
    int32_t* ix = tvm_ffi_tensor_dl(t[2])->data;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < A; ++j) {
        float* r = d + (b * A + j) * 6;
        r[0] =
            j == 5 ? -1.0f : (float)((int64_t)((rv_rnd() + 2.0) / 2.0)); /* class 0 or 1; one -1 */
        r[1] = (float)((rv_rnd() + 2.0) / 4.0 * 1.2 - 0.2);              /* score in [-0.2, 1) */
        r[2] = (float)((rv_rnd() + 2.0) * 1.5), r[3] = (float)((rv_rnd() + 2.0) * 1.5);
        r[4] = r[2] + (float)(rv_rnd() + 2.5) * 1.5f, r[5] = r[3] + (float)(rv_rnd() + 2.5) * 1.5f;
        if (j == 3) { /* corners given the other way round */
          float x = r[2];
          r[2] = r[4], r[4] = x;
        }
        ix[b * A + j] = (int32_t)(A - 1 - j) * 10;
      }
    d[(1 * A + 2) * 6 + 1] = d[(1 * A + 4) * 6 + 1]; /* a tie */
    vc[0] = 10, vc[1] = 12;
    int32_t want_idx[B * A], want_cnt[B];
    for (int64_t b = 0; b < B; ++b)
      ref_nms(d + b * A * 6, A, vc[b], ix + b * A, c, want_idx + b * A, &want_cnt[b]);
    void* attrs =
        rt_attrs(5, "iou_threshold", tvm_ffi_any_float(c->iou), "force_suppress",
                 tvm_ffi_any_bool(c->force), "top_k", tvm_ffi_any_int(c->top_k), "max_output_size",
                 tvm_ffi_any_int(c->max_out), "id_index", tvm_ffi_any_int(c->id));
    tvm_tir_ir_module_obj* mod = oot_model("relax.vision.non_max_suppression", attrs, 3, t, NULL);
    if (!mod) CHECK_OK(-1);
    TVMFFIAny args[3], got;
    for (int a = 0; a < 3; ++a) args[a] = tvm_ffi_any_obj(t[a]);
    if (mod) {
      CHECK_OK(tvm_relax_eval(mod, "main", args, 3, &got));
      CHECK_EQ_INT(nms_bad(&got, want_idx, want_cnt, B, A), 0);
      tvm_ffi_any_release(&got);
    }
    tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
    if (mod && !exec) CHECK_OK(-1);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    if (vm) {
      CHECK_OK(tvm_vm_invoke(vm, "main", args, 3, &got));
      CHECK_EQ_INT(nms_bad(&got, want_idx, want_cnt, B, A), 0);
      tvm_ffi_any_release(&got);
      tvm_vm_release(vm);
    }
    tvm_ffi_release(exec), tvm_ffi_release(mod), tvm_ffi_release(attrs);
    for (int a = 0; a < 3; ++a) tvm_ffi_release(t[a]);
  }
}

/* ---- non_max_suppression: soft-NMS and the data forms ---------------------------------------- */
typedef struct {
  double iou, sigma, score_thr;
  bool force, ret_idx, bottom;
  int64_t top_k, max_out, id;
} nms_data_case;

/* Upstream's reference (topi/testing, classic NMS with out_data) for one batch row: data (A, 6);
 * od (A, 6) the output data, idx (A) the compacted indices, *count their number. */
static void ref_nms_data(const float* d, int64_t A, int32_t vc, const int32_t* ix,
                         const nms_data_case* c, float* od, int32_t* idx, int32_t* count) {
  int64_t n = vc < 0 ? 0 : vc > A ? A : vc;
  int32_t order[16], bi[16];
  for (int64_t j = 0; j < n; ++j) { /* stable insertion by score, descending */
    int64_t p = j;
    while (p > 0 && d[order[p - 1] * 6 + 1] < d[j * 6 + 1]) order[p] = order[p - 1], --p;
    order[p] = (int32_t)j;
  }
  int64_t nkeep = c->top_k > 0 && c->top_k < n ? c->top_k : n, nvalid = 0;
  bool soft = c->sigma > 0;
  float thresh = soft ? (float)c->score_thr : 0.0f;
  for (int64_t j = 0; j < A; ++j) {
    for (int q = 0; q < 6; ++q) od[j * 6 + q] = j < nkeep ? d[order[j] * 6 + q] : -1.0f;
    bi[j] = j < nkeep ? order[j] : -1;
  }
  for (int64_t j = 0; j < nkeep; ++j) {
    if (od[j * 6 + 1] > thresh && (c->max_out <= 0 || nvalid < c->max_out)) {
      ++nvalid;
      for (int64_t k = j + 1; k < nkeep; ++k) {
        if (!(od[k * 6 + 1] > thresh)) continue;
        if (!c->force && c->id >= 0 && od[j * 6] != od[k * 6]) continue;
        float iou = ref_iou(od + j * 6 + 2, od + k * 6 + 2);
        if (iou >= (float)c->iou) {
          if (soft) od[k * 6 + 1] *= expf(-(iou * iou) / (float)c->sigma);
          else od[k * 6 + 1] = -1.0f, bi[k] = -1;
        }
      }
    } else {
      for (int q = 0; q < 6; ++q) od[j * 6 + q] = -1.0f;
      bi[j] = -1;
    }
  }
  int32_t m = 0;
  for (int64_t j = 0; j < A; ++j)
    if (bi[j] >= 0) idx[m++] = ix[bi[j]];
  for (int64_t j = m; j < A; ++j) idx[j] = -1;
  *count = m;
  if (!c->ret_idx && c->bottom) { /* rows of score >= 0 first, in order */
    float tmp[16 * 6];
    int64_t r = 0;
    for (int64_t j = 0; j < A; ++j)
      if (od[j * 6 + 1] >= 0) memcpy(tmp + 6 * r++, od + j * 6, 6 * sizeof(float));
    for (int64_t j = r * 6; j < A * 6; ++j) tmp[j] = -1.0f;
    memcpy(od, tmp, (size_t)A * 6 * sizeof(float));
  }
}

/* Elements of tensor got differing from want (float, relative tol), 1000 when no such tensor. */
static int float_mismatches(const TVMFFIAny* got, const float* want, int64_t n) {
  if (got->type_index != kTVMFFITensor) return 1000;
  const DLTensor* dl = tvm_ffi_tensor_dl(got->v_obj);
  if (tvm_ffi_dltensor_numel(dl) != n || dl->dtype.code != kDLFloat) return 1000;
  int k = 0;
  for (int64_t i = 0; i < n; ++i) {
    double g = ((const float*)dl->data)[i];
    if (!(fabs(g - want[i]) <= 1e-5 * (1 + fabs(want[i])))) {
      if (k < 3) fprintf(stderr, "  element %lld: got %g, want %g\n", (long long)i, g, want[i]);
      ++k;
    }
  }
  return k;
}

static int nms_data_bad(const TVMFFIAny* got, const nms_data_case* c, const float* od,
                        const int32_t* idx, const int32_t* cnt, int64_t B, int64_t A) {
  if (!c->ret_idx) return float_mismatches(got, od, B * A * 6);
  if (got->type_index != kTVMFFIArray || tvm_ffi_seq_size(got->v_obj) != 3) return 1000;
  return float_mismatches(tvm_ffi_seq_at(got->v_obj, 0), od, B * A * 6) +
         int_mismatches(tvm_ffi_seq_at(got->v_obj, 1), idx, B * A) +
         int_mismatches(tvm_ffi_seq_at(got->v_obj, 2), cnt, B);
}

TEST(non_max_suppression_soft_and_data) {
  enum { B = 2, A = 12 };
  /* iou, sigma, score_threshold, force, return_indices, invalid_to_bottom, top_k, max_out, id */
  const nms_data_case cases[7] = {{0.3, 0.5, 0.1, false, true, false, -1, -1, 0},
                                  {0.2, 0.3, 0.25, true, true, false, 9, 4, 0},
                                  {0.4, 1.0, 0.0, false, true, false, -1, -1, -1},
                                  {0.5, 0.0, 0.0, false, false, false, -1, -1, 0},
                                  {0.3, 0.0, 0.0, true, false, true, 7, 3, 0},
                                  {0.3, 0.5, 0.2, false, false, true, -1, 5, 0},
                                  {0.3, 0.5, 0.2, false, false, false, 8, -1, -1}};
  for (int ci = 0; ci < 7; ++ci) {
    const nms_data_case* c = &cases[ci];
    int64_t sd[3] = {B, A, 6}, sv[1] = {B}, si[2] = {B, A};
    void* t[3] = {ftensor(3, sd, 1),
                  tvm_ffi_tensor_empty(sv, 1, (DLDataType){kDLInt, 32, 1}, (DLDevice){kDLCPU, 0}),
                  tvm_ffi_tensor_empty(si, 2, (DLDataType){kDLInt, 32, 1}, (DLDevice){kDLCPU, 0})};
    float* d = fdata(t[0]);
    int32_t* vc = tvm_ffi_tensor_dl(t[1])->data;
    int32_t* ix = tvm_ffi_tensor_dl(t[2])->data;
    for (int64_t b = 0; b < B; ++b)
      for (int64_t j = 0; j < A; ++j) {
        float* r = d + (b * A + j) * 6;
        r[0] = (float)((int64_t)((rv_rnd() + 2.0) / 2.0)); /* class 0 or 1 */
        r[1] = (float)((rv_rnd() + 2.0) / 4.0 * 1.2 - 0.2); /* score in [-0.2, 1) */
        r[2] = (float)((rv_rnd() + 2.0) * 1.2), r[3] = (float)((rv_rnd() + 2.0) * 1.2);
        r[4] = r[2] + (float)(rv_rnd() + 2.5) * 1.5f, r[5] = r[3] + (float)(rv_rnd() + 2.5) * 1.5f;
        if (j == 3) { /* corners given the other way round */
          float x = r[2];
          r[2] = r[4], r[4] = x;
        }
        ix[b * A + j] = (int32_t)(A - 1 - j) * 10;
      }
    vc[0] = 10, vc[1] = 12;
    float want_od[B * A * 6];
    int32_t want_idx[B * A], want_cnt[B];
    for (int64_t b = 0; b < B; ++b)
      ref_nms_data(d + b * A * 6, A, vc[b], ix + b * A, c, want_od + b * A * 6, want_idx + b * A,
                   &want_cnt[b]);
    void* attrs = rt_attrs(
        9, "iou_threshold", tvm_ffi_any_float(c->iou), "soft_nms_sigma", tvm_ffi_any_float(c->sigma),
        "score_threshold", tvm_ffi_any_float(c->score_thr), "force_suppress", tvm_ffi_any_bool(c->force),
        "return_indices", tvm_ffi_any_bool(c->ret_idx), "invalid_to_bottom", tvm_ffi_any_bool(c->bottom),
        "top_k", tvm_ffi_any_int(c->top_k), "max_output_size", tvm_ffi_any_int(c->max_out),
        "id_index", tvm_ffi_any_int(c->id));
    tvm_tir_ir_module_obj* mod = oot_model("relax.vision.non_max_suppression", attrs, 3, t, NULL);
    if (!mod) CHECK_OK(-1);
    TVMFFIAny args[3], got;
    for (int a = 0; a < 3; ++a) args[a] = tvm_ffi_any_obj(t[a]);
    if (mod) {
      CHECK_OK(tvm_relax_eval(mod, "main", args, 3, &got));
      int bad = nms_data_bad(&got, c, want_od, want_idx, want_cnt, B, A);
      if (bad) fprintf(stderr, "nms data case %d interpreted: %d bad\n", ci, bad);
      CHECK_EQ_INT(bad, 0);
      tvm_ffi_any_release(&got);
    }
    tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
    if (mod && !exec) CHECK_OK(-1);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    if (vm) {
      CHECK_OK(tvm_vm_invoke(vm, "main", args, 3, &got));
      int bad = nms_data_bad(&got, c, want_od, want_idx, want_cnt, B, A);
      if (bad) fprintf(stderr, "nms data case %d compiled: %d bad\n", ci, bad);
      CHECK_EQ_INT(bad, 0);
      tvm_ffi_any_release(&got);
      tvm_vm_release(vm);
    }
    tvm_ffi_release(exec), tvm_ffi_release(mod), tvm_ffi_release(attrs);
    for (int a = 0; a < 3; ++a) tvm_ffi_release(t[a]);
  }
}

/* ---- all_class_non_max_suppression ----------------------------------------------------------- */
/* got (field f of a tuple) equals want exactly (n elements of dtype dt). */
static int exact(const TVMFFIAny* tuple, int64_t f, DLDataType dt, const double* want, int64_t n) {
  if (tuple->type_index != kTVMFFIArray || tvm_ffi_seq_size(tuple->v_obj) <= f) return 1000;
  const TVMFFIAny* got = tvm_ffi_seq_at(tuple->v_obj, f);
  if (got->type_index != kTVMFFITensor) return 1000;
  const DLTensor* dl = tvm_ffi_tensor_dl(got->v_obj);
  if (tvm_ffi_dltensor_numel(dl) != n || !tvm_ffi_dtype_equal(dl->dtype, dt)) return 1000;
  int k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (rv_elem(dl, i) != want[i]) {
      if (k < 3)
        fprintf(stderr, "  field %lld element %lld: got %g, want %g\n", (long long)f, (long long)i,
                rv_elem(dl, i), want[i]);
      ++k;
    }
  }
  return k;
}

TEST(all_class_non_max_suppression) {
  enum { B = 2, C = 3, N = 8 };
  typedef struct {
    bool onnx;
    int64_t max_boxes;
    float iou, st;
  } acn_case;
  const acn_case cases[4] = {{true, 3, 0.5f, 0.1f},
                             {true, 10, 0.3f, -0.5f},
                             {false, 2, 0.4f, 0.0f},
                             {true, 5, 0.0f, 0.0f}};
  for (int ci = 0; ci < 4; ++ci) {
    const acn_case* c = &cases[ci];
    int64_t sb[3] = {B, N, 4}, ss[3] = {B, C, N}, s1[1] = {1};
    void* t[5] = {ftensor(3, sb, 1), ftensor(3, ss, 1),
                  tvm_ffi_tensor_empty(s1, 1, I64, (DLDevice){kDLCPU, 0}),
                  tvm_ffi_tensor_empty(s1, 1, F32, (DLDevice){kDLCPU, 0}),
                  tvm_ffi_tensor_empty(NULL, 0, F32, (DLDevice){kDLCPU, 0})};
    float *bx = fdata(t[0]), *sc = fdata(t[1]);
    for (int64_t i = 0; i < B * N; ++i) {
      float* r = bx + i * 4;
      r[0] = (float)((rv_rnd() + 2.0) * 1.5), r[1] = (float)((rv_rnd() + 2.0) * 1.5);
      r[2] = r[0] + (float)(rv_rnd() + 2.5) * 1.5f, r[3] = r[1] + (float)(rv_rnd() + 2.5) * 1.5f;
    }
    for (int64_t i = 0; i < B * C * N; ++i) sc[i] = (float)((rv_rnd() + 2.0) / 4.0 * 1.2 - 0.2);
    sc[5] = sc[6]; /* a tie */
    ((int64_t*)tvm_ffi_tensor_dl(t[2])->data)[0] = c->max_boxes;
    fdata(t[3])[0] = c->iou, fdata(t[4])[0] = c->st;
    /* the reference */
    double rows[B * C * N * 3] = {0}, tf_idx[B * C * N * 2] = {0}, tf_sc[B * C * N] = {0},
                            counts[B] = {0};
    int64_t total = 0;
    for (int64_t b = 0; b < B; ++b) {
      int64_t in_batch = 0;
      for (int64_t k = 0; k < C; ++k) {
        const float* s = sc + (b * C + k) * N;
        int order[N];
        for (int j = 0; j < N; ++j) {
          int p = j;
          while (p > 0 && s[order[p - 1]] < s[j]) order[p] = order[p - 1], --p;
          order[p] = j;
        }
        int valid = 0, nsel = 0;
        bool dropped[N] = {false};
        for (int j = 0; j < N; ++j) valid += s[j] > c->st;
        if (c->iou > 0 && valid > 0) {
          for (int j = 0; j < valid; ++j) {
            int a = order[j];
            if (dropped[j] || nsel >= c->max_boxes || !(s[a] > c->st) || !(s[a] > -1.0f)) continue;
            if (c->onnx) {
              rows[(total + nsel) * 3] = (double)b, rows[(total + nsel) * 3 + 1] = (double)k;
              rows[(total + nsel) * 3 + 2] = a;
            } else {
              tf_idx[(b * C * N + in_batch + nsel) * 2] = (double)k;
              tf_idx[(b * C * N + in_batch + nsel) * 2 + 1] = a;
              tf_sc[b * C * N + in_batch + nsel] = s[a];
            }
            ++nsel;
            for (int q = j + 1; q < valid; ++q)
              if (!dropped[q] && s[order[q]] > 0 &&
                  ref_iou(bx + (b * N + a) * 4, bx + (b * N + order[q]) * 4) >= c->iou)
                dropped[q] = true;
          }
        }
        total += nsel, in_batch += nsel;
      }
      counts[b] = (double)in_batch;
    }
    double total_d = (double)total;
    TVMFFIAny fmt = tvm_ffi_string(c->onnx ? "onnx" : "tensorflow");
    void* attrs = rt_attrs(1, "output_format", fmt); /* rt_attrs retains the value */
    tvm_ffi_any_release(&fmt);
    tvm_tir_ir_module_obj* mod =
        oot_model("relax.vision.all_class_non_max_suppression", attrs, 5, t, NULL);
    if (!mod) CHECK_OK(-1);
    TVMFFIAny args[5], got;
    for (int a = 0; a < 5; ++a) args[a] = tvm_ffi_any_obj(t[a]);
    tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
    if (mod && !exec) CHECK_OK(-1);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    for (int run = 0; run < 2 && mod; ++run) {
      if (run == 0) {
        CHECK_OK(tvm_relax_eval(mod, "main", args, 5, &got));
      } else {
        if (!vm) break;
        CHECK_OK(tvm_vm_invoke(vm, "main", args, 5, &got));
      }
      int bad_n = c->onnx
                      ? exact(&got, 0, I64, rows, B * C * N * 3) + exact(&got, 1, I64, &total_d, 1)
                      : exact(&got, 0, I64, tf_idx, B * C * N * 2) +
                            exact(&got, 1, F32, tf_sc, B * C * N) + exact(&got, 2, I64, counts, B);
      if (bad_n)
        fprintf(stderr, "all_class_nms case %d %s: %d bad\n", ci, run ? "compiled" : "interpreted",
                bad_n);
      CHECK_EQ_INT(bad_n, 0);
      tvm_ffi_any_release(&got);
    }
    if (vm) tvm_vm_release(vm);
    tvm_ffi_release(exec), tvm_ffi_release(mod), tvm_ffi_release(attrs);
    for (int a = 0; a < 5; ++a) tvm_ffi_release(t[a]);
  }
}

/* ---- get_valid_counts ------------------------------------------------------------------------ */
TEST(get_valid_counts) {
  enum { B = 3, A = 10, L = 6 };
  typedef struct {
    double thr;
    int64_t id, si;
    bool is_int;
  } gvc_case;
  /* thresholds hit by scores exactly (0.25; 0.1 as float32 is not above itself), the class check
   * on and off, another score column, an int32 form (2.5: scores from 3 up) */
  const gvc_case cases[5] = {{0.25, 0, 1, false},
                             {0.25, -1, 1, false},
                             {0.1, 5, 2, false},
                             {-10.0, 0, 1, false},
                             {2.5, 0, 1, true}};
  for (int ci = 0; ci < 5; ++ci) {
    const gvc_case* c = &cases[ci];
    DLDataType dt = c->is_int ? tvm_tir_dtype_int(32) : F32;
    int64_t sd[3] = {B, A, L};
    void* t[1] = {tvm_ffi_tensor_empty(sd, 3, dt, (DLDevice){kDLCPU, 0})};
    double d[B * A * L];
    for (int64_t i = 0; i < B * A * L; ++i) {
      int64_t col = i % L;
      double v;
      if (col == c->id || col == 0) {
        v = (double)rv_rnd_int(-1, 3); /* a class in {-1, 0, 1, 2} */
      } else if (col == c->si || col == 1) {
        /* scores on eighths in [-0.25, 1) (exactly 0.25 often); the int form in [-2, 6) */
        v = c->is_int ? (double)rv_rnd_int(-2, 6) : (double)rv_rnd_int(-2, 8) / 8.0;
      } else {
        v = c->is_int ? (double)rv_rnd_int(-50, 50) : (float)(rv_rnd() * 5.0);
      }
      d[i] = v;
    }
    for (int64_t b = 0; b < 2; ++b) {
      /* box 7: a high score but class -1 (dropped unless id_index is -1); box 8: a score equal
       * to the threshold (not above it) */
      d[(b * A + 7) * L + c->si] = c->is_int ? 5.0 : 0.75;
      if (c->id >= 0) d[(b * A + 7) * L + c->id] = -1.0;
      d[(b * A + 8) * L + c->si] = c->is_int ? 2.0 : c->thr;
    }
    if (!c->is_int) {
      d[(1 * A + 3) * L + c->si] = (float)0.1; /* a score equal to 0.1 in float32 */
      /* batch 2: scores of -0.5, none valid unless the threshold is below it */
      for (int64_t j = 0; j < A; ++j) d[(2 * A + j) * L + c->si] = -0.5;
    }
    for (int64_t i = 0; i < B * A * L; ++i) {
      if (c->is_int) {
        ((int32_t*)tvm_ffi_tensor_dl(t[0])->data)[i] = (int32_t)d[i];
      } else {
        d[i] = (float)d[i]; /* the reference reads what the tensor holds */
        fdata(t[0])[i] = (float)d[i];
      }
    }
    /* the reference: each batch's valid boxes in order, then rows of -1 */
    double want_cnt[B], want_out[B * A * L], want_idx[B * A];
    for (int64_t b = 0; b < B; ++b) {
      int64_t n = 0;
      for (int64_t j = 0; j < A; ++j) {
        const double* row = d + (b * A + j) * L;
        /* float data compare with the threshold rounded to float32, as topi's constant */
        bool above = c->is_int ? row[c->si] > c->thr : (float)row[c->si] > (float)c->thr;
        if (!above || (c->id >= 0 && row[c->id] < 0)) continue;
        for (int64_t k = 0; k < L; ++k) want_out[(b * A + n) * L + k] = row[k];
        want_idx[b * A + n] = (double)j;
        ++n;
      }
      want_cnt[b] = (double)n;
      for (int64_t j = n; j < A; ++j) {
        for (int64_t k = 0; k < L; ++k) want_out[(b * A + j) * L + k] = -1.0;
        want_idx[b * A + j] = -1.0;
      }
    }
    /* the data make the cases meaningful: some boxes valid, some not, in batches 0 and 1 */
    CHECK(want_cnt[0] > 0 && want_cnt[0] < A && want_cnt[1] > 0 && want_cnt[1] < A);
    void* attrs = rt_attrs(3, "score_threshold", tvm_ffi_any_float(c->thr), "id_index",
                           tvm_ffi_any_int(c->id), "score_index", tvm_ffi_any_int(c->si));
    tvm_tir_ir_module_obj* mod = oot_model("relax.vision.get_valid_counts", attrs, 1, t, NULL);
    if (!mod) CHECK_OK(-1);
    TVMFFIAny args[1] = {tvm_ffi_any_obj(t[0])}, got;
    tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
    if (mod && !exec) CHECK_OK(-1);
    tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
    for (int run = 0; run < 2 && mod; ++run) {
      if (run == 0) {
        CHECK_OK(tvm_relax_eval(mod, "main", args, 1, &got));
      } else {
        if (!vm) break;
        CHECK_OK(tvm_vm_invoke(vm, "main", args, 1, &got));
      }
      int bad = exact(&got, 0, tvm_tir_dtype_int(32), want_cnt, B) +
                exact(&got, 1, dt, want_out, B * A * L) +
                exact(&got, 2, tvm_tir_dtype_int(32), want_idx, B * A);
      if (bad)
        fprintf(stderr, "get_valid_counts case %d %s: %d bad\n", ci,
                run ? "compiled" : "interpreted", bad);
      CHECK_EQ_INT(bad, 0);
      tvm_ffi_any_release(&got);
    }
    if (vm) tvm_vm_release(vm);
    tvm_ffi_release(exec), tvm_ffi_release(mod), tvm_ffi_release(attrs);
    tvm_ffi_release(t[0]);
  }
}

/* ---- multibox_transform_loc ------------------------------------------------------------------ */
typedef struct {
  int64_t B, C, N;
  bool clip, keep_bg, softmax;
  double thr, var[4]; /* variances (x, y, w, h) */
} mbt_case;

/* The reference, in float32 as the kernel computes (TFLite's DecodeCenterSizeBoxes, then the
 * softmax over the classes, the threshold mask and the background class): boxes (B, N, 4)
 * [ymin, xmin, ymax, xmax] and scores (B, C, N). *outside counts the box coordinates outside
 * [0, 1] before clipping, *masked the scores the threshold zeroed. */
static void ref_multibox(const mbt_case* c, const float* cls, const float* loc, const float* anc,
                         double* boxes, double* scores, int* outside, int* masked) {
  int64_t B = c->B, C = c->C, N = c->N;
  float vx = (float)c->var[0], vy = (float)c->var[1], vw = (float)c->var[2],
        vh = (float)c->var[3];
  for (int64_t b = 0; b < B; ++b)
    for (int64_t a = 0; a < N; ++a) {
      const float* p = anc + a * 4; /* left, top, right, bottom */
      const float* e = loc + b * 4 * N + a * 4; /* x, y, w, h */
      float ah = p[3] - p[1], aw = p[2] - p[0];
      float yc = e[1] * vy * ah + (p[1] + p[3]) * 0.5f;
      float xc = e[0] * vx * aw + (p[0] + p[2]) * 0.5f;
      float hh = 0.5f * expf(e[3] * vh) * ah, hw = 0.5f * expf(e[2] * vw) * aw;
      float v[4] = {yc - hh, xc - hw, yc + hh, xc + hw};
      for (int k = 0; k < 4; ++k) {
        *outside += v[k] < 0.0f || v[k] > 1.0f;
        if (c->clip) v[k] = fmaxf(0.0f, fminf(1.0f, v[k]));
        boxes[(b * N + a) * 4 + k] = v[k];
      }
    }
  for (int64_t b = 0; b < B; ++b)
    for (int64_t n = 0; n < N; ++n) {
      float mx = -INFINITY, sum = 0.0f;
      for (int64_t k = 0; k < C; ++k) mx = fmaxf(mx, cls[(b * C + k) * N + n]);
      for (int64_t k = 0; k < C; ++k) sum += expf(cls[(b * C + k) * N + n] - mx);
      for (int64_t k = 0; k < C; ++k) {
        float x = cls[(b * C + k) * N + n];
        float sv = c->softmax ? expf(x - mx) / sum : x;
        float out = sv * (sv >= (float)c->thr ? 1.0f : 0.0f);
        *masked += !(sv >= (float)c->thr);
        if (!c->keep_bg && k == 0) out = 0.0f;
        scores[(b * C + k) * N + n] = out;
      }
    }
}

/* Random inputs of a case: logits in [-3, 3), encodings in [-1, 1), priors of corners in
 * [0, 0.6) and sizes in [0.1, 0.6) (so boxes cross [0, 1]). */
static void mbt_inputs(const mbt_case* c, void* t[3]) {
  t[0] = ftensor(3, (int64_t[]){c->B, c->C, c->N}, 1.5);
  t[1] = ftensor(2, (int64_t[]){c->B, 4 * c->N}, 0.5);
  t[2] = ftensor(3, (int64_t[]){1, c->N, 4}, 1);
  float* p = fdata(t[2]);
  for (int64_t a = 0; a < c->N; ++a) {
    float l = (float)((rv_rnd() + 2.0) * 0.15), top = (float)((rv_rnd() + 2.0) * 0.15);
    p[a * 4 + 0] = l, p[a * 4 + 1] = top;
    p[a * 4 + 2] = l + (float)(0.1 + (rv_rnd() + 2.0) * 0.125);
    p[a * 4 + 3] = top + (float)(0.1 + (rv_rnd() + 2.0) * 0.125);
  }
}

static void* mbt_attrs(const mbt_case* c) {
  TVMFFIAny v[4];
  for (int k = 0; k < 4; ++k) v[k] = tvm_ffi_any_float(c->var[k]);
  void* var = tvm_ffi_array_new(v, 4);
  void* attrs = rt_attrs(5, "clip", tvm_ffi_any_bool(c->clip), "threshold",
                         tvm_ffi_any_float(c->thr), "variances", tvm_ffi_any_obj(var),
                         "keep_background", tvm_ffi_any_bool(c->keep_bg), "apply_softmax",
                         tvm_ffi_any_bool(c->softmax));
  tvm_ffi_release(var);
  return attrs;
}

TEST(multibox_transform_loc) {
  /* B, C, N, clip, keep_background, apply_softmax, threshold, variances (x, y, w, h) */
  const mbt_case cases[5] = {{2, 4, 6, false, true, true, 0.0, {1, 1, 1, 1}},
                             {3, 5, 7, true, false, true, 0.2, {0.1, 0.2, 0.3, 0.4}},
                             {2, 3, 5, true, true, false, 0.0, {0.5, 2.0, 0.25, 1.5}},
                             {1, 4, 3, false, false, false, 0.5, {2.0, 0.5, 1.0, 0.3}},
                             {2, 1, 4, false, true, true, 0.0, {1.5, 0.75, 0.6, 1.2}}};
  for (int ci = 0; ci < 5; ++ci) {
    const mbt_case* c = &cases[ci];
    void* t[3];
    mbt_inputs(c, t);
    int64_t nb = c->B * c->N * 4, ns = c->B * c->C * c->N;
    double boxes[3 * 7 * 4], scores[3 * 5 * 7];
    int outside = 0, masked = 0;
    ref_multibox(c, fdata(t[0]), fdata(t[1]), fdata(t[2]), boxes, scores, &outside, &masked);
    /* the data make the attributes matter: boxes crossing [0, 1], scores on both sides of a
     * positive threshold (and negative logits masked by the threshold 0 without softmax) */
    CHECK(outside > 0 && outside < nb);
    if (c->thr > 0 || !c->softmax) CHECK(masked > 0 && masked < ns);
    /* the first case by the defaults */
    void* attrs = ci == 0 ? NULL : mbt_attrs(c);
    oot_expect e = {2, {F32, F32}, {boxes, scores}, {nb, ns}, 1e-5};
    oot_check_op("relax.vision.multibox_transform_loc", attrs, 3, t, NULL, &e);
    tvm_ffi_release(attrs);
  }
}

/* Symbolic shapes: the kernel's variables bound from the tensors; inputs that do not fit
 * cls_pred stop at its assertion, interpreted and compiled. */
TEST(multibox_transform_loc_symbolic) {
  static const char* src =
      "from tvm.script import ir as I\nfrom tvm.script import relax as R\n\n@I.ir_module\n"
      "class M:\n    @R.function\n"
      "    def main(c: R.Tensor((\"b\", \"k\", \"n\"), \"float32\"), l: R.Tensor((\"b2\", \"m\"), "
      "\"float32\"), a: R.Tensor((\"o\", \"p\", \"q\"), \"float32\")):\n"
      "        return R.vision.multibox_transform_loc(c, l, a, True, 0.1, (0.1, 0.1, 0.2, 0.2), "
      "False)\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* mod = tvm_script_parse(src, strlen(src), &opts);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (!legal) CHECK_OK(-1);
  mbt_case c = {2, 3, 5, true, false, true, 0.1, {0.1, 0.1, 0.2, 0.2}};
  void* t[3];
  mbt_inputs(&c, t);
  double boxes[2 * 5 * 4], scores[2 * 3 * 5];
  int outside = 0, masked = 0;
  ref_multibox(&c, fdata(t[0]), fdata(t[1]), fdata(t[2]), boxes, scores, &outside, &masked);
  oot_expect e = {2, {F32, F32}, {boxes, scores}, {40, 30}, 1e-5};
  TVMFFIAny args[3];
  for (int i = 0; i < 3; ++i) args[i] = tvm_ffi_any_obj(t[i]);
  if (legal) oot_run_both(legal, "main", "multibox_transform_loc (symbolic)", args, 3, &e, true);
  for (int i = 0; i < 3; ++i) tvm_ffi_release(t[i]);
  /* loc_pred of another batch or anchor count, an anchor of 2 batches or 5 coordinates */
  static const int64_t bad[4][5] = {
      {1, 20, 1, 5, 4}, {2, 24, 1, 5, 4}, {2, 20, 2, 5, 4}, {2, 20, 1, 5, 5}};
  for (int k = 0; k < 4 && legal; ++k) {
    void* u[3] = {ftensor(3, (int64_t[]){2, 3, 5}, 1), ftensor(2, bad[k], 1),
                  ftensor(3, bad[k] + 2, 1)};
    oot_run_both_error(legal, "multibox_transform_loc (symbolic)", 3, u, "AssertionError",
                       "relax.vision.multibox_transform_loc: loc_pred must be (B, 4 * N) and "
                       "anchor (1, N, 4) for cls_pred (B, C, N)");
    for (int i = 0; i < 3; ++i) tvm_ffi_release(u[i]);
  }
  tvm_ffi_release(legal), tvm_ffi_release(mod);
}

/* ---- TVMScript: bad roi_pool and get_valid_counts calls, refused where written --------------- */
TEST(script_errors) {
#define SIG(params) "    def f(" params "):\n"
#define DATA "x: R.Tensor((1, 3, 8, 8), \"float32\"), r: R.Tensor((2, 5), \"float32\")"
  test_expect_relax_error(SIG(DATA) "        return R.vision.roi_pool(x, r, [2, 2])\n", "TypeError",
                          "bad.py:9:16: error: R.vision.roi_pool() missing required argument "
                          "'spatial_scale'");
  test_expect_relax_error(
      SIG(DATA) "        return R.vision.roi_pool(x, r, 2, 0.5, layout=\"NHWC\")\n", "ValueError",
      "bad.py:9:55: error: R.vision.roi_pool: attribute 'layout' must be "
      "\"NCHW\" (the only layout), got \"NHWC\"");
  test_expect_relax_error(SIG("x: R.Tensor((1, 3, 8, 8), \"float32\"), r: R.Tensor((2, 5), "
                              "\"float16\")") "        return R.vision.roi_pool(r, x, 2, 0.5)\n",
                          "ValueError",
                          "R.vision.roi_pool: argument 'data' must have ndim 4, got 2");
  test_expect_relax_error(SIG("d: R.Tensor((1, 4, 6), \"float32\")")
                          "        return R.vision.get_valid_counts(d, score_index=7)\n",
                          "ValueError", "bad.py:9:57: error: R.vision.get_valid_counts: attribute "
                          "'score_index' (7) must be in [0, 6)");
  test_expect_relax_error(SIG("d: R.Tensor((1, 4, 6), \"float32\")")
                          "        return R.vision.get_valid_counts(d, 0.5, id_index=\"x\")\n",
                          "TypeError",
                          "R.vision.get_valid_counts: attribute 'id_index' must be an int");
  test_expect_relax_error(
      SIG("d: R.Tensor((4, 6), \"float32\")") "        return R.vision.get_valid_counts(d)\n",
      "ValueError", "R.vision.get_valid_counts: argument 'data' must have ndim 3, got 2");
#define MBT "c: R.Tensor((1, 3, 5), \"float32\"), l: R.Tensor((1, 20), \"float32\"), " \
            "a: R.Tensor((1, 5, 4), \"float32\")"
  test_expect_relax_error(
      SIG(MBT) "        return R.vision.multibox_transform_loc(c, l, a, variances=(0.1, 0.2))\n",
      "ValueError",
      "bad.py:9:67: error: R.vision.multibox_transform_loc: attribute 'variances' must have 4 "
      "values (x, y, w, h), got 2");
  test_expect_relax_error(
      SIG(MBT) "        return R.vision.multibox_transform_loc(c, l, a, False, \"high\")\n",
      "TypeError", "bad.py:9:64: error: R.vision.multibox_transform_loc: attribute 'threshold' "
      "must be a float");
  test_expect_relax_error(
      SIG(MBT) "        return R.vision.multibox_transform_loc(c, c, a)\n", "ValueError",
      "bad.py:9:51: error: R.vision.multibox_transform_loc: argument 'loc_pred' must have ndim "
      "2, got 3");
  test_expect_relax_error(
      SIG(MBT) "        return R.vision.multibox_transform_loc(c, l, a, False, 0.0, (1, 1, 1, 1), "
               "True, True, 1)\n",
      "TypeError", "R.vision.multibox_transform_loc() takes");
#undef MBT
#undef DATA
#undef SIG
}

int main(void) {
  RUN(conv3d_transpose);
  RUN(resize3d);
  RUN(resize3d_without_kernel);
  RUN(resize_cubic);
  RUN(resize_empty_input);
  RUN(affine_grid);
  RUN(roi_align);
  RUN(roi_pool);
  RUN(non_max_suppression);
  RUN(non_max_suppression_soft_and_data);
  RUN(all_class_non_max_suppression);
  RUN(get_valid_counts);
  RUN(multibox_transform_loc);
  RUN(multibox_transform_loc_symbolic);
  RUN(script_errors);
  return test_summary();
}
