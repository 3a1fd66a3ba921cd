/*
 * test_op_vision.c: struct info of nn.conv3d_transpose, image.resize3d, image.affine_grid,
 * vision.roi_align, vision.roi_pool, vision.get_valid_counts, vision.non_max_suppression,
 * vision.all_class_non_max_suppression and vision.multibox_transform_loc on static, symbolic and
 * unknown shapes, and their errors on bad inputs.
 */
#include "op_infer_testing.h"

#define TS(dims, dt) "R.Tensor((" dims "), dtype=\"" dt "\")"
#define F "float32"
#define PRIM_F32 tvm_relax_prim_sinfo_new(F32, NULL)

TEST(conv3d_transpose) {
  const char* op = "relax.nn.conv3d_transpose";
  /* (4 - 1) * 1 + 2 + 1 = 6 per dim; weight IODHW: 8 output channels. */
  CHECK_INFER(TS("1, 8, 6, 6, 6", F), op, NULL, 2, T("1, 3, 4, 4, 4", F32),
              T("3, 8, 3, 3, 3", F32));
  /* (4 - 1) * 2 - 2 + 2 + 1 + 1 = 8; groups 2: 2 * 4 output channels */
  CHECK_INFER(
      TS("1, 8, 8, 8, 8", F), op,
      oi_attrs(4, "strides", AI(2), "padding", AI(1), "output_padding", AI(1), "groups", AI(2)), 2,
      T("1, 4, 4, 4, 4", F32), T("4, 4, 3, 3, 3", F32));
  CHECK_INFER(TS("n, 8, d + T.int64(2), 6, 6", F), op, NULL, 2, T("n, 3, d, 4, 4", F32),
              T("3, 8, 3, 3, 3", F32));
  CHECK_INFER(TS("1, 6, 6, 6, 8", F), op,
              oi_attrs(2, "data_layout", AS("NDHWC"), "kernel_layout", AS("DHWIO")), 2,
              T("1, 4, 4, 4, 3", F32), T("3, 3, 3, 3, 8", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=5)", op, NULL, 2, T("?5", F32),
              T("3, 8, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "'data' has 4 input channels but 'weight' takes 3", op, NULL, 2,
                    T("1, 4, 4, 4, 4", F32), T("3, 8, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'output_padding' (2) must be less than the stride (2)",
                    op, oi_attrs(2, "strides", AI(2), "output_padding", AI(2)), 2,
                    T("1, 3, 4, 4, 4", F32), T("3, 8, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'weight' must have ndim 5 (layout IODHW), got 4", op,
                    NULL, 2, T("1, 3, 4, 4, 4", F32), T("3, 8, 3, 3", F32));
}

TEST(resize3d) {
  const char* op = "relax.image.resize3d";
  CHECK_INFER(TS("1, 3, 8, 10, 12", F), op, NULL, 2, T("1, 3, 4, 5, 6", F32), SH("8, 10, 12"));
  CHECK_INFER(TS("n, 3, a, b, c", "float16"), op, oi_attrs(1, "out_dtype", AS("float16")), 2,
              T("n, 3, 4, 5, 6", F32), SH("a, b, c"));
  CHECK_INFER(TS("1, 8, 10, 12, 3", F), op, oi_attrs(1, "layout", AS("NDHWC")), 2,
              T("1, 4, 5, 6, 3", F32), SH("8, 10, 12"));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=5)", op, NULL, 2, T("1, 3, 4, 5, 6", F32),
              SH("?3"));
  CHECK_INFER_FAILS("ValueError",
                    "relax.image.resize3d: argument 'size' must be a shape of 3 dims, got 2", op,
                    NULL, 2, T("1, 3, 4, 5, 6", F32), SH("8, 10"));
  CHECK_INFER_FAILS("TypeError", "argument 'size' must be a shape of 3 dims", op, NULL, 2,
                    T("1, 3, 4, 5, 6", F32), T("3", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 5 (layout NCDHW), got 4", op,
                    NULL, 2, T("1, 3, 4, 5", F32), SH("8, 10, 12"));
  CHECK_INFER_FAILS("TypeError", "attribute 'roi' must be None or 6 numbers", op,
                    oi_attrs(1, "roi", AL(4, 0, 0, 1, 1)), 2, T("1, 3, 4, 5, 6", F32),
                    SH("8, 10, 12"));
  CHECK_INFER_FAILS("ValueError", "attribute 'method' must be", op,
                    oi_attrs(1, "method", AS("bilinear")), 2, T("1, 3, 4, 5, 6", F32),
                    SH("8, 10, 12"));
  CHECK_INFER_FAILS("ValueError", "argument 'data' has an empty spatial dim (D of NCDHW is 0)", op,
                    NULL, 2, T("1, 3, 0, 5, 6", F32), SH("8, 10, 12"));
}

TEST(affine_grid) {
  const char* op = "relax.image.affine_grid";
  CHECK_INFER(TS("4, 2, 8, 16", F), op, NULL, 2, T("4, 2, 3", F32), SH("8, 16"));
  CHECK_INFER(TS("n, 3, d, h, w", F), op, oi_attrs(1, "align_corners", AB(false)), 2,
              T("n, 3, 4", F32), SH("d, h, w"));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 2, T("*", F32), SH("8, 16"));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'data' must be (batch, 2, 3) for a 2-d size, got dim 2 = 4", op, NULL,
                    2, T("4, 2, 4", F32), SH("8, 16"));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'data' must be (batch, 3, 4) for a 3-d size, got dim 1 = 2", op, NULL,
                    2, T("4, 2, 3", F32), SH("4, 8, 16"));
  CHECK_INFER_FAILS("ValueError", "argument 'size' must be a shape of 2 or 3 dims, got 1", op, NULL,
                    2, T("4, 2, 3", F32), SH("8"));
  CHECK_INFER_FAILS("ValueError", "argument 'size' must be a shape of known rank", op, NULL, 2,
                    T("4, 2, 3", F32), tvm_relax_shape_sinfo_new(NULL, TVM_RELAX_UNKNOWN_NDIM));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 3, got 2", op, NULL, 2,
                    T("2, 3", F32), SH("8, 16"));
  CHECK_INFER_FAILS("TypeError", "argument 'size' must be a shape of 2 or 3 dims", op, NULL, 2,
                    T("4, 2, 3", F32), T("2", I64));
}

TEST(roi_align) {
  const char* op = "relax.vision.roi_align";
  CHECK_INFER(TS("r, 16, 7, 7", F), op,
              oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
              T("2, 16, 32, 32", F32), T("r, 5", F32));
  CHECK_INFER(
      TS("5, 3, 4, 16", F), op,
      oi_attrs(3, "pooled_size", AL(2, 3, 4), "spatial_scale", AF(1.0), "layout", AS("NHWC")), 2,
      T("1, 32, 32, 16", F32), T("5, 5", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op,
              oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2, T("?4", F32),
              T("5, 5", F32));
  CHECK_INFER_FAILS("ValueError", "relax.vision.roi_align: attribute 'pooled_size' is required", op,
                    oi_attrs(1, "spatial_scale", AF(0.25)), 2, T("2, 16, 32, 32", F32),
                    T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'rois' must be (num_roi, 5)", op,
                    oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'rois' must have ndim 2, got 3", op,
                    oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("1, 3, 5", F32));
  CHECK_INFER_FAILS(
      "ValueError", "attribute 'layout' must be \"NCHW\" or \"NHWC\", got \"HWCN\"", op,
      oi_attrs(3, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25), "layout", AS("HWCN")), 2,
      T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS(
      "ValueError", "attribute 'mode' must be \"avg\" or \"max\"", op,
      oi_attrs(3, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25), "mode", AS("sum")), 2,
      T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pooled_size' must have 1 or 2 values, got 3", op,
                    oi_attrs(2, "pooled_size", AL(3, 7, 7, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'spatial_scale' must be positive", op,
                    oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.0)), 2,
                    T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'rois' must be a tensor", op,
                    oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), SH("3, 5"));
}

/* roi_pool: (R, C, ph, pw) of data's dtype, pooled_size 1 value (both dims) or 2; NCHW only,
 * float rois, numeric data. */
TEST(roi_pool) {
  const char* op = "relax.vision.roi_pool";
  CHECK_INFER(TS("r, 16, 7, 7", F), op,
              oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.0625)), 2,
              T("2, 16, 32, 32", F32), T("r, 5", F32));
  CHECK_INFER(TS("5, c, 2, 3", "float16"), op,
              oi_attrs(2, "pooled_size", AL(2, 2, 3), "spatial_scale", AF(1.0)), 2,
              T("n, c, h, w", F16), T("5, 5", F32));
  /* integer data: max pooling needs no float */
  CHECK_INFER(TS("3, 4, 2, 2", "int32"), op,
              oi_attrs(3, "pooled_size", AL(1, 2), "spatial_scale", AF(0.5), "layout", AS("NCHW")),
              2, T("1, 4, 8, 8", I32), T("3, 5", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op,
              oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2, T("?4", F32),
              T("5, 5", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op,
              oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
              T("1, 3, 8, 8", F32), T("*", F32));
  CHECK_INFER_FAILS("ValueError", "relax.vision.roi_pool: attribute 'pooled_size' is required", op,
                    oi_attrs(1, "spatial_scale", AF(0.25)), 2, T("2, 16, 32, 32", F32),
                    T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "relax.vision.roi_pool: attribute 'spatial_scale' is required",
                    op, oi_attrs(1, "pooled_size", AL(1, 7)), 2, T("2, 16, 32, 32", F32),
                    T("3, 5", F32));
  CHECK_INFER_FAILS(
      "ValueError",
      "relax.vision.roi_pool: attribute 'layout' must be \"NCHW\" (the only layout), got \"NHWC\"",
      op, oi_attrs(3, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25), "layout", AS("NHWC")), 2,
      T("2, 32, 32, 16", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.vision.roi_pool: argument 'rois' must be (num_roi, 5) [batch index, "
                    "x1, y1, x2, y2], got last dim 4",
                    op, oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "relax.vision.roi_pool: argument 'data' must have ndim 4, got 3",
                    op, oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "relax.vision.roi_pool: argument 'rois' must have ndim 2, got 1",
                    op, oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("5", F32));
  CHECK_INFER_FAILS("TypeError",
                    "relax.vision.roi_pool: argument 'rois' must have a float dtype, "
                    "got int32",
                    op, oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("3, 5", I32));
  CHECK_INFER_FAILS("TypeError",
                    "relax.vision.roi_pool: argument 'data' must have a numeric "
                    "dtype, got bool",
                    op, oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", tvm_tir_dtype_bool()), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pooled_size' must have 1 or 2 values, got 3", op,
                    oi_attrs(2, "pooled_size", AL(3, 7, 7, 7), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pooled_size' must be positive, got 0", op,
                    oi_attrs(2, "pooled_size", AL(2, 7, 0), "spatial_scale", AF(0.25)), 2,
                    T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'spatial_scale' must be positive, got -1", op,
                    oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(-1.0)), 2,
                    T("2, 16, 32, 32", F32), T("3, 5", F32));
  CHECK_INFER_FAILS("TypeError", "relax.vision.roi_pool: argument 'data' must be a tensor", op,
                    oi_attrs(2, "pooled_size", AL(1, 7), "spatial_scale", AF(0.25)), 2,
                    SH("2, 16, 32, 32"), T("3, 5", F32));
}

/* get_valid_counts: (valid_count (B,) int32, out (B, A, L) of data's dtype, out_indices (B, A)
 * int32). */
TEST(get_valid_counts) {
  const char* op = "relax.vision.get_valid_counts";
  CHECK_INFER(
      "R.Tuple(R.Tensor((2,), dtype=\"int32\"), R.Tensor((2, 10, 6), dtype=\"float32\"), "
      "R.Tensor((2, 10), dtype=\"int32\"))",
      op, NULL, 1, T("2, 10, 6", F32));
  CHECK_INFER(
      "R.Tuple(R.Tensor((b,), dtype=\"int32\"), R.Tensor((b, n, 5), dtype=\"float16\"), "
      "R.Tensor((b, n), dtype=\"int32\"))",
      op, oi_attrs(3, "score_threshold", AF(0.3), "id_index", AI(-1), "score_index", AI(4)), 1,
      T("b, n, 5", F16));
  /* a symbolic elem_length: the indices are only checked for their sign */
  CHECK_INFER(
      "R.Tuple(R.Tensor((1,), dtype=\"int32\"), R.Tensor((1, 4, l), dtype=\"int32\"), "
      "R.Tensor((1, 4), dtype=\"int32\"))",
      op, oi_attrs(1, "score_index", AI(9)), 1, T("1, 4, l", I32));
  CHECK_INFER(
      "R.Tuple(R.Tensor(dtype=\"int32\", ndim=1), R.Tensor(dtype=\"float32\", ndim=3), "
      "R.Tensor(dtype=\"int32\", ndim=2))",
      op, NULL, 1, T("?3", F32));
  CHECK_INFER(
      "R.Tuple(R.Tensor(dtype=\"int32\", ndim=1), R.Tensor(dtype=\"float32\", ndim=3), "
      "R.Tensor(dtype=\"int32\", ndim=2))",
      op, NULL, 1, T("*", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.vision.get_valid_counts: attribute 'score_index' (6) must be in [0, 6)",
                    op, oi_attrs(1, "score_index", AI(6)), 1, T("2, 10, 6", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.vision.get_valid_counts: attribute 'id_index' (-2) must be in [-1, 6)",
                    op, oi_attrs(1, "id_index", AI(-2)), 1, T("2, 10, 6", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'id_index' (6) must be in [-1, 6)", op,
                    oi_attrs(1, "id_index", AI(6)), 1, T("2, 10, 6", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'score_index' (-1) must be non-negative", op,
                    oi_attrs(1, "score_index", AI(-1)), 1, T("2, 10, l", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'id_index' (-3) must be >= -1", op,
                    oi_attrs(1, "id_index", AI(-3)), 1, T("?3", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.vision.get_valid_counts: argument 'data' must have ndim 3, got 2", op,
                    NULL, 1, T("10, 6", F32));
  CHECK_INFER_FAILS("TypeError",
                    "relax.vision.get_valid_counts: argument 'data' must have a float or signed "
                    "integer dtype, got bool",
                    op, NULL, 1, T("2, 10, 6", tvm_tir_dtype_bool()));
  CHECK_INFER_FAILS("TypeError",
                    "argument 'data' must have a float or signed integer dtype, got "
                    "uint8",
                    op, NULL, 1, T("2, 10, 6", tvm_tir_dtype_uint(8)));
  CHECK_INFER_FAILS("TypeError", "attribute 'score_threshold' must be a float", op,
                    oi_attrs(1, "score_threshold", AS("high")), 1, T("2, 10, 6", F32));
  CHECK_INFER_FAILS("TypeError", "relax.vision.get_valid_counts: argument 'data' must be a tensor",
                    op, NULL, 1, SH("2, 10, 6"));
}

TEST(non_max_suppression) {
  const char* op = "relax.vision.non_max_suppression";
  CHECK_INFER("R.Tuple(R.Tensor((2, 10), dtype=\"int32\"), R.Tensor((2, 1), dtype=\"int32\"))", op,
              NULL, 3, T("2, 10, 6", F32), T("2", I32), T("2, 10", I32));
  CHECK_INFER("R.Tuple(R.Tensor((b, n), dtype=\"int32\"), R.Tensor((b, 1), dtype=\"int32\"))", op,
              NULL, 3, T("b, n, 6", F32), T("b", I32), T("b, n", I32));
  CHECK_INFER(TS("2, 10, 6", F), op, oi_attrs(1, "return_indices", AB(false)), 3,
              T("2, 10, 6", F32), T("2", I32), T("2, 10", I32));
  CHECK_INFER(
      "R.Tuple(R.Tensor((2, 10, 6), dtype=\"float32\"), R.Tensor((2, 10), dtype=\"int32\"), "
      "R.Tensor((2, 1), dtype=\"int32\"))",
      op, oi_attrs(1, "soft_nms_sigma", AF(0.5)), 3, T("2, 10, 6", F32), T("2", I32),
      T("2, 10", I32));
  CHECK_INFER("R.Tuple(R.Tensor(dtype=\"int32\", ndim=2), R.Tensor(dtype=\"int32\", ndim=2))", op,
              NULL, 3, T("?3", F32), T("2", I32), T("2, 10", I32));
  CHECK_INFER_FAILS("ValueError", "the batch size of 'data' (2) and of 'valid_count' (3) differ",
                    op, NULL, 3, T("2, 10, 6", F32), T("3", I32), T("2, 10", I32));
  CHECK_INFER_FAILS("ValueError",
                    "the number of anchors of 'data' (10) and of 'indices' (9) differ", op, NULL, 3,
                    T("2, 10, 6", F32), T("2", I32), T("2, 9", I32));
  CHECK_INFER_FAILS("TypeError", "argument 'valid_count' must have dtype int32", op, NULL, 3,
                    T("2, 10, 6", F32), T("2", I64), T("2, 10", I32));
  CHECK_INFER_FAILS("ValueError", "attribute 'coord_start' (3) must start 4 coordinates", op,
                    oi_attrs(1, "coord_start", AI(3)), 3, T("2, 10, 6", F32), T("2", I32),
                    T("2, 10", I32));
  CHECK_INFER_FAILS("ValueError", "attribute 'score_index' (6) must be in [0, 6)", op,
                    oi_attrs(1, "score_index", AI(6)), 3, T("2, 10, 6", F32), T("2", I32),
                    T("2, 10", I32));
  CHECK_INFER_FAILS("ValueError", "attribute 'id_index' (-2) must be in [-1, 6)", op,
                    oi_attrs(1, "id_index", AI(-2)), 3, T("2, 10, 6", F32), T("2", I32),
                    T("2, 10", I32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 3, got 2", op, NULL, 3,
                    T("10, 6", F32), T("2", I32), T("2, 10", I32));
}

TEST(all_class_non_max_suppression) {
  const char* op = "relax.vision.all_class_non_max_suppression";
  CHECK_INFER("R.Tuple(R.Tensor((60, 3), dtype=\"int64\"), R.Tensor((1,), dtype=\"int64\"))", op,
              NULL, 5, T("2, 10, 4", F32), T("2, 3, 10", F32), T("1", I64), T("1", F32),
              T("", F32));
  CHECK_INFER(
      "R.Tuple(R.Tensor(((b * c) * n, 3), dtype=\"int64\"), R.Tensor((1,), dtype=\"int64\"))", op,
      NULL, 5, T("b, n, 4", F32), T("b, c, n", F32), T("", I64), PRIM_F32, PRIM_F32);
  CHECK_INFER(
      "R.Tuple(R.Tensor((2, 30, 2), dtype=\"int64\"), R.Tensor((2, 30), dtype=\"float32\"), "
      "R.Tensor((2,), dtype=\"int64\"))",
      op, oi_attrs(1, "output_format", AS("tensorflow")), 5, T("2, 10, 4", F32), T("2, 3, 10", F32),
      T("1", I64), T("1", F32), T("1", F32));
  CHECK_INFER("R.Tuple(R.Tensor(dtype=\"int64\", ndim=2), R.Tensor(dtype=\"int64\", ndim=1))", op,
              NULL, 5, T("?3", F32), T("2, 3, 10", F32), T("1", I64), T("1", F32), T("1", F32));
  CHECK_INFER_FAILS("ValueError", "the number of boxes of 'boxes' (10) and of 'scores' (9) differ",
                    op, NULL, 5, T("2, 10, 4", F32), T("2, 3, 9", F32), T("1", I64), T("1", F32),
                    T("1", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'boxes' must be (batch, num_boxes, 4), got last dim 5",
                    op, NULL, 5, T("2, 10, 5", F32), T("2, 3, 10", F32), T("1", I64), T("1", F32),
                    T("1", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'iou_threshold' must have one element, got dim 0 = 2",
                    op, NULL, 5, T("2, 10, 4", F32), T("2, 3, 10", F32), T("1", I64), T("2", F32),
                    T("1", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'score_threshold' must be a scalar", op, NULL, 5,
                    T("2, 10, 4", F32), T("2, 3, 10", F32), T("1", I64), T("1", F32), SH("1"));
  CHECK_INFER_FAILS("ValueError", "attribute 'output_format' must be \"onnx\" or \"tensorflow\"",
                    op, oi_attrs(1, "output_format", AS("coco")), 5, T("2, 10, 4", F32),
                    T("2, 3, 10", F32), T("1", I64), T("1", F32), T("1", F32));
}

TEST(multibox_transform_loc) {
  const char* op = "relax.vision.multibox_transform_loc";
#define MBT_OUT(b, n, c, dt) \
  "R.Tuple(" TS(b ", " n ", 4", dt) ", " TS(b ", " c ", " n, dt) ")"
  CHECK_INFER(MBT_OUT("2", "5", "3", F), op, NULL, 3, T("2, 3, 5", F32), T("2, 20", F32),
              T("1, 5, 4", F32));
  /* every attribute given (variances as ints too: stored as floats) */
  CHECK_INFER(MBT_OUT("2", "5", "3", F), op,
              oi_attrs(5, "clip", AB(true), "threshold", AF(0.3), "variances",
                       AFL(4, 0.1, 0.1, 0.2, 0.2), "keep_background", AB(false), "apply_softmax",
                       AB(false)),
              3, T("2, 3, 5", F32), T("2, 20", F32), T("1, 5, 4", F32));
  CHECK_INFER(MBT_OUT("1", "7", "2", "float16"), op, oi_attrs(1, "variances", AL(4, 1, 2, 3, 4)),
              3, T("1, 2, 7", F16), T("1, 28", F16), T("1, 7, 4", F16));
  /* symbolic: the dims are cls_pred's; loc_pred's (b, m) and anchor's (1, k, 4) not provably
   * wrong */
  CHECK_INFER(MBT_OUT("b", "n", "c", F), op, NULL, 3, T("b, c, n", F32), T("b, m", F32),
              T("1, k, 4", F32));
  CHECK_INFER(MBT_OUT("b", "n", "3", F), op, NULL, 3, T("b, 3, n", F32), T("?2", F32),
              T("*", F32));
  /* cls_pred's shape unknown: rank 3, the N-based checks skipped (upstream's rule) */
  CHECK_INFER("R.Tuple(R.Tensor(dtype=\"float32\", ndim=3), R.Tensor(dtype=\"float32\", ndim=3))",
              op, NULL, 3, T("?3", F32), T("2, 24", F32), T("1, 7, 4", F32));
  CHECK_INFER("R.Tuple(R.Tensor(dtype=\"float32\", ndim=3), R.Tensor(dtype=\"float32\", ndim=3))",
              op, NULL, 3, T("*", F32), T("*", F32), T("*", F32));
  /* an unknown dtype matches any */
  CHECK_INFER(MBT_OUT("2", "5", "3", F), op, NULL, 3, T("2, 3, 5", F32), T("2, 20", UNK),
              T("1, 5, 4", UNK));
  /* ranks */
  CHECK_INFER_FAILS("ValueError",
                    "relax.vision.multibox_transform_loc: argument 'cls_pred' must have ndim 3, "
                    "got 2",
                    op, NULL, 3, T("2, 3", F32), T("2, 20", F32), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'loc_pred' must have ndim 2, got 3", op, NULL, 3,
                    T("2, 3, 5", F32), T("2, 5, 4", F32), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'anchor' must have ndim 3, got 2", op, NULL, 3,
                    T("2, 3, 5", F32), T("2, 20", F32), T("5, 4", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'anchor' must be a tensor", op, NULL, 3,
                    T("2, 3, 5", F32), T("2, 20", F32), SH("1, 5, 4"));
  /* dtypes */
  CHECK_INFER_FAILS("TypeError",
                    "argument 'loc_pred' must have the dtype of 'cls_pred' (float32), got float16",
                    op, NULL, 3, T("2, 3, 5", F32), T("2, 20", F16), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("TypeError",
                    "argument 'anchor' must have the dtype of 'cls_pred' (float16), got float32",
                    op, NULL, 3, T("2, 3, 5", F16), T("2, 20", F16), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'cls_pred' must have a float dtype, got int32", op,
                    NULL, 3, T("2, 3, 5", I32), T("2, 20", I32), T("1, 5, 4", I32));
  CHECK_INFER_FAILS("TypeError", "argument 'loc_pred' must have a float dtype, got int32", op,
                    NULL, 3, T("2, 3, 5", UNK), T("2, 20", I32), T("1, 5, 4", UNK));
  /* loc_pred (B, 4 * N) */
  CHECK_INFER_FAILS("ValueError",
                    "argument 'loc_pred' must be (batch, 4 * N), got dim 1 = 19 (not a multiple "
                    "of 4)",
                    op, NULL, 3, T("2, 3, 5", F32), T("2, 19", F32), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError", "got dim 1 = 19 (not a multiple of 4)", op, NULL, 3,
                    T("?3", F32), T("2, 19", F32), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'loc_pred' must be (batch, 4 * N) with N = 5 (dim 2 of 'cls_pred'), "
                    "got dim 1 = 24",
                    op, NULL, 3, T("2, 3, 5", F32), T("2, 24", F32), T("1, 5, 4", F32));
  /* a symbolic N: 4 * n + 4 is provably not 4 * n */
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  tvm_tir_expr_obj* n4 = tvm_tir_mul((tvm_tir_expr_obj*)oi_var("n", 1), four);
  tvm_tir_expr_obj* n4p4 = tvm_tir_add(n4, four);
  tvm_tir_expr_obj* two = tvm_tir_const_int(I64, 2);
  void* loc_dims = tvm_ffi_array_of_objects((void*[]){two, n4p4}, 2);
  CHECK_INFER_FAILS("ValueError",
                    "with N = n (dim 2 of 'cls_pred'), got dim 1 = (n * T.int64(4)) + T.int64(4)",
                    op, NULL, 3, T("2, 3, n", F32), tvm_relax_tensor_sinfo_of_dims(loc_dims, F32),
                    T("1, n, 4", F32));
  tvm_ffi_release(loc_dims), tvm_ffi_release(two), tvm_ffi_release(n4p4);
  tvm_ffi_release(n4), tvm_ffi_release(four);
  /* batch */
  CHECK_INFER_FAILS("ValueError", "the batch size of 'cls_pred' (2) and of 'loc_pred' (1) differ",
                    op, NULL, 3, T("2, 3, 5", F32), T("1, 20", F32), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError",
                    "the batch size of 'cls_pred' (b) and of 'loc_pred' (b + T.int64(1)) differ",
                    op, NULL, 3, T("b, 3, 5", F32), T("b+1, 20", F32), T("1, 5, 4", F32));
  /* anchor (1, N, 4) */
  CHECK_INFER_FAILS("ValueError", "argument 'anchor' must be (1, N, 4), got dim 0 = 2", op, NULL,
                    3, T("2, 3, 5", F32), T("2, 20", F32), T("2, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'anchor' must be (1, N, 4) [left, top, right, bottom], got dim 2 = 5",
                    op, NULL, 3, T("2, 3, 5", F32), T("2, 20", F32), T("1, 5, 5", F32));
  CHECK_INFER_FAILS("ValueError",
                    "the number of anchors of 'cls_pred' (5) and of 'anchor' (6) differ", op, NULL,
                    3, T("2, 3, 5", F32), T("2, 20", F32), T("1, 6, 4", F32));
  CHECK_INFER_FAILS("ValueError",
                    "the number of anchors of 'cls_pred' (n) and of 'anchor' (n + T.int64(1)) "
                    "differ",
                    op, NULL, 3, T("2, 3, n", F32), T("2, m", F32), T("1, n+1, 4", F32));
  /* attributes */
  CHECK_INFER_FAILS("ValueError",
                    "relax.vision.multibox_transform_loc: attribute 'variances' must have 4 values "
                    "(x, y, w, h), got 3",
                    op, oi_attrs(1, "variances", AFL(3, 0.1, 0.1, 0.2)), 3, T("2, 3, 5", F32),
                    T("2, 20", F32), T("1, 5, 4", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'variances' must have 4 values (x, y, w, h), got 5",
                    op, oi_attrs(1, "variances", AFL(5, 1.0, 1.0, 1.0, 1.0, 1.0)), 3, T("?3", F32),
                    T("?2", F32), T("?3", F32));
  CHECK_INFER_FAILS("TypeError", "attribute 'variances' must be a list of floats", op,
                    oi_attrs(1, "variances", AF(0.1)), 3, T("2, 3, 5", F32), T("2, 20", F32),
                    T("1, 5, 4", F32));
  CHECK_INFER_FAILS("TypeError", "attribute 'clip' must be a bool", op,
                    oi_attrs(1, "clip", AS("yes")), 3, T("2, 3, 5", F32), T("2, 20", F32),
                    T("1, 5, 4", F32));
#undef MBT_OUT
}

int main(void) {
  RUN(conv3d_transpose);
  RUN(resize3d);
  RUN(affine_grid);
  RUN(roi_align);
  RUN(roi_pool);
  RUN(get_valid_counts);
  RUN(non_max_suppression);
  RUN(all_class_non_max_suppression);
  RUN(multibox_transform_loc);
  oi_free_vars();
  return test_summary();
}
