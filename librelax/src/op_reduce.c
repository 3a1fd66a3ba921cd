/*
 * op_reduce.c: PLACEHOLDER (being written): inference rules and attribute schemas of the
 * operators of ops.def listed below. Each rule here raises NotImplementedError until written.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_reduce[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_arg_reduce[] = {{NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_scan[] = {{NULL, 0, NULL}};

tvm_relax_sinfo_obj* tvm_relax__infer_reduce(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_arg_reduce(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}

tvm_relax_sinfo_obj* tvm_relax__infer_scan(const tvm_relax__infer_ctx* ctx) {
  return tvm_relax__op_error(ctx, "NotImplementedError", "inference not written yet");
}
