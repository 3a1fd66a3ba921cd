/*
 * tvm/tir/analysis.h: analyses over whole functions.
 */
#ifndef TVM_TIR_ANALYSIS_H_
#define TVM_TIR_ANALYSIS_H_

#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/*
 * Check that a PrimFunc (or every PrimFunc of an IRModule) is well formed (spec "Variable
 * Scoping" and the buffer rules). Returns 0, or -1 with a ValueError
 *
 *   well-formedness: <what is wrong> (<rule>) at <access path of the offending node>
 *
 * whose path starts at the function ("<root>.body.seq[1].value"); for a module the message is
 * prefixed with "in function `name`: ". Rules:
 *  - SSA: every Var is bound at most once in the function (params, buffer_map shape variables,
 *    Let/LetStmt, For, Allocate, block iter vars, thread_extent/virtual_thread AttrStmts, data
 *    variables of allocated, matched, realized and declared buffers).
 *  - Scoping: a Var is used only inside the scope of its binding site (params and the variables
 *    defined by buffer_map are in scope in the whole body and in the function's attrs; a
 *    binding's own value/extent is outside its scope). A module's attrs use no Var at all
 *    (tvm_tir_verify_closed).
 *  - Buffers: BufferLoad/BufferStore/BufferRegion name a buffer in scope (buffer_map, block
 *    alloc_buffers and match_buffers, DeclBuffer, BufferRealize, or a buffer whose data var is
 *    the buffer_var of an enclosing Allocate); a BufferRegion has one range
 *    per dimension (O4); a MatchBufferRegion satisfies O5, its extents proved with the
 *    simplifier (tvm/tir/arith.h) under the ranges of the enclosing loops and block iter vars.
 *  - SBlockRealize: as many iter_values as iter_vars, each of its iter var's dtype (S14).
 *  - Reduction init: a block with init has a kCommReduce iter var, and its init does not use one.
 * Any other object is a TypeError.
 */
int tvm_tir_verify_well_formed(const void* func_or_module);

/* Check that obj (any object: an attribute value, a module's attrs) uses no TIR Var: nothing
 * outside a function binds one. The Vars a CommReducer or an IndexMap binds are their own. 0 (also
 * for NULL), or -1 with a ValueError "well-formedness: variable `v` is bound nowhere at <path>",
 * the path starting at obj. */
int tvm_tir_verify_closed(const void* obj);

/* Flags of tvm_tir_verify_well_formed_ex. */
enum {
  /* Every node reachable from the argument was made by libtir's constructors (none was read
   * from JSON or had a field set through reflection afterwards): the constructors guarantee
   * what the first pass of the check verifies (required fields present, arrays holding the
   * right kinds), so it is skipped. The IR builder's output qualifies when it holds no objects
   * supplied from outside (a parser's extra_vars). Wrong use can crash: the scoped pass
   * dereferences fields freely. */
  TVM_TIR_WF_CONSTRUCTED = 1
};
/* tvm_tir_verify_well_formed with flags (0: the same check). */
int tvm_tir_verify_well_formed_ex(const void* func_or_module, unsigned flags);

/* Whether func is pure (upstream's tir.analysis.is_pure_function): its body stores only into
 * buffers it allocates itself (Allocate) and calls no operator of effect kind UPDATE_STATE /
 * OPAQUE and nothing that is not an operator. false for a declaration without a body, for
 * anything that is not a PrimFunc, and when out of memory (nothing raised). */
bool tvm_tir_prim_func_is_pure(const tvm_tir_prim_func_obj* func);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_ANALYSIS_H_ */
