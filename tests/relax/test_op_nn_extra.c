/*
 * test_op_nn_extra.c: struct info of quantize / dequantize, atan2, nn.leakyrelu, nn.prelu,
 * nn.group_norm, nn.instance_norm, nn.nll_loss, nn.cross_entropy_with_logits, nn.conv3d,
 * nn.conv1d_transpose and nn.max_pool3d / nn.avg_pool3d and memory.view, and their errors on bad
 * inputs.
 */
#include "op_infer_testing.h"

#define TS(dims, dt) "R.Tensor((" dims "), dtype=\"" dt "\")"
#define F "float32"
#define I8 tvm_tir_dtype_int(8)

TEST(quantize) {
  const char* op = "relax.quantize";
  /* Defaults: axis -1, out_dtype int8. */
  CHECK_INFER(TS("2, 4", "int8"), op, NULL, 3, T("2, 4", F32), T("4", F32), T("4", I8));
  CHECK_INFER(TS("2, 4", "uint8"), op, oi_attrs(2, "axis", AI(0), "out_dtype", AS("uint8")), 3,
              T("2, 4", F32), T("2", F32), T("", I8));
  /* Scalar and one-element parameters, symbolic dims. */
  CHECK_INFER(TS("n, 4", "int16"), op, oi_attrs(1, "out_dtype", AS("int16")), 3, T("n, 4", F16),
              T("", F32), T("1", F16));
  CHECK_INFER(TS("n, m", "int8"), op, NULL, 3, T("n, m", F32), T("m", F32), T("m", I8));
  CHECK_INFER("R.Tensor(dtype=\"int8\")", op, NULL, 3, T("*", F32), T("4", F32), T("4", I8));
  CHECK_INFER_FAILS("ValueError", "relax.quantize: attribute 'out_dtype' must be one of int8", op,
                    oi_attrs(1, "out_dtype", AS("float32")), 3, T("2, 4", F32), T("4", F32),
                    T("4", I8));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must have dtype float16, float32, got int32", op,
                    NULL, 3, T("2, 4", I32), T("4", F32), T("4", I8));
  CHECK_INFER_FAILS("TypeError", "argument 'scale' must have dtype float16, float32, got int8", op,
                    NULL, 3, T("2, 4", F32), T("4", I8), T("4", I8));
  CHECK_INFER_FAILS("TypeError", "argument 'zero_point' must have dtype int8, float16, got int32",
                    op, NULL, 3, T("2, 4", F32), T("4", F32), T("4", I32));
  CHECK_INFER_FAILS("ValueError", "argument 'scale' has 3 values but 'data' has 4 at the axis", op,
                    NULL, 3, T("2, 4", F32), T("3", F32), T("4", I8));
  CHECK_INFER_FAILS("ValueError", "argument 'zero_point' must be a scalar or 1-d", op, NULL, 3,
                    T("2, 4", F32), T("4", F32), T("2, 4", I8));
  CHECK_INFER_FAILS("ValueError", "axis", op, oi_attrs(1, "axis", AI(2)), 3, T("2, 4", F32),
                    T("4", F32), T("4", I8));
  CHECK_INFER_FAILS("TypeError", "argument 'scale' must be a tensor", op, NULL, 3, T("2, 4", F32),
                    SH("4"), T("4", I8));
}

TEST(dequantize) {
  const char* op = "relax.dequantize";
  CHECK_INFER(TS("2, 4", F), op, NULL, 3, T("2, 4", I8), T("4", F32), T("4", I8));
  CHECK_INFER(TS("2, 4", "float16"), op, oi_attrs(2, "axis", AI(0), "out_dtype", AS("float16")), 3,
              T("2, 4", I32), T("2", F16), T("", I8));
  CHECK_INFER_FAILS("ValueError", "attribute 'out_dtype' must be one of float16, float32, got int8",
                    op, oi_attrs(1, "out_dtype", AS("int8")), 3, T("2, 4", I8), T("4", F32),
                    T("4", I8));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must have dtype int8", op, NULL, 3,
                    T("2, 4", I64), T("4", F32), T("4", I8));
  CHECK_INFER_FAILS("ValueError", "argument 'zero_point' has 2 values", op, NULL, 3, T("2, 4", I8),
                    T("4", F32), T("2", I8));
}

TEST(activations_and_atan2) {
  CHECK_INFER(TS("2, 3", F), "relax.nn.leakyrelu", oi_attrs(1, "alpha", AF(0.2)), 1,
              T("2, 3", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a float tensor", "relax.nn.leakyrelu",
                    NULL, 1, T("2, 3", I32));
  CHECK_INFER_FAILS("TypeError", "attribute 'alpha' must be a float", "relax.nn.leakyrelu",
                    oi_attrs(1, "alpha", AS("x")), 1, T("2, 3", F32));
  CHECK_INFER(TS("2, 3", F), "relax.nn.prelu", NULL, 2, T("2, 3", F32), T("3", F32));
  CHECK_INFER(TS("2, 3, 5", F), "relax.nn.prelu", oi_attrs(1, "axis", AI(-1)), 2, T("2, 3, 5", F32),
              T("5", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'alpha' has 4 values but 'data' has 3",
                    "relax.nn.prelu", NULL, 2, T("2, 3", F32), T("4", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'alpha' must be a scalar or 1-d", "relax.nn.prelu",
                    NULL, 2, T("2, 3", F32), T("1, 3", F32));
  /* One slope for every channel (PyTorch's num_parameters=1). */
  CHECK_INFER(TS("2, 3, 5", F), "relax.nn.prelu", NULL, 2, T("2, 3, 5", F32), T("1", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'data' must be a float tensor", "relax.nn.prelu", NULL,
                    2, T("2, 3", I32), T("3", I32));
  CHECK_INFER(TS("4, 3", F), "relax.atan2", NULL, 2, T("4, 1", F32), T("3", F32));
  CHECK_INFER_FAILS("TypeError", "relax.atan2: arguments must be float tensors, got dtype int32",
                    "relax.atan2", NULL, 2, T("4", I32), T("4", I32));
  CHECK_INFER_FAILS("ValueError", "relax.atan2", "relax.atan2", NULL, 2, T("4", F32), T("3", F32));
}

TEST(group_norm) {
  const char* op = "relax.nn.group_norm";
  CHECK_INFER(TS("2, 6, 4, 4", F), op,
              oi_attrs(3, "num_groups", AI(3), "channel_axis", AI(1), "axes", AL(2, 2, 3)), 3,
              T("2, 6, 4, 4", F32), T("6", F32), T("6", F32));
  CHECK_INFER(TS("n, 8, c", F), op,
              oi_attrs(3, "num_groups", AI(2), "channel_axis", AI(-1), "axes", AL(1, 1)), 3,
              T("n, 8, c", F32), T("c", F32), T("c", F32));
  CHECK_INFER_FAILS("ValueError", "the 6 channels of 'data' are not divisible by num_groups 4", op,
                    oi_attrs(3, "num_groups", AI(4), "channel_axis", AI(1), "axes", AL(1, 2)), 3,
                    T("2, 6, 4", F32), T("6", F32), T("6", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'gamma' has 5 values but 'data' has 6", op,
                    oi_attrs(3, "num_groups", AI(3), "channel_axis", AI(1), "axes", AL(1, 2)), 3,
                    T("2, 6, 4", F32), T("5", F32), T("6", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'axes' must not contain the channel axis 1", op,
                    oi_attrs(3, "num_groups", AI(3), "channel_axis", AI(1), "axes", AL(2, 1, 2)), 3,
                    T("2, 6, 4", F32), T("6", F32), T("6", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'num_groups' must be positive", op,
                    oi_attrs(3, "num_groups", AI(0), "channel_axis", AI(1), "axes", AL(1, 2)), 3,
                    T("2, 6, 4", F32), T("6", F32), T("6", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'num_groups' is required", op,
                    oi_attrs(2, "channel_axis", AI(1), "axes", AL(1, 2)), 3, T("2, 6, 4", F32),
                    T("6", F32), T("6", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'beta' must have the dtype of 'data'", op,
                    oi_attrs(3, "num_groups", AI(3), "channel_axis", AI(1), "axes", AL(1, 2)), 3,
                    T("2, 6, 4", F32), T("6", F32), T("6", F16));
}

/* instance_norm: group_norm's rule with a group per channel, no float check (upstream's). */
#define INORM(ch, axes) oi_attrs(2, "channel_axis", AI(ch), "axes", axes)
TEST(instance_norm) {
  const char* op = "relax.nn.instance_norm";
  CHECK_INFER(TS("2, 3, 4, 5", F), op, INORM(1, AL(2, 2, 3)), 3, T("2, 3, 4, 5", F32),
              T("3", F32), T("3", F32));
  CHECK_INFER(TS("n, h, c", F), op, INORM(-1, AL(1, -2)), 3, T("n, h, c", F32), T("c", F32),
              T("c", F32));
  CHECK_INFER("R.Tensor((2, 3, 4), dtype=\"float16\")", op,
              oi_attrs(5, "channel_axis", AI(1), "axes", AL(1, 2), "epsilon", AF(1e-3), "center",
                       AB(false), "scale", AB(false)),
              3, T("2, 3, 4", F16), T("3", F16), T("3", F16));
  /* integer data passes, as upstream's rule (its kernel refuses it) */
  CHECK_INFER(TS("2, 3, 4", "int32"), op, INORM(1, AL(1, 2)), 3, T("2, 3, 4", I32), T("3", I32),
              T("3", I32));
  /* unknown shapes and ranks: data's struct info */
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", op, INORM(1, AL(1, 2)), 3, T("?3", F32),
              T("3", F32), T("?1", F32));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", op, INORM(7, AL(1, 9)), 3, T("*", F32), T("3", F32),
              T("3", F32));
  CHECK_INFER(TS("2, 3, 4", F), op, INORM(1, AL(1, 2)), 3, T("2, 3, 4", F32), T("*", F32),
              T("3", UNK));
  /* errors */
  CHECK_INFER_FAILS("ValueError", "relax.nn.instance_norm: argument 'gamma' has 4 values but "
                    "'data' has 3 at the channel axis", op, INORM(1, AL(1, 2)), 3,
                    T("2, 3, 4", F32), T("4", F32), T("3", F32));
  /* a symbolic size that may equal the channels' is accepted */
  CHECK_INFER(TS("2, 3, 4", F), op, INORM(1, AL(1, 2)), 3, T("2, 3, 4", F32), T("3", F32),
              T("n+1", F32));
  CHECK_INFER_FAILS("ValueError", "relax.nn.instance_norm: argument 'gamma' must be 1-d (one "
                    "value per channel axis), got ndim 2", op, INORM(1, AL(1, 2)), 3,
                    T("2, 3, 4", F32), T("3, 1", F32), T("3", F32));
  CHECK_INFER_FAILS("TypeError", "relax.nn.instance_norm: argument 'beta' must have the dtype of "
                    "'data' (float32), got float16", op, INORM(1, AL(1, 2)), 3,
                    T("2, 3, 4", F32), T("3", F32), T("3", F16));
  CHECK_INFER_FAILS("ValueError", "relax.nn.instance_norm: attribute 'axes' must not contain the "
                    "channel axis 1", op, INORM(1, AL(2, 2, -2)), 3, T("2, 3, 4", F32),
                    T("3", F32), T("3", F32));
  CHECK_INFER_FAILS("ValueError", "axis 2 appears more than once", op, INORM(1, AL(2, 2, -1)), 3,
                    T("2, 3, 4", F32), T("3", F32), T("3", F32));
  CHECK_INFER_FAILS("ValueError", "relax.nn.instance_norm: axis 3 is out of range", op,
                    INORM(3, AL(1, 2)), 3, T("2, 3, 4", F32), T("3", F32), T("3", F32));
  CHECK_INFER_FAILS("ValueError", "axis -4 is out of range", op, INORM(1, AL(1, -4)), 3,
                    T("2, 3, 4", F32), T("3", F32), T("3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'axes' is required", op,
                    oi_attrs(1, "channel_axis", AI(1)), 3, T("2, 3, 4", F32), T("3", F32),
                    T("3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'channel_axis' is required", op,
                    oi_attrs(1, "axes", AL(1, 2)), 3, T("2, 3, 4", F32), T("3", F32),
                    T("3", F32));
  CHECK_INFER_FAILS("TypeError", "relax.nn.instance_norm: argument 'data' must be a tensor", op,
                    INORM(1, AL(1, 2)), 3, SH("2, 3, 4"), T("3", F32), T("3", F32));
  CHECK_INFER_FAILS("TypeError", "relax.nn.instance_norm: argument 'gamma' must be a tensor", op,
                    INORM(1, AL(1, 2)), 3, T("2, 3, 4", F32), SH("3"), T("3", F32));
}

TEST(losses) {
  const char* op = "relax.nn.nll_loss";
  CHECK_INFER(TS("", F), op, NULL, 3, T("3, 5", F32), T("3", I64), T("5", F32));
  CHECK_INFER(TS("3, 4", F), op, oi_attrs(1, "reduction", AS("none")), 2, T("3, 5, 4", F32),
              T("3, 4", I64));
  CHECK_INFER(TS("", F), op, oi_attrs(1, "reduction", AS("sum")), 2, T("5", F32), T("", I64));
  CHECK_INFER_FAILS("ValueError", "attribute 'reduction' must be \"none\", \"mean\" or \"sum\"", op,
                    oi_attrs(1, "reduction", AS("max")), 2, T("3, 5", F32), T("3", I64));
  CHECK_INFER_FAILS("TypeError", "argument 'targets' must be an integer tensor", op, NULL, 2,
                    T("3, 5", F32), T("3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'targets' must have ndim 1 for 'predictions' of ndim 2",
                    op, NULL, 2, T("3, 5", F32), T("3, 2", I64));
  CHECK_INFER_FAILS("ValueError", "argument 'targets' dim 1 is 3 but 'predictions' has 4 there", op,
                    NULL, 2, T("2, 5, 4", F32), T("2, 3", I64));
  CHECK_INFER_FAILS("ValueError",
                    "argument 'weights' has 4 weights but 'predictions' has 5 classes", op, NULL, 3,
                    T("3, 5", F32), T("3", I64), T("4", F32));
  op = "relax.nn.cross_entropy_with_logits";
  CHECK_INFER(TS("", F), op, NULL, 2, T("3, 5", F32), T("3, 5", F32));
  CHECK_INFER(TS("", F), op, NULL, 2, T("n, 5", F32), T("n, 5", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'labels' dim 1 is 4 but 'predictions' has 5", op, NULL,
                    2, T("3, 5", F32), T("3, 4", F32));
  CHECK_INFER_FAILS("TypeError", "argument 'labels' must have the dtype of 'predictions'", op, NULL,
                    2, T("3, 5", F32), T("3, 5", F16));
}

TEST(conv3d_and_conv1d_transpose) {
  const char* op = "relax.nn.conv3d";
  CHECK_INFER(TS("1, 8, 4, 4, 4", F), op, NULL, 2, T("1, 3, 6, 6, 6", F32),
              T("8, 3, 3, 3, 3", F32));
  /* (6 + 2 - 2 - 1) // 2 + 1 = 3 */
  CHECK_INFER(TS("1, 8, 3, 3, 3", F), op, oi_attrs(2, "padding", AI(1), "strides", AI(2)), 2,
              T("1, 3, 6, 6, 6", F32), T("8, 3, 3, 3, 3", F32));
  CHECK_INFER(TS("1, 4, 4, 4, 8", F), op,
              oi_attrs(2, "data_layout", AS("NDHWC"), "kernel_layout", AS("DHWIO")), 2,
              T("1, 6, 6, 6, 3", F32), T("3, 3, 3, 3, 8", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'padding' must have 1, 3 or 6 values, got 2", op,
                    oi_attrs(1, "padding", AL(2, 0, 0)), 2, T("1, 3, 6, 6, 6", F32),
                    T("8, 3, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 5 (layout NCDHW), got 4", op,
                    NULL, 2, T("1, 3, 6, 6", F32), T("8, 3, 3, 3, 3", F32));
  CHECK_INFER_FAILS("ValueError", "'data' has 4 input channels but 'weight' takes 3 per group", op,
                    NULL, 2, T("1, 4, 6, 6, 6", F32), T("8, 3, 3, 3, 3", F32));
  op = "relax.nn.conv1d_transpose";
  /* (8 - 1) * 2 - 1 - 1 + 2 + 1 + 1 = 16; weight IOW: 4 output channels. */
  CHECK_INFER(TS("1, 4, 16", F), op,
              oi_attrs(3, "strides", AL(1, 2), "padding", AL(1, 1), "output_padding", AL(1, 1)), 2,
              T("1, 16, 8", F32), T("16, 4, 3", F32));
  CHECK_INFER(TS("n, 4, w + T.int64(2)", F), op, NULL, 2, T("n, 16, w", F32), T("16, 4, 3", F32));
  CHECK_INFER_FAILS("ValueError", "'data' has 8 input channels but 'weight' takes 16", op, NULL, 2,
                    T("1, 8, 8", F32), T("16, 4, 3", F32));
}

TEST(pool3d) {
  const char* op = "relax.nn.max_pool3d";
  CHECK_INFER(TS("1, 3, 4, 4, 4", F), op, oi_attrs(2, "pool_size", AL(1, 2), "strides", AL(1, 2)),
              1, T("1, 3, 8, 8, 8", F32));
  /* (8 + 2 - 2 - 1) // 2 + 1 = 4; depth (5 + 2 - 2 - 1) // 2 + 1 = 3 */
  CHECK_INFER(TS("1, 3, 3, 4, 4", F), "relax.nn.avg_pool3d",
              oi_attrs(3, "pool_size", AL(1, 3), "strides", AL(1, 2), "padding", AL(1, 1)), 1,
              T("1, 3, 5, 8, 8", F32));
  CHECK_INFER(TS("1, 2, 2, 2, 3", F), op,
              oi_attrs(3, "pool_size", AL(1, 2), "strides", AL(1, 2), "layout", AS("NDHWC")), 1,
              T("1, 4, 4, 4, 3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 5 (layout NCDHW), got 4", op,
                    NULL, 1, T("1, 3, 8, 8", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pool_size' must have 1 or 3 values, got 2", op,
                    oi_attrs(1, "pool_size", AL(2, 2, 2)), 1, T("1, 3, 8, 8, 8", F32));
  CHECK_INFER_FAILS("ValueError", "the output spatial size would be", op,
                    oi_attrs(1, "pool_size", AL(1, 9)), 1, T("1, 3, 8, 8, 8", F32));
}

TEST(pool1d_and_adaptive) {
  const char* op = "relax.nn.max_pool1d";
  CHECK_INFER(TS("1, 3, 4", F), op, oi_attrs(2, "pool_size", AL(1, 2), "strides", AL(1, 2)), 1,
              T("1, 3, 8", F32));
  /* pool 3 dilated 2, stride 2, padding (1, 2) over 11: (11 + 3 - 4 - 1) // 2 + 1 = 5, and with
   * ceil_mode (11 + 3 - 4 - 1 + 1) // 2 + 1 = 6 (the last window starts at 10 - 1, inside) */
  void* a = oi_attrs(4, "pool_size", AL(1, 3), "strides", AL(1, 2), "padding", AL(2, 1, 2),
                     "dilation", AL(1, 2));
  CHECK_INFER(TS("2, 3, 5", F), "relax.nn.avg_pool1d", a, 1, T("2, 3, 11", F32));
  CHECK_INFER(TS("2, 3, 6", F), "relax.nn.avg_pool1d",
              oi_attrs(5, "pool_size", AL(1, 3), "strides", AL(1, 2), "padding", AL(2, 1, 2),
                       "dilation", AL(1, 2), "ceil_mode", AB(true)),
              1, T("2, 3, 11", F32));
  CHECK_INFER(TS("1, 4, 3", F), op,
              oi_attrs(3, "pool_size", AL(1, 2), "strides", AL(1, 2), "layout", AS("NWC")), 1,
              T("1, 8, 3", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 3 (layout NCW), got 4", op, NULL,
                    1, T("1, 3, 8, 8", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'pool_size' must have 1 value, got 2", op,
                    oi_attrs(1, "pool_size", AL(2, 2, 2)), 1, T("1, 3, 8", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'padding' must have 1 or 2 values, got 3", op,
                    oi_attrs(1, "padding", AL(3, 1, 1, 1)), 1, T("1, 3, 8", F32));
  CHECK_INFER_FAILS("ValueError", "the output spatial size would be", op,
                    oi_attrs(1, "pool_size", AL(1, 9)), 1, T("1, 3, 8", F32));
  /* adaptive: the spatial dims become output_size, or stay without it */
  const char* a1 = "relax.nn.adaptive_avg_pool1d";
  CHECK_INFER(TS("1, 3, 5", F), a1, oi_attrs(1, "output_size", AL(1, 5)), 1, T("1, 3, 17", F32));
  CHECK_INFER(TS("n, 3, w", F), a1, NULL, 1, T("n, 3, w", F32));
  CHECK_INFER(TS("1, 5, 3", F), a1, oi_attrs(2, "output_size", AL(1, 5), "layout", AS("NWC")), 1,
              T("1, 17, 3", F32));
  CHECK_INFER_FAILS("ValueError", "attribute 'output_size' must have 1 value, got 2", a1,
                    oi_attrs(1, "output_size", AL(2, 5, 5)), 1, T("1, 3, 17", F32));
  const char* a3 = "relax.nn.adaptive_avg_pool3d";
  CHECK_INFER(TS("1, 2, 2, 3, 4", F), a3, oi_attrs(1, "output_size", AL(3, 2, 3, 4)), 1,
              T("1, 2, 5, 6, 7", F32));
  CHECK_INFER(TS("1, 2, 2, 2, 2", F), a3, oi_attrs(1, "output_size", AL(1, 2)), 1,
              T("1, 2, 5, 6, 7", F32));
  CHECK_INFER_FAILS("ValueError", "argument 'data' must have ndim 5 (layout NCDHW), got 4", a3,
                    NULL, 1, T("1, 2, 5, 6", F32));
}

/* R.memory.view(x, shape, dtype, offset) with void (R.tuple()) for an absent argument. */
static const char* view(tvm_relax_sinfo_obj* xs, tvm_relax_expr_obj* shape,
                        tvm_relax_expr_obj* dtype, tvm_relax_expr_obj* offset) {
  static char text[256];
  void* empty = tvm_ffi_array_new(NULL, 0);
  tvm_relax_var_obj* x = rt_var_take("x", xs);
  void* a[4] = {x, shape, dtype, offset};
  for (int i = 1; i < 4; ++i) {
    if (!a[i]) a[i] = tvm_relax_tuple_new(empty);
  }
  tvm_relax_expr_obj* c = tvm_relax_call_op("relax.memory.view", NULL, 4, a[0], a[1], a[2], a[3]);
  const char* out = NULL;
  if (c) {
    snprintf(text, sizeof(text), "%s", rt_sinfo_text(c));
    out = text;
  }
  tvm_ffi_release(c);
  for (int i = 0; i < 4; ++i) tvm_ffi_release(a[i]);
  tvm_ffi_release(empty);
  return out;
}

static tvm_relax_expr_obj* shape_of_ints(int n, ...) {
  int64_t v[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) v[i] = va_arg(ap, int);
  va_end(ap);
  return tvm_relax_shape_expr_of_ints(v, n);
}

/* A ShapeExpr of n dims (PrimExprs, borrowed). */
static tvm_relax_expr_obj* shape_of_dims(int n, void* const* dims) {
  void* arr = tvm_ffi_array_of_objects((void**)dims, n);
  tvm_relax_expr_obj* s = arr ? tvm_relax_shape_expr_new(arr) : NULL;
  tvm_ffi_release(arr);
  return s;
}

TEST(memory_view) {
  CHECK_STR_EQ(view(T("4, 6", F32), NULL, NULL, NULL), TS("4, 6", F));
  CHECK_STR_EQ(view(T("4, 6", F32), shape_of_ints(2, 2, 5), NULL, tvm_relax_prim_value_int64(16)),
               TS("2, 5", F));
  CHECK_STR_EQ(view(T("4, 6", F32), shape_of_ints(1, 24), tvm_relax_dtype_imm_new(I32), NULL),
               TS("24,", "int32"));
  /* a narrower dtype keeps the shape; an unknown input shape keeps the rank */
  CHECK_STR_EQ(view(T("4, 6", F32), NULL, tvm_relax_dtype_imm_new(F16), NULL),
               TS("4, 6", "float16"));
  CHECK_STR_EQ(view(T("?2", F32), NULL, NULL, NULL), "R.Tensor(dtype=\"float32\", ndim=2)");
  /* past the end: bytes, element size, element count, offset */
  CHECK(view(T("4, 6", F32), shape_of_ints(2, 2, 6), NULL, tvm_relax_prim_value_int64(60)) == NULL);
  CHECK_RAISED(
      "ValueError",
      "relax.memory.view: the view would reach past 'x': it needs 108 bytes but 'x' has 96");
  CHECK(view(T("?2", F16), NULL, tvm_relax_dtype_imm_new(F32), NULL) == NULL);
  CHECK_RAISED("ValueError", "it needs 4 bytes per element but 'x' has 2");
  CHECK(view(T("4, n", F32), NULL, NULL, tvm_relax_prim_value_int64(4)) == NULL);
  CHECK_RAISED("ValueError", "bytes of offset");
  CHECK(view(T("4, 6", F32), tvm_relax_prim_value_int64(4), NULL, NULL) == NULL);
  CHECK_RAISED("TypeError", "argument 'shape' must be a shape or R.tuple()");
  CHECK(view(T("4, 6", F32), NULL, tvm_relax_prim_value_int64(4), NULL) == NULL);
  CHECK_RAISED("TypeError", "argument 'dtype' must be a dtype");
  CHECK(view(T("4, 6", F32), NULL, NULL, tvm_relax_prim_value_int64(-4)) == NULL);
  CHECK_RAISED("ValueError", "argument 'relative_byte_offset' must not be negative");
  CHECK(view(T("4, 6", F32), NULL, tvm_relax_dtype_imm_new(TVM_RELAX_DTYPE_UNKNOWN), NULL) == NULL);
  CHECK_RAISED("TypeError", "argument 'dtype' must be a dtype with a size, got \"void\"");
  /* symbolic dims: past the end where provable (n + 1 elements of n; 16n + 8 bytes of 16n),
   * accepted where not (8n elements of 4n: n may be 0; the runtime checks the view) */
  tvm_relax_sinfo_obj* xn = T("n, 4", F32);
  tvm_tir_expr_obj* n = tvm_ffi_seq_obj_at(tvm_relax_tensor_sinfo_dims(xn), 0);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  tvm_tir_expr_obj* one = tvm_tir_const_int(I64, 1);
  tvm_tir_expr_obj* n1 = tvm_tir_add(n, one);
  tvm_tir_expr_obj* two = tvm_tir_const_int(I64, 2);
  tvm_tir_expr_obj* n2 = tvm_tir_mul(n, two);
  tvm_ffi_retain(xn);
  CHECK(view(xn, shape_of_dims(2, (void*[]){n1, four}), NULL, NULL) == NULL);
  CHECK_RAISED("ValueError", "its bytes ((n * T.int64(16)) + T.int64(16) against "
                             "n * T.int64(16)) provably exceed x's");
  tvm_ffi_retain(xn);
  CHECK(view(xn, shape_of_dims(2, (void*[]){n, four}), NULL,
             tvm_relax_prim_value_int64(8)) == NULL);
  CHECK_RAISED("ValueError", "its bytes");
  tvm_ffi_retain(xn);
  CHECK_STR_EQ(view(xn, shape_of_dims(2, (void*[]){n2, four}), NULL, NULL),
               "R.Tensor((n * T.int64(2), 4), dtype=\"float32\")");
  /* with the dtype unknown, the element counts */
  tvm_relax_expr_obj* sn = shape_of_dims(1, (void*[]){n});
  tvm_relax_sinfo_obj* un = tvm_relax_tensor_sinfo_new(sn, TVM_RELAX_DTYPE_UNKNOWN, -1, NULL);
  tvm_ffi_release(sn);
  CHECK(view(un, shape_of_dims(1, (void*[]){n1}), NULL, NULL) == NULL);
  CHECK_RAISED("ValueError", "its elements (n + T.int64(1) against n) provably exceed x's");
  tvm_ffi_release(xn), tvm_ffi_release(four), tvm_ffi_release(one), tvm_ffi_release(n1);
  tvm_ffi_release(n2), tvm_ffi_release(two);
}

/* memory.ensure_zero_offset(x): x's struct info; a tensor only. */
TEST(memory_ensure_zero_offset) {
  tvm_relax_sinfo_obj* xs = T("n, 6", F32);
  tvm_relax_sinfo_obj* ss = tvm_relax_shape_sinfo_new(NULL, 2);
  tvm_relax_var_obj* x = tvm_relax_var_new("x", xs, false);
  tvm_relax_expr_obj* c = tvm_relax_call_op("relax.memory.ensure_zero_offset", NULL, 1, x);
  CHECK(c != NULL);
  if (c) CHECK_STR_EQ(rt_sinfo_text(c), TS("n, 6", F));
  tvm_relax_var_obj* s = tvm_relax_var_new("s", ss, false);
  CHECK(tvm_relax_call_op("relax.memory.ensure_zero_offset", NULL, 1, s) == NULL);
  CHECK_RAISED("TypeError", "relax.memory.ensure_zero_offset: argument 'data' must be a tensor");
  tvm_ffi_release(c);
  tvm_ffi_release(x);
  tvm_ffi_release(s);
  tvm_ffi_release(xs);
  tvm_ffi_release(ss);
}

int main(void) {
  RUN(quantize);
  RUN(dequantize);
  RUN(activations_and_atan2);
  RUN(group_norm);
  RUN(instance_norm);
  RUN(losses);
  RUN(conv3d_and_conv1d_transpose);
  RUN(pool3d);
  RUN(pool1d_and_adaptive);
  RUN(memory_view);
  RUN(memory_ensure_zero_offset);
  oi_free_vars();
  return test_summary();
}
