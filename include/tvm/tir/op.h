/*
 * tvm/tir/op.h: operators. Two parts:
 *
 * 1. The ir.Op registry: builtins (ops.def) with their call-effect kind and arity, looked up by
 *    name or by tvm_tir_builtin id; other dialects register their ops here too.
 *
 * 2. Operator helpers for building expressions the way a front end does: they convert integer
 *    and float literals to the other operand's type, broadcast a scalar to a vector operand,
 *    and fold constants, then build the node (whose constructor checks the typing rule):
 *
 *    - Literal promotion: when the operands' dtypes differ and one operand is an IntImm or
 *      FloatImm literal, the literal is converted to the other operand's type (an IntImm to an
 *      Int/UInt type if its value fits, an IntImm or FloatImm to a Float/BFloat type if in
 *      range; broadcast when the other operand is a vector). If both are literals the narrower
 *      converts to the wider (float wins over int). A literal that does not fit is a TypeError
 *      naming the operator's rule; a float literal next to an integer operand converts the
 *      integer instead (as the next rule).
 *    - Type promotion of other operands (upstream's BinaryOpMatchTypes): two integers of
 *      different types (bool aside) meet at the wider type (at equal widths, the unsigned one);
 *      an integer next to a float is cast to the float's type; of two floats of different
 *      widths the narrower is cast to the wider. A scalar operand is broadcast to a vector
 *      operand. Nothing else converts implicitly (bools, handles, float16 with bfloat16).
 *    - Handle (and void) operands of arithmetic or comparisons are a TypeError (T-BINOP/T-CMP).
 *    - Constant folding: when both operands are scalar constants the result is a constant.
 *      Integers wrap around to the bit width (two's complement); Div/Mod truncate toward zero as
 *      in C; FloorDiv/FloorMod round toward negative infinity; integer division by a constant
 *      zero is a ValueError ("division by zero"). Floats fold in double precision and round to
 *      the result type (float16/bfloat16 round to nearest even). Comparisons and And/Or/Not
 *      fold to bool constants; Cast folds constants (not a float out of the target's range).
 *      A UInt64 result above INT64_MAX (not representable by IntImm) is left unfolded.
 *
 * Arguments are borrowed; results are new references (NULL + error on failure).
 */
#ifndef TVM_TIR_OP_H_
#define TVM_TIR_OP_H_

#include <tvm/tir/expr.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ---- Op registry --------------------------------------------------------------------------- */
/* Upstream's CallEffectKind values (OPAQUE is UPDATE_STATE, as upstream). */
typedef enum {
  TVM_TIR_EFFECT_EXPR_ANNOTATION = 0,  /* an annotation; the identity on its argument */
  TVM_TIR_EFFECT_PURE = 1,             /* no effect besides its result */
  TVM_TIR_EFFECT_READ_STATE = 2,       /* may read memory other than its arguments */
  TVM_TIR_EFFECT_UPDATE_STATE = 3,     /* may write memory */
  TVM_TIR_EFFECT_OPAQUE = 3,           /* no assumption possible */
  TVM_TIR_EFFECT_SPECIAL_CALL_ARG = 4, /* only valid as an argument of certain builtins */
  TVM_TIR_EFFECT_EMBED_INFO = 5,       /* information for the compiler; removed in codegen */
  TVM_TIR_EFFECT_CONTROL_JUMP = 6      /* changes control flow (tir.ret) */
} tvm_tir_call_effect_kind;

typedef enum {
#define TVM_TIR_OP(id, name, effect, num_inputs) TVM_TIR_BUILTIN_##id,
#include <tvm/tir/ops.def>
  TVM_TIR_BUILTIN_COUNT
} tvm_tir_builtin;

/* ir.Op: a registry singleton; structural equality is identity. JSON stores the name. */
struct tvm_tir_op_obj {
  tvm_tir_relax_expr_obj relax;
  void* name;               /* ffi.String, e.g. "tir.exp" */
  int32_t num_inputs;       /* fixed arity, or -1 */
  int32_t call_effect_kind; /* tvm_tir_call_effect_kind */
  int32_t builtin;          /* its tvm_tir_builtin, or -1 (not reflected: derived) */
};

/* The op named `name` (KeyError when none). */
tvm_tir_op_obj* tvm_tir_op_get(const char* name);
/* The op of a builtin. */
tvm_tir_op_obj* tvm_tir_builtin_op(tvm_tir_builtin id);
/* Whether obj is the op of builtin id (pointer comparison, no reference taken). */
bool tvm_tir_is_builtin(const void* obj, tvm_tir_builtin id);
/* The builtin whose op obj is, or -1 (another op, anything else, NULL). */
int tvm_tir_builtin_of(const void* obj);
/*
 * Register an op (for other dialects: "relax.add", ...). Registering an existing name with the
 * same arity and effect returns the existing op; a different one is a ValueError. Thread-safe.
 */
tvm_tir_op_obj* tvm_tir_op_register(const char* name, int32_t num_inputs,
                                    tvm_tir_call_effect_kind effect);
static inline const char* tvm_tir_op_name(const tvm_tir_op_obj* op) {
  return tvm_ffi_str_cstr(op->name);
}
/* A new ffi.Array of the names of all registered ops, sorted. */
void* tvm_tir_op_list_names(void);

/* ---- Constants ----------------------------------------------------------------------------- */
/* value as a constant of dtype: IntImm for Int/UInt, FloatImm for Float/BFloat, broadcast when
 * dtype is a vector. TypeError (T-INTIMM / T-FLOATIMM) when it does not fit. */
tvm_tir_expr_obj* tvm_tir_const_int(DLDataType dtype, int64_t value);
/* Same for a float value; for an Int/UInt dtype the value must be integral. */
tvm_tir_expr_obj* tvm_tir_const_float(DLDataType dtype, double value);

/* ---- Operator helpers (promotion + folding, see above) ------------------------------------- */
/* Any TVM_TIR_BINOP kind. */
tvm_tir_expr_obj* tvm_tir_binary(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_add(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_sub(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_mul(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
/* Div / Mod: truncating (C) division and remainder; Mod requires Int/UInt (T-BINOP). */
tvm_tir_expr_obj* tvm_tir_div(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_mod(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_floordiv(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_floormod(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_min(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_max(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_eq(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_ne(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_lt(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_le(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_gt(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_ge(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_and(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_or(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b);
tvm_tir_expr_obj* tvm_tir_not(tvm_tir_expr_obj* a);
/* 0 - a, in a's type. */
tvm_tir_expr_obj* tvm_tir_neg(tvm_tir_expr_obj* a);
/* value itself (a new reference) when it already has dtype; folds constants. */
tvm_tir_expr_obj* tvm_tir_cast(DLDataType dtype, tvm_tir_expr_obj* value);
/* Select with promotion of the two values (not folded: Select evaluates both sides). */
tvm_tir_expr_obj* tvm_tir_select(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* true_value,
                                 tvm_tir_expr_obj* false_value);
/* Call to tir.if_then_else (evaluates one side); folded when the condition is constant. */
tvm_tir_expr_obj* tvm_tir_if_then_else(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* true_value,
                                       tvm_tir_expr_obj* false_value);
/* Call of builtin id with the given arguments (borrowed), result dtype. */
tvm_tir_expr_obj* tvm_tir_call_builtin(DLDataType dtype, tvm_tir_builtin id,
                                       tvm_tir_expr_obj* const* args, int64_t num_args);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_OP_H_ */
