/* arith_internal.h: what arith_bound.c and arith_simplify.c share (not installed). */
#ifndef TVM_TIR_SRC_ARITH_INTERNAL_H_
#define TVM_TIR_SRC_ARITH_INTERNAL_H_

#include <tvm/tir/arith.h>

#include "internal.h"

/* Bounds of Let-bound variables met on the way down (innermost first). */
typedef struct tir_let_bound {
  const void* var;
  int64_t lo, hi;
  const struct tir_let_bound* next;
} tir_let_bound;

typedef struct {
  const void* ranges; /* ffi.Map<Var, Range> or NULL */
  const tir_let_bound* lets;
  int depth; /* nesting of range-expression bounding, limited against cyclic ranges */
} tir_arith_ctx;

/* [*lo, *hi] of an integer expression (the int64 range for anything else). Never fails. */
void tvm_tir__bound(const tir_arith_ctx* c, const tvm_tir_expr_obj* e, int64_t* lo, int64_t* hi);

/* Saturating int64 arithmetic on __int128 intermediates. */
static inline int64_t tir_sat(__int128 v) {
  return v > INT64_MAX ? INT64_MAX : v < INT64_MIN ? INT64_MIN : (int64_t)v;
}
/* Floor division / modulo of int64 (b != 0). */
static inline int64_t tir_floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t tir_floormod(int64_t a, int64_t b) { return a - tir_floordiv(a, b) * b; }

#endif /* TVM_TIR_SRC_ARITH_INTERNAL_H_ */
