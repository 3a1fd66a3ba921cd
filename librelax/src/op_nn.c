/*
 * op_nn.c: inference rules and attribute schemas of matmul, outer and the neural-network and
 * image operators (softmax, the normalizations, convolutions, pooling, pad, pixel_shuffle,
 * dropout, attention, resize2d, grid_sample), following upstream's relax/op/linear_algebra.cc,
 * nn/nn.cc, nn/convolution.cc, nn/pooling.cc, nn/attention.cc and image/resize.cc.
 *
 * Attributes are completed with defaults, and the spatial lists given short (strides /
 * dilation / pool_size of 1 value, padding of 1 value or one per dim) are stored complete
 * (op_table.c's complete_spatial); the rules still read the short forms (IR loaded from JSON)
 * the way upstream's constructors complete them. An OPT_STR out_layout of None means "the
 * input's layout" (upstream fills it in the constructor).
 *
 * Layouts are permutations of the canonical letters (NCHW, NHWC, ... for data; OIHW, HWIO, ...
 * for kernels). The pools and resizes also take packed layouts (NCHW16c: layout.c), whose packed
 * dims pass through; the other operators refuse them with a ValueError.
 *
 * Symbolic dims are built with libtir's folding helpers and simplified; a check raises only
 * when a mismatch is provable (upstream's CanProve), and dims that cannot be shown equal make
 * the result's shape unknown where upstream does so.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>

#include "internal.h"

/* ---- Schemas --------------------------------------------------------------------------------- */
const tvm_relax_attr_field tvm_relax__attrs_matmul[] = {
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_axis_default_last[] = {
    {"axis", TVM_RELAX_ATTR_INT, "-1"}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_layer_norm[] = {
    {"axes", TVM_RELAX_ATTR_INTS, NULL},
    {"epsilon", TVM_RELAX_ATTR_FLOAT, "1e-05"},
    {"center", TVM_RELAX_ATTR_BOOL, "true"},
    {"scale", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_rms_norm[] = {
    {"axes", TVM_RELAX_ATTR_INTS, "-1"}, {"epsilon", TVM_RELAX_ATTR_FLOAT, "1e-05"}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_batch_norm[] = {
    {"axis", TVM_RELAX_ATTR_INT, NULL}, /* (required, as upstream's) */
    {"epsilon", TVM_RELAX_ATTR_FLOAT, "1e-05"},
    {"center", TVM_RELAX_ATTR_BOOL, "true"},
    {"scale", TVM_RELAX_ATTR_BOOL, "true"},
    {"momentum", TVM_RELAX_ATTR_FLOAT, "0.1"},
    {"training", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv1d[] = {
    {"strides", TVM_RELAX_ATTR_INTS, "1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1"},
    {"groups", TVM_RELAX_ATTR_INT, "1"},
    {"data_layout", TVM_RELAX_ATTR_STR, "NCW"},
    {"kernel_layout", TVM_RELAX_ATTR_STR, "OIW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv2d[] = {
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"groups", TVM_RELAX_ATTR_INT, "1"},
    {"data_layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"kernel_layout", TVM_RELAX_ATTR_STR, "OIHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv2d_transpose[] = {
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0"},
    {"output_padding", TVM_RELAX_ATTR_INTS, "0, 0"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"groups", TVM_RELAX_ATTR_INT, "1"},
    {"data_layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"kernel_layout", TVM_RELAX_ATTR_STR, "IOHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_pool2d[] = {
    {"pool_size", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0"},
    {"ceil_mode", TVM_RELAX_ATTR_BOOL, "false"},
    {"count_include_pad", TVM_RELAX_ATTR_BOOL, "false"},
    {"layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv3d[] = {
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0, 0, 0"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"groups", TVM_RELAX_ATTR_INT, "1"},
    {"data_layout", TVM_RELAX_ATTR_STR, "NCDHW"},
    {"kernel_layout", TVM_RELAX_ATTR_STR, "OIDHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv1d_transpose[] = {
    {"strides", TVM_RELAX_ATTR_INTS, "1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0"},
    {"output_padding", TVM_RELAX_ATTR_INTS, "0"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1"},
    {"groups", TVM_RELAX_ATTR_INT, "1"},
    {"data_layout", TVM_RELAX_ATTR_STR, "NCW"},
    {"kernel_layout", TVM_RELAX_ATTR_STR, "IOW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv3d_transpose[] = {
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0, 0, 0"},
    {"output_padding", TVM_RELAX_ATTR_INTS, "0, 0, 0"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"groups", TVM_RELAX_ATTR_INT, "1"},
    {"data_layout", TVM_RELAX_ATTR_STR, "NCDHW"},
    {"kernel_layout", TVM_RELAX_ATTR_STR, "IODHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_pool3d[] = {
    {"pool_size", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0, 0, 0"},
    {"ceil_mode", TVM_RELAX_ATTR_BOOL, "false"},
    {"count_include_pad", TVM_RELAX_ATTR_BOOL, "false"},
    {"layout", TVM_RELAX_ATTR_STR, "NCDHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_avg_pool3d[] = {
    {"pool_size", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"strides", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1, 1, 1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0, 0, 0, 0, 0"},
    {"ceil_mode", TVM_RELAX_ATTR_BOOL, "false"},
    {"count_include_pad", TVM_RELAX_ATTR_BOOL, "true"},
    {"layout", TVM_RELAX_ATTR_STR, "NCDHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_pool1d[] = {
    {"pool_size", TVM_RELAX_ATTR_INTS, "1"},
    {"strides", TVM_RELAX_ATTR_INTS, "1"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0"},
    {"ceil_mode", TVM_RELAX_ATTR_BOOL, "false"},
    {"count_include_pad", TVM_RELAX_ATTR_BOOL, "false"},
    {"layout", TVM_RELAX_ATTR_STR, "NCW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
/* (upstream's avg_pool1d and avg_pool3d count the padding in by default; avg_pool2d does not) */
const tvm_relax_attr_field tvm_relax__attrs_avg_pool1d[] = {
    {"pool_size", TVM_RELAX_ATTR_INTS, "1"},
    {"strides", TVM_RELAX_ATTR_INTS, "1"},
    {"dilation", TVM_RELAX_ATTR_INTS, "1"},
    {"padding", TVM_RELAX_ATTR_INTS, "0, 0"},
    {"ceil_mode", TVM_RELAX_ATTR_BOOL, "false"},
    {"count_include_pad", TVM_RELAX_ATTR_BOOL, "true"},
    {"layout", TVM_RELAX_ATTR_STR, "NCW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_adaptive_pool1d[] = {
    {"output_size", TVM_RELAX_ATTR_OPT_INTS, "None"},
    {"layout", TVM_RELAX_ATTR_STR, "NCW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_adaptive_pool2d[] = {
    {"output_size", TVM_RELAX_ATTR_OPT_INTS, "None"},
    {"layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_adaptive_pool3d[] = {
    {"output_size", TVM_RELAX_ATTR_OPT_INTS, "None"},
    {"layout", TVM_RELAX_ATTR_STR, "NCDHW"},
    {"out_layout", TVM_RELAX_ATTR_OPT_STR, "None"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_pad[] = {
    {"pad_width", TVM_RELAX_ATTR_INTS, NULL},
    {"pad_value", TVM_RELAX_ATTR_FLOAT, "0"},
    {"pad_mode", TVM_RELAX_ATTR_STR, "constant"},
    {NULL, 0, NULL}};
/* nn.pixel_shuffle: upscale_factor is required (upstream's wrapper has no default). */
const tvm_relax_attr_field tvm_relax__attrs_pixel_shuffle[] = {
    {"upscale_factor", TVM_RELAX_ATTR_INT, NULL}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_dropout[] = {
    {"rate", TVM_RELAX_ATTR_FLOAT, "0.5"}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_attention[] = {
    {"scale", TVM_RELAX_ATTR_OPT_FLOAT, "None"},
    {"causal_mask", TVM_RELAX_ATTR_OPT_STR, "None"},
    {"window_size", TVM_RELAX_ATTR_OPT_INT, "None"},
    {NULL, 0, NULL}};
/* roi: None stands for upstream's default (0.0, 0.0, 0.0, 0.0); given, a list of 4 numbers. */
const tvm_relax_attr_field tvm_relax__attrs_resize2d[] = {
    {"roi", TVM_RELAX_ATTR_ANY, "None"},
    {"layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"method", TVM_RELAX_ATTR_STR, "linear"},
    {"coordinate_transformation_mode", TVM_RELAX_ATTR_STR, "half_pixel"},
    {"rounding_method", TVM_RELAX_ATTR_STR, "round"},
    {"cubic_alpha", TVM_RELAX_ATTR_FLOAT, "-0.75"},
    {"cubic_exclude", TVM_RELAX_ATTR_INT, "0"},
    {"extrapolation_value", TVM_RELAX_ATTR_FLOAT, "0"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
/* resize3d: resize2d's attributes in NCDHW; roi None or 6 numbers. */
const tvm_relax_attr_field tvm_relax__attrs_resize3d[] = {
    {"roi", TVM_RELAX_ATTR_ANY, "None"},
    {"layout", TVM_RELAX_ATTR_STR, "NCDHW"},
    {"method", TVM_RELAX_ATTR_STR, "linear"},
    {"coordinate_transformation_mode", TVM_RELAX_ATTR_STR, "half_pixel"},
    {"rounding_method", TVM_RELAX_ATTR_STR, "round"},
    {"cubic_alpha", TVM_RELAX_ATTR_FLOAT, "-0.75"},
    {"cubic_exclude", TVM_RELAX_ATTR_INT, "0"},
    {"extrapolation_value", TVM_RELAX_ATTR_FLOAT, "0"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {NULL, 0, NULL}};
/* grid_sample (upstream's GridSampleAttrs, defaults of upstream's Python wrapper). */
const tvm_relax_attr_field tvm_relax__attrs_grid_sample[] = {
    {"method", TVM_RELAX_ATTR_STR, "bilinear"},
    {"layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"padding_mode", TVM_RELAX_ATTR_STR, "zeros"},
    {"align_corners", TVM_RELAX_ATTR_BOOL, "false"},
    {NULL, 0, NULL}};

/* ---- Helpers --------------------------------------------------------------------------------- */
/* Raise "argument '<name>' <message>" naming the op; returns NULL. */

static bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }

/* Arg i must be a float tensor (or of unknown dtype). */
static bool check_float(const tvm_relax__infer_ctx* ctx, int32_t i,
                        const tvm_relax_tensor_sinfo_obj* t) {
  if (tvm_relax_dtype_is_unknown(t->dtype) || is_float(t->dtype)) return true;
  tvm_relax__arg_error(ctx, i, "TypeError", "must be a float tensor, got dtype %s", tvm_tir_dtype_str(t->dtype).s);
  return false;
}

/* Arg i must have rank `want` when its rank is known. */
static bool check_ndim(const tvm_relax__infer_ctx* ctx, int32_t i,
                       const tvm_relax_tensor_sinfo_obj* t, int32_t want, const char* layout) {
  if (t->ndim == TVM_RELAX_UNKNOWN_NDIM || t->ndim == want) return true;
  if (layout) {
    tvm_relax__arg_error(ctx, i, "ValueError", "must have ndim %d (layout %s), got %d", want, layout, t->ndim);
  } else {
    tvm_relax__arg_error(ctx, i, "ValueError", "must have ndim %d, got %d", want, t->ndim);
  }
  return false;
}

/* Whether floormod(a, d) != 0 is provable (d > 0). */
static bool provably_not_divisible(tvm_tir_expr_obj* a, int64_t d) {
  tvm_tir_expr_obj* dv = tvm_relax__int64(d);
  tvm_tir_expr_obj* m = dv ? tvm_tir_floormod(a, dv) : NULL;
  tvm_tir_expr_obj* zero = tvm_relax__int64(0);
  bool r = m && zero && tvm_relax__dim_unequal(m, zero);
  if (!m || !zero) tvm_ffi_error_clear();
  tvm_ffi_release(dv);
  tvm_ffi_release(m);
  tvm_ffi_release(zero);
  return r;
}

/* The PrimExprs a rule builds, released together at its end. */
enum { POOL_MAX = 96 };
typedef struct {
  tvm_tir_expr_obj* items[POOL_MAX];
  int32_t n;
} expr_pool;

static tvm_tir_expr_obj* keep(expr_pool* p, tvm_tir_expr_obj* e) {
  if (!e) return NULL;
  if (p->n == POOL_MAX) {
    tvm_ffi_release(e);
    tvm_ffi_raise("RuntimeError", "relax: too many dims built by one inference rule");
    return NULL;
  }
  return p->items[p->n++] = e;
}

static void pool_free(expr_pool* p) {
  for (int32_t i = 0; i < p->n; ++i) tvm_ffi_release(p->items[i]);
  p->n = 0;
}

typedef tvm_tir_expr_obj* (*binop_fn)(tvm_tir_expr_obj*, tvm_tir_expr_obj*);
/* f(a, b) kept in the pool; NULL (error raised earlier or now) when an operand is NULL. */
static tvm_tir_expr_obj* bin(expr_pool* p, binop_fn f, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return a && b ? keep(p, f(a, b)) : NULL;
}
static tvm_tir_expr_obj* cst(expr_pool* p, int64_t v) { return keep(p, tvm_relax__int64(v)); }
static tvm_tir_expr_obj* simp(expr_pool* p, tvm_tir_expr_obj* e) {
  return e ? keep(p, tvm_tir_simplify_expr(e, NULL)) : NULL;
}

/* A tensor result whose dims are canon[k] placed at pos[k] (NULL dims: an error is raised). */
static tvm_relax_sinfo_obj* placed_result(tvm_tir_expr_obj* const* canon, const int32_t* pos,
                                          int32_t n, DLDataType dtype, void* vdevice) {
  void* items[TVM_RELAX_LAYOUT_MAX];
  for (int32_t k = 0; k < n; ++k) {
    if (!canon[k]) return NULL;
    items[pos ? pos[k] : k] = canon[k];
  }
  void* arr = tvm_ffi_array_of_objects(items, n);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax__tensor_result(arr, dtype, n, vdevice);
  tvm_ffi_release(arr);
  return out;
}

/* Attribute `name` (INTS) into out[0..max); *n its length. -1 + ValueError when longer. */
static int read_ints(const tvm_relax__infer_ctx* ctx, const char* name, int64_t* out, int32_t max,
                     int32_t* n) {
  void* arr = tvm_relax__attr_ints(ctx, name);
  int64_t size = arr ? tvm_ffi_seq_size(arr) : 0;
  if (size > max) {
    tvm_relax__op_error(ctx, "ValueError", "attribute '%s' has %lld values, at most %d expected",
                        name, (long long)size, max);
    return -1;
  }
  for (int64_t i = 0; i < size; ++i) tvm_ffi_any_as_int(tvm_ffi_seq_at(arr, i), &out[i]);
  *n = (int32_t)size;
  return 0;
}

/* strides / dilation / pool_size / output_size into out[0..want): `want` values, or 1 repeated
 * (upstream). Each must be >= min_value. */
static int expand_ints(const tvm_relax__infer_ctx* ctx, const char* name, int32_t want,
                       int64_t min_value, int64_t* out) {
  int32_t n;
  int64_t given[8];
  if (read_ints(ctx, name, given, 8, &n) != 0) return -1;
  if (n != want && n != 1) {
    if (want == 1) {
      tvm_relax__op_error(ctx, "ValueError", "attribute '%s' must have 1 value, got %d", name, n);
    } else {
      tvm_relax__op_error(ctx, "ValueError", "attribute '%s' must have 1 or %d values, got %d",
                          name, want, n);
    }
    return -1;
  }
  for (int32_t i = 0; i < want; ++i) out[i] = given[n == 1 ? 0 : i];
  for (int32_t i = 0; i < want; ++i) {
    if (out[i] < min_value) {
      tvm_relax__op_error(ctx, "ValueError", "attribute '%s' must be >= %lld, got %lld", name,
                          (long long)min_value, (long long)out[i]);
      return -1;
    }
  }
  return 0;
}

/* padding of s spatial dims: 2*s values (all befores, then all afters: (top, left, bottom,
 * right) for 2-d), s values (before = after) or 1 value (everywhere), as upstream's
 * GetCompletePadding1D/2D. Non-negative. */
static int expand_padding(const tvm_relax__infer_ctx* ctx, int32_t s, int64_t* out) {
  int32_t n;
  int64_t given[8];
  if (read_ints(ctx, "padding", given, 8, &n) != 0) return -1;
  if (n != 1 && n != s && n != 2 * s) {
    if (s == 1) {
      tvm_relax__op_error(ctx, "ValueError", "attribute 'padding' must have 1 or 2 values, got %d", n);
    } else {
      tvm_relax__op_error(ctx, "ValueError",
                          "attribute 'padding' must have 1, %d or %d values, got %d", s, 2 * s, n);
    }
    return -1;
  }
  for (int32_t i = 0; i < 2 * s; ++i) out[i] = given[n == 1 ? 0 : n == s ? i % s : i];
  for (int32_t i = 0; i < 2 * s; ++i) {
    if (out[i] < 0) {
      tvm_relax__op_error(ctx, "ValueError", "attribute 'padding' must be non-negative, got %lld",
                          (long long)out[i]);
      return -1;
    }
  }
  return 0;
}

/* pos[k] = the index in `layout` of canon[k]; layout must be a permutation of canon. */
static int layout_perm(const tvm_relax__infer_ctx* ctx, const char* attr, const char* layout,
                       const char* canon, int32_t* pos) {
  size_t n = strlen(canon);
  bool ok = layout && strlen(layout) == n;
  for (size_t k = 0; ok && k < n; ++k) {
    const char* p = strchr(layout, canon[k]);
    ok = p != NULL;
    if (ok) pos[k] = (int32_t)(p - layout);
  }
  if (!ok) {
    tvm_relax__op_error(ctx, "ValueError",
                        "attribute '%s' must be a permutation of %s (packed layouts are not "
                        "supported), got '%s'",
                        attr, canon, layout ? layout : "None");
    return -1;
  }
  return 0;
}

static const char* out_layout_of(const tvm_relax__infer_ctx* ctx, const char* in_layout);

/* A layout of canon's axes with packed sub-axes (layout.c); the spatial axes (D, H, W) may not
 * be split, as upstream's topi pools and resizes require. -1 + ValueError when it is no such. */
static int layout_packed(const tvm_relax__infer_ctx* ctx, const char* attr, const char* layout,
                         const char* canon, tvm_relax__layout* out) {
  char err[200];
  if (tvm_relax__layout_parse(layout, canon, "DHW", out, err, sizeof(err)) == 0) return 0;
  tvm_relax__op_error(ctx, "ValueError",
                      "attribute '%s' must be a permutation of %s, %c or %c possibly packed "
                      "(%s16%c), got '%s': %s",
                      attr, canon, canon[0], canon[1], canon, tolower((unsigned char)canon[1]),
                      layout ? layout : "None", err);
  return -1;
}

/* The index in l of the sub-axis of primal axis k (l's nprimal.. rank), or -1 when k is whole. */
static int32_t sub_axis_of(const tvm_relax__layout* l, int32_t k) {
  char want = (char)tolower((unsigned char)l->letter[k]);
  for (int32_t j = l->nprimal; j < l->rank; ++j) {
    if (l->letter[j] == want) return j;
  }
  return -1;
}

/* The dims of argument i (its known dims `d`, in layout l, spelled `text`) by l's primal axes,
 * a packed axis as outer * factor (upstream's BijectiveLayout::ForwardShape), into out[0..
 * nprimal). A constant sub-axis dim must be its factor. -1 + ValueError otherwise. */
static int primal_dims(const tvm_relax__infer_ctx* ctx, expr_pool* p, int32_t i, void* d,
                       const tvm_relax__layout* l, const char* text, tvm_tir_expr_obj** out) {
  for (int32_t k = 0; k < l->nprimal; ++k) {
    out[k] = tvm_ffi_seq_obj_at(d, l->pos[k]);
    int32_t j = sub_axis_of(l, k);
    if (j < 0) continue;
    int64_t c;
    if (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(d, l->pos[j]), &c) && c != l->factor[j]) {
      tvm_relax__arg_error(ctx, i, "ValueError",
                           "must have dim %d (the sub-axis %lld%c of layout %s) of %lld, got %lld",
                           l->pos[j], (long long)l->factor[j], l->letter[j], text,
                           (long long)l->factor[j], (long long)c);
      return -1;
    }
    out[k] = simp(p, bin(p, tvm_tir_mul, out[k], cst(p, l->factor[j])));
    if (!out[k]) return -1;
  }
  return 0;
}

/* A tensor result of the primal dims `dims` (canon's order) in layout l: a packed axis as
 * ceil(dim / factor) outer by factor inner (upstream's BackwardShape). */
static tvm_relax_sinfo_obj* packed_result(expr_pool* p, tvm_tir_expr_obj* const* dims,
                                          const tvm_relax__layout* l, DLDataType dtype,
                                          void* vdevice) {
  tvm_tir_expr_obj* all[TVM_RELAX_LAYOUT_MAX];
  for (int32_t k = 0; k < l->nprimal; ++k) {
    int32_t j = sub_axis_of(l, k);
    all[k] = j < 0 ? dims[k]
                   : simp(p, bin(p, tvm_tir_floordiv,
                                 bin(p, tvm_tir_add, dims[k], cst(p, l->factor[j] - 1)),
                                 cst(p, l->factor[j])));
  }
  for (int32_t j = l->nprimal; j < l->rank; ++j) all[j] = cst(p, l->factor[j]);
  return placed_result(all, l->pos, l->rank, dtype, vdevice);
}

/* The input layout `in` and out_layout (None: in) of a pool, parsed; the output must pack the
 * same axes by the same factors (upstream re-packs through NCHW; no kernel here does). The
 * data's packed dims must equal their factors where known. -1 + error otherwise. */
static int pool_layouts(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* data,
                        const char* canon, tvm_relax__layout* in, tvm_relax__layout* out) {
  const char* layout = tvm_relax__attr_str(ctx, "layout");
  const char* ol = out_layout_of(ctx, layout);
  if (layout_packed(ctx, "layout", layout, canon, in) != 0) return -1;
  if (out && layout_packed(ctx, "out_layout", ol, canon, out) != 0) return -1;
  if (out && !tvm_relax__layout_same_axes(in, out)) {
    tvm_relax__op_error(ctx, "NotImplementedError",
                        "out_layout '%s' packs other axes than layout '%s' (re-packing is not "
                        "supported)", ol, layout);
    return -1;
  }
  if (!check_ndim(ctx, 0, data, in->rank, layout)) return -1;
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  for (int32_t k = in->nprimal; dd && k < in->rank; ++k) {
    int64_t c;
    if (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dd, in->pos[k]), &c) && c != in->factor[k]) {
      tvm_relax__arg_error(ctx, 0, "ValueError",
                           "must have dim %d (the sub-axis %lld%c of layout %s) of %lld, got %lld",
                           in->pos[k], (long long)in->factor[k], in->letter[k], layout,
                           (long long)in->factor[k], (long long)c);
      return -1;
    }
  }
  return 0;
}

/* out_layout of None is the input layout. */
static const char* out_layout_of(const tvm_relax__infer_ctx* ctx, const char* in_layout) {
  const char* s = tvm_relax__attr_str(ctx, "out_layout");
  return s ? s : in_layout;
}

/* out_dtype when given, else the common dtype of args a and b (TypeError when they differ). */
static bool out_dtype_of(const tvm_relax__infer_ctx* ctx, int32_t ia,
                         const tvm_relax_tensor_sinfo_obj* a, int32_t ib,
                         const tvm_relax_tensor_sinfo_obj* b, DLDataType* out) {
  *out = tvm_relax__attr_dtype(ctx, "out_dtype");
  if (!tvm_relax_dtype_is_unknown(*out)) return true;
  bool ok;
  *out = tvm_relax__binary_dtype(a->dtype, b->dtype, &ok);
  if (ok) return true;
  tvm_ffi_strbuf na = {0}, nb = {0};
  tvm_relax__arg_name(ctx, ia, &na);
  tvm_relax__arg_name(ctx, ib, &nb);
  tvm_relax__op_error(ctx, "TypeError",
                      "arguments '%s' and '%s' have different dtypes %s and %s (give out_dtype)",
                      tvm_ffi_strbuf_cstr(&na), tvm_ffi_strbuf_cstr(&nb),
                      tvm_tir_dtype_str(a->dtype).s, tvm_tir_dtype_str(b->dtype).s);
  tvm_ffi_strbuf_free(&na);
  tvm_ffi_strbuf_free(&nb);
  return false;
}

/* A constant output dim below 1: the window does not fit the padded input (or, transposed, the
 * padding removes more than the output has). */
static bool check_out_dim(const tvm_relax__infer_ctx* ctx, tvm_tir_expr_obj* d, const char* what) {
  int64_t v;
  if (d && tvm_tir_as_const_int(d, &v) && v < 1) {
    tvm_relax__op_error(ctx, "ValueError",
                        "the output %s would be %lld: the window and padding do not fit the input",
                        what, (long long)v);
    return false;
  }
  return true;
}

/* ---- matmul ---------------------------------------------------------------------------------- */
/* A tensor struct info of dims[from, to) (for broadcasting the batch dims). */
static tvm_relax_tensor_sinfo_obj* dims_slice(void* dims, int64_t from, int64_t to) {
  void* items[16] = {0};
  int64_t n = to - from;
  void** buf = n <= 16 ? items : tvm_ffi_calloc((size_t)n, sizeof(void*));
  if (!buf) return NULL;
  for (int64_t i = 0; i < n; ++i) buf[i] = tvm_ffi_seq_obj_at(dims, from + i);
  void* arr = tvm_ffi_array_of_objects(buf, n);
  if (buf != items) tvm_ffi_free(buf);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_of_dims(arr, TVM_RELAX_DTYPE_UNKNOWN);
  tvm_ffi_release(arr);
  return (tvm_relax_tensor_sinfo_obj*)s;
}

tvm_relax_sinfo_obj* tvm_relax__infer_matmul(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* a = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* b = a ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!b) return NULL;
  if (a->ndim == 0) return tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim >= 1, got 0");
  if (b->ndim == 0) return tvm_relax__arg_error(ctx, 1, "ValueError", "must have ndim >= 1, got 0");
  DLDataType dtype;
  if (!out_dtype_of(ctx, 0, a, 1, b, &dtype)) return NULL;
  void* vdev = a->vdevice ? a->vdevice : b->vdevice;
  if (a->ndim == TVM_RELAX_UNKNOWN_NDIM || b->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return tvm_relax_tensor_sinfo_new(NULL, dtype, TVM_RELAX_UNKNOWN_NDIM, vdev);
  }
  /* numpy: a 1-d x1 is a row (1, k), a 1-d x2 a column (k, 1); the added dim is dropped. */
  bool prepend = a->ndim == 1, append = b->ndim == 1;
  int32_t na = prepend ? 2 : a->ndim, nb = append ? 2 : b->ndim;
  int32_t out_ndim = (na > nb ? na : nb) - (prepend ? 1 : 0) - (append ? 1 : 0);
  void* da = tvm_relax_tensor_sinfo_dims(&a->base);
  void* db = tvm_relax_tensor_sinfo_dims(&b->base);
  if (!da || !db) return tvm_relax_tensor_sinfo_new(NULL, dtype, out_ndim, vdev);
  /* Reduction dims: x1's last against x2's second to last (its only one when 1-d). */
  tvm_tir_expr_obj* ka = tvm_ffi_seq_obj_at(da, a->ndim - 1);
  tvm_tir_expr_obj* kb = tvm_ffi_seq_obj_at(db, append ? 0 : b->ndim - 2);
  if (tvm_relax__dim_unequal(ka, kb)) {
    tvm_ffi_strbuf sa = {0}, sb = {0}, ta = {0}, tb = {0};
    tvm_relax_sinfo_text(&sa, &a->base);
    tvm_relax_sinfo_text(&sb, &b->base);
    tvm_relax__op_error(ctx, "ValueError",
                        "the reduction dims differ: 'x1' %s reduces over %s, 'x2' %s over %s",
                        tvm_ffi_strbuf_cstr(&sa), tvm_relax__dim_text(&ta, ka),
                        tvm_ffi_strbuf_cstr(&sb), tvm_relax__dim_text(&tb, kb));
    tvm_ffi_strbuf_free(&sa);
    tvm_ffi_strbuf_free(&sb);
    tvm_ffi_strbuf_free(&ta);
    tvm_ffi_strbuf_free(&tb);
    return NULL;
  }
  /* Broadcast the batch dims (all but the last two; none for a 1-d operand). */
  tvm_relax_tensor_sinfo_obj* ba = dims_slice(da, 0, prepend ? 0 : a->ndim - 2);
  tvm_relax_tensor_sinfo_obj* bb = ba ? dims_slice(db, 0, append ? 0 : b->ndim - 2) : NULL;
  tvm_relax_sinfo_obj* out = NULL;
  void* batch = NULL;
  int32_t nbatch;
  if (bb && tvm_relax__broadcast(ctx, ba, bb, &batch, &nbatch) == 0) {
    if (!batch || !tvm_relax__dim_equal(ka, kb)) {
      /* Batch dims or reduction dims not provably compatible: the rank is all we know. */
      out = tvm_relax_tensor_sinfo_new(NULL, dtype, out_ndim, vdev);
    } else {
      void* items[16];
      void** buf = out_ndim <= 16 ? items : tvm_ffi_calloc((size_t)out_ndim, sizeof(void*));
      if (buf) {
        int32_t k = 0;
        for (; k < nbatch; ++k) buf[k] = tvm_ffi_seq_obj_at(batch, k);
        if (!prepend) buf[k++] = tvm_ffi_seq_obj_at(da, a->ndim - 2);
        if (!append) buf[k++] = tvm_ffi_seq_obj_at(db, b->ndim - 1);
        void* arr = tvm_ffi_array_of_objects(buf, k);
        if (arr) out = tvm_relax__tensor_result(arr, dtype, k, vdev);
        tvm_ffi_release(arr);
        if (buf != items) tvm_ffi_free(buf);
      }
    }
  }
  tvm_ffi_release(batch);
  tvm_ffi_release(ba);
  tvm_ffi_release(bb);
  return out;
}

/* ---- outer ----------------------------------------------------------------------------------- */
/* outer (upstream linear_algebra.cc): x1 (n,) and x2 (m,) give (n, m) of x1's dtype, as
 * upstream's rule does (it compares no dtypes; the kernel casts x2's elements), with no
 * vdevice. Both must be of ndim 1, an unknown rank included. */
tvm_relax_sinfo_obj* tvm_relax__infer_outer(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* a = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* b = a ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!b) return NULL;
  for (int32_t i = 0; i < 2; ++i) {
    int32_t nd = i == 0 ? a->ndim : b->ndim;
    if (nd == TVM_RELAX_UNKNOWN_NDIM) {
      return tvm_relax__arg_error(ctx, i, "ValueError", "must be a 1-d tensor, got unknown ndim");
    }
    if (nd != 1) {
      return tvm_relax__arg_error(ctx, i, "ValueError", "must be a 1-d tensor, got ndim %d", nd);
    }
  }
  void* da = tvm_relax_tensor_sinfo_dims(&a->base);
  void* db = tvm_relax_tensor_sinfo_dims(&b->base);
  if (!da || !db) return tvm_relax_tensor_sinfo_new(NULL, a->dtype, 2, NULL);
  void* items[2] = {tvm_ffi_seq_obj_at(da, 0), tvm_ffi_seq_obj_at(db, 0)};
  void* arr = tvm_ffi_array_of_objects(items, 2);
  tvm_relax_sinfo_obj* out = arr ? tvm_relax__tensor_result(arr, a->dtype, 2, NULL) : NULL;
  tvm_ffi_release(arr);
  return out;
}

/* ---- softmax --------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_softmax(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return retained_sinfo(&x->base);
  if (!check_float(ctx, 0, x)) return NULL;
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  return retained_sinfo(&x->base);
}

/* ---- Normalizations -------------------------------------------------------------------------- */
/*
 * Checks shared by layer_norm, rms_norm and batch_norm (upstream's NormCheckDtypeAndShape): data
 * (arg 0) is a float tensor; the parameters (args 1..nargs-1) have data's dtype, one dim per
 * axis, and the dims of data at the axes. Known dims are compared (as upstream: a parameter of
 * unknown shape is not compared). Returns 1 when every compared dim is provably equal, 0 when
 * some are not provably equal (the result's shape is then unknown), -1 + error.
 */
static int norm_check(const tvm_relax__infer_ctx* ctx, const int64_t* axes_in, int32_t naxes,
                      int32_t nargs) {
  tvm_relax_tensor_sinfo_obj* t[5];
  for (int32_t i = 0; i < nargs; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) return -1;
  }
  if (!check_float(ctx, 0, t[0])) return -1;
  int64_t axes[8];
  if (naxes > 8) {
    tvm_relax__op_error(ctx, "ValueError", "at most 8 axes are supported, got %d", naxes);
    return -1;
  }
  if (t[0]->ndim != TVM_RELAX_UNKNOWN_NDIM) {
    for (int32_t d = 0; d < naxes; ++d) {
      if (tvm_relax__normalize_axis(ctx, axes_in[d], t[0]->ndim, &axes[d]) != 0) return -1;
      for (int32_t e = 0; e < d; ++e) {
        if (axes[e] == axes[d]) {
          tvm_relax__op_error(ctx, "ValueError", "axis %lld appears more than once",
                              (long long)axes[d]);
          return -1;
        }
      }
    }
  }
  for (int32_t i = 1; i < nargs; ++i) {
    if (!tvm_relax_dtype_is_unknown(t[i]->dtype) && !tvm_relax_dtype_is_unknown(t[0]->dtype) &&
        !tvm_ffi_dtype_equal(t[i]->dtype, t[0]->dtype)) {
      tvm_relax__arg_error(ctx, i, "TypeError", "must have the dtype of 'data' (%s), got %s",
                tvm_tir_dtype_str(t[0]->dtype).s, tvm_tir_dtype_str(t[i]->dtype).s);
      return -1;
    }
    if (t[i]->ndim != TVM_RELAX_UNKNOWN_NDIM && t[i]->ndim != naxes) {
      tvm_relax__arg_error(ctx, i, "ValueError", "must have one dim per normalized axis (%d), got ndim %d",
                naxes, t[i]->ndim);
      return -1;
    }
  }
  /* Compare each known parameter shape with data's dims at the axes (or with the first known
   * parameter's when data's are unknown). */
  void* ddims = tvm_relax_tensor_sinfo_dims(&t[0]->base);
  int32_t ref_arg = -1;
  void* ref = NULL;
  int known = 1;
  for (int32_t i = 1; i < nargs; ++i) {
    void* pd = tvm_relax_tensor_sinfo_dims(&t[i]->base);
    if (!pd) continue;
    if (!ddims && !ref) {
      ref = pd;
      ref_arg = i;
      continue;
    }
    for (int32_t d = 0; d < naxes; ++d) {
      tvm_tir_expr_obj* want = ddims ? tvm_ffi_seq_obj_at(ddims, axes[d]) : tvm_ffi_seq_obj_at(ref, d);
      tvm_tir_expr_obj* got = tvm_ffi_seq_obj_at(pd, d);
      if (tvm_relax__dim_unequal(want, got)) {
        tvm_ffi_strbuf w = {0}, g = {0}, r = {0};
        if (ddims) {
          tvm_ffi_strbuf_printf(&r, "'data' at axis %lld", (long long)axes[d]);
        } else {
          tvm_ffi_strbuf_puts(&r, "'");
          tvm_relax__arg_name(ctx, ref_arg, &r);
          tvm_ffi_strbuf_printf(&r, "' dim %d", d);
        }
        tvm_relax__arg_error(ctx, i, "ValueError", "dim %d is %s but %s is %s", d,
                             tvm_relax__dim_text(&g, got), tvm_ffi_strbuf_cstr(&r),
                             tvm_relax__dim_text(&w, want));
        tvm_ffi_strbuf_free(&w);
        tvm_ffi_strbuf_free(&g);
        tvm_ffi_strbuf_free(&r);
        return -1;
      }
      if (!tvm_relax__dim_equal(want, got)) known = 0;
    }
  }
  return known;
}

/* data's struct info when the parameters' dims are provably right, else its dtype and rank. */
static tvm_relax_sinfo_obj* norm_result(const tvm_relax__infer_ctx* ctx, int known) {
  tvm_relax_tensor_sinfo_obj* x = (tvm_relax_tensor_sinfo_obj*)tvm_relax__arg_sinfo(ctx, 0);
  if (known) return retained_sinfo(&x->base);
  return tvm_relax_tensor_sinfo_new(NULL, x->dtype, x->ndim, x->vdevice);
}

static int norm_axes(const tvm_relax__infer_ctx* ctx, int64_t* axes, int32_t* n) {
  return read_ints(ctx, "axes", axes, 8, n);
}

tvm_relax_sinfo_obj* tvm_relax__infer_layer_norm(const tvm_relax__infer_ctx* ctx) {
  int64_t axes[8];
  int32_t n;
  if (norm_axes(ctx, axes, &n) != 0) return NULL;
  int known = norm_check(ctx, axes, n, 3);
  return known < 0 ? NULL : norm_result(ctx, known);
}

tvm_relax_sinfo_obj* tvm_relax__infer_rms_norm(const tvm_relax__infer_ctx* ctx) {
  int64_t axes[8];
  int32_t n;
  if (norm_axes(ctx, axes, &n) != 0) return NULL;
  int known = norm_check(ctx, axes, n, 2);
  return known < 0 ? NULL : norm_result(ctx, known);
}

/* (normalized data, new moving mean, new moving var): the struct infos of data, moving_mean and
 * moving_var, or of their dtype and rank when the dims are not provably right. */
tvm_relax_sinfo_obj* tvm_relax__infer_batch_norm(const tvm_relax__infer_ctx* ctx) {
  int64_t axis = tvm_relax__attr_int(ctx, "axis");
  int known = norm_check(ctx, &axis, 1, 5);
  if (known < 0) return NULL;
  tvm_relax_sinfo_obj* f[3] = {norm_result(ctx, known), NULL, NULL};
  tvm_relax_tensor_sinfo_obj* x = (tvm_relax_tensor_sinfo_obj*)tvm_relax__arg_sinfo(ctx, 0);
  for (int32_t i = 1; i < 3 && f[i - 1]; ++i) {
    f[i] = known ? retained_sinfo(tvm_relax__arg_sinfo(ctx, i + 2))
                 : tvm_relax_tensor_sinfo_new(NULL, x->dtype, 1, x->vdevice);
  }
  tvm_relax_sinfo_obj* out = NULL;
  if (f[0] && f[1] && f[2]) {
    void* arr = tvm_ffi_array_of_objects((void* const*)f, 3);
    if (arr) out = tvm_relax_tuple_sinfo_new(arr);
    tvm_ffi_release(arr);
  }
  for (int32_t i = 0; i < 3; ++i) tvm_ffi_release(f[i]);
  return out;
}

/* ---- Convolutions ---------------------------------------------------------------------------- */
/* conv1d (s = 1), conv2d (s = 2) and conv2d_transpose (s = 2, transpose). */
static tvm_relax_sinfo_obj* conv(const tvm_relax__infer_ctx* ctx, int32_t s, bool transpose) {
  const char* data_canon = s == 1 ? "NCW" : s == 2 ? "NCHW" : "NCDHW";
  const char* kernel_canon = s == 1 ? "OIW" : s == 2 ? "OIHW" : "OIDHW";
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* weight = data ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!weight) return NULL;
  const char* dl = tvm_relax__attr_str(ctx, "data_layout");
  const char* kl = tvm_relax__attr_str(ctx, "kernel_layout");
  const char* ol = out_layout_of(ctx, dl);
  /* (packed layouts, NCHW4c / OIHW4o, as upstream's BijectiveLayout to NCHW / OIHW reads them;
   * their kernels are not built here: legalize_conv.c refuses them) */
  tvm_relax__layout ld, lk, lo;
  if (layout_packed(ctx, "data_layout", dl, data_canon, &ld) != 0 ||
      layout_packed(ctx, "kernel_layout", kl, kernel_canon, &lk) != 0 ||
      layout_packed(ctx, "out_layout", ol, data_canon, &lo) != 0) {
    return NULL;
  }
  int64_t strides[3], dilation[3], pad[6], opad[3] = {0, 0, 0};
  if (expand_ints(ctx, "strides", s, 1, strides) != 0 ||
      expand_ints(ctx, "dilation", s, 1, dilation) != 0 || expand_padding(ctx, s, pad) != 0 ||
      (transpose && expand_ints(ctx, "output_padding", s, 0, opad) != 0)) {
    return NULL;
  }
  for (int32_t i = 0; i < s; ++i) {
    if (opad[i] >= strides[i]) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'output_padding' (%lld) must be less than the stride "
                                 "(%lld)", (long long)opad[i], (long long)strides[i]);
    }
  }
  int64_t groups = tvm_relax__attr_int(ctx, "groups");
  if (groups < 1) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'groups' must be positive, got %lld",
                               (long long)groups);
  }
  DLDataType dtype;
  if (!out_dtype_of(ctx, 0, data, 1, weight, &dtype)) return NULL;
  if (!check_ndim(ctx, 0, data, ld.rank, dl) || !check_ndim(ctx, 1, weight, lk.rank, kl)) {
    return NULL;
  }
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  void* wd = tvm_relax_tensor_sinfo_dims(&weight->base);
  if (!dd || !wd) return tvm_relax_tensor_sinfo_new(NULL, dtype, lo.rank, data->vdevice);
  expr_pool p = {.n = 0};
  tvm_relax_sinfo_obj* out = NULL;
  tvm_ffi_strbuf t1 = {0}, t2 = {0};
  tvm_tir_expr_obj *dlog[5], *wlog[5];
  if (primal_dims(ctx, &p, 0, dd, &ld, dl, dlog) != 0 ||
      primal_dims(ctx, &p, 1, wd, &lk, kl, wlog) != 0) {
    goto done;
  }
  tvm_tir_expr_obj* c_in = dlog[1];
  tvm_tir_expr_obj* w_o = wlog[0];
  tvm_tir_expr_obj* w_i = wlog[1];
  tvm_tir_expr_obj* g = cst(&p, groups);
  tvm_tir_expr_obj* dims[5] = {dlog[0], NULL, NULL, NULL, NULL};
  if (!transpose) {
    /* weight (O, I, ...): data's channels are I per group. */
    tvm_tir_expr_obj* want = bin(&p, tvm_tir_mul, w_i, g);
    if (want && tvm_relax__dim_unequal(c_in, want)) {
      tvm_relax__op_error(ctx, "ValueError",
                          "'data' has %s input channels but 'weight' takes %s per group x %lld "
                          "groups",
                          tvm_relax__dim_text(&t1, c_in), tvm_relax__dim_text(&t2, w_i),
                          (long long)groups);
      goto done;
    }
    if (provably_not_divisible(w_o, groups)) {
      tvm_relax__op_error(ctx, "ValueError",
                          "the %s output channels of 'weight' are not divisible by groups %lld",
                          tvm_relax__dim_text(&t1, w_o), (long long)groups);
      goto done;
    }
    dims[1] = w_o;
  } else {
    /* weight (I, O, ...): I is data's channels, O the output channels per group. */
    if (tvm_relax__dim_unequal(c_in, w_i)) {
      tvm_relax__op_error(ctx, "ValueError",
                          "'data' has %s input channels but 'weight' takes %s",
                          tvm_relax__dim_text(&t1, c_in), tvm_relax__dim_text(&t2, w_i));
      goto done;
    }
    if (provably_not_divisible(w_i, groups)) {
      tvm_relax__op_error(ctx, "ValueError",
                          "the %s input channels of 'weight' are not divisible by groups %lld",
                          tvm_relax__dim_text(&t1, w_i), (long long)groups);
      goto done;
    }
    dims[1] = simp(&p, bin(&p, tvm_tir_mul, w_o, g));
  }
  for (int32_t i = 0; i < s; ++i) {
    tvm_tir_expr_obj* in = dlog[2 + i];
    tvm_tir_expr_obj* k = wlog[2 + i];
    /* The dilated kernel extent minus one: dilation * (k - 1). */
    tvm_tir_expr_obj* ext = bin(&p, tvm_tir_mul, cst(&p, dilation[i]), bin(&p, tvm_tir_sub, k, cst(&p, 1)));
    tvm_tir_expr_obj* r;
    if (!transpose) {
      /* (in + pad_before + pad_after - dilation * (k - 1) - 1) // stride + 1 */
      tvm_tir_expr_obj* num = bin(&p, tvm_tir_sub, cst(&p, pad[i] + pad[s + i] - 1), ext);
      num = bin(&p, tvm_tir_add, in, num);
      r = bin(&p, tvm_tir_add, bin(&p, tvm_tir_floordiv, num, cst(&p, strides[i])), cst(&p, 1));
    } else {
      /* (in - 1) * stride - pad_before - pad_after + dilation * (k - 1) + output_padding + 1 */
      r = bin(&p, tvm_tir_mul, bin(&p, tvm_tir_sub, in, cst(&p, 1)), cst(&p, strides[i]));
      r = bin(&p, tvm_tir_add, r, ext);
      r = bin(&p, tvm_tir_add, r, cst(&p, opad[i] + 1 - pad[i] - pad[s + i]));
    }
    dims[2 + i] = simp(&p, r);
    if (!dims[2 + i]) goto done;
    if (!check_out_dim(ctx, dims[2 + i], "spatial size")) goto done;
  }
  out = packed_result(&p, dims, &lo, dtype, data->vdevice);
done:
  tvm_ffi_strbuf_free(&t1);
  tvm_ffi_strbuf_free(&t2);
  pool_free(&p);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv1d(const tvm_relax__infer_ctx* ctx) {
  return conv(ctx, 1, false);
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv2d(const tvm_relax__infer_ctx* ctx) {
  return conv(ctx, 2, false);
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv2d_transpose(const tvm_relax__infer_ctx* ctx) {
  return conv(ctx, 2, true);
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv3d(const tvm_relax__infer_ctx* ctx) {
  return conv(ctx, 3, false);
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv1d_transpose(const tvm_relax__infer_ctx* ctx) {
  return conv(ctx, 1, true);
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv3d_transpose(const tvm_relax__infer_ctx* ctx) {
  return conv(ctx, 3, true);
}

/* ---- Pooling --------------------------------------------------------------------------------- */
/* The canonical layout of s spatial dims (1: NCW, 2: NCHW, 3: NCDHW). */
static const char* spatial_layout(int32_t s) { return s == 1 ? "NCW" : s == 2 ? "NCHW" : "NCDHW"; }

/* max_pool / avg_pool over s spatial dims (1: NCW, 2: NCHW, 3: NCDHW), in a layout that may
 * pack N or C (NCHW16c): the packed dims pass through like N and C. */
static tvm_relax_sinfo_obj* pool(const tvm_relax__infer_ctx* ctx, int32_t s) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  tvm_relax__layout li, lo;
  int64_t size[3], strides[3], dilation[3], pad[6];
  if (pool_layouts(ctx, data, spatial_layout(s), &li, &lo) != 0 ||
      expand_ints(ctx, "pool_size", s, 1, size) != 0 ||
      expand_ints(ctx, "strides", s, 1, strides) != 0 ||
      expand_ints(ctx, "dilation", s, 1, dilation) != 0 || expand_padding(ctx, s, pad) != 0) {
    return NULL;
  }
  bool ceil_mode = tvm_relax__attr_bool(ctx, "ceil_mode");
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  if (!dd) return tvm_relax_tensor_sinfo_new(NULL, data->dtype, li.rank, data->vdevice);
  expr_pool p = {.n = 0};
  tvm_relax_sinfo_obj* out = NULL;
  tvm_tir_expr_obj* dims[TVM_RELAX_LAYOUT_MAX];
  for (int32_t k = 0; k < li.rank; ++k) {
    dims[k] = k >= 2 && k < 2 + s ? NULL
              : k < li.nprimal    ? tvm_ffi_seq_obj_at(dd, li.pos[k])
                                  : cst(&p, li.factor[k]);
  }
  for (int32_t i = 0; i < s; ++i) {
    tvm_tir_expr_obj* in = tvm_ffi_seq_obj_at(dd, li.pos[2 + i]);
    /* (in + pads - dilation * (k - 1) - 1 [+ stride - 1 with ceil_mode]) // stride + 1 */
    int64_t c = pad[i] + pad[s + i] - dilation[i] * (size[i] - 1) - 1;
    if (ceil_mode) c += strides[i] - 1;
    tvm_tir_expr_obj* st = cst(&p, strides[i]);
    tvm_tir_expr_obj* r =
        bin(&p, tvm_tir_add, bin(&p, tvm_tir_floordiv, bin(&p, tvm_tir_add, in, cst(&p, c)), st),
            cst(&p, 1));
    if (ceil_mode && r) {
      /* A last window that would start inside the after-padding is dropped (upstream). */
      tvm_tir_expr_obj* rm1 = bin(&p, tvm_tir_sub, r, cst(&p, 1));
      tvm_tir_expr_obj* start = bin(&p, tvm_tir_mul, rm1, st);
      tvm_tir_expr_obj* limit = bin(&p, tvm_tir_add, in, cst(&p, pad[i]));
      tvm_tir_expr_obj* cond = bin(&p, tvm_tir_ge, start, limit);
      r = cond && rm1 ? keep(&p, tvm_tir_if_then_else(cond, rm1, r)) : NULL;
    }
    dims[2 + i] = simp(&p, r);
    if (!dims[2 + i]) goto done;
    if (!check_out_dim(ctx, dims[2 + i], "spatial size")) goto done;
  }
  out = placed_result(dims, lo.pos, lo.rank, data->dtype, data->vdevice);
done:
  pool_free(&p);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_pool1d(const tvm_relax__infer_ctx* ctx) {
  return pool(ctx, 1);
}

tvm_relax_sinfo_obj* tvm_relax__infer_pool2d(const tvm_relax__infer_ctx* ctx) {
  return pool(ctx, 2);
}

tvm_relax_sinfo_obj* tvm_relax__infer_pool3d(const tvm_relax__infer_ctx* ctx) {
  return pool(ctx, 3);
}

/* adaptive_avg_pool over s spatial dims: data's shape with the spatial dims output_size (one
 * value for all, or one each), or kept when it is None; placed by out_layout. Packed dims
 * (NCHW16c) pass through. */
static tvm_relax_sinfo_obj* adaptive_pool(const tvm_relax__infer_ctx* ctx, int32_t s) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  tvm_relax__layout li, lo;
  if (pool_layouts(ctx, data, spatial_layout(s), &li, &lo) != 0) return NULL;
  bool sized = !tvm_relax__attr_is_none(ctx, "output_size");
  int64_t size[3];
  if (sized && expand_ints(ctx, "output_size", s, 1, size) != 0) return NULL;
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  if (!dd) return tvm_relax_tensor_sinfo_new(NULL, data->dtype, li.rank, data->vdevice);
  expr_pool p = {.n = 0};
  tvm_tir_expr_obj* dims[TVM_RELAX_LAYOUT_MAX];
  for (int32_t k = 0; k < li.rank; ++k) {
    dims[k] = sized && k >= 2 && k < 2 + s ? cst(&p, size[k - 2])
              : k < li.nprimal             ? tvm_ffi_seq_obj_at(dd, li.pos[k])
                                           : cst(&p, li.factor[k]);
  }
  tvm_relax_sinfo_obj* out = placed_result(dims, lo.pos, lo.rank, data->dtype, data->vdevice);
  pool_free(&p);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_adaptive_pool1d(const tvm_relax__infer_ctx* ctx) {
  return adaptive_pool(ctx, 1);
}

tvm_relax_sinfo_obj* tvm_relax__infer_adaptive_pool2d(const tvm_relax__infer_ctx* ctx) {
  return adaptive_pool(ctx, 2);
}

tvm_relax_sinfo_obj* tvm_relax__infer_adaptive_pool3d(const tvm_relax__infer_ctx* ctx) {
  return adaptive_pool(ctx, 3);
}

/* ---- pad, dropout ---------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_pad(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  const char* mode = tvm_relax__attr_str(ctx, "pad_mode");
  if (strcmp(mode, "constant") != 0 && strcmp(mode, "edge") != 0 && strcmp(mode, "reflect") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'pad_mode' must be \"constant\", \"edge\" or "
                               "\"reflect\", got \"%s\"", mode);
  }
  void* widths = tvm_relax__attr_ints(ctx, "pad_width");
  int64_t nw = tvm_ffi_seq_size(widths);
  if (data->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    if (nw % 2 != 0) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'pad_width' must have 2 values per dim, got %lld",
                                 (long long)nw);
    }
    return tvm_relax_tensor_sinfo_new(NULL, data->dtype, (int32_t)(nw / 2), data->vdevice);
  }
  if (nw != 2 * (int64_t)data->ndim) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'pad_width' must have 2 values per dim (%d for ndim %d), "
                               "got %lld", 2 * data->ndim, data->ndim, (long long)nw);
  }
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  if (!dd) return tvm_relax_tensor_sinfo_new(NULL, data->dtype, data->ndim, data->vdevice);
  if (data->ndim > 16) {
    return tvm_relax__op_error(ctx, "ValueError", "at most 16 dims are supported, got %d",
                               data->ndim);
  }
  expr_pool p = {.n = 0};
  tvm_tir_expr_obj* dims[16];
  tvm_relax_sinfo_obj* out = NULL;
  for (int32_t i = 0; i < data->ndim; ++i) {
    int64_t before = 0, after = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(widths, 2 * i), &before);
    tvm_ffi_any_as_int(tvm_ffi_seq_at(widths, 2 * i + 1), &after);
    dims[i] = simp(&p, bin(&p, tvm_tir_add, tvm_ffi_seq_obj_at(dd, i), cst(&p, before + after)));
    if (!dims[i]) goto done;
    int64_t v;
    if (tvm_tir_as_const_int(dims[i], &v) && v < 0) {
      tvm_relax__op_error(ctx, "ValueError", "attribute 'pad_width' makes dim %d negative (%lld)",
                          i, (long long)v);
      goto done;
    }
  }
  /* placed_result handles at most 8 dims; build the array directly. */
  void* arr = tvm_ffi_array_of_objects((void* const*)dims, data->ndim);
  if (arr) out = tvm_relax__tensor_result(arr, data->dtype, data->ndim, data->vdevice);
  tvm_ffi_release(arr);
done:
  pool_free(&p);
  return out;
}

/* nn.pixel_shuffle (upstream nn.cc): (..., C, H, W) -> (..., C / r^2, H * r, W * r) for
 * upscale_factor r >= 1 and ndim >= 3, a constant C divisible by r^2; no vdevice, as upstream.
 * (Upstream's checks abort on an unknown rank or a symbolic C; here an unknown rank gives an
 * unknown rank and a symbolic C is divided.) */
tvm_relax_sinfo_obj* tvm_relax__infer_pixel_shuffle(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  int64_t r = tvm_relax__attr_int(ctx, "upscale_factor");
  /* (upstream's attribute is an int: the bound also keeps r * r within int64) */
  if (r <= 0 || r > INT32_MAX) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'upscale_factor' must be in [1, 2147483647], got %lld",
                               (long long)r);
  }
  int32_t nd = data->ndim;
  if (nd != TVM_RELAX_UNKNOWN_NDIM && nd < 3) {
    return tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim >= 3, got %d", nd);
  }
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  if (!dd) return tvm_relax_tensor_sinfo_new(NULL, data->dtype, nd, NULL);
  if (nd > 16) {
    return tvm_relax__op_error(ctx, "ValueError", "at most 16 dims are supported, got %d", nd);
  }
  int64_t c;
  if (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dd, nd - 3), &c) && c % (r * r) != 0) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "must have channels (dim %d, %lld) divisible by upscale_factor^2 "
                                "(%lld)", nd - 3, (long long)c, (long long)(r * r));
  }
  expr_pool p = {.n = 0};
  tvm_tir_expr_obj* dims[16];
  tvm_relax_sinfo_obj* out = NULL;
  for (int32_t i = 0; i < nd; ++i) {
    tvm_tir_expr_obj* d = tvm_ffi_seq_obj_at(dd, i);
    if (i == nd - 3) {
      dims[i] = simp(&p, bin(&p, tvm_tir_floordiv, d, cst(&p, r * r)));
    } else if (i > nd - 3) {
      dims[i] = simp(&p, bin(&p, tvm_tir_mul, d, cst(&p, r)));
    } else {
      dims[i] = d;
    }
    if (!dims[i]) goto done;
  }
  void* arr = tvm_ffi_array_of_objects((void* const*)dims, nd);
  if (arr) out = tvm_relax__tensor_result(arr, data->dtype, nd, NULL);
  tvm_ffi_release(arr);
done:
  pool_free(&p);
  return out;
}

/* (output, mask), both of data's struct info, as upstream. */
tvm_relax_sinfo_obj* tvm_relax__infer_dropout(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  double rate = tvm_relax__attr_float(ctx, "rate");
  if (!(rate >= 0.0 && rate < 1.0)) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'rate' must be in [0, 1), got %g", rate);
  }
  void* f[2] = {data, data};
  void* arr = tvm_ffi_array_of_objects(f, 2);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax_tuple_sinfo_new(arr);
  tvm_ffi_release(arr);
  return out;
}

/* ---- attention ------------------------------------------------------------------------------- */
/* query (B, S, N, H), key (B, S_kv, N_kv, H), value (B, S_kv, N_kv, H_v), bias (B, N, S, S_kv)
 * with B, N and S broadcastable from 1; N a multiple of N_kv. Result (B, S, N, H_v). */
tvm_relax_sinfo_obj* tvm_relax__infer_attention(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* t[4] = {NULL, NULL, NULL, NULL};
  for (int32_t i = 0; i < ctx->num_args; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) return NULL;
    if (!check_ndim(ctx, i, t[i], 4, i < 3 ? "BSNH" : NULL)) return NULL;
  }
  const char* mask = tvm_relax__attr_str(ctx, "causal_mask");
  if (mask && strcmp(mask, "TopLeft") != 0 && strcmp(mask, "BottomRight") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'causal_mask' must be None, \"TopLeft\" or "
                               "\"BottomRight\", got \"%s\"", mask);
  }
  if (!tvm_relax__attr_is_none(ctx, "window_size") && tvm_relax__attr_int(ctx, "window_size") < 1) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'window_size' must be positive");
  }
  void* d[4] = {NULL, NULL, NULL, NULL};
  bool all_known = true;
  for (int32_t i = 0; i < ctx->num_args; ++i) {
    d[i] = tvm_relax_tensor_sinfo_dims(&t[i]->base);
    all_known = all_known && d[i];
  }
  if (!all_known) return tvm_relax_tensor_sinfo_new(NULL, t[0]->dtype, 4, t[0]->vdevice);
#define DIM(a, k) ((tvm_tir_expr_obj*)tvm_ffi_seq_obj_at(d[a], k))
  struct {
    int32_t a, ka, b, kb;
    const char* what;
  } eq[] = {{0, 0, 1, 0, "batch size"},     {0, 0, 2, 0, "batch size"},
            {1, 1, 2, 1, "sequence length"}, {0, 3, 1, 3, "head dim"},
            {1, 1, 3, 3, "sequence length"}};
  int32_t neq = ctx->num_args == 4 ? 5 : 4;
  tvm_ffi_strbuf x = {0}, y = {0}, na = {0}, nb = {0};
  tvm_relax_sinfo_obj* out = NULL;
  for (int32_t e = 0; e < neq; ++e) {
    if (tvm_relax__dim_unequal(DIM(eq[e].a, eq[e].ka), DIM(eq[e].b, eq[e].kb))) {
      tvm_relax__arg_name(ctx, eq[e].a, &na);
      tvm_relax__arg_name(ctx, eq[e].b, &nb);
      tvm_relax__op_error(ctx, "ValueError", "the %s of '%s' (%s) and of '%s' (%s) differ",
                          eq[e].what, tvm_ffi_strbuf_cstr(&na),
                          tvm_relax__dim_text(&x, DIM(eq[e].a, eq[e].ka)), tvm_ffi_strbuf_cstr(&nb),
                          tvm_relax__dim_text(&y, DIM(eq[e].b, eq[e].kb)));
      goto done;
    }
  }
  /* Grouped-query attention: query's heads a multiple of key's and value's. */
  for (int32_t i = 1; i < 3; ++i) {
    int64_t nq, nk;
    if (tvm_tir_as_const_int(DIM(0, 2), &nq) && tvm_tir_as_const_int(DIM(i, 2), &nk) && nk > 0 &&
        nq % nk != 0) {
      tvm_relax__arg_name(ctx, 0, &na);
      tvm_relax__arg_name(ctx, i, &nb);
      tvm_relax__op_error(ctx, "ValueError",
                          "the number of heads of '%s' (%lld) is not a multiple of that of "
                          "'%s' (%lld)", tvm_ffi_strbuf_cstr(&na), (long long)nq,
                          tvm_ffi_strbuf_cstr(&nb), (long long)nk);
      goto done;
    }
  }
  if (ctx->num_args == 4) {
    /* bias (B, N, S, S_kv): the first three may be 1 (broadcast). */
    static const int32_t qdim[3] = {0, 2, 1};
    static const char* const what[3] = {"batch size", "number of heads", "sequence length"};
    for (int32_t k = 0; k < 3; ++k) {
      int64_t one;
      tvm_tir_expr_obj* b = DIM(3, k);
      if (tvm_tir_as_const_int(b, &one) && one == 1) continue;
      if (tvm_relax__dim_unequal(DIM(0, qdim[k]), b)) {
        tvm_relax__op_error(ctx, "ValueError",
                            "the %s of 'bias' (%s) is neither 1 nor that of 'query' (%s)", what[k],
                            tvm_relax__dim_text(&x, b), tvm_relax__dim_text(&y, DIM(0, qdim[k])));
        goto done;
      }
    }
  }
  tvm_tir_expr_obj* dims[4] = {DIM(0, 0), DIM(0, 1), DIM(0, 2), DIM(2, 3)};
#undef DIM
  out = placed_result(dims, NULL, 4, t[0]->dtype, t[0]->vdevice);
done:
  tvm_ffi_strbuf_free(&x);
  tvm_ffi_strbuf_free(&y);
  tvm_ffi_strbuf_free(&na);
  tvm_ffi_strbuf_free(&nb);
  return out;
}

/* attention_var_len (upstream's Call order): queries (1, S, N, H), keys (1, S_kv, N_kv, H),
 * values (1, S_kv, N_kv, H_v), the sequences concatenated along axis 1; seqstart_q / seqstart_k
 * (B + 1,) int32; max_seqlen_q / max_seqlen_k () int32. Result (1, S, N, H_v). Upstream runs
 * attention's rule on the first three and asks only that the other four be tensors; the batch
 * of 1 (its documented layout) and the seqstarts' and max_seqlens' rank and dtype (what its
 * kernels read) are checked here as well, where known. */
tvm_relax_sinfo_obj* tvm_relax__infer_attention_var_len(const tvm_relax__infer_ctx* ctx) {
  /* queries, keys and values: attention's rule (its bias check keyed on a fourth argument) */
  tvm_relax__infer_ctx qkv = *ctx;
  qkv.num_args = 3;
  tvm_relax_sinfo_obj* out = tvm_relax__infer_attention(&qkv);
  if (!out) return NULL;
  void* d = tvm_relax_tensor_sinfo_dims(out);
  int64_t b;
  if (d && tvm_tir_as_const_int(tvm_ffi_seq_obj_at(d, 0), &b) && b != 1) {
    tvm_relax__arg_error(ctx, 0, "ValueError",
                         "must have batch size 1 (the sequences concatenated along axis 1), "
                         "got %lld", (long long)b);
    goto fail;
  }
  tvm_relax_tensor_sinfo_obj* t[7];
  for (int32_t i = 3; i < 7; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) goto fail;
    if (!check_ndim(ctx, i, t[i], i < 5 ? 1 : 0, NULL)) goto fail;
    if (!tvm_relax_dtype_is_unknown(t[i]->dtype) &&
        !tvm_ffi_dtype_equal(t[i]->dtype, tvm_tir_dtype_int(32))) {
      tvm_relax__arg_error(ctx, i, "TypeError", "must be an int32 tensor, got dtype %s",
                           tvm_tir_dtype_str(t[i]->dtype).s);
      goto fail;
    }
  }
  void* sq = tvm_relax_tensor_sinfo_dims(&t[3]->base);
  void* sk = tvm_relax_tensor_sinfo_dims(&t[4]->base);
  if (sq && sk && tvm_relax__dim_unequal(tvm_ffi_seq_obj_at(sq, 0), tvm_ffi_seq_obj_at(sk, 0))) {
    tvm_ffi_strbuf x = {0}, y = {0};
    tvm_relax__op_error(ctx, "ValueError",
                        "'seqstart_q' (%s,) and 'seqstart_k' (%s,) differ in length: both hold "
                        "each sequence's start, then the end",
                        tvm_relax__dim_text(&x, tvm_ffi_seq_obj_at(sq, 0)),
                        tvm_relax__dim_text(&y, tvm_ffi_seq_obj_at(sk, 0)));
    tvm_ffi_strbuf_free(&x);
    tvm_ffi_strbuf_free(&y);
    goto fail;
  }
  return out;
fail:
  tvm_ffi_release(out);
  return NULL;
}

/* ---- resize2d / resize3d -------------------------------------------------------------------- */
/* s spatial dims: 2 (NCHW, size of 2 dims, roi of 4 numbers) or 3 (NCDHW, 3 dims, 6 numbers). */
static tvm_relax_sinfo_obj* resize(const tvm_relax__infer_ctx* ctx, int32_t s) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  tvm_relax_sinfo_obj* ss = tvm_relax__arg_sinfo(ctx, 1);
  if (tvm_relax_kind_of(ss) != TVM_RELAX_KIND_ShapeStructInfo) {
    tvm_ffi_strbuf got = {0};
    tvm_relax_sinfo_text(&got, ss);
    tvm_relax__arg_error(ctx, 1, "TypeError", "must be a shape of %d dims (R.shape([%s])), got %s", s,
                         s == 2 ? "h, w" : "d, h, w", tvm_ffi_strbuf_cstr(&got));
    tvm_ffi_strbuf_free(&got);
    return NULL;
  }
  const tvm_relax_shape_sinfo_obj* shape = (const tvm_relax_shape_sinfo_obj*)ss;
  if (shape->ndim != TVM_RELAX_UNKNOWN_NDIM && shape->ndim != s) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must be a shape of %d dims, got %d", s,
                                shape->ndim);
  }
  const char* method = tvm_relax__attr_str(ctx, "method");
  if (strcmp(method, "nearest_neighbor") != 0 && strcmp(method, "linear") != 0 &&
      strcmp(method, "cubic") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'method' must be \"nearest_neighbor\", \"linear\" or "
                               "\"cubic\", got \"%s\"", method);
  }
  const TVMFFIAny* roi = tvm_relax__attr(ctx, "roi");
  if (!tvm_ffi_any_is_none(roi)) {
    bool ok = roi->type_index == kTVMFFIArray && tvm_ffi_seq_size(roi->v_obj) == 2 * s;
    for (int64_t i = 0; ok && i < 2 * s; ++i) {
      double v;
      const TVMFFIAny* it = tvm_ffi_seq_at(roi->v_obj, i);
      ok = it->type_index == kTVMFFIFloat || it->type_index == kTVMFFIInt ||
           (tvm_ffi_any_is_object(it) && tvm_tir_as_const_float(it->v_obj, &v));
    }
    if (!ok) {
      return tvm_relax__op_error(ctx, "TypeError", "attribute 'roi' must be None or %d numbers",
                                 2 * s);
    }
  }
  /* the layout may pack N or C (NCHW16c), whose dims pass through like N and C */
  const char* layout = tvm_relax__attr_str(ctx, "layout");
  tvm_relax__layout L;
  if (pool_layouts(ctx, data, s == 2 ? "NCHW" : "NCDHW", &L, NULL) != 0) return NULL;
  DLDataType dtype = tvm_relax__attr_dtype(ctx, "out_dtype");
  if (tvm_relax_dtype_is_unknown(dtype)) dtype = data->dtype;
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  void* sd = shape->values;
  if (!dd || !sd) return tvm_relax_tensor_sinfo_new(NULL, dtype, L.rank, data->vdevice);
  tvm_tir_expr_obj* dims[TVM_RELAX_LAYOUT_MAX];
  for (int32_t k = 0; k < L.rank; ++k) {
    dims[k] = k >= 2 && k < 2 + s ? tvm_ffi_seq_obj_at(sd, k - 2)
                                  : tvm_ffi_seq_obj_at(dd, L.pos[k]);
  }
  /* An empty input axis has no pixel to interpolate from: refused when the output is provably
   * not empty (upstream's topi would read index -1; the kernel asserts in the other cases). */
  bool nonempty = true;
  for (int32_t i = 0; i < L.rank; ++i) {
    int64_t c;
    nonempty &= tvm_tir_as_const_int(dims[i], &c) && c > 0;
  }
  for (int32_t i = 0; nonempty && i < s; ++i) {
    int64_t c;
    if (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dd, L.pos[2 + i]), &c) && c == 0) {
      return tvm_relax__arg_error(ctx, 0, "ValueError",
                                  "has an empty spatial dim (%c of %s is 0), so the non-empty "
                                  "output has nothing to interpolate from",
                                  L.letter[2 + i], layout);
    }
  }
  return placed_result(dims, L.pos, L.rank, dtype, data->vdevice);
}

tvm_relax_sinfo_obj* tvm_relax__infer_resize2d(const tvm_relax__infer_ctx* ctx) {
  return resize(ctx, 2);
}

tvm_relax_sinfo_obj* tvm_relax__infer_resize3d(const tvm_relax__infer_ctx* ctx) {
  return resize(ctx, 3);
}

/* ---- grid_sample ----------------------------------------------------------------------------- */
/*
 * grid_sample(data, grid) (upstream image/resize.cc): data in `layout`, a permutation of NCHW
 * (s = 2 spatial dims) or of NCDHW (s = 3); grid (N, s, *out) in TVM's layout whatever data's
 * (grid[:, 0] the x / W coordinate, then y, then z); the result (N, C, *out) placed by the
 * layout, of data's dtype and vdevice. Beyond upstream's rule (which checks neither tensor past
 * data's rank and reads grid dims it has not checked exist): data and grid must be floats
 * (unknown dtypes pass), grid of rank s + 2 with s coordinates, the batches not provably
 * different; method, padding_mode and the method's rank are checked here (upstream's topi
 * asserts them at legalization: bicubic is 2-d only).
 */
tvm_relax_sinfo_obj* tvm_relax__infer_grid_sample(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* grid = data ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!grid || !check_float(ctx, 0, data) || !check_float(ctx, 1, grid)) return NULL;
  const char* method = tvm_relax__attr_str(ctx, "method");
  const char* pad = tvm_relax__attr_str(ctx, "padding_mode");
  const char* layout = tvm_relax__attr_str(ctx, "layout");
  if (strcmp(method, "bilinear") != 0 && strcmp(method, "nearest") != 0 &&
      strcmp(method, "bicubic") != 0) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'method' must be \"bilinear\", "
                               "\"nearest\" or \"bicubic\", got \"%s\"", method);
  }
  if (strcmp(pad, "zeros") != 0 && strcmp(pad, "border") != 0 && strcmp(pad, "reflection") != 0) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'padding_mode' must be \"zeros\", "
                               "\"border\" or \"reflection\", got \"%s\"", pad);
  }
  int32_t s = layout && strlen(layout) == 5 ? 3 : 2, pos[5];
  if (layout_perm(ctx, "layout", layout, s == 2 ? "NCHW" : "NCDHW", pos) != 0) return NULL;
  if (s == 3 && strcmp(method, "bicubic") == 0) {
    return tvm_relax__op_error(ctx, "ValueError", "method \"bicubic\" is 2-d only, got layout "
                               "%s", layout);
  }
  if (!check_ndim(ctx, 0, data, s + 2, layout) || !check_ndim(ctx, 1, grid, s + 2, NULL)) {
    return NULL;
  }
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  void* gd = tvm_relax_tensor_sinfo_dims(&grid->base);
  int64_t c;
  if (gd && tvm_tir_as_const_int(tvm_ffi_seq_obj_at(gd, 1), &c) && c != s) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must have %d coordinates (dim 1) for "
                                "layout %s, got %lld", s, layout, (long long)c);
  }
  tvm_tir_expr_obj* nd = dd ? tvm_ffi_seq_obj_at(dd, pos[0]) : NULL;
  tvm_tir_expr_obj* ng = gd ? tvm_ffi_seq_obj_at(gd, 0) : NULL;
  if (nd && ng && tvm_relax__dim_unequal(nd, ng)) {
    tvm_ffi_strbuf a = {0}, b = {0};
    tvm_relax__op_error(ctx, "ValueError", "arguments 'data' and 'grid' have different batch "
                        "sizes %s and %s",
                        tvm_relax__dim_text(&a, nd), tvm_relax__dim_text(&b, ng));
    tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  if (!dd || !gd) return tvm_relax_tensor_sinfo_new(NULL, data->dtype, s + 2, data->vdevice);
  tvm_tir_expr_obj* dims[5] = {nd, tvm_ffi_seq_obj_at(dd, pos[1]), NULL, NULL, NULL};
  for (int32_t i = 0; i < s; ++i) dims[2 + i] = tvm_ffi_seq_obj_at(gd, 2 + i);
  return placed_result(dims, pos, s + 2, data->dtype, data->vdevice);
}
