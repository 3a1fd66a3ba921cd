/*
 * tvm/script/ir_builder_relax.h: the Relax frames of the IR builder (tvm/script/ir_builder.h),
 * the way TVMScript's `@R.function` reads, built on librelax's BlockBuilder. The parser drives
 * them; C programs call them to build Relax the same way:
 *
 *   tvm_script_builder* b = tvm_script_builder_new();
 *   tvm_script_relax_function_enter(b, "main", 0);                    // @R.function def main(
 *   x = tvm_script_relax_arg(b, "x", <R.Tensor(("n", 4), "float32")>);    //   x: R.Tensor(...)):
 *   tvm_script_relax_dataflow_enter(b);                                //   with R.dataflow():
 *   lv = tvm_script_relax_emit(b, "lv", &<R.exp(x)>, NULL);            //     lv = R.exp(x)
 *   outs = tvm_script_relax_dataflow_output(b, <[lv]>);                //     R.output(lv)
 *   tvm_script_builder_exit(b);                                        //   (end of the with)
 *   tvm_script_relax_func_return(b, &<outs[0]>);                       //   return lv
 *   void* f = tvm_script_relax_function_end(b);                        // the Function
 *
 * Values. Bound values are TVMFFIAny so that Python values convert as upstream's
 * convert_to_expr does: a Relax expression as it is, a PrimExpr as a PrimValue, an int as an
 * int64 PrimValue, a float as a float32 one, a string as a StringImm, a tuple / list (ffi.Array)
 * as a Relax Tuple of its converted items.
 *
 * Functions. Parameters come first (tvm_script_relax_arg), then the return annotation and
 * attributes (any time), then the body; the function ends with tvm_script_relax_func_return
 * (required, last). Exiting the frame (tvm_script_relax_function_end or tvm_script_builder_exit):
 *   - at the top level the Function is the builder's result;
 *   - inside an I.ir_module it is added under its name (the GlobalVar tvm_script_ir_module_global_var
 *     or tvm_script_relax_decl_function gave that name, so `cls.f` resolves) and the GlobalVar
 *     carries its FuncStructInfo; a public function gets "global_symbol" = its name, as upstream;
 *   - inside another Relax function it is a local function: bound to a Var of its name in the
 *     enclosing one (a closure may use the enclosing function's variables).
 * Symbolic dims: within a function, a name names one int64 tir.Var (tvm_script_relax_sym_var):
 * `R.Tensor(("n", 4))` in two parameters is the same n, and `n = T.int64()` in the body
 * (tvm_script_relax_bind_sym_var) is that n again.
 *
 * Bindings. `lv: ann = value` is tvm_script_relax_emit: the value is normalised (A-normal form:
 * nested calls are bound first), a Var of the given name (a DataflowVar inside a dataflow block)
 * is bound to it; with an annotation the Var has the annotation as its struct info, which must
 * not provably contradict the value's (TypeError, as librelax's VarBinding and upstream's
 * R.emit). Dataflow blocks end with R.output (tvm_script_relax_dataflow_output): the outputs
 * become Vars visible after the block, and the call returns them for the caller's name table.
 * An if/else (tvm_script_relax_if_enter, then_enter ... exit, else_enter ... exit,
 * tvm_script_relax_if_end) binds one Var: each branch must end by assigning the same name, whose
 * value is the branch's result.
 *
 * Modules: the I.ir_module frame of ir_builder.h holds Relax functions and PrimFuncs alike;
 * tvm_script_relax_decl_function declares a Relax function's GlobalVar with its struct info
 * before any body is built (as upstream's parser does for every function of a module), so calls
 * `cls.f(x)` infer their result.
 *
 * Errors: NULL / -1 with TypeError (wrong kinds of values, annotation mismatches, librelax's
 * inference errors) or ValueError (a call in the wrong frame: "R.output is only valid inside
 * R.dataflow", a missing return, ...).
 */
#ifndef TVM_SCRIPT_IR_BUILDER_RELAX_H_
#define TVM_SCRIPT_IR_BUILDER_RELAX_H_

#include <tvm/relax/relax.h>
#include <tvm/script/ir_builder.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ---- Functions ------------------------------------------------------------------------------- */
enum {
  TVM_SCRIPT_RELAX_PRIVATE = 1, /* @R.function(private=True): no global_symbol */
  TVM_SCRIPT_RELAX_IMPURE = 2,  /* @R.function(pure=False) */
};
/* @R.function def name(...): at the top level, in an I.ir_module, or inside a Relax function
 * (a local function). flags: TVM_SCRIPT_RELAX_*. */
int tvm_script_relax_function_enter(tvm_script_builder* b, const char* name, unsigned flags);
/* A parameter `name: sinfo` of the innermost function frame (before its body): the Var. */
tvm_relax_var_obj* tvm_script_relax_arg(tvm_script_builder* b, const char* name,
                                        const tvm_relax_sinfo_obj* sinfo);
/* `-> sinfo`: the function's return struct info (the body's must not provably contradict it). */
int tvm_script_relax_func_ret(tvm_script_builder* b, const tvm_relax_sinfo_obj* sinfo);
/* R.func_attr({...}): merged into the function's attributes (later keys win). */
int tvm_script_relax_func_attrs(tvm_script_builder* b, const void* attrs);
/* return value: the function's result (its last statement). */
int tvm_script_relax_func_return(tvm_script_builder* b, const TVMFFIAny* value);
/* Exit the innermost frame, a function frame; returns (a new reference) the local function's
 * Var, the module function's GlobalVar, or the top-level Function. */
void* tvm_script_relax_function_end(tvm_script_builder* b);
/* Declare the Relax function `name` of the enclosing I.ir_module with its struct info (a
 * FuncStructInfo: upstream declares the parameters' struct info, the return annotation or
 * R.Object, and the purity) before its body is built: returns its GlobalVar. ValueError when
 * the name was already declared or referred to. */
tvm_tir_global_var_obj* tvm_script_relax_decl_function(tvm_script_builder* b, const char* name,
                                                       const tvm_relax_sinfo_obj* sinfo);

/* ---- Symbolic variables ---------------------------------------------------------------------- */
/* The int64 tir.Var named `name` of the innermost function frame, made on first use (outside a
 * function frame: of the builder's table of loose names, emptied by
 * tvm_script_relax_syms_reset, for signatures read before their function). */
tvm_tir_var_obj* tvm_script_relax_sym_var(tvm_script_builder* b, const char* name);
/* `name = T.int64()` in a function body: the Var that `name` already names there (when its dtype
 * is var's; TypeError otherwise), else var itself, now named `name` there. */
tvm_tir_var_obj* tvm_script_relax_bind_sym_var(tvm_script_builder* b, const char* name,
                                               const void* var);
/* The names and Vars of the innermost function frame's table (or the loose table): a new
 * ffi.Map name -> tir.Var. */
void* tvm_script_relax_syms(tvm_script_builder* b);
void tvm_script_relax_syms_reset(tvm_script_builder* b);

/* ---- Fragments ------------------------------------------------------------------------------- */
/* A fragment (statements outside any definition, as the printer prints a lone binding, block or
 * expression) is built in a frame of its own at the top level: enter it, declare its free
 * variables (`x: R.Tensor(...)` alone) with tvm_script_relax_fragment_var, emit bindings and
 * blocks as in a function body, then end it with the fragment's final value (NULL: none). The
 * end returns (new reference): with a value, the value itself when nothing was bound, else the
 * SeqExpr of the blocks and the value; without one, a lone dataflow block, a lone binding, a
 * lone plain block, or the SeqExpr of several blocks ending with the last bound variable
 * (ValueError when nothing was bound). */
int tvm_script_relax_fragment_enter(tvm_script_builder* b);
tvm_relax_var_obj* tvm_script_relax_fragment_var(tvm_script_builder* b, const char* name,
                                                 const tvm_relax_sinfo_obj* sinfo);
void* tvm_script_relax_fragment_end(tvm_script_builder* b, const TVMFFIAny* value);

/* ---- Virtual devices ------------------------------------------------------------------------- */
/* upstream's LookupVDevice, for `R.Tensor(..., vdevice="llvm:1")`: the index-th VDevice whose
 * target kind is kind[0..kind_len) in the "vdevice" list of the enclosing I.ir_module's
 * I.module_global_infos (a new reference). ValueError (naming the devices there) when there is
 * no module, no such list or no such device. */
tvm_tir_vdevice_obj* tvm_script_relax_lookup_vdevice(tvm_script_builder* b, const char* kind,
                                                     size_t kind_len, int64_t index);

/* upstream's DTensor(device_mesh="mesh[0]"): item `index` of the list `name`[0..len) of the
 * enclosing I.ir_module's I.module_global_infos (a new reference to an object). ValueError
 * naming what is there when there is no module, no such list or no such item. */
void* tvm_script_relax_lookup_global_info(tvm_script_builder* b, const char* name, size_t len,
                                          int64_t index);

/* ---- Bindings -------------------------------------------------------------------------------- */
/* name: ann = value (ann NULL: none; name NULL: a fresh name "lv" / "gv"). The bound Var. */
tvm_relax_var_obj* tvm_script_relax_emit(tvm_script_builder* b, const char* name,
                                         const TVMFFIAny* value, const tvm_relax_sinfo_obj* ann);
/* name: ann = R.match_cast(value, sinfo): the Var (of struct info sinfo). ann, when given, must
 * not provably contradict sinfo. */
tvm_relax_var_obj* tvm_script_relax_emit_match_cast(tvm_script_builder* b, const char* name,
                                                    const TVMFFIAny* value,
                                                    const tvm_relax_sinfo_obj* sinfo,
                                                    const tvm_relax_sinfo_obj* ann);

/* ---- Dataflow blocks ------------------------------------------------------------------------- */
/* with R.dataflow(): (exit with tvm_script_builder_exit) */
int tvm_script_relax_dataflow_enter(tvm_script_builder* b);
/* R.output(v...): vars an ffi.Array of DataflowVars bound in the innermost dataflow block; the
 * block ends here (nothing may be bound in it after) and a new ffi.Array of the Vars that
 * replace them (same names and struct info, visible after the block) is returned. */
void* tvm_script_relax_dataflow_output(tvm_script_builder* b, const void* vars);

/* ---- If / else ------------------------------------------------------------------------------- */
/* if cond: ... else: ... (cond a bool scalar: a 0-d bool tensor or a PrimValue). Not inside a
 * dataflow block. if_enter, then_enter, body, exit, else_enter, body, exit, if_end. */
int tvm_script_relax_if_enter(tvm_script_builder* b, const TVMFFIAny* cond);
int tvm_script_relax_then_enter(tvm_script_builder* b);
int tvm_script_relax_else_enter(tvm_script_builder* b);
/* Exit the if frame; the Var bound to the If (new reference), named as both branches' last
 * assignment. */
tvm_relax_var_obj* tvm_script_relax_if_end(tvm_script_builder* b);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_IR_BUILDER_RELAX_H_ */
