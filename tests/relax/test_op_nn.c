/*
 * test_op_nn.c: struct info of matmul, outer and the nn / image operators (softmax,
 * normalizations, convolutions, pooling, pad, batch_flatten, pixel_shuffle, dropout, attention,
 * resize2d, grid_sample) on static, symbolic and unknown shapes and other layouts, and their
 * errors.
 */
#include "op_infer_testing.h"

#define TS(dims, dt) "R.Tensor((" dims "), dtype=\"" dt "\")"
#define F "float32"

TEST(matmul_shapes) {
  CHECK_INFER(TS("2, 4", F), "relax.matmul", NULL, 2, T("2, 3", F32), T("3, 4", F32));
  /* Batch dims broadcast: (5, 1) with (4,). */
  CHECK_INFER(TS("5, 4, 2, 6", F), "relax.matmul", NULL, 2, T("5, 1, 2, 3", F32), T("4, 3, 6", F32));
  /* 1-d operands: a row on the left, a column on the right; the added dim is dropped. */
  CHECK_INFER(TS("4,", F), "relax.matmul", NULL, 2, T("3", F32), T("3, 4", F32));
  CHECK_INFER(TS("2,", F), "relax.matmul", NULL, 2, T("2, 3", F32), T("3", F32));
  CHECK_INFER(TS("", F), "relax.matmul", NULL, 2, T("3", F32), T("3", F32));
  CHECK_INFER(TS("7, 4", F), "relax.matmul", NULL, 2, T("3", F32), T("7, 3, 4", F32));
  /* Symbolic dims. */
  CHECK_INFER(TS("b, n, m", F), "relax.matmul", NULL, 2, T("b, n, k", F32), T("k, m", F32));
  /* out_dtype. */
  CHECK_INFER(TS("2, 4", F), "relax.matmul", oi_attrs(1, "out_dtype", AS("float32")), 2,
              T("2, 3", F16), T("3, 4", F16));
  /* An operand of unknown dtype makes the result's dtype unknown (upstream). */
  CHECK_INFER("R.Tensor((2, 4))", "relax.matmul", NULL, 2, T("2, 3", F16), T("3, 4", UNK));
}

TEST(matmul_unknown) {
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", "relax.matmul", NULL, 2, T("?3", F32),
              T("3, 4", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=1)", "relax.matmul", NULL, 2, T("?1", F32),
              T("?2", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.matmul", NULL, 2, T("*", F32), T("3, 4", F32));
  /* Batch dims that may differ, or reduction dims not provably equal: the rank only. */
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", "relax.matmul", NULL, 2, T("b, 2, 3", F32),
              T("c, 3, 4", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.matmul", NULL, 2, T("n, k", F32),
              T("j, 4", F32));
}

TEST(matmul_errors) {
  CHECK_INFER_FAILS("ValueError", "relax.matmul: the reduction dims differ", "relax.matmul", NULL,
                    2, T("2, 3", F32), T("4, 5", F32));
  /* k against k + 1 is provably different. */
  CHECK_INFER_FAILS("ValueError", "reduces over k", "relax.matmul", NULL, 2, T("n, k", F32),
                    T("k+1, 4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'x1' must have ndim >= 1, got 0", "relax.matmul", NULL,
                    2, T("", F32), T("3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'x2' must have ndim >= 1, got 0", "relax.matmul", NULL,
                    2, T("3, 4", F32), T("", F32));
  CHECK_INFER_FAILS("TypeError", "arguments 'x1' and 'x2' have different dtypes float32 and float16",
                    "relax.matmul", NULL, 2, T("2, 3", F32), T("3, 4", F16));
  CHECK_INFER_FAILS("ValueError", "cannot broadcast", "relax.matmul", NULL, 2, T("2, 2, 3", F32),
                    T("3, 3, 4", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'x2' must be a tensor", "relax.matmul", NULL, 2,
                    T("2, 3", F32), SH("3, 4"));
}

/* outer (upstream's rule): 1-d operands only, the result of x1's dtype (no dtype check). */
TEST(outer) {
  CHECK_INFER(TS("3, 4", F), "relax.outer", NULL, 2, T("3", F32), T("4", F32));
  CHECK_INFER(TS("n, m", F), "relax.outer", NULL, 2, T("n", F32), T("m", F32));
  CHECK_INFER(TS("n + T.int64(1), 2", F), "relax.outer", NULL, 2, T("n+1", F32), T("2", F32));
  CHECK_INFER(TS("3, 4", "float16"), "relax.outer", NULL, 2, T("3", F16), T("4", F32));
  CHECK_INFER(TS("3, 4", "int32"), "relax.outer", NULL, 2, T("3", I32), T("4", I32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.outer", NULL, 2, T("?1", F32),
              T("4", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.outer", NULL, 2, T("3", F32),
              T("?1", F32));
  CHECK_INFER_FAILS("ValueError", "relax.outer: argument 'x1' must be a 1-d tensor, got ndim 2",
                    "relax.outer", NULL, 2, T("3, 4", F32), T("4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'x2' must be a 1-d tensor, got ndim 0", "relax.outer",
                    NULL, 2, T("3", F32), T("", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'x2' must be a 1-d tensor, got unknown ndim",
                    "relax.outer", NULL, 2, T("3", F32), T("*", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'x1' must be a tensor", "relax.outer", NULL, 2,
                    SH("3"), T("4", F32));
}

/* nn.batch_flatten (upstream's rule): ndim >= 2; a 2-d input unchanged; else (N, product). */
TEST(batch_flatten) {
  CHECK_INFER(TS("2, 12", F), "relax.nn.batch_flatten", NULL, 1, T("2, 3, 4", F32));
  CHECK_INFER(TS("2, 60", F), "relax.nn.batch_flatten", NULL, 1, T("2, 3, 4, 5", F32));
  CHECK_INFER(TS("n, 3", F), "relax.nn.batch_flatten", NULL, 1, T("n, 3", F32));
  CHECK_INFER(TS("n, c * T.int64(4)", F), "relax.nn.batch_flatten", NULL, 1, T("n, c, 2, 2", F32));
  CHECK_INFER(TS("n, 0", "int32"), "relax.nn.batch_flatten", NULL, 1, T("n, 3, 0", I32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.nn.batch_flatten", NULL, 1,
              T("?3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.nn.batch_flatten", NULL, 1,
              T("*", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.nn.batch_flatten", NULL, 1,
              T("?2", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.nn.batch_flatten: argument 'data' must have ndim >= 2, got 1",
                    "relax.nn.batch_flatten", NULL, 1, T("6", F32));
  CHECK_INFER_FAILS("ValueError", "must have ndim >= 2, got 0", "relax.nn.batch_flatten", NULL, 1,
                    T("", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a tensor", "relax.nn.batch_flatten",
                    NULL, 1, SH("2, 3"));
}

/* nn.pixel_shuffle (upstream's rule): (..., C, H, W) -> (..., C / r^2, H * r, W * r), no
 * vdevice. */
TEST(pixel_shuffle) {
  CHECK_INFER(TS("1, 2, 6, 8", F), "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(2)), 1, T("1, 8, 3, 4", F32));
  CHECK_INFER(TS("2, 5, 1, 9, 12", F), "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(3)), 1, T("2, 5, 9, 3, 4", F32));
  CHECK_INFER(TS("4, 3, 5", "int32"), "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(1)), 1, T("4, 3, 5", I32));
  CHECK_INFER(TS("n, 1, h * T.int64(2), w * T.int64(2)", F), "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(2)), 1, T("n, 4, h, w", F32));
  CHECK_INFER(TS("n, c // T.int64(4), 6, 8", F), "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(2)), 1, T("n, c, 3, 4", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(2)), 1, T("?4", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.nn.pixel_shuffle",
              oi_attrs(1, "upscale_factor", AI(2)), 1, T("*", F32));
  CHECK_INFER_FAILS("ValueError",
                    "relax.nn.pixel_shuffle: argument 'data' must have channels (dim 1, 6) "
                    "divisible by upscale_factor^2 (4)",
                    "relax.nn.pixel_shuffle", oi_attrs(1, "upscale_factor", AI(2)), 1,
                    T("1, 6, 3, 4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim >= 3, got 2",
                    "relax.nn.pixel_shuffle", oi_attrs(1, "upscale_factor", AI(2)), 1,
                    T("4, 4", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'upscale_factor' must be in [1, 2147483647], got 0",
                    "relax.nn.pixel_shuffle", oi_attrs(1, "upscale_factor", AI(0)), 1,
                    T("1, 4, 2, 2", F32));
  CHECK_INFER_FAILS("ValueError", "must be in [1, 2147483647], got 4294967296",
                    "relax.nn.pixel_shuffle", oi_attrs(1, "upscale_factor", AI(4294967296)), 1,
                    T("1, 4, 2, 2", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'upscale_factor' is required",
                    "relax.nn.pixel_shuffle", NULL, 1, T("1, 4, 2, 2", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a tensor", "relax.nn.pixel_shuffle",
                    oi_attrs(1, "upscale_factor", AI(2)), 1, SH("1, 4, 2, 2"));
}

TEST(softmax) {
  CHECK_INFER(TS("2, 3", F), "relax.nn.softmax", NULL, 1, T("2, 3", F32));
  CHECK_INFER(TS("n, 3", F), "relax.nn.log_softmax", oi_attrs(1, "axis", AI(0)), 1, T("n, 3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.nn.softmax", oi_attrs(1, "axis", AI(9)), 1,
              T("*", F32));
  CHECK_INFER_FAILS("ValueError", "relax.nn.softmax: axis -3 is out of range", "relax.nn.softmax",
                    oi_attrs(1, "axis", AI(-3)), 1, T("2, 3", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a float tensor, got dtype int32",
                    "relax.nn.log_softmax", NULL, 1, T("2, 3", I32));
}

TEST(layer_and_rms_norm) {
  CHECK_INFER(TS("2, 3, 4", F), "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, -1)), 3,
              T("2, 3, 4", F32), T("4", F32), T("4", F32));
  CHECK_INFER(TS("2, 3, 4", F), "relax.nn.layer_norm",
              oi_attrs(3, "axes", AL(2, 1, 2), "epsilon", AF(1e-6), "center", AB(false)), 3,
              T("2, 3, 4", F32), T("3, 4", F32), T("3, 4", F32));
  CHECK_INFER(TS("n, d", F), "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, 1)), 3,
              T("n, d", F32), T("d", F32), T("d", F32));
  /* Parameters of unknown shape are not compared; dims not provably equal lose the shape. */
  CHECK_INFER(TS("n, d", F), "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, 1)), 3,
              T("n, d", F32), T("?1", F32), T("d", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.nn.layer_norm",
              oi_attrs(1, "axes", AL(1, 1)), 3, T("n, d", F32), T("e", F32), T("d", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", "relax.nn.layer_norm",
              oi_attrs(1, "axes", AL(1, -1)), 3, T("?3", F32), T("4", F32), T("4", F32));
  /* rms_norm: axes default [-1]. */
  CHECK_INFER(TS("2, 3, 4", F), "relax.nn.rms_norm", NULL, 2, T("2, 3, 4", F32), T("4", F32));

  CHECK_INFER_FAILS("ValueError", "argument 'gamma' dim 0 is 5 but 'data' at axis 2 is 4",
                    "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, -1)), 3, T("2, 3, 4", F32),
                    T("5", F32), T("4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'beta' dim 0 is 5 but 'gamma' dim 0 is 4",
                    "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, -1)), 3, T("?3", F32),
                    T("4", F32), T("5", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'weight' dim 0 is 3 but 'data' at axis 2 is 4",
                    "relax.nn.rms_norm", NULL, 2, T("2, 3, 4", F32), T("3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'gamma' must have one dim per normalized axis (1), got ndim 2",
                    "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, -1)), 3, T("2, 3, 4", F32),
                    T("3, 4", F32), T("4", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'beta' must have the dtype of 'data' (float32), got float16",
                    "relax.nn.layer_norm", oi_attrs(1, "axes", AL(1, -1)), 3, T("2, 3, 4", F32),
                    T("4", F32), T("4", F16));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a float tensor", "relax.nn.rms_norm", NULL,
                    2, T("2, 3, 4", I32), T("4", I32));
  CHECK_INFER_FAILS("ValueError", "attribute 'axes' is required", "relax.nn.layer_norm", NULL, 3,
                    T("2, 3, 4", F32), T("4", F32), T("4", F32));
  CHECK_INFER_FAILS("ValueError", "axis 2 appears more than once", "relax.nn.layer_norm",
                    oi_attrs(1, "axes", AL(2, 2, -1)), 3, T("2, 3, 4", F32), T("4, 4", F32),
                    T("4, 4", F32));
  CHECK_INFER_FAILS("ValueError", "axis 3 is out of range", "relax.nn.rms_norm",
                    oi_attrs(1, "axes", AL(1, 3)), 2, T("2, 3, 4", F32), T("4", F32));
}

TEST(batch_norm) {
  CHECK_INFER("R.Tuple(" TS("2, 3, 8, 8", F) ", " TS("3,", F) ", " TS("3,", F) ")",
              "relax.nn.batch_norm", oi_attrs(1, "axis", AI(1)), 5, T("2, 3, 8, 8", F32), T("3", F32),
              T("3", F32), T("3", F32), T("3", F32));
  CHECK_INFER("R.Tuple(" TS("2, 3, 8, 4", F) ", " TS("4,", F) ", " TS("4,", F) ")",
              "relax.nn.batch_norm", oi_attrs(2, "axis", AI(-1), "training", AB(false)), 5,
              T("2, 3, 8, 4", F32), T("4", F32), T("4", F32), T("4", F32), T("4", F32));
  CHECK_INFER("R.Tuple(R.Tensor(dtype=\"float32\", ndim=4), R.Tensor(dtype=\"float32\", ndim=1), "
              "R.Tensor(dtype=\"float32\", ndim=1))",
              "relax.nn.batch_norm", oi_attrs(1, "axis", AI(1)), 5, T("n, c, 8, 8", F32), T("d", F32),
              T("c", F32), T("c", F32), T("c", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'moving_var' dim 0 is 4 but 'data' at axis 1 is 3",
                    "relax.nn.batch_norm", oi_attrs(1, "axis", AI(1)), 5, T("2, 3, 8, 8", F32),
                    T("3", F32), T("3", F32), T("3", F32), T("4", F32));
  /* axis is required (upstream's batch_norm has no default for it) */
  CHECK_INFER_FAILS("ValueError", "attribute 'axis' is required", "relax.nn.batch_norm", NULL, 5,
                    T("2, 3, 8, 8", F32), T("3", F32), T("3", F32), T("3", F32), T("3", F32));
}

TEST(conv2d) {
  const char* op = "relax.nn.conv2d";
  CHECK_INFER(TS("1, 16, 30, 30", F), op, NULL, 2, T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  /* (32 + 1 + 1 - 2 - 1) // 2 + 1 = 16 */
  CHECK_INFER(TS("1, 16, 16, 16", F), op, oi_attrs(2, "padding", AL(1, 1), "strides", AL(1, 2)), 2,
              T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  /* Two paddings: (top, left) repeated as (bottom, right). */
  CHECK_INFER(TS("1, 16, 32, 34", F), op, oi_attrs(1, "padding", AL(2, 1, 2)), 2,
              T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  /* Four: (top, left, bottom, right). */
  CHECK_INFER(TS("1, 16, 32, 35", F), op, oi_attrs(1, "padding", AL(4, 0, 1, 2, 4)), 2,
              T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  /* Dilation 2: the kernel spans 5. */
  CHECK_INFER(TS("1, 16, 28, 28", F), op, oi_attrs(1, "dilation", AL(2, 2, 2)), 2,
              T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  /* Groups: 3 input channels, 1 per group. */
  CHECK_INFER(TS("1, 6, 30, 30", F), op, oi_attrs(1, "groups", AI(3)), 2, T("1, 3, 32, 32", F32),
              T("6, 1, 3, 3", F32));
  /* NHWC / HWIO; the output layout defaults to the data's. */
  CHECK_INFER(TS("1, 30, 30, 16", F), op,
              oi_attrs(2, "data_layout", AS("NHWC"), "kernel_layout", AS("HWIO")), 2,
              T("1, 32, 32, 3", F32), T("3, 3, 3, 16", F32));
  CHECK_INFER(TS("1, 16, 30, 30", F), op,
              oi_attrs(3, "data_layout", AS("NHWC"), "kernel_layout", AS("HWIO"), "out_layout",
                       AS("NCHW")),
              2, T("1, 32, 32, 3", F32), T("3, 3, 3, 16", F32));
  /* Symbolic batch and spatial dims. */
  CHECK_INFER(TS("n, 16, h - T.int64(2), w - T.int64(2)", F), op, NULL, 2, T("n, 3, h, w", F32),
              T("16, 3, 3, 3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 2, T("?4", F32), T("16, 3, 3, 3", F32));
  CHECK_INFER(TS("1, 16, 30, 30", F), op, oi_attrs(1, "out_dtype", AS("float32")), 2,
              T("1, 3, 32, 32", F16), T("16, 3, 3, 3", F16));
}

TEST(conv2d_errors) {
  const char* op = "relax.nn.conv2d";
  CHECK_INFER_FAILS("ValueError", "'data' has 4 input channels but 'weight' takes 3 per group x 1 groups",
                    op, NULL, 2, T("1, 4, 32, 32", F32), T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "the 15 output channels of 'weight' are not divisible by groups 2",
                    op, oi_attrs(1, "groups", AI(2)), 2, T("1, 4, 32, 32", F32), T("15, 2, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 4 (layout NCHW), got 3", op, NULL,
                    2, T("3, 32, 32", F32), T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError",
                    "attribute 'data_layout' must be a permutation of NCHW, N or C possibly packed "
                    "(NCHW16c), got 'NCHW4h': it splits the spatial axis H",
                    op, oi_attrs(1, "data_layout", AS("NCHW4h")), 2, T("1, 3, 32, 32, 4", F32),
                    T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'strides' must have 1 or 2 values, got 3", op,
                    oi_attrs(1, "strides", AL(3, 1, 1, 1)), 2, T("1, 3, 32, 32", F32),
                    T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'padding' must have 1, 2 or 4 values, got 3", op,
                    oi_attrs(1, "padding", AL(3, 1, 1, 1)), 2, T("1, 3, 32, 32", F32),
                    T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "the output spatial size would be 0", op, NULL, 2,
                    T("1, 3, 2, 2", F32), T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'groups' must be positive, got 0", op,
                    oi_attrs(1, "groups", AI(0)), 2, T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'strides' must be >= 1, got 0", op,
                    oi_attrs(1, "strides", AL(1, 0)), 2, T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F32));
  CHECK_INFER_FAILS("TypeError", "arguments 'data' and 'weight' have different dtypes", op, NULL, 2,
                    T("1, 3, 32, 32", F32), T("16, 3, 3, 3", F16));
}

/* Packed layouts (upstream's test_transform_convert_layout NCHW4c / OIHW4o expected modules): a
 * packed axis is outer * factor to the channel arithmetic, the output packed back by out_layout
 * (ceil(dim / factor) outer). */
TEST(conv2d_packed) {
  const char* op = "relax.nn.conv2d";
  /* data C = 4 * 4, weight O = 1 * 4, I = 16: out NCHW (2, 4, 26, 26) as NCHW4c */
  CHECK_INFER(TS("2, 1, 26, 26, 4", F), op,
              oi_attrs(3, "data_layout", AS("NCHW4c"), "kernel_layout", AS("OIHW4o"),
                       "out_layout", AS("NCHW4c")),
              2, T("2, 4, 28, 28, 4", F32), T("1, 16, 3, 3, 4", F32));
  /* a plain kernel; the output in the data's layout, then unpacked, then NHWC4c */
  CHECK_INFER(TS("1, 2, 30, 30, 4", F), op, oi_attrs(1, "data_layout", AS("NCHW4c")), 2,
              T("1, 4, 32, 32, 4", F32), T("8, 16, 3, 3", F32));
  CHECK_INFER(TS("1, 8, 30, 30", F), op,
              oi_attrs(2, "data_layout", AS("NCHW4c"), "out_layout", AS("NCHW")), 2,
              T("1, 4, 32, 32, 4", F32), T("8, 16, 3, 3", F32));
  CHECK_INFER(TS("1, 30, 30, 2, 4", F), op,
              oi_attrs(2, "data_layout", AS("NCHW4c"), "out_layout", AS("NHWC4c")), 2,
              T("1, 4, 32, 32, 4", F32), T("8, 16, 3, 3", F32));
  /* N and I packed too (upstream's N2nHWC4c and OIHW4i) */
  CHECK_INFER(TS("1, 30, 30, 2, 2, 4", F), op,
              oi_attrs(3, "data_layout", AS("NHWC2n4c"), "kernel_layout", AS("OIHW4i"),
                       "out_layout", AS("NHWC2n4c")),
              2, T("1, 32, 32, 4, 2, 4", F32), T("8, 4, 3, 3, 4", F32));
  /* symbolic dims; 6 output channels pack to ceil(6 / 4) = 2 outer */
  CHECK_INFER(TS("n, 2, h - T.int64(2), w - T.int64(2), 4", F), op,
              oi_attrs(1, "data_layout", AS("NCHW4c")), 2, T("n, 2, h, w, 4", F32),
              T("6, 8, 3, 3", F32));
  CHECK_INFER(TS("n, (o + T.int64(3)) // T.int64(4), h - T.int64(2), w - T.int64(2), 4", F), op,
              oi_attrs(2, "data_layout", AS("NCHW"), "out_layout", AS("NCHW4c")), 2,
              T("n, 8, h, w", F32), T("o, 8, 3, 3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=5)", op, oi_attrs(1, "data_layout", AS("NCHW4c")),
              2, T("?5", F32), T("8, 16, 3, 3", F32));
  /* errors: a sub-axis dim that is not its factor, channels that do not match once unpacked */
  CHECK_INFER_FAILS("ValueError",
                    "argument 'data' must have dim 4 (the sub-axis 4c of layout NCHW4c) of 4, got 8",
                    op, oi_attrs(1, "data_layout", AS("NCHW4c")), 2, T("1, 4, 32, 32, 8", F32),
                    T("8, 16, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'weight' must have dim 4 (the sub-axis 4o of layout OIHW4o) of 4, "
                    "got 2",
                    op, oi_attrs(1, "kernel_layout", AS("OIHW4o")), 2, T("1, 16, 32, 32", F32),
                    T("2, 16, 3, 3, 2", F32));
  CHECK_INFER_FAILS("ValueError",
                    "'data' has 16 input channels but 'weight' takes 15 per group x 1 groups", op,
                    oi_attrs(1, "data_layout", AS("NCHW4c")), 2, T("1, 4, 32, 32, 4", F32),
                    T("8, 15, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'weight' must have ndim 5 (layout OIHW4o), got 4", op,
                    oi_attrs(1, "kernel_layout", AS("OIHW4o")), 2, T("1, 16, 32, 32", F32),
                    T("8, 16, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError",
                    "attribute 'kernel_layout' must be a permutation of OIHW, O or I possibly "
                    "packed (OIHW16i), got 'OIHW4c': c is not an axis of OIHW",
                    op, oi_attrs(1, "kernel_layout", AS("OIHW4c")), 2, T("1, 16, 32, 32", F32),
                    T("8, 16, 3, 3, 4", F32));
}

/* The text of call attribute `name` of op called on Vars of struct infos a and b (taken; b NULL:
 * one argument) with attrs (taken): as stored by the constructor. */
static const char* stored_attr(const char* op, void* attrs, const char* name,
                               tvm_relax_sinfo_obj* a, tvm_relax_sinfo_obj* b) {
  static char text[128];
  void* vars[2] = {rt_var_take("a", a), b ? rt_var_take("b", b) : NULL};
  void* args = tvm_ffi_array_of_objects(vars, b ? 2 : 1);
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  tvm_relax_call_obj* call =
      (tvm_relax_call_obj*)tvm_relax_call_new(tvm_relax_op(info->id), args, attrs, NULL, NULL);
  const TVMFFIAny* v = call ? tvm_relax_call_attr(call, name) : NULL;
  text[0] = '\0';
  for (int64_t i = 0; v && v->type_index == kTVMFFIArray && i < tvm_ffi_seq_size(v->v_obj); ++i) {
    int64_t x = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(v->v_obj, i), &x);
    snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%lld", i ? ", " : "",
             (long long)x);
  }
  tvm_ffi_release(call);
  tvm_ffi_release(args);
  tvm_ffi_release(vars[0]);
  tvm_ffi_release(vars[1]);
  tvm_ffi_release(attrs);
  return text;
}

/* Spatial list attributes given short are stored completed, as upstream's wrappers and
 * constructors store them: one value per dim, and padding before and after each dim. */
TEST(spatial_attrs_stored_complete) {
  const char* c2 = "relax.nn.conv2d";
  CHECK_STR_EQ(stored_attr(c2, oi_attrs(1, "strides", AI(2)), "strides", T("1, 3, 8, 8", F32),
                           T("4, 3, 3, 3", F32)),
               "2, 2");
  CHECK_STR_EQ(stored_attr(c2, oi_attrs(1, "padding", AL(1, 1)), "padding", T("1, 3, 8, 8", F32),
                           T("4, 3, 3, 3", F32)),
               "1, 1, 1, 1");
  CHECK_STR_EQ(stored_attr(c2, oi_attrs(1, "padding", AL(2, 1, 2)), "padding",
                           T("1, 3, 8, 8", F32), T("4, 3, 3, 3", F32)),
               "1, 2, 1, 2");
  CHECK_STR_EQ(stored_attr(c2, oi_attrs(1, "padding", AL(4, 0, 1, 2, 3)), "padding",
                           T("1, 3, 8, 8", F32), T("4, 3, 3, 3", F32)),
               "0, 1, 2, 3");
  CHECK_STR_EQ(stored_attr(c2, oi_attrs(1, "dilation", AL(1, 2)), "dilation", T("1, 3, 8, 8", F32),
                           T("4, 3, 3, 3", F32)),
               "2, 2");
  CHECK_STR_EQ(stored_attr("relax.nn.conv3d", oi_attrs(1, "padding", AL(3, 1, 2, 3)), "padding",
                           T("1, 3, 8, 8, 8", F32), T("4, 3, 3, 3, 3", F32)),
               "1, 2, 3, 1, 2, 3");
  CHECK_STR_EQ(stored_attr("relax.nn.conv1d", oi_attrs(1, "padding", AI(1)), "padding",
                           T("1, 3, 8", F32), T("4, 3, 3", F32)),
               "1, 1");
  CHECK_STR_EQ(stored_attr("relax.nn.conv2d_transpose",
                           oi_attrs(2, "output_padding", AI(1), "strides", AI(2)),
                           "output_padding", T("1, 4, 8, 8", F32), T("4, 3, 3, 3", F32)),
               "1, 1");
  CHECK_STR_EQ(stored_attr("relax.nn.max_pool2d", oi_attrs(1, "pool_size", AI(3)), "pool_size",
                           T("1, 3, 8, 8", F32), NULL),
               "3, 3");
  CHECK_STR_EQ(stored_attr("relax.nn.adaptive_avg_pool2d", oi_attrs(1, "output_size", AI(2)),
                           "output_size", T("1, 3, 8, 8", F32), NULL),
               "2, 2");
  CHECK_STR_EQ(stored_attr("relax.nn.adaptive_avg_pool3d", oi_attrs(1, "output_size", AI(2)),
                           "output_size", T("1, 3, 8, 8, 8", F32), NULL),
               "2, 2, 2");
  /* (a count that fits no rule stays as given: the inference rule reports it) */
  CHECK_INFER_FAILS("ValueError", "attribute 'padding' must have 1, 3 or 6 values, got 2",
                    "relax.nn.conv3d", oi_attrs(1, "padding", AL(2, 1, 1)), 2,
                    T("1, 3, 8, 8, 8", F32), T("4, 3, 3, 3, 3", F32));
}

TEST(conv1d_and_transpose) {
  CHECK_INFER(TS("1, 8, 8", F), "relax.nn.conv1d", NULL, 2, T("1, 3, 10", F32), T("8, 3, 3", F32));
  /* (10 + 2 - 2 - 1) // 2 + 1 = 5 */
  CHECK_INFER(TS("1, 8, 5", F), "relax.nn.conv1d", oi_attrs(2, "padding", AI(1), "strides", AI(2)),
              2, T("1, 3, 10", F32), T("8, 3, 3", F32));
  CHECK_INFER(TS("1, 10, 8", F), "relax.nn.conv1d",
              oi_attrs(2, "data_layout", AS("NWC"), "kernel_layout", AS("WIO")), 2,
              T("1, 12, 3", F32), T("3, 3, 8", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'padding' must have 1 or 2 values, got 3",
                    "relax.nn.conv1d", oi_attrs(1, "padding", AL(3, 0, 0, 0)), 2, T("1, 3, 10", F32),
                    T("8, 3, 3", F32));

  const char* op = "relax.nn.conv2d_transpose";
  /* (8 - 1) * 1 + 2 + 1 = 10; weight IOHW: 4 output channels. */
  CHECK_INFER(TS("1, 4, 10, 10", F), op, NULL, 2, T("1, 16, 8, 8", F32), T("16, 4, 3, 3", F32));
  /* (8 - 1) * 2 - 1 - 1 + 2 + 1 + 1 = 16 */
  CHECK_INFER(TS("1, 4, 16, 16", F), op,
              oi_attrs(3, "strides", AL(1, 2), "padding", AL(1, 1), "output_padding", AL(1, 1)), 2,
              T("1, 16, 8, 8", F32), T("16, 4, 3, 3", F32));
  CHECK_INFER(TS("1, 8, 10, 10", F), op, oi_attrs(1, "groups", AI(2)), 2, T("1, 16, 8, 8", F32),
              T("16, 4, 3, 3", F32));
  CHECK_INFER(TS("n, 4, h + T.int64(2), 10", F), op, NULL, 2, T("n, 16, h, 8", F32),
              T("16, 4, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "'data' has 8 input channels but 'weight' takes 16", op, NULL, 2,
                    T("1, 8, 8, 8", F32), T("16, 4, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'output_padding' (2) must be less than the stride (2)",
                    op, oi_attrs(2, "strides", AL(1, 2), "output_padding", AL(1, 2)), 2,
                    T("1, 16, 8, 8", F32), T("16, 4, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "the 15 input channels of 'weight' are not divisible by groups 2",
                    op, oi_attrs(1, "groups", AI(2)), 2, T("1, 15, 8, 8", F32), T("15, 4, 3, 3", F32));
}

TEST(pool2d) {
  const char* op = "relax.nn.max_pool2d";
  CHECK_INFER(TS("1, 3, 16, 16", F), op, oi_attrs(2, "pool_size", AL(1, 2), "strides", AL(1, 2)), 1,
              T("1, 3, 32, 32", F32));
  /* (32 + 2 - 2 - 1) // 2 + 1 = 16 */
  CHECK_INFER(TS("1, 3, 16, 16", F), "relax.nn.avg_pool2d",
              oi_attrs(3, "pool_size", AL(1, 3), "strides", AL(1, 2), "padding", AL(1, 1)), 1,
              T("1, 3, 32, 32", F32));
  /* ceil_mode: (32 - 3 + 1) // 2 + 1 = 16 against 15 without. */
  CHECK_INFER(TS("1, 3, 15, 15", F), op, oi_attrs(2, "pool_size", AL(1, 3), "strides", AL(1, 2)), 1,
              T("1, 3, 32, 32", F32));
  CHECK_INFER(TS("1, 3, 16, 16", F), op,
              oi_attrs(3, "pool_size", AL(1, 3), "strides", AL(1, 2), "ceil_mode", AB(true)), 1,
              T("1, 3, 32, 32", F32));
  /* A last window starting in the after-padding is dropped in ceil mode: 4 windows without
   * ceil_mode, 3 with it. */
  CHECK_INFER(TS("1, 1, 4, 4", F), op, oi_attrs(2, "strides", AL(1, 2), "padding", AL(1, 1)), 1,
              T("1, 1, 5, 5", F32));
  CHECK_INFER(TS("1, 1, 3, 3", F), op,
              oi_attrs(3, "strides", AL(1, 2), "padding", AL(1, 1), "ceil_mode", AB(true)), 1,
              T("1, 1, 5, 5", F32));
  CHECK_INFER(TS("1, 16, 16, 3", F), op,
              oi_attrs(3, "pool_size", AL(1, 2), "strides", AL(1, 2), "layout", AS("NHWC")), 1,
              T("1, 32, 32, 3", F32));
  CHECK_INFER(TS("1, 3, 16, 16", F), op,
              oi_attrs(4, "pool_size", AL(1, 2), "strides", AL(1, 2), "layout", AS("NHWC"),
                       "out_layout", AS("NCHW")),
              1, T("1, 32, 32, 3", F32));
  CHECK_INFER(TS("n, c, h - T.int64(1), w - T.int64(1)", F), op, oi_attrs(1, "pool_size", AL(1, 2)),
              1, T("n, c, h, w", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 1, T("?4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 4 (layout NCHW), got 3", op, NULL,
                    1, T("3, 32, 32", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pool_size' must have 1 or 2 values, got 3", op,
                    oi_attrs(1, "pool_size", AL(3, 2, 2, 2)), 1, T("1, 3, 32, 32", F32));
  CHECK_INFER_FAILS("ValueError", "the output spatial size would be 0", op,
                    oi_attrs(1, "pool_size", AL(1, 3)), 1, T("1, 3, 2, 2", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'padding' must be non-negative", op,
                    oi_attrs(1, "padding", AL(1, -1)), 1, T("1, 3, 2, 2", F32));
}

TEST(adaptive_pool2d) {
  const char* op = "relax.nn.adaptive_avg_pool2d";
  CHECK_INFER(TS("1, 3, 1, 1", F), op, oi_attrs(1, "output_size", AL(1, 1)), 1, T("1, 3, 32, 32", F32));
  CHECK_INFER(TS("1, 3, 7, 5", F), op, oi_attrs(1, "output_size", AL(2, 7, 5)), 1,
              T("1, 3, 32, 32", F32));
  CHECK_INFER(TS("n, 3, h, w", F), op, NULL, 1, T("n, 3, h, w", F32));
  CHECK_INFER(TS("1, 2, 2, 3", F), op, oi_attrs(2, "output_size", AL(1, 2), "layout", AS("NHWC")),
              1, T("1, 32, 32, 3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 1, T("?4", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'output_size' must have 1 or 2 values, got 3", op,
                    oi_attrs(1, "output_size", AL(3, 1, 1, 1)), 1, T("1, 3, 32, 32", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'layout' must be a permutation of NCHW", op,
                    oi_attrs(1, "layout", AS("NCW")), 1, T("1, 3, 32, 32", F32));
}

/* Packed layouts (upstream's NCHW16c): the packed dims pass through, the sub-axis's dim is its
 * factor; the spatial axes may not be split, nor the output re-packed; bad layouts name why. */
TEST(pool_packed_layouts) {
  const char* op = "relax.nn.max_pool2d";
  CHECK_INFER(TS("4, 4, 110, 110, 16", F), op,
              oi_attrs(2, "pool_size", AL(2, 3, 3), "layout", AS("NCHW16c")), 1,
              T("4, 4, 112, 112, 16", F32));
  CHECK_INFER(TS("4, 4, 110, 110, 16", F), "relax.nn.avg_pool2d",
              oi_attrs(2, "pool_size", AL(2, 3, 3), "layout", AS("NCHW16c")), 1,
              T("4, 4, 112, 112, 16", F32));
  /* out_layout reorders the same axes: NHWC8c */
  CHECK_INFER(TS("2, 8, 8, 3, 8", F), op,
              oi_attrs(4, "pool_size", AL(1, 2), "strides", AL(1, 2), "layout", AS("NCHW8c"),
                       "out_layout", AS("NHWC8c")),
              1, T("2, 3, 16, 16, 8", F32));
  /* symbolic outer dims pass through; a symbolic sub-axis dim becomes its factor */
  CHECK_INFER(TS("n, c, h - T.int64(1), w - T.int64(1), 4", F), op,
              oi_attrs(2, "pool_size", AL(1, 2), "layout", AS("NCHW4c")), 1,
              T("n, c, h, w, k", F32));
  /* N packed too, sub-axes in any order */
  CHECK_INFER(TS("1, 3, 7, 2, 6, 2", F), op,
              oi_attrs(2, "pool_size", AL(1, 2), "layout", AS("NCH2nW2c")), 1,
              T("1, 3, 8, 2, 7, 2", F32));
  CHECK_INFER(TS("2, 4, 1, 16, 1, 1", F), "relax.nn.adaptive_avg_pool3d",
              oi_attrs(2, "output_size", AL(1, 1), "layout", AS("NCD16cHW")), 1,
              T("2, 4, 7, 16, 9, 9", F32));
  CHECK_INFER(TS("2, 4, 1, 1, 16", F), "relax.nn.adaptive_avg_pool2d",
              oi_attrs(2, "output_size", AL(2, 1, 1), "layout", AS("NCHW16c")), 1,
              T("2, 4, 7, 7, 16", F32));
  CHECK_INFER(TS("2, 4, 5, 16", F), "relax.nn.max_pool1d",
              oi_attrs(2, "pool_size", AL(1, 3), "layout", AS("NCW16c")), 1,
              T("2, 4, 7, 16", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=5)", op, oi_attrs(1, "layout", AS("NCHW16c")), 1,
              T("?5", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 5 (layout NCHW16c), got 4", op,
                    oi_attrs(1, "layout", AS("NCHW16c")), 1, T("1, 3, 32, 32", F32));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'data' must have dim 4 (the sub-axis 16c of layout NCHW16c) of 16, "
                    "got 8",
                    op, oi_attrs(1, "layout", AS("NCHW16c")), 1, T("1, 3, 32, 32, 8", F32));
  /* Bad layouts name why. */
  const struct {
    const char *op, *layout, *data, *message;
  } k_bad[] = {
      {op, "NCHW4w", "1, 3, 32, 8, 4",
       "attribute 'layout' must be a permutation of NCHW, N or C possibly packed (NCHW16c), got "
       "'NCHW4w': it splits the spatial axis W"},
      {op, "NCHW4x", "1, 3, 32, 8, 4", "got 'NCHW4x': x is not an axis of NCHW"},
      {op, "NCHWC", "1, 3, 32, 8, 4", "got 'NCHWC': it has the axis C twice"},
      {op, "NCHW4c8c", "1, 3, 32, 8, 4, 8", "got 'NCHW4c8c': it splits the axis C twice"},
      {"relax.nn.max_pool1d", "NW4c", "1, 3, 32, 4",
       "got 'NW4c': it has the sub-axis c but not the axis C"},
      {op, "NCW4c", "1, 3, 32, 4", "got 'NCW4c': it lacks the axis H"},
      {op, "NCHWc", "1, 3, 32, 8, 4", "got 'NCHWc': the sub-axis c has no positive factor"},
      {op, "NCHW0c", "1, 3, 32, 8, 4", "got 'NCHW0c': the sub-axis c has no positive factor"},
      {op, "N4CHW", "1, 3, 32, 8", "got 'N4CHW': a factor comes before the primal axis C"},
      {op, "NCHW16", "1, 3, 32, 8", "got 'NCHW16': it ends in a factor without its sub-axis"},
  };
  for (size_t i = 0; i < sizeof(k_bad) / sizeof(k_bad[0]); ++i) {
    CHECK_INFER_FAILS("ValueError", k_bad[i].message, k_bad[i].op,
                      oi_attrs(1, "layout", AS(k_bad[i].layout)), 1, T(k_bad[i].data, F32));
  }
  CHECK_INFER_FAILS("NotImplementedError",
                    "out_layout 'NCHW' packs other axes than layout 'NCHW16c' (re-packing is not "
                    "supported)",
                    op, oi_attrs(2, "layout", AS("NCHW16c"), "out_layout", AS("NCHW")), 1,
                    T("1, 3, 32, 8, 16", F32));
  CHECK_INFER_FAILS("NotImplementedError", "out_layout 'NCHW8c' packs other axes",
                    "relax.nn.adaptive_avg_pool2d",
                    oi_attrs(2, "layout", AS("NCHW16c"), "out_layout", AS("NCHW8c")), 1,
                    T("1, 3, 32, 8, 16", F32));
  /* grid_sample still takes permutations only (the convolutions: conv2d_packed) */
  CHECK_INFER_FAILS("ValueError", "attribute 'layout' must be a permutation of NCHW",
                    "relax.image.grid_sample", oi_attrs(1, "layout", AS("NCHW16c")), 2,
                    T("1, 3, 32, 8, 16", F32), T("1, 2, 4, 4", F32));
  /* resize2d: the packed dims pass through (upstream's test_image_resize2d_symbolic) */
  const char* rs = "relax.image.resize2d";
  CHECK_INFER(TS("n, c, oh, ow, 16", F), rs, oi_attrs(1, "layout", AS("NCHW16c")), 2,
              T("n, c, h, w, 16", F32), SH("oh, ow"));
  CHECK_INFER(TS("2, 64, 48, 3, 4", F), rs, oi_attrs(1, "layout", AS("NHWC4c")), 2,
              T("2, 32, 32, 3, 4", F32), SH("64, 48"));
  CHECK_INFER_FAILS("ValueError", "got 'NCH4hW': it splits the spatial axis H", rs,
                    oi_attrs(1, "layout", AS("NCH4hW")), 2, T("2, 3, 8, 4, 8", F32),
                    SH("64, 48"));
  CHECK_INFER_FAILS("ValueError", "(the sub-axis 16c of layout NCHW16c) of 16, got 4", rs,
                    oi_attrs(1, "layout", AS("NCHW16c")), 2, T("2, 3, 8, 8, 4", F32),
                    SH("64, 48"));
  CHECK_INFER_FAILS("ValueError", "argument 'data' has an empty spatial dim (H of NCHW4c is 0)",
                    rs, oi_attrs(1, "layout", AS("NCHW4c")), 2, T("2, 3, 0, 8, 4", F32),
                    SH("64, 48"));
}

TEST(pad_and_dropout) {
  CHECK_INFER(TS("4, 7", F), "relax.nn.pad", oi_attrs(1, "pad_width", AL(4, 1, 1, 2, 2)), 1,
              T("2, 3", F32));
  CHECK_INFER(TS("n + T.int64(1), 3", F), "relax.nn.pad",
              oi_attrs(3, "pad_width", AL(4, 0, 1, 0, 0), "pad_value", AF(1.5), "pad_mode",
                       AS("edge")),
              1, T("n, 3", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.nn.pad",
              oi_attrs(1, "pad_width", AL(4, 1, 1, 2, 2)), 1, T("?2", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.nn.pad",
              oi_attrs(1, "pad_width", AL(4, 1, 1, 2, 2)), 1, T("*", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pad_width' must have 2 values per dim (4 for ndim 2), got 3",
                    "relax.nn.pad", oi_attrs(1, "pad_width", AL(3, 1, 1, 1)), 1, T("2, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pad_mode' must be", "relax.nn.pad",
                    oi_attrs(2, "pad_width", AL(4, 1, 1, 2, 2), "pad_mode", AS("wrap")), 1,
                    T("2, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pad_width' is required", "relax.nn.pad", NULL, 1,
                    T("2, 3", F32));
  CHECK_INFER_FAILS("TypeError", "relax.nn.pad takes 1 arguments (data), got 2", "relax.nn.pad",
                    oi_attrs(1, "pad_width", AL(4, 1, 1, 2, 2)), 2, T("2, 3", F32), T("", F32));

  CHECK_INFER("R.Tuple(" TS("2, 3", F) ", " TS("2, 3", F) ")", "relax.nn.dropout", NULL, 1,
              T("2, 3", F32));
  CHECK_INFER("R.Tuple(R.Tensor(dtype=\"float32\"), R.Tensor(dtype=\"float32\"))", "relax.nn.dropout",
              oi_attrs(1, "rate", AF(0.1)), 1, T("*", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'rate' must be in [0, 1), got 1.5", "relax.nn.dropout",
                    oi_attrs(1, "rate", AF(1.5)), 1, T("2, 3", F32));
  /* An operator without attributes refuses any. */
  CHECK_INFER_FAILS("TypeError", "relax.nn.relu: unknown attribute 'alpha' (the operator has none)",
                    "relax.nn.relu", oi_attrs(1, "alpha", AF(0.1)), 1, T("2, 3", F32));
}

TEST(attention) {
  const char* op = "relax.nn.attention";
  CHECK_INFER(TS("2, 16, 8, 32", F), op, NULL, 3, T("2, 16, 8, 64", F32), T("2, 32, 8, 64", F32),
              T("2, 32, 8, 32", F32));
  /* Grouped-query: 8 query heads over 2 key/value heads; a bias broadcast from 1. */
  CHECK_INFER(TS("2, 16, 8, 64", F), op,
              oi_attrs(3, "scale", AF(0.125), "causal_mask", AS("TopLeft"), "window_size", AI(4)), 4,
              T("2, 16, 8, 64", F32), T("2, 32, 2, 64", F32), T("2, 32, 2, 64", F32),
              T("1, 1, 16, 32", F32));
  CHECK_INFER(TS("b, s, 8, 64", F), op, NULL, 4, T("b, s, 8, 64", F32), T("b, t, 8, 64", F32),
              T("b, t, 8, 64", F32), T("b, 8, s, t", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 3, T("?4", F32), T("2, 32, 8, 64", F32),
              T("2, 32, 8, 32", F32));
  CHECK_INFER_FAILS("ValueError", "the batch size of 'query' (2) and of 'key' (3) differ", op, NULL,
                    3, T("2, 16, 8, 64", F32), T("3, 32, 8, 64", F32), T("2, 32, 8, 64", F32));
  CHECK_INFER_FAILS("ValueError", "the head dim of 'query' (64) and of 'key' (32) differ", op, NULL,
                    3, T("2, 16, 8, 64", F32), T("2, 32, 8, 32", F32), T("2, 32, 8, 64", F32));
  CHECK_INFER_FAILS("ValueError", "the sequence length of 'key' (32) and of 'value' (31) differ", op,
                    NULL, 3, T("2, 16, 8, 64", F32), T("2, 32, 8, 64", F32), T("2, 31, 8, 64", F32));
  CHECK_INFER_FAILS("ValueError", "the number of heads of 'query' (8) is not a multiple of that of 'key' (3)",
                    op, NULL, 3, T("2, 16, 8, 64", F32), T("2, 32, 3, 64", F32), T("2, 32, 8, 64", F32));
  CHECK_INFER_FAILS("ValueError", "the sequence length of 'key' (32) and of 'bias' (31) differ", op,
                    NULL, 4, T("2, 16, 8, 64", F32), T("2, 32, 8, 64", F32), T("2, 32, 8, 64", F32),
                    T("2, 8, 16, 31", F32));
  CHECK_INFER_FAILS("ValueError", "the number of heads of 'bias' (4) is neither 1 nor that of 'query' (8)",
                    op, NULL, 4, T("2, 16, 8, 64", F32), T("2, 32, 8, 64", F32),
                    T("2, 32, 8, 64", F32), T("2, 4, 16, 32", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'query' must have ndim 4 (layout BSNH), got 3", op, NULL,
                    3, T("16, 8, 64", F32), T("2, 32, 8, 64", F32), T("2, 32, 8, 64", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'causal_mask' must be None", op,
                    oi_attrs(1, "causal_mask", AS("Middle")), 3, T("2, 16, 8, 64", F32),
                    T("2, 32, 8, 64", F32), T("2, 32, 8, 64", F32));
}

/* attention_var_len's arguments in upstream's Call order: queries, keys, values, seqstart_q,
 * seqstart_k, max_seqlen_q, max_seqlen_k. */
TEST(attention_var_len) {
  const char* op = "relax.nn.attention_var_len";
#define SEQ T("b", I32), T("b", I32), T("", I32), T("", I32)
  CHECK_INFER(TS("1, 10, 8, 32", F), op, NULL, 7, T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32),
              T("1, 12, 8, 32", F32), SEQ);
  /* grouped-query heads, symbolic lengths, the attributes; unknown shapes give the rank */
  CHECK_INFER(TS("1, n, 8, 16", F), op,
              oi_attrs(3, "scale", AF(0.25), "causal_mask", AS("BottomRight"), "window_size",
                       AI(4)),
              7, T("1, n, 8, 16", F32), T("1, m, 2, 16", F32), T("1, m, 2, 16", F32), SEQ);
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 7, T("?4", F32),
              T("1, 12, 8, 64", F32), T("1, 12, 8, 32", F32), T("?1", I32), T("*", I32),
              T("*", UNK), T("", I32));
  CHECK_INFER_FAILS("ValueError", "relax.nn.attention_var_len: argument 'queries' must have "
                    "batch size 1 (the sequences concatenated along axis 1), got 2", op, NULL, 7,
                    T("2, 10, 8, 64", F32), T("2, 12, 8, 64", F32), T("2, 12, 8, 64", F32), SEQ);
  CHECK_INFER_FAILS("ValueError", "the sequence length of 'keys' (12) and of 'values' (11) differ",
                    op, NULL, 7, T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("1, 11, 8, 64", F32), SEQ);
  CHECK_INFER_FAILS("ValueError", "the number of heads of 'queries' (8) is not a multiple of that "
                    "of 'keys' (3)", op, NULL, 7, T("1, 10, 8, 64", F32), T("1, 12, 3, 64", F32),
                    T("1, 12, 3, 64", F32), SEQ);
  CHECK_INFER_FAILS("ValueError", "argument 'queries' must have ndim 4 (layout BSNH), got 3", op,
                    NULL, 7, T("10, 8, 64", F32), T("1, 12, 8, 64", F32), T("1, 12, 8, 64", F32),
                    SEQ);
  CHECK_INFER_FAILS("TypeError", "argument 'seqstart_k' must be an int32 tensor, got dtype int64",
                    op, NULL, 7, T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("1, 12, 8, 64", F32), T("b", I32), T("b", I64), T("", I32), T("", I32));
  CHECK_INFER_FAILS("ValueError", "argument 'seqstart_q' must have ndim 1, got 0", op, NULL, 7,
                    T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("", I32), T("", I32), T("", I32), T("", I32));
  CHECK_INFER_FAILS("ValueError", "argument 'max_seqlen_k' must have ndim 0, got 1", op, NULL, 7,
                    T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("b", I32), T("b", I32), T("", I32), T("1", I32));
  CHECK_INFER_FAILS("TypeError", "argument 'max_seqlen_q' must be a tensor", op, NULL, 7,
                    T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("b", I32), T("b", I32), SH("1"), T("", I32));
  CHECK_INFER_FAILS("ValueError", "'seqstart_q' (4,) and 'seqstart_k' (5,) differ in length", op,
                    NULL, 7, T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("1, 12, 8, 64", F32), T("4", I32), T("5", I32), T("", I32), T("", I32));
  CHECK_INFER_FAILS("ValueError", "attribute 'window_size' must be positive", op,
                    oi_attrs(2, "causal_mask", AS("TopLeft"), "window_size", AI(0)), 7,
                    T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32), T("1, 12, 8, 64", F32), SEQ);
  CHECK_INFER_FAILS("TypeError", "relax.nn.attention_var_len takes 7 arguments", op, NULL, 5,
                    T("1, 10, 8, 64", F32), T("1, 12, 8, 64", F32), T("1, 12, 8, 64", F32),
                    T("b", I32), T("", I32));
#undef SEQ
}

TEST(resize2d) {
  const char* op = "relax.image.resize2d";
  CHECK_INFER(TS("1, 3, 64, 48", F), op, NULL, 2, T("1, 3, 32, 32", F32), SH("64, 48"));
  CHECK_INFER(TS("1, 64, 48, 3", "float16"), op,
              oi_attrs(4, "layout", AS("NHWC"), "out_dtype", AS("float16"), "method",
                       AS("nearest_neighbor"), "roi", AFL(4, 0.0, 0.0, 1.0, 1.0)),
              2, T("1, 32, 32, 3", F32), SH("64, 48"));
  CHECK_INFER(TS("n, 3, h, w", F), op, NULL, 2, T("n, 3, 32, 32", F32), SH("h, w"));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 2, T("1, 3, 32, 32", F32), SH("?2"));
  CHECK_INFER_FAILS("ValueError", "argument 'size' must be a shape of 2 dims, got 1", op, NULL, 2,
                    T("1, 3, 32, 32", F32), SH("64"));
  CHECK_INFER_FAILS("TypeError", "argument 'size' must be a shape of 2 dims (R.shape([h, w]))", op,
                    NULL, 2, T("1, 3, 32, 32", F32), T("2", I32));
  CHECK_INFER_FAILS("ValueError", "attribute 'method' must be", op,
                    oi_attrs(1, "method", AS("bilinear")), 2, T("1, 3, 32, 32", F32), SH("64, 48"));
  CHECK_INFER_FAILS("TypeError", "attribute 'roi' must be None or 4 numbers", op,
                    oi_attrs(1, "roi", AFL(3, 0.0, 0.0, 1.0)), 2, T("1, 3, 32, 32", F32),
                    SH("64, 48"));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 4 (layout NCHW), got 3", op, NULL,
                    2, T("3, 32, 32", F32), SH("64, 48"));
  /* an empty input axis with a non-empty output: nothing to interpolate from */
  CHECK_INFER_FAILS("ValueError",
                    "relax.image.resize2d: argument 'data' has an empty spatial dim (W of NHWC is 0)",
                    op, oi_attrs(1, "layout", AS("NHWC")), 2, T("1, 5, 0, 3", F32), SH("4, 4"));
  /* ... allowed when the output is empty too, or may be (a symbolic batch) */
  CHECK_INFER(TS("1, 3, 0, 4", F), op, NULL, 2, T("1, 3, 0, 5", F32), SH("0, 4"));
  CHECK_INFER(TS("n, 3, 4, 4", F), op, NULL, 2, T("n, 3, 0, 5", F32), SH("4, 4"));
}

/* grid_sample: (N, C) of data and the grid's spatial dims, placed by the layout, in data's dtype;
 * the grid is (N, s, *out) whatever data's layout. */
TEST(grid_sample) {
  const char* op = "relax.image.grid_sample";
  CHECK_INFER(TS("2, 3, 6, 7", F), op, NULL, 2, T("2, 3, 4, 5", F32), T("2, 2, 6, 7", F32));
  CHECK_INFER(TS("2, 3, 6, 7", "float16"), op,
              oi_attrs(3, "method", AS("bicubic"), "padding_mode", AS("reflection"),
                       "align_corners", AB(true)),
              2, T("2, 3, 4, 5", F16), T("2, 2, 6, 7", F32));
  /* another layout: data NHWC, the output NHWC too; NCDHW: three coordinates */
  CHECK_INFER(TS("2, 6, 7, 3", F), op, oi_attrs(1, "layout", AS("NHWC")), 2,
              T("2, 4, 5, 3", F32), T("2, 2, 6, 7", F32));
  CHECK_INFER(TS("1, 3, 2, 6, 7", F), op,
              oi_attrs(2, "layout", AS("NCDHW"), "method", AS("nearest")), 2,
              T("1, 3, 4, 4, 5", F32), T("1, 3, 2, 6, 7", F32));
  /* symbolic dims; an unknown shape or rank: the rank only */
  CHECK_INFER(TS("n, c, h, w", F), op, NULL, 2, T("n, c, 4, 5", F32), T("n, 2, h, w", F32));
  CHECK_INFER(TS("n, c, h, w", F), op, NULL, 2, T("n, c, 4, 5", F32), T("m, 2, h, w", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 2, T("?4", F32),
              T("2, 2, 6, 7", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 2, T("2, 3, 4, 5", F32),
              T("*", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=5)", op, oi_attrs(1, "layout", AS("NCDHW")), 2,
              T("*", F32), T("?5", F32));
  CHECK_INFER("R.Tensor((2, 3, 6, 7))", op, NULL, 2, T("2, 3, 4, 5", UNK), T("2, 2, 6, 7", UNK));
  /* errors: attribute values */
  CHECK_INFER_FAILS("ValueError", "relax.image.grid_sample: attribute 'method' must be "
                    "\"bilinear\", \"nearest\" or \"bicubic\", got \"linear\"", op,
                    oi_attrs(1, "method", AS("linear")), 2, T("2, 3, 4, 5", F32),
                    T("2, 2, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'padding_mode' must be \"zeros\", \"border\" or "
                    "\"reflection\", got \"wrap\"", op, oi_attrs(1, "padding_mode", AS("wrap")),
                    2, T("2, 3, 4, 5", F32), T("2, 2, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'layout' must be a permutation of NCHW", op,
                    oi_attrs(1, "layout", AS("NCHX")), 2, T("2, 3, 4, 5", F32),
                    T("2, 2, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "relax.image.grid_sample: method \"bicubic\" is 2-d only, got "
                    "layout NCDHW", op, oi_attrs(2, "layout", AS("NCDHW"), "method",
                    AS("bicubic")), 2, T("1, 3, 4, 4, 5", F32), T("1, 3, 2, 6, 7", F32));
  CHECK_INFER_FAILS("TypeError", "attribute 'align_corners' must be a bool", op,
                    oi_attrs(1, "align_corners", AS("yes")), 2, T("2, 3, 4, 5", F32),
                    T("2, 2, 6, 7", F32));
  /* errors: arguments */
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 4 (layout NCHW), got 5", op,
                    NULL, 2, T("2, 3, 4, 5, 6", F32), T("2, 2, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'grid' must have ndim 5, got 4", op,
                    oi_attrs(1, "layout", AS("NCDHW")), 2, T("1, 3, 4, 4, 5", F32),
                    T("1, 3, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "relax.image.grid_sample: argument 'grid' must have 2 "
                    "coordinates (dim 1) for layout NCHW, got 3", op, NULL, 2,
                    T("2, 3, 4, 5", F32), T("2, 3, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "relax.image.grid_sample: arguments 'data' and 'grid' have "
                    "different batch sizes 2 and 3", op, NULL, 2, T("2, 3, 4, 5", F32),
                    T("3, 2, 6, 7", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a float tensor, got dtype int32", op,
                    NULL, 2, T("2, 3, 4, 5", I32), T("2, 2, 6, 7", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'grid' must be a float tensor, got dtype int64", op,
                    NULL, 2, T("2, 3, 4, 5", F32), T("2, 2, 6, 7", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'grid' must be a tensor", op, NULL, 2,
                    T("2, 3, 4, 5", F32), SH("2, 2"));
}

int main(void) {
  RUN(matmul_shapes);
  RUN(matmul_unknown);
  RUN(matmul_errors);
  RUN(outer);
  RUN(batch_flatten);
  RUN(pixel_shuffle);
  RUN(softmax);
  RUN(layer_and_rms_norm);
  RUN(batch_norm);
  RUN(conv2d);
  RUN(conv2d_errors);
  RUN(conv2d_packed);
  RUN(spatial_attrs_stored_complete);
  RUN(conv1d_and_transpose);
  RUN(pool2d);
  RUN(adaptive_pool2d);
  RUN(pool_packed_layouts);
  RUN(pad_and_dropout);
  RUN(attention);
  RUN(attention_var_len);
  RUN(resize2d);
  RUN(grid_sample);
  oi_free_vars();
  return test_summary();
}
