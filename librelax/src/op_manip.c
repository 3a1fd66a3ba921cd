/*
 * op_manip.c: PLACEHOLDER (being written): inference rules and attribute schemas of the
 * operators of ops.def listed below. Each rule here raises NotImplementedError until written.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_permute_dims[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_axis_list[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_axis_opt_list[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_axis_opt[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_split[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_strided_slice[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_take[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_tile[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_repeat[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_axis[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_layout_transform[] = {{NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_reshape(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_permute_dims(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_expand_dims(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_squeeze(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_flatten(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_broadcast_to(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_concat(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_split(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_strided_slice(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_take(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_tile(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_repeat(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_flip(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_layout_transform(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}
