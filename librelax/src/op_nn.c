/*
 * op_nn.c: PLACEHOLDER (being written): inference rules and attribute schemas of the
 * operators of ops.def listed below. Each rule here raises NotImplementedError until written.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_matmul[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_axis_default_last[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_layer_norm[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_rms_norm[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_batch_norm[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv1d[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv2d[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_conv2d_transpose[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_pool2d[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_adaptive_pool2d[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_pad[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_dropout[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_attention[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_resize2d[] = {{NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_matmul(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_softmax(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_layer_norm(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_rms_norm(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_batch_norm(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv1d(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv2d(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_conv2d_transpose(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_pool2d(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_adaptive_pool2d(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_pad(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_dropout(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_attention(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_resize2d(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}
