/*
 * tvm/relax/eval.h: the Relax reference evaluator.
 *
 * Runs a Relax function of a module binding by binding, exactly and slowly: call_tir executes
 * its PrimFunc in libtir's reference interpreter, calls of an ExternFunc call the global packed
 * function of that name, calls of a GlobalVar evaluate that function (a PrimFunc called
 * directly runs in the interpreter, its T.ret value the result), R.reshape is a view of its
 * argument's data, as vm.builtin.reshape makes it. It is the meaning of a
 * model that compiled code is tested against (after LegalizeOps, which turns operators into
 * call_tir; an operator call that is left is a NotImplementedError naming it). The runtime
 * operators run here as libvm's builtins run them in compiled code: call_tir_inplace (the
 * kernel overwrites the inputs its inplace_indices name, which are its results),
 * call_dps_packed, call_pure_packed and call_inplace_packed (the packed function of that name),
 * tensor_to_shape,
 * shape_to_tensor, print (its line on stdout; the value R.Tuple() is an empty tuple here where
 * the VM holds None) and assert_op (an AssertionError with the formatted message).
 *
 * Values: tensors are ffi.Tensors on the CPU, tuples ffi.Arrays, shapes ffi.Shapes, R.Prim
 * values ints/floats/bools, strings ffi.Strings. Arguments are checked against the
 * parameters' struct info (rank, dtype, dims; symbolic dims are bound from the first argument
 * that gives them, and must agree after) and every match_cast against its value, with a
 * ValueError naming the function, parameter and dimension; a parameter's composite dim
 * (`(n + 1) // 2`) is checked once every parameter has bound its variables.
 */
#ifndef TVM_RELAX_EVAL_H_
#define TVM_RELAX_EVAL_H_

#include <tvm/relax/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Evaluate mod[func_name](args) (borrowed); *out receives the owned result. 0 or -1 + error. */
int tvm_relax_eval(const tvm_tir_ir_module_obj* mod, const char* func_name, const TVMFFIAny* args,
                   int32_t num_args, TVMFFIAny* out);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_EVAL_H_ */
