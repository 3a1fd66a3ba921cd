/*
 * tvm/relax/block_builder.h: the BlockBuilder (upstream: relax/block_builder.h), the way C
 * programs, passes and the TVMScript parser build Relax functions and modules.
 *
 *   tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
 *   tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
 *   tvm_relax_bb_dataflow_begin(bb);
 *   lv = tvm_relax_bb_emit(bb, tvm_relax_call_op("relax.add", NULL, 2, x, y), NULL);
 *   gv = tvm_relax_bb_emit_output(bb, lv, NULL);
 *   tvm_relax_bb_block_end(bb);
 *   tvm_relax_bb_function_end(bb, gv, NULL);
 *   mod = tvm_relax_bb_module(bb);
 *
 * Emitted expressions are normalised to A-normal form: every argument of a call that is not a
 * leaf (Var, constant, ShapeExpr, PrimValue, StringImm, DataTypeImm, GlobalVar, Op, ExternFunc,
 * or a Tuple of those) is emitted first as a binding of its own. Struct info comes from the
 * expression constructors. Variable names are made unique within the function ("lv", "lv1", ...).
 *
 * Functions returning a pointer return a new reference (NULL + error); int functions return 0 or
 * -1 + error. Arguments are borrowed.
 */
#ifndef TVM_RELAX_BLOCK_BUILDER_H_
#define TVM_RELAX_BLOCK_BUILDER_H_

#include <tvm/relax/expr.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

typedef struct tvm_relax_block_builder tvm_relax_block_builder;

/* A builder adding to a copy of mod (NULL: an empty module). */
tvm_relax_block_builder* tvm_relax_bb_new(tvm_tir_ir_module_obj* mod);
void tvm_relax_bb_free(tvm_relax_block_builder* bb);

/* Start a function with params (ffi.Array of Var). As upstream's BlockBuilder, the function is
 * public: attrs gets "global_symbol" = name (unless it has one). Begun inside another function, it
 * is a local function: the enclosing function is set aside until this one ends (end it with
 * tvm_relax_bb_function_finish and bind the Function in the enclosing one). */
int tvm_relax_bb_function_begin(tvm_relax_block_builder* bb, const char* name, void* params,
                                void* attrs, bool is_pure);
/* Flags of tvm_relax_bb_function_begin_ex. */
enum {
  TVM_RELAX_BB_IMPURE = 1, /* is_pure = false */
  TVM_RELAX_BB_PRIVATE = 2 /* no global_symbol: not exported from a built library */
};
int tvm_relax_bb_function_begin_ex(tvm_relax_block_builder* bb, const char* name, void* params,
                                   void* attrs, unsigned flags);
/* Replace the current function's attributes (an ffi.Map, or NULL: none) before it ends, for
 * attributes known only at its end (a script's R.func_attr in the body); begin's "global_symbol"
 * is not added again. 0, or -1 + error (no function, not a Map). */
int tvm_relax_bb_function_set_attrs(tvm_relax_block_builder* bb, void* attrs);
/* End the function returning `output` (normalised; ret_sinfo NULL: inferred), add it to the
 * module under its name (made unique) and return its GlobalVar. */
tvm_tir_global_var_obj* tvm_relax_bb_function_end(tvm_relax_block_builder* bb,
                                                  tvm_relax_expr_obj* output,
                                                  tvm_relax_sinfo_obj* ret_sinfo);
/* End the function as tvm_relax_bb_function_end does, but return the Function itself (a new
 * reference) instead of adding it to the module: a local function, or one the caller adds to a
 * module under a GlobalVar of its own. */
tvm_relax_function_obj* tvm_relax_bb_function_finish(tvm_relax_block_builder* bb,
                                                     tvm_relax_expr_obj* output,
                                                     tvm_relax_sinfo_obj* ret_sinfo);

/* Binding scopes (the branches of an If): after scope_begin, bindings go to blocks of their own
 * (the current block is kept aside); scope_end(result) returns the SeqExpr of those blocks with
 * `result` (normalised: a non-leaf result is bound in the scope first) as its body, and the
 * enclosing blocks are current again. Scopes nest; not inside a dataflow block. */
int tvm_relax_bb_scope_begin(tvm_relax_block_builder* bb);
tvm_relax_expr_obj* tvm_relax_bb_scope_end(tvm_relax_block_builder* bb, tvm_relax_expr_obj* result);

/* Start a dataflow block (the current binding block ends). */
int tvm_relax_bb_dataflow_begin(tvm_relax_block_builder* bb);
/* End the current dataflow block; later bindings go to an ordinary block. */
int tvm_relax_bb_block_end(tvm_relax_block_builder* bb);
/* End the current dataflow block making `outputs` (an ffi.Array of DataflowVars bound in it,
 * NULL = none) visible after it, as TVMScript's `R.output(...)`: each one's binding rebinds a Var
 * of the same name and struct info instead, and later bindings of the block that use it use the
 * new Var. *out_vars: a new ffi.Array of the new Vars, in the order of outputs. ValueError for an
 * output that is not a DataflowVar bound in the block, or given twice. */
int tvm_relax_bb_dataflow_end_outputs(tvm_relax_block_builder* bb, void* outputs, void** out_vars);
/* Whether the builder is inside a dataflow block (1) or not (0). */
int tvm_relax_bb_in_dataflow(const tvm_relax_block_builder* bb);

/* Bind expr (normalised) to a new variable named from name_hint (NULL: "lv" in a dataflow block,
 * "gv" outside) and return the variable: a DataflowVar inside a dataflow block. */
tvm_relax_var_obj* tvm_relax_bb_emit(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr,
                                     const char* name_hint);
/* In a dataflow block: bind expr to an ordinary Var, visible after the block. */
tvm_relax_var_obj* tvm_relax_bb_emit_output(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr,
                                            const char* name_hint);
/* var = R.match_cast(expr, sinfo): the new variable has struct info sinfo. */
tvm_relax_var_obj* tvm_relax_bb_match_cast(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr,
                                           tvm_relax_sinfo_obj* sinfo, const char* name_hint);
/* Emit an existing binding (its variable must be new to the function). */
int tvm_relax_bb_emit_binding(tvm_relax_block_builder* bb, tvm_relax_binding_obj* binding);
/* expr in A-normal form: its non-leaf arguments emitted into the current block. */
tvm_relax_expr_obj* tvm_relax_bb_normalize(tvm_relax_block_builder* bb, tvm_relax_expr_obj* expr);

/* Add func (a PrimFunc or a Relax Function) under name_hint, made unique ("f", "f1", ...). */
tvm_tir_global_var_obj* tvm_relax_bb_add_function(tvm_relax_block_builder* bb, void* func,
                                                  const char* name_hint);
/* The module built so far. */
tvm_tir_ir_module_obj* tvm_relax_bb_module(tvm_relax_block_builder* bb);
/* Number of bindings emitted in the current function so far. */
int64_t tvm_relax_bb_num_bindings(const tvm_relax_block_builder* bb);
/* The bindings of the block being built, in order: an ffi.List the builder owns (borrowed, valid
 * until the next call on bb); NULL outside a function. */
const void* tvm_relax_bb_open_bindings(const tvm_relax_block_builder* bb);
/* The block the last block end of the current scope finished (borrowed, as above); NULL when it
 * has none. With tvm_relax_bb_open_bindings before the end, it tells which bindings
 * tvm_relax_bb_dataflow_end_outputs replaced (same positions, other objects). */
const tvm_relax_block_obj* tvm_relax_bb_last_block(const tvm_relax_block_builder* bb);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_BLOCK_BUILDER_H_ */
