/* schedule_internal.h: the analyses and rewrites shared by the default schedule's rules
 * (schedule_*.c; not installed). See tvm/tir/schedule.h for the rules themselves. */
#ifndef TVM_TIR_SRC_SCHEDULE_INTERNAL_H_
#define TVM_TIR_SRC_SCHEDULE_INTERNAL_H_

#include <tvm/tir/schedule.h>

#include "transform_internal.h"

/* ---- Expressions ------------------------------------------------------------------------- */
/* Whether expr (or statement) uses var anywhere: 1 / 0, or -1 + error. */
int tvm_tir__sched_uses_var(const void* node, const void* var);

/* When e is c * var + (terms free of var) with c a constant (through Add, Sub, Mul by a
 * constant and integer widening casts): true and *out_c = c (0 when e does not use var). */
bool tvm_tir__sched_lin_coef(const tvm_tir_expr_obj* e, const void* var, int64_t* out_c);

/* Whether a and b are the same index tuple (ffi.Arrays of PrimExpr; variables by identity). */
bool tvm_tir__sched_same_indices(const void* a, const void* b);

/* ---- Statements -------------------------------------------------------------------------- */
/* One buffer access found in a statement. */
typedef struct {
  const tvm_tir_buffer_obj* buffer;
  const void* indices; /* ffi.Array of PrimExpr (borrowed from the node) */
  bool store;
} sched_access;

/* A variable bound in the statement (For, LetStmt, Let, Allocate). */
typedef struct {
  const tvm_tir_var_obj* var;
  const tvm_tir_for_obj* loop; /* the For binding it, or NULL */
} sched_binding;

/* What a statement holds. */
typedef struct {
  sched_access* acc;
  int64_t nacc, cap_acc;
  sched_binding* bind;
  int64_t nbind, cap_bind;
  const void** allocated; /* data Vars of the Allocates in the statement */
  int64_t nalloc, cap_alloc;
  bool unsafe;      /* a construct the rules do not move: While, an effectful call, a block... */
  bool non_serial;  /* a parallel / vectorized / unrolled / thread-bound loop */
  int64_t nloops;   /* For loops */
} sched_scan;

/* Scan stmt into s (zeroed first). 0, or -1 + error. */
int tvm_tir__sched_scan(const void* stmt, sched_scan* s);
void tvm_tir__sched_scan_free(sched_scan* s);
/* Whether data (a buffer's data Var) is allocated in the scanned statement. */
bool tvm_tir__sched_allocated(const sched_scan* s, const void* data);
/* The binding of var in the scanned statement, or NULL when it is bound outside. */
const sched_binding* tvm_tir__sched_bound(const sched_scan* s, const void* var);

/* Whether loop (serial) is independent (tvm/tir/schedule.h): 1 / 0, or -1 + error. */
int tvm_tir__sched_independent(const tvm_tir_for_obj* loop);

/* Whether stmt holds a loop that is not serial (1 / 0, -1 + error). */
int tvm_tir__sched_has_non_serial(const void* stmt);

/* The work of a statement, in instructions roughly: stores, loads and transcendental math calls
 * (weighted) times their loops' extents, a vectorized loop's extent counted in registers of
 * `lanes` elements; saturating (a symbolic extent counts as 1 << 20). */
int64_t tvm_tir__sched_work(const void* stmt, int lanes);

/* The constant value of e, when it is an IntImm. */
bool tvm_tir__sched_const(const tvm_tir_expr_obj* e, int64_t* out);

/* A constant of the dtype of var (int32 or int64 loop variables). */
tvm_tir_expr_obj* tvm_tir__sched_iconst(const tvm_tir_var_obj* var, int64_t v);

/* stmt with the loops over var ... rebuilt: a fresh copy of stmt (every binding site renamed)
 * with var replaced by value. A new reference or NULL + error. */
void* tvm_tir__sched_copy_subst(const void* stmt, const void* var, const void* value);

/*
 * Move a loop of `extent` iterations (constant) over a new variable t down to the statements
 * of body: the result computes body[var := base + t] for t in [0, extent) (iterations of var
 * being independent). Sequences are distributed; serial For loops, and IfThenElse / LetStmt
 * whose condition / value use neither var nor an expanded buffer, are interchanged with it;
 * other statements without loops or allocations, and loops that are not serial (kept whole),
 * become leaves with the loop around them (of `kind`, or with vector_leaf_only of `kind` around
 * vectorized leaves and serial elsewhere). A local buffer allocated in body (Allocate +
 * DeclBuffer of constant shape) gets a leading dimension indexed by t: every iteration had its
 * own copy.
 */
typedef struct {
  const tvm_tir_var_obj* var;   /* the loop variable being moved */
  const tvm_tir_expr_obj* base; /* var = base + t */
  int64_t extent;               /* iterations (tile size) */
  tvm_tir_for_kind kind;        /* the kind of the moved loops at the leaves */
  bool vector_leaf_only;        /* rows: unroll only around vectorized leaves, else serial */
} sched_sink;
/* The rewritten statement (new reference); NULL with *out_error false when body cannot be
 * moved through, NULL with *out_error true when an error was raised. */
void* tvm_tir__sched_sink(const sched_sink* k, const void* body, bool* out_error);

/* Function-level gate shared by the rules: whether f is marked scheduled. */
bool tvm_tir__sched_marked(const tvm_tir_prim_func_obj* f);

/* The rules that rewrite loops bottom-up: f (a new reference to it when marked scheduled) with
 * post_for applied to every For of its body, innermost first. */
void* tvm_tir__sched_rewrite_loops(const tvm_tir_prim_func_obj* f, tvm_tir_mutate_fn post_for);

#endif /* TVM_TIR_SRC_SCHEDULE_INTERNAL_H_ */
