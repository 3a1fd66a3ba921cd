/*
 * tvm/relax/transform.h: Relax passes, IRModule -> IRModule.
 *
 * Each pass takes a module (borrowed) and returns the transformed module (a new reference; the
 * module itself, retained, when nothing changed), or NULL with an error raised.
 */
#ifndef TVM_RELAX_TRANSFORM_H_
#define TVM_RELAX_TRANSFORM_H_

#include <tvm/relax/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/*
 * LegalizeOps: every call of an operator that has a legalization becomes
 * `R.call_tir(cls.<kernel>, (tensor args...), out_sinfo=<the call's struct info>)`, the kernel a
 * PrimFunc added to the module (named after the operator, made unique) that computes the
 * operator with loops over the output, symbolic dims included (a kernel's shape variables are
 * bound from its arguments). Operators without a legalization yet are left as they are (the
 * evaluator then reports them by name). Calls whose output shape is unknown are left too.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_legalize_ops(const tvm_tir_ir_module_obj* mod);

/* Whether operator `id` has a legalization. */
bool tvm_relax_op_has_legalization(int32_t id);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_TRANSFORM_H_ */
