/*
 * tvm/relax/analysis.h: walking, rewriting and checking Relax IR.
 *
 * The walkers follow the expression structure: a Call's op and args, a Tuple's fields, a
 * SeqExpr's blocks and body, a binding's value, a Function's params and body, ... They do not
 * enter struct info, TIR PrimFuncs or attributes.
 */
#ifndef TVM_RELAX_ANALYSIS_H_
#define TVM_RELAX_ANALYSIS_H_

#include <tvm/relax/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ---- Post-order visitor ------------------------------------------------------------------- */
/* Called once for each node (expression, binding, block) after its children; a non-zero return
 * stops the walk and is returned by tvm_relax_post_order_visit. */
typedef int (*tvm_relax_visit_fn)(const void* node, void* ctx);
/* Visit every Relax expression, binding and block reachable from node (an expression, binding,
 * block, or an IRModule: its Relax functions in name order). Shared sub-expressions are visited
 * once. Returns 0, fn's non-zero value, or -1 + error. */
int tvm_relax_post_order_visit(const void* node, tvm_relax_visit_fn fn, void* ctx);

/* ---- Mutator ------------------------------------------------------------------------------ */
typedef struct tvm_relax_mutator tvm_relax_mutator;
/* Returns the replacement of node (a new reference; node itself retained for no change), or NULL
 * + error. */
typedef void* (*tvm_relax_mutate_fn)(tvm_relax_mutator* m, const void* node);
/*
 * A rewriting walk, bottom-up: for each expression or binding, its children are rewritten first;
 * when none changed the node is reused, otherwise it is rebuilt through the constructors (so its
 * struct info is inferred again). Then post[kind] (when set) may replace it. A binding whose
 * value's struct info changed gets a new variable with the new struct info, and later uses of the
 * old variable are redirected to it (upstream's ExprMutator behaviour); variables may also be
 * redirected explicitly with tvm_relax_mutator_remap.
 */
struct tvm_relax_mutator {
  tvm_relax_mutate_fn post[TVM_RELAX_KIND_COUNT];
  void* ctx;
  void* var_map; /* walk state (ffi.Dict Var -> Var); leave NULL */
  void* memo;    /* walk state; leave NULL */
};
/* The rewritten node (expression, binding, block, Function). */
void* tvm_relax_mutate(tvm_relax_mutator* m, const void* node);
/* Use `to` wherever `from` is used from now on. 0 or -1 + error. */
int tvm_relax_mutator_remap(tvm_relax_mutator* m, tvm_relax_var_obj* from, tvm_relax_var_obj* to);
/* Release the walk state. */
void tvm_relax_mutator_free(tvm_relax_mutator* m);

/* ---- Variables ----------------------------------------------------------------------------- */
/* New ffi.Arrays of Relax Vars, in order of first appearance: */
void* tvm_relax_free_vars(const void* expr);  /* used but not bound within expr */
void* tvm_relax_bound_vars(const void* expr); /* bound within expr (params, bindings) */
void* tvm_relax_used_vars(const void* expr);  /* used within expr (bound there or not) */
void* tvm_relax_all_vars(const void* expr);   /* bound or used */
/* New ffi.Array of the GlobalVars expr refers to. */
void* tvm_relax_all_global_vars(const void* expr);
/* New ffi.Array of the TIR variables used in expr (in struct info and PrimValues/ShapeExprs)
 * that expr does not define (by a parameter's struct info or a match_cast). */
void* tvm_relax_free_symbolic_vars(const void* expr);

/* ---- Well-formedness ----------------------------------------------------------------------- */
/*
 * Check a Relax Function or an IRModule (its Relax functions, and its PrimFuncs with libtir's
 * checker) against Relax's rules: every variable defined before use and exactly once; dataflow
 * variables used only inside their block; symbolic variables defined by a parameter or a
 * match_cast before use; every expression has struct info, consistent with its binding;
 * impure calls only outside dataflow blocks or in impure functions; GlobalVars refer to functions
 * of the module. Returns 0, or -1 with a ValueError whose message starts with the access path of
 * the offending node from the checked Function ("<root>.body.blocks[0].bindings[2].value: ..."),
 * or for a module from its function of that name ("<root>[\"main\"].body...": functions are
 * checked in name order, the first violation reported). The rules in full: docs/architecture.md,
 * librelax, Well-formedness. Not a Function or IRModule: TypeError.
 */
int tvm_relax_verify_well_formed(const void* func_or_module);
/* Options of tvm_relax_verify_well_formed_ex. call_inferred(ctx, call): whether the caller knows
 * that call was made by the inferring constructor (tvm_relax_call_new) and so carries the
 * struct info inference gives (objects are immutable): the check does not infer it again. The
 * other rules are checked as ever. NULL: every Call is inferred again. prim_func_checked(ctx,
 * func): whether the caller has already found this PrimFunc of the checked module well-formed
 * (with libtir's checker): it is not checked again. NULL: every PrimFunc is checked. */
typedef struct {
  bool (*call_inferred)(void* ctx, const void* call);
  void* ctx;
  bool (*prim_func_checked)(void* ctx, const void* prim_func);
} tvm_relax_wf_options;
int tvm_relax_verify_well_formed_ex(const void* func_or_module, const tvm_relax_wf_options* opts);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_ANALYSIS_H_ */
