/*
 * tvm/tir/arith.h: integer arithmetic analysis of PrimExprs.
 *
 * ranges: an ffi.Map<Var, Range> (or ffi.Dict) giving each variable the interval [min, min + extent) (the
 * Range's own expressions are bounded with the same map), or NULL. A variable without a range
 * ranges over its dtype (a SizeVar over its non-negative part).
 *
 * Both analyses reason about mathematical integers, as upstream's analyzer does: an expression
 * whose exact value may leave its dtype's range (where TIR arithmetic wraps) is bounded by the
 * whole dtype range, and the simplifier's identities assume the expression does not overflow.
 */
#ifndef TVM_TIR_ARITH_H_
#define TVM_TIR_ARITH_H_

#include <tvm/tir/expr.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/*
 * Constant bounds of a scalar Int/UInt (or bool) expression: *out_min <= expr <= *out_max for
 * every value of the variables in their ranges. Exact for constants; through Add, Sub, Mul, Div,
 * Mod, FloorDiv, FloorMod, Min, Max, Cast, Select, Let, comparisons and logic; anything else is
 * the dtype's range. Returns 0, or -1 with a TypeError for a non-integer or vector expression.
 */
int tvm_tir_const_int_bound(const tvm_tir_expr_obj* expr, const void* ranges, int64_t* out_min,
                            int64_t* out_max);

/*
 * A simplified expression equal to expr for every value of the variables in their ranges (a new
 * reference; expr itself when nothing simplifies), or NULL + error. Scalar integer expressions
 * are put in canonical affine form: sum of c_i * t_i + c0 with the terms t_i (variables first,
 * ordered by name then first appearance, then other sub-expressions in order of appearance)
 * combined and cancelled (equal terms: the same object, or structurally equal without calls of
 * impure ops); FloorDiv/FloorMod (and Div/Mod of non-negative values) by positive
 * constants split off multiples of the divisor, vanish when the bounds allow, and nest
 * (floordiv(floordiv(x, a), b) = floordiv(x, a * b)); Min/Max and comparisons decided by the
 * bounds become one side / bool constants; Select, And, Or, Not fold constants. Other
 * expressions have their sub-expressions simplified. The result is built with the tvm/tir/op.h
 * helpers, so it is well typed and has expr's dtype.
 */
tvm_tir_expr_obj* tvm_tir_simplify_expr(const tvm_tir_expr_obj* expr, const void* ranges);

/* 1 when the bool expression cond is provably true for every value of the variables in their
 * ranges, 0 when that cannot be shown, -1 with an error raised. */
int tvm_tir_prove(const tvm_tir_expr_obj* cond, const void* ranges);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_ARITH_H_ */
