/*
 * op_vision.c: inference rules and attribute schemas of image.affine_grid, vision.roi_align,
 * vision.roi_pool, vision.get_valid_counts, vision.non_max_suppression,
 * vision.all_class_non_max_suppression and vision.multibox_transform_loc, following upstream's
 * relax/op/image/resize.cc (affine_grid) and
 * relax/op/vision/{roi_align,roi_pool,nms,multibox_transform_loc}.cc. The results of
 * get_valid_counts and the two NMS operators have fixed shapes, as upstream's: the selected
 * entries first, then padding, with a count of the valid ones as a separate result.
 *
 * A check raises only when a mismatch is provable (constants, or libtir's prover); unknown
 * shapes give results of known rank.
 */
#include <string.h>

#include "internal.h"

/* ---- Schemas --------------------------------------------------------------------------------- */
const tvm_relax_attr_field tvm_relax__attrs_affine_grid[] = {
    {"align_corners", TVM_RELAX_ATTR_BOOL, "true"}, {NULL, 0, NULL}};
/* pooled_size: 1 value (both dims) or 2; spatial_scale required, as upstream's wrapper. */
const tvm_relax_attr_field tvm_relax__attrs_roi_align[] = {
    {"pooled_size", TVM_RELAX_ATTR_INTS, NULL},
    {"spatial_scale", TVM_RELAX_ATTR_FLOAT, NULL},
    {"sample_ratio", TVM_RELAX_ATTR_INT, "-1"},
    {"aligned", TVM_RELAX_ATTR_BOOL, "false"},
    {"layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {"mode", TVM_RELAX_ATTR_STR, "avg"},
    {NULL, 0, NULL}};
/* roi_pool (upstream's ROIPoolAttrs): pooled_size and spatial_scale required, as roi_align's;
 * NCHW is the only layout upstream's rule and kernel take. */
const tvm_relax_attr_field tvm_relax__attrs_roi_pool[] = {
    {"pooled_size", TVM_RELAX_ATTR_INTS, NULL},
    {"spatial_scale", TVM_RELAX_ATTR_FLOAT, NULL},
    {"layout", TVM_RELAX_ATTR_STR, "NCHW"},
    {NULL, 0, NULL}};
/* get_valid_counts (upstream's GetValidCountsAttrs and wrapper defaults). */
const tvm_relax_attr_field tvm_relax__attrs_get_valid_counts[] = {
    {"score_threshold", TVM_RELAX_ATTR_FLOAT, "0"},
    {"id_index", TVM_RELAX_ATTR_INT, "0"},
    {"score_index", TVM_RELAX_ATTR_INT, "1"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_non_max_suppression[] = {
    {"max_output_size", TVM_RELAX_ATTR_INT, "-1"},
    {"iou_threshold", TVM_RELAX_ATTR_FLOAT, "0.5"},
    {"force_suppress", TVM_RELAX_ATTR_BOOL, "false"},
    {"top_k", TVM_RELAX_ATTR_INT, "-1"},
    {"coord_start", TVM_RELAX_ATTR_INT, "2"},
    {"score_index", TVM_RELAX_ATTR_INT, "1"},
    {"id_index", TVM_RELAX_ATTR_INT, "0"},
    {"return_indices", TVM_RELAX_ATTR_BOOL, "true"},
    {"invalid_to_bottom", TVM_RELAX_ATTR_BOOL, "false"},
    {"soft_nms_sigma", TVM_RELAX_ATTR_FLOAT, "0"},
    {"score_threshold", TVM_RELAX_ATTR_FLOAT, "0"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_all_class_nms[] = {
    {"output_format", TVM_RELAX_ATTR_STR, "onnx"}, {NULL, 0, NULL}};
/* multibox_transform_loc (upstream's MultiboxTransformLocAttrs, its wrapper's order and
 * defaults); variances (x, y, w, h) are TFLite's 1 / x_scale, 1 / y_scale, 1 / w_scale,
 * 1 / h_scale. */
const tvm_relax_attr_field tvm_relax__attrs_multibox_transform_loc[] = {
    {"clip", TVM_RELAX_ATTR_BOOL, "false"},
    {"threshold", TVM_RELAX_ATTR_FLOAT, "0"},
    {"variances", TVM_RELAX_ATTR_FLOATS, "1, 1, 1, 1"},
    {"keep_background", TVM_RELAX_ATTR_BOOL, "true"},
    {"apply_softmax", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};

/* ---- Helpers --------------------------------------------------------------------------------- */
static const DLDataType k_i32 = {kDLInt, 32, 1}, k_i64 = {kDLInt, 64, 1}, k_f32 = {kDLFloat, 32, 1};

/* Argument i as a tensor of rank want (unknown rank accepted); NULL + located error. */
static tvm_relax_tensor_sinfo_obj* tensor_of_rank(const tvm_relax__infer_ctx* ctx, int32_t i,
                                                  int32_t want) {
  tvm_relax_tensor_sinfo_obj* t = tvm_relax__arg_tensor(ctx, i);
  if (t && t->ndim != TVM_RELAX_UNKNOWN_NDIM && t->ndim != want) {
    return tvm_relax__arg_error(ctx, i, "ValueError", "must have ndim %d, got %d", want, t->ndim);
  }
  return t;
}

/* Raise "argument 'a' ... dim ka (x) differs from ... 'b' dim kb (y)" when provably unequal;
 * false then. */
static bool check_same_dim(const tvm_relax__infer_ctx* ctx, void* da, int32_t a, int32_t ka,
                           void* db, int32_t b, int32_t kb, const char* what) {
  if (!da || !db) return true;
  tvm_tir_expr_obj* x = tvm_ffi_seq_obj_at(da, ka);
  tvm_tir_expr_obj* y = tvm_ffi_seq_obj_at(db, kb);
  if (!tvm_relax__dim_unequal(x, y)) return true;
  tvm_ffi_strbuf na = {0}, nb = {0}, tx = {0}, ty = {0};
  tvm_relax__arg_name(ctx, a, &na);
  tvm_relax__arg_name(ctx, b, &nb);
  tvm_relax__op_error(ctx, "ValueError", "the %s of '%s' (%s) and of '%s' (%s) differ", what,
                      tvm_ffi_strbuf_cstr(&na), tvm_relax__dim_text(&tx, x),
                      tvm_ffi_strbuf_cstr(&nb), tvm_relax__dim_text(&ty, y));
  tvm_ffi_strbuf_free(&na), tvm_ffi_strbuf_free(&nb);
  tvm_ffi_strbuf_free(&tx), tvm_ffi_strbuf_free(&ty);
  return false;
}

/* A tensor of the n dims (borrowed; NULL dims: unknown shape of rank n). */
static tvm_relax_sinfo_obj* tensor(tvm_tir_expr_obj* const* dims, int32_t n, DLDataType dtype,
                                   void* vdevice) {
  if (!dims) return tvm_relax_tensor_sinfo_new(NULL, dtype, n, vdevice);
  void* arr = tvm_ffi_array_of_objects((void* const*)dims, n);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax__tensor_result(arr, dtype, n, vdevice);
  tvm_ffi_release(arr);
  return out;
}

/* The tuple of the n fields (consumed). */
static tvm_relax_sinfo_obj* tuple_take(tvm_relax_sinfo_obj** f, int32_t n) {
  tvm_relax_sinfo_obj* out = NULL;
  bool ok = true;
  for (int32_t i = 0; i < n; ++i) ok = ok && f[i];
  if (ok) {
    void* arr = tvm_ffi_array_of_objects((void* const*)f, n);
    if (arr) out = tvm_relax_tuple_sinfo_new(arr);
    tvm_ffi_release(arr);
  }
  for (int32_t i = 0; i < n; ++i) tvm_ffi_release(f[i]);
  return out;
}

static bool const_dim(void* dims, int32_t k, int64_t* v) {
  return dims && tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, k), v);
}

/* ---- image.affine_grid ----------------------------------------------------------------------- */
/* data (N, s, s + 1), size a shape of s = 2 or 3 dims: the grid (N, s, *size). */
tvm_relax_sinfo_obj* tvm_relax__infer_affine_grid(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tensor_of_rank(ctx, 0, 3);
  if (!data) return NULL;
  tvm_relax_sinfo_obj* ss = tvm_relax__arg_sinfo(ctx, 1);
  if (tvm_relax_kind_of(ss) != TVM_RELAX_KIND_ShapeStructInfo) {
    return tvm_relax__arg_kind_error(ctx, 1, "a shape of 2 or 3 dims (R.shape([h, w]))");
  }
  const tvm_relax_shape_sinfo_obj* shape = (const tvm_relax_shape_sinfo_obj*)ss;
  if (shape->ndim != 2 && shape->ndim != 3) {
    if (shape->ndim == TVM_RELAX_UNKNOWN_NDIM) {
      return tvm_relax__arg_error(ctx, 1, "ValueError", "must be a shape of known rank 2 or 3");
    }
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must be a shape of 2 or 3 dims, got %d",
                                shape->ndim);
  }
  int32_t s = shape->ndim;
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  int64_t v;
  if (const_dim(dd, 1, &v) && v != s) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "must be (batch, %d, %d) for a %d-d size, got dim 1 = %lld", s,
                                s + 1, s, (long long)v);
  }
  if (const_dim(dd, 2, &v) && v != s + 1) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "must be (batch, %d, %d) for a %d-d size, got dim 2 = %lld", s,
                                s + 1, s, (long long)v);
  }
  if (!dd || !shape->values) return tensor(NULL, s + 2, data->dtype, data->vdevice);
  tvm_tir_expr_obj* ns = tvm_relax__int64(s);
  tvm_tir_expr_obj* dims[5] = {tvm_ffi_seq_obj_at(dd, 0), ns, NULL, NULL, NULL};
  for (int32_t i = 0; i < s; ++i) dims[2 + i] = tvm_ffi_seq_obj_at(shape->values, i);
  tvm_relax_sinfo_obj* out = ns ? tensor(dims, s + 2, data->dtype, data->vdevice) : NULL;
  tvm_ffi_release(ns);
  return out;
}

/* ---- vision.roi_align, vision.roi_pool ------------------------------------------------------- */
/* pooled_size (1 value for both dims, or 2) into pooled[2], each positive, and spatial_scale
 * positive; false + ValueError otherwise. */
static bool roi_attrs(const tvm_relax__infer_ctx* ctx, int64_t pooled[2]) {
  void* ps = tvm_relax__attr_ints(ctx, "pooled_size");
  int64_t np = tvm_ffi_seq_size(ps);
  if (np != 1 && np != 2) {
    tvm_relax__op_error(ctx, "ValueError",
                        "attribute 'pooled_size' must have 1 or 2 values, got %lld", (long long)np);
    return false;
  }
  for (int64_t i = 0; i < 2; ++i) {
    pooled[i] = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(ps, np == 1 ? 0 : i), &pooled[i]);
    if (pooled[i] < 1) {
      tvm_relax__op_error(ctx, "ValueError", "attribute 'pooled_size' must be positive, got %lld",
                          (long long)pooled[i]);
      return false;
    }
  }
  double scale = tvm_relax__attr_float(ctx, "spatial_scale");
  if (!(scale > 0.0)) {
    tvm_relax__op_error(ctx, "ValueError", "attribute 'spatial_scale' must be positive, got %g",
                        scale);
    return false;
  }
  return true;
}

/* The pooled result of data and rois (R, 5): (R, C, ph, pw), or (R, ph, pw, C) for NHWC, of
 * data's dtype; the rank only when a shape is unknown. */
static tvm_relax_sinfo_obj* roi_result(const tvm_relax__infer_ctx* ctx,
                                       const tvm_relax_tensor_sinfo_obj* data,
                                       const tvm_relax_tensor_sinfo_obj* rois,
                                       const int64_t pooled[2], bool nchw) {
  void* rd = tvm_relax_tensor_sinfo_dims(&rois->base);
  int64_t v;
  if (const_dim(rd, 1, &v) && v != 5) {
    return tvm_relax__arg_error(
        ctx, 1, "ValueError",
        "must be (num_roi, 5) [batch index, x1, y1, x2, y2], got last dim %lld", (long long)v);
  }
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  if (!dd || !rd) return tensor(NULL, 4, data->dtype, data->vdevice);
  tvm_tir_expr_obj* ph = tvm_relax__int64(pooled[0]);
  tvm_tir_expr_obj* pw = tvm_relax__int64(pooled[1]);
  tvm_tir_expr_obj* r = tvm_ffi_seq_obj_at(rd, 0);
  tvm_tir_expr_obj* c = tvm_ffi_seq_obj_at(dd, nchw ? 1 : 3);
  tvm_tir_expr_obj* dims[4] = {r, nchw ? c : ph, nchw ? ph : pw, nchw ? pw : c};
  tvm_relax_sinfo_obj* out = ph && pw ? tensor(dims, 4, data->dtype, data->vdevice) : NULL;
  tvm_ffi_release(ph), tvm_ffi_release(pw);
  return out;
}

/* data (N, C, H, W) or NHWC, rois (R, 5) [batch index, x1, y1, x2, y2]: (R, C, ph, pw) or
 * (R, ph, pw, C). */
tvm_relax_sinfo_obj* tvm_relax__infer_roi_align(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tensor_of_rank(ctx, 0, 4);
  tvm_relax_tensor_sinfo_obj* rois = data ? tensor_of_rank(ctx, 1, 2) : NULL;
  if (!rois) return NULL;
  const char* layout = tvm_relax__attr_str(ctx, "layout");
  bool nchw = strcmp(layout, "NCHW") == 0;
  if (!nchw && strcmp(layout, "NHWC") != 0) {
    return tvm_relax__op_error(
        ctx, "ValueError", "attribute 'layout' must be \"NCHW\" or \"NHWC\", got \"%s\"", layout);
  }
  const char* mode = tvm_relax__attr_str(ctx, "mode");
  if (strcmp(mode, "avg") != 0 && strcmp(mode, "max") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'mode' must be \"avg\" or \"max\", got \"%s\"", mode);
  }
  int64_t pooled[2];
  if (!roi_attrs(ctx, pooled)) return NULL;
  return roi_result(ctx, data, rois, pooled, nchw);
}

/* ---- vision.roi_pool ------------------------------------------------------------------------- */
/* data (N, C, H, W), rois (R, 5) [batch index, x1, y1, x2, y2] of a float dtype (the kernel
 * rounds them): (R, C, ph, pw) of data's dtype. Upstream's rule, plus the checks roi_align makes
 * of pooled_size and spatial_scale, and of the dtypes: rois float, data a number. */
tvm_relax_sinfo_obj* tvm_relax__infer_roi_pool(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tensor_of_rank(ctx, 0, 4);
  tvm_relax_tensor_sinfo_obj* rois = data ? tensor_of_rank(ctx, 1, 2) : NULL;
  if (!rois) return NULL;
  DLDataType t = data->dtype;
  bool numeric =
      tvm_tir_dtype_is_floating(t) || (tvm_tir_dtype_is_integer(t) && !tvm_tir_dtype_is_bool(t));
  if (!tvm_relax_dtype_is_unknown(t) && !numeric) {
    return tvm_relax__arg_error(ctx, 0, "TypeError", "must have a numeric dtype, got %s",
                                tvm_tir_dtype_str(data->dtype).s);
  }
  if (!tvm_relax_dtype_is_unknown(rois->dtype) && !tvm_tir_dtype_is_floating(rois->dtype)) {
    return tvm_relax__arg_error(ctx, 1, "TypeError", "must have a float dtype, got %s",
                                tvm_tir_dtype_str(rois->dtype).s);
  }
  const char* layout = tvm_relax__attr_str(ctx, "layout");
  if (strcmp(layout, "NCHW") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'layout' must be \"NCHW\" (the only layout), got \"%s\"",
                               layout);
  }
  int64_t pooled[2];
  if (!roi_attrs(ctx, pooled)) return NULL;
  return roi_result(ctx, data, rois, pooled, true);
}

/* ---- vision.get_valid_counts ----------------------------------------------------------------- */
/* data (B, A, L), a box per row with its score at score_index and class id at id_index (-1: no
 * class check): (valid_count (B,) int32, data with the valid boxes moved to the front (B, A, L),
 * their indices (B, A) int32). As upstream's rule; beyond it, the indices are checked against a
 * symbolic L too (score_index >= 0, id_index >= -1) and data's dtype must be a float or a signed
 * integer (the kernel compares scores with the threshold and pads with -1). */
tvm_relax_sinfo_obj* tvm_relax__infer_get_valid_counts(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tensor_of_rank(ctx, 0, 3);
  if (!data) return NULL;
  DLDataType t = data->dtype;
  if (!tvm_relax_dtype_is_unknown(t) && !tvm_tir_dtype_is_floating(t) &&
      !(t.code == kDLInt && t.lanes == 1)) {
    return tvm_relax__arg_error(ctx, 0, "TypeError",
                                "must have a float or signed integer dtype, got %s",
                                tvm_tir_dtype_str(t).s);
  }
  int64_t si = tvm_relax__attr_int(ctx, "score_index");
  int64_t ii = tvm_relax__attr_int(ctx, "id_index");
  void* d = tvm_relax_tensor_sinfo_dims(&data->base);
  int64_t len = INT64_MAX;
  bool known = const_dim(d, 2, &len);
  if (si < 0 || si >= len) {
    if (!known) {
      return tvm_relax__op_error(
          ctx, "ValueError", "attribute 'score_index' (%lld) must be non-negative", (long long)si);
    }
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'score_index' (%lld) must be in [0, %lld)", (long long)si,
                               (long long)len);
  }
  if (ii < -1 || ii >= len) {
    if (!known) {
      return tvm_relax__op_error(ctx, "ValueError", "attribute 'id_index' (%lld) must be >= -1",
                                 (long long)ii);
    }
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'id_index' (%lld) must be in [-1, %lld)", (long long)ii,
                               (long long)len);
  }
  void* vdev = data->vdevice;
  tvm_relax_sinfo_obj* f[3];
  if (!d) {
    f[0] = tensor(NULL, 1, k_i32, vdev);
    f[1] = tensor(NULL, 3, t, vdev);
    f[2] = tensor(NULL, 2, k_i32, vdev);
    return tuple_take(f, 3);
  }
  tvm_tir_expr_obj* ba[2] = {tvm_ffi_seq_obj_at(d, 0), tvm_ffi_seq_obj_at(d, 1)};
  f[0] = tensor(ba, 1, k_i32, vdev);
  f[1] = tvm_relax__tensor_result(d, t, 3, vdev);
  f[2] = tensor(ba, 2, k_i32, vdev);
  return tuple_take(f, 3);
}

/* ---- vision.non_max_suppression -------------------------------------------------------------- */
/* data (B, A, L) [class id, score, x1, y1, x2, y2 by default], valid_count (B,) int32, indices
 * (B, A) int32. return_indices: (box_indices (B, A) int32, valid_box_count (B, 1) int32), with
 * the decayed data first for soft-NMS (soft_nms_sigma > 0); otherwise the data reordered. */
tvm_relax_sinfo_obj* tvm_relax__infer_non_max_suppression(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* t[3] = {NULL, NULL, NULL};
  static const int32_t rank[3] = {3, 1, 2};
  for (int32_t i = 0; i < 3; ++i) {
    if (!(t[i] = tensor_of_rank(ctx, i, rank[i]))) return NULL;
    if (i > 0 && !tvm_relax_dtype_is_unknown(t[i]->dtype) &&
        !(t[i]->dtype.code == kDLInt && t[i]->dtype.bits == 32 && t[i]->dtype.lanes == 1)) {
      return tvm_relax__arg_error(ctx, i, "TypeError", "must have dtype int32");
    }
  }
  void* d[3];
  for (int32_t i = 0; i < 3; ++i) d[i] = tvm_relax_tensor_sinfo_dims(&t[i]->base);
  if (!check_same_dim(ctx, d[0], 0, 0, d[1], 1, 0, "batch size") ||
      !check_same_dim(ctx, d[0], 0, 0, d[2], 2, 0, "batch size") ||
      !check_same_dim(ctx, d[0], 0, 1, d[2], 2, 1, "number of anchors")) {
    return NULL;
  }
  int64_t len;
  if (const_dim(d[0], 2, &len)) {
    int64_t si = tvm_relax__attr_int(ctx, "score_index");
    int64_t cs = tvm_relax__attr_int(ctx, "coord_start");
    int64_t ii = tvm_relax__attr_int(ctx, "id_index");
    if (si < 0 || si >= len) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'score_index' (%lld) must be in [0, %lld)",
                                 (long long)si, (long long)len);
    }
    if (cs < 0 || cs + 3 >= len) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'coord_start' (%lld) must start 4 coordinates within "
                                 "the %lld elements of a box",
                                 (long long)cs, (long long)len);
    }
    if (ii < -1 || ii >= len) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'id_index' (%lld) must be in [-1, %lld)", (long long)ii,
                                 (long long)len);
    }
  }
  void* vdev = t[0]->vdevice;
  if (!tvm_relax__attr_bool(ctx, "return_indices")) {
    return d[0] ? tvm_relax__tensor_result(d[0], t[0]->dtype, 3, vdev)
                : tensor(NULL, 3, t[0]->dtype, vdev);
  }
  bool soft = tvm_relax__attr_float(ctx, "soft_nms_sigma") > 0.0;
  tvm_relax_sinfo_obj* f[3] = {NULL, NULL, NULL};
  int32_t n = 0;
  if (soft) {
    f[n++] = d[0] ? tvm_relax__tensor_result(d[0], t[0]->dtype, 3, vdev)
                  : tensor(NULL, 3, t[0]->dtype, vdev);
  }
  if (!d[0]) {
    f[n++] = tensor(NULL, 2, k_i32, vdev);
    f[n++] = tensor(NULL, 2, k_i32, vdev);
    return tuple_take(f, n);
  }
  tvm_tir_expr_obj* one = tvm_relax__int64(1);
  tvm_tir_expr_obj* bi[2] = {tvm_ffi_seq_obj_at(d[0], 0), tvm_ffi_seq_obj_at(d[0], 1)};
  tvm_tir_expr_obj* bc[2] = {tvm_ffi_seq_obj_at(d[0], 0), one};
  f[n++] = tensor(bi, 2, k_i32, vdev);
  f[n++] = one ? tensor(bc, 2, k_i32, vdev) : NULL;
  tvm_ffi_release(one);
  return tuple_take(f, n);
}

/* ---- vision.all_class_non_max_suppression ---------------------------------------------------- */
/* boxes (B, N, 4), scores (B, C, N); max_output_boxes_per_class, iou_threshold and
 * score_threshold scalars (a tensor or a PrimValue). "onnx": (selected (B * C * N, 3) int64
 * [batch, class, box], count (1,) int64); "tensorflow": (indices (B, C * N, 2) int64 [class, box],
 * scores (B, C * N) float32, counts (B,) int64). */
tvm_relax_sinfo_obj* tvm_relax__infer_all_class_nms(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* boxes = tensor_of_rank(ctx, 0, 3);
  tvm_relax_tensor_sinfo_obj* scores = boxes ? tensor_of_rank(ctx, 1, 3) : NULL;
  if (!scores) return NULL;
  for (int32_t i = 2; i < 5; ++i) {
    tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
    tvm_relax_kind k = tvm_relax_kind_of(s);
    if (k == TVM_RELAX_KIND_PrimStructInfo) continue;
    if (k != TVM_RELAX_KIND_TensorStructInfo) {
      return tvm_relax__arg_kind_error(ctx, i,
                                       "a scalar (a tensor of one element or R.prim_value)");
    }
    tvm_relax_tensor_sinfo_obj* t = (tvm_relax_tensor_sinfo_obj*)s;
    void* td = tvm_relax_tensor_sinfo_dims(&t->base);
    for (int64_t k2 = 0; td && k2 < tvm_ffi_seq_size(td); ++k2) {
      int64_t v;
      if (const_dim(td, (int32_t)k2, &v) && v != 1) {
        return tvm_relax__arg_error(ctx, i, "ValueError",
                                    "must have one element, got dim %lld = %lld", (long long)k2,
                                    (long long)v);
      }
    }
  }
  const char* fmt = tvm_relax__attr_str(ctx, "output_format");
  bool onnx = strcmp(fmt, "onnx") == 0;
  if (!onnx && strcmp(fmt, "tensorflow") != 0) {
    return tvm_relax__op_error(
        ctx, "ValueError",
        "attribute 'output_format' must be \"onnx\" or \"tensorflow\", got \"%s\"", fmt);
  }
  void* bd = tvm_relax_tensor_sinfo_dims(&boxes->base);
  void* sd = tvm_relax_tensor_sinfo_dims(&scores->base);
  int64_t v;
  if (const_dim(bd, 2, &v) && v != 4) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "must be (batch, num_boxes, 4), got last dim %lld", (long long)v);
  }
  if (!check_same_dim(ctx, bd, 0, 0, sd, 1, 0, "batch size") ||
      !check_same_dim(ctx, bd, 0, 1, sd, 1, 2, "number of boxes")) {
    return NULL;
  }
  void* vdev = boxes->vdevice;
  tvm_relax_sinfo_obj* f[3] = {NULL, NULL, NULL};
  if (!bd || !sd) {
    if (onnx) {
      f[0] = tensor(NULL, 2, k_i64, vdev);
      f[1] = tensor(NULL, 1, k_i64, vdev);
      return tuple_take(f, 2);
    }
    f[0] = tensor(NULL, 3, k_i64, vdev);
    f[1] = tensor(NULL, 2, k_f32, vdev);
    f[2] = tensor(NULL, 1, k_i64, vdev);
    return tuple_take(f, 3);
  }
  tvm_tir_expr_obj* b = tvm_ffi_seq_obj_at(bd, 0);
  /* upstream's products: batch * num_classes * num_boxes, num_classes * num_boxes */
  tvm_tir_expr_obj* prod = onnx ? tvm_tir_mul(b, tvm_ffi_seq_obj_at(sd, 1)) : NULL;
  tvm_tir_expr_obj* cn =
      tvm_tir_mul(onnx ? prod : tvm_ffi_seq_obj_at(sd, 1), tvm_ffi_seq_obj_at(bd, 1));
  tvm_tir_expr_obj* cns = cn ? tvm_tir_simplify_expr(cn, NULL) : NULL;
  tvm_ffi_release(cn), tvm_ffi_release(prod);
  if (!cns) return NULL;
  tvm_relax_sinfo_obj* out = NULL;
  if (onnx) {
    tvm_tir_expr_obj* alls = cns;
    tvm_tir_expr_obj* three = tvm_relax__int64(3);
    tvm_tir_expr_obj* one = tvm_relax__int64(1);
    if (alls && three && one) {
      tvm_tir_expr_obj* sel[2] = {alls, three};
      f[0] = tensor(sel, 2, k_i64, vdev);
      f[1] = tensor(&one, 1, k_i64, vdev);
      out = tuple_take(f, 2);
    }
    tvm_ffi_release(three), tvm_ffi_release(one);
  } else {
    tvm_tir_expr_obj* two = tvm_relax__int64(2);
    if (two) {
      tvm_tir_expr_obj* idx[3] = {b, cns, two};
      f[0] = tensor(idx, 3, k_i64, vdev);
      f[1] = tensor(idx, 2, k_f32, vdev);
      f[2] = tensor(&b, 1, k_i64, vdev);
      out = tuple_take(f, 3);
    }
    tvm_ffi_release(two);
  }
  tvm_ffi_release(cns);
  return out;
}

/* ---- vision.multibox_transform_loc ----------------------------------------------------------- */
/* cls_pred (B, C, N) class logits, loc_pred (B, 4 * N) encodings (x, y, w, h per anchor), anchor
 * (1, N, 4) priors (left, top, right, bottom), of one dtype: (boxes (B, N, 4) [ymin, xmin, ymax,
 * xmax], scores (B, C, N)) of cls_pred's dtype and vdevice. Upstream's rule: the result's dims
 * are cls_pred's (rank 3 only when its shape is unknown, the N-based checks then skipped).
 * Beyond it: the relations are checked where provable (symbolic dims too, not only constants),
 * the dtypes must be floats (the kernel takes exp and softmax) and variances must have 4 values
 * (upstream's C++ constructor checks that, its Python wrapper does not). */
tvm_relax_sinfo_obj* tvm_relax__infer_multibox_transform_loc(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* cls = tensor_of_rank(ctx, 0, 3);
  tvm_relax_tensor_sinfo_obj* loc = cls ? tensor_of_rank(ctx, 1, 2) : NULL;
  tvm_relax_tensor_sinfo_obj* anc = loc ? tensor_of_rank(ctx, 2, 3) : NULL;
  if (!anc || !tvm_relax__same_dtype(ctx, 1, loc, 0, cls) ||
      !tvm_relax__same_dtype(ctx, 2, anc, 0, cls)) {
    return NULL;
  }
  const tvm_relax_tensor_sinfo_obj* t[3] = {cls, loc, anc};
  for (int32_t i = 0; i < 3; ++i) {
    if (!tvm_relax_dtype_is_unknown(t[i]->dtype) && !tvm_tir_dtype_is_floating(t[i]->dtype)) {
      return tvm_relax__arg_error(ctx, i, "TypeError", "must have a float dtype, got %s",
                                  tvm_tir_dtype_str(t[i]->dtype).s);
    }
  }
  const TVMFFIAny* var = tvm_relax__attr(ctx, "variances");
  int64_t nv = var->type_index == kTVMFFIArray ? tvm_ffi_seq_size(var->v_obj) : 0;
  if (nv != 4) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'variances' must have 4 values (x, y, w, h), got %lld",
                               (long long)nv);
  }
  void* cd = tvm_relax_tensor_sinfo_dims(&cls->base);
  void* ld = tvm_relax_tensor_sinfo_dims(&loc->base);
  void* ad = tvm_relax_tensor_sinfo_dims(&anc->base);
  int64_t v;
  if (const_dim(ld, 1, &v) && v % 4 != 0) {
    return tvm_relax__arg_error(ctx, 1, "ValueError",
                                "must be (batch, 4 * N), got dim 1 = %lld (not a multiple of 4)",
                                (long long)v);
  }
  if (!check_same_dim(ctx, cd, 0, 0, ld, 1, 0, "batch size")) return NULL;
  if (const_dim(ad, 0, &v) && v != 1) {
    return tvm_relax__arg_error(ctx, 2, "ValueError", "must be (1, N, 4), got dim 0 = %lld",
                                (long long)v);
  }
  if (const_dim(ad, 2, &v) && v != 4) {
    return tvm_relax__arg_error(ctx, 2, "ValueError",
                                "must be (1, N, 4) [left, top, right, bottom], got dim 2 = %lld",
                                (long long)v);
  }
  DLDataType dt = cls->dtype;
  void* vdev = cls->vdevice;
  tvm_relax_sinfo_obj* f[2] = {NULL, NULL};
  if (!cd) {
    f[0] = tensor(NULL, 3, dt, vdev);
    f[1] = tensor(NULL, 3, dt, vdev);
    return tuple_take(f, 2);
  }
  tvm_tir_expr_obj* n = tvm_ffi_seq_obj_at(cd, 2);
  tvm_tir_expr_obj* four = tvm_relax__int64(4);
  tvm_tir_expr_obj* prod = four ? tvm_tir_mul(four, n) : NULL;
  tvm_tir_expr_obj* four_n = prod ? tvm_tir_simplify_expr(prod, NULL) : NULL;
  tvm_ffi_release(prod);
  if (!four_n) {
    tvm_ffi_release(four);
    return NULL;
  }
  bool ok = true;
  if (ld && tvm_relax__dim_unequal(tvm_ffi_seq_obj_at(ld, 1), four_n)) {
    tvm_ffi_strbuf tl = {0}, tn = {0};
    tvm_relax__arg_error(ctx, 1, "ValueError",
                         "must be (batch, 4 * N) with N = %s (dim 2 of 'cls_pred'), got dim 1 = "
                         "%s",
                         tvm_relax__dim_text(&tn, n),
                         tvm_relax__dim_text(&tl, tvm_ffi_seq_obj_at(ld, 1)));
    tvm_ffi_strbuf_free(&tl), tvm_ffi_strbuf_free(&tn);
    ok = false;
  }
  ok = ok && check_same_dim(ctx, cd, 0, 2, ad, 2, 1, "number of anchors");
  if (ok) {
    tvm_tir_expr_obj* bd[3] = {tvm_ffi_seq_obj_at(cd, 0), n, four};
    f[0] = tensor(bd, 3, dt, vdev);
    f[1] = tvm_relax__tensor_result(cd, dt, 3, vdev);
  }
  tvm_ffi_release(four_n), tvm_ffi_release(four);
  return ok ? tuple_take(f, 2) : NULL;
}
