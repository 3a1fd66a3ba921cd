/*
 * op_create.c: PLACEHOLDER (being written): inference rules and attribute schemas of the
 * operators of ops.def listed below. Each rule here raises NotImplementedError until written.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_dtype_only[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_dtype_opt[] = {{NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_fill_shape(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_full(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_fill_like(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_full_like(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_arange(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_tri(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}
