/*
 * op_builtin.c: PLACEHOLDER (being written): inference rules and attribute schemas of the
 * operators of ops.def listed below. Each rule here raises NotImplementedError until written.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_call_tir_inplace[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_print[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_assert_op[] = {{NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_call_tir(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_call_tir_inplace(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_call_dps_packed(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_call_pure_packed(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_shape_of(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_tensor_to_shape(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_shape_to_tensor(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_null_value(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_print(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_assert_op(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_alloc_storage(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_alloc_tensor_from_storage(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_kill(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_builtin_alloc_tensor(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_invoke_closure(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_make_closure(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}
