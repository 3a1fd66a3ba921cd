/*
 * tvm/relax/transform.h: Relax passes, IRModule -> IRModule.
 *
 * Each pass takes a module (borrowed) and returns the transformed module (a new reference; the
 * module itself, retained, when nothing changed), or NULL with an error raised. An error the
 * caller left raised is set aside while a pass runs, and is raised again after it unless the
 * pass fails (tvm_ffi_error_give_back).
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

/*
 * LambdaLift: every local function (a Function bound to a variable inside a Relax function)
 * becomes a private function of the module named <enclosing>_<variable> (made unique), taking
 * its parameters and then its captured variables (with fresh symbolic variables: functions do
 * not share them). One that captures nothing is replaced by its GlobalVar wherever it is used
 * (its binding dropped); one that captures is bound to
 * `R.make_closure(cls.<lifted>, (captured...))` and called with `R.invoke_pure_closure(f,
 * (args...))` (`R.invoke_closure` when impure), as upstream's pass does. Calls of function-typed
 * parameters are left as they are.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_lambda_lift(const tvm_tir_ir_module_obj* mod);
/* ---- Fusion (upstream's AnnotateTIROpPattern, FuseOps, FuseTIR) ---------------------------- */
/*
 * The op pattern of a PrimFunc analysed from its body (tvm_relax_op_pattern: TVM_RELAX_PATTERN_
 * ELEMWISE, BROADCAST, INJECTIVE, COMM_REDUCE, OUT_EWISE_FUSABLE for matmul / conv / pooling /
 * softmax-like kernels, OPAQUE), as upstream's AnalyzeOpPatternKind does for SBlocks; the
 * rules for loop-nest kernels are in annotate_tir_op_pattern.c. -1 + TypeError for a non-PrimFunc.
 */
int32_t tvm_relax_analyze_op_pattern(const tvm_tir_prim_func_obj* func);

/* AnnotateTIROpPattern: each PrimFunc without an "op_pattern" attribute gets its analysed one. */
tvm_tir_ir_module_obj* tvm_relax_transform_annotate_tir_op_pattern(const tvm_tir_ir_module_obj* mod);

/*
 * FuseOps: in each DataflowBlock of each Relax function, call_tir bindings of annotated kernels
 * are grouped by upstream's post-dominator algorithm (chains of elementwise / injective kernels,
 * elementwise and broadcast kernels into the inputs of a reduction, elementwise epilogues into
 * a kOutEWiseFusable producer such as matmul or conv; at most 256 bindings a group). Each group
 * of two or more becomes a private Relax function `fused_<kernels>` with attribute
 * "Primitive" = 1 (parameters: the values it uses from outside, Constants lifted; result: each of
 * its variables used outside it, one or a tuple) and the block calls it. Linear in the block.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_fuse_ops(const tvm_tir_ir_module_obj* mod);

/*
 * FuseTIR: each "Primitive" group function becomes one PrimFunc of its name (its kernels' bodies
 * in order, their buffers substituted: parameters, results, and intermediates allocated in the
 * fused kernel; intermediates computed per element where no work is repeated, elementwise
 * epilogues moved into their producer's loop nest), every call of it a call_tir, and the group
 * functions and kernels no longer called are removed.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_fuse_tir(const tvm_tir_ir_module_obj* mod);

/*
 * FoldConstant (upstream's pass): a pure call whose arguments are all known at compile time
 * (Constants, shapes and prim values of constants, strings, dtypes, tuples of them; a variable
 * bound to one counts as it) is evaluated and replaced by its value: call_tir of a PrimFunc of the
 * module runs the kernel in libtir's reference interpreter (the Relax evaluator's call_tir); an
 * operator with a legalization runs the kernel LegalizeOps would make for it; shape_of and
 * tensor_to_shape of a constant give the shape. Uses of variables bound to constants are
 * replaced by the constants, a TupleGetItem of a tuple of constants by the field, and the
 * bindings left unused are removed. Not folded: impure calls, calls of packed functions, results
 * over TVM_RELAX_FOLD_CONSTANT_MAX_BYTES (in all) or of symbolic shape, and calls whose
 * evaluation fails (the error is then raised at run time, if the program gets there). The
 * interpreter is slow: a large reduction over constants (a big matmul of weights) costs
 * compile time in proportion.
 */
#define TVM_RELAX_FOLD_CONSTANT_MAX_BYTES ((int64_t)1 << 20)
tvm_tir_ir_module_obj* tvm_relax_transform_fold_constant(const tvm_tir_ir_module_obj* mod);

/*
 * RewriteDataflowReshape (upstream's pass): in a dataflow block, a binding of a DataflowVar to
 * call_tir of a kernel that only copies one input's data in the same order into an output of
 * another shape (the kernels LegalizeOps makes for reshape, flatten, squeeze and expand_dims)
 * becomes `R.reshape(x, R.shape(out dims))` when x's and the output's element counts are
 * provably equal: LowerRuntimeBuiltin then makes it vm.builtin.reshape, a view with no copy.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_rewrite_dataflow_reshape(const tvm_tir_ir_module_obj* mod);

/*
 * DeadCodeElimination (upstream's pass): in each Relax function, the bindings that nothing
 * needed uses and whose values have no effect are removed (a binding is needed when the
 * function's result or a needed binding uses its variable; effects are calls of impure
 * operators, ExternFuncs, closures or functions, and match_casts, which are always kept, as are
 * the effects of a kept If's branches), blocks left empty with them; then the module's functions
 * that no entry reaches are removed. Entries: the functions with a global_symbol (public; a
 * function parsed with `private=True` has none, nor do the kernels of LegalizeOps and FuseTIR),
 * module-level ExternFuncs, and `entries` (names of module functions, ValueError otherwise).
 * References: GlobalVars (in Relax functions and PrimFuncs), ExternFuncs and TIR strings naming
 * a module function. Linear in the module; the result is a fixed point of the pass.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_dead_code_elimination(const tvm_tir_ir_module_obj* mod);
tvm_tir_ir_module_obj* tvm_relax_transform_dead_code_elimination_entries(
    const tvm_tir_ir_module_obj* mod, const char* const* entries, int64_t n_entries);

/* ---- The lowering passes towards the VM (upstream's relax.transform of the same names) ----- */
/*
 * ToNonDataflow: every DataflowBlock becomes an ordinary BindingBlock and every DataflowVar a
 * Var (same name and struct info; uses follow), so the impure calls of the later passes may be
 * placed there.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_to_non_dataflow(const tvm_tir_ir_module_obj* mod);

/*
 * RemovePurityChecking: each pure Relax function of the module gets the attribute
 * `relax.force_pure = true`, so it may contain the impure allocation and kernel calls the next
 * passes produce while still counting as pure for its callers (upstream's pass; upstream also
 * rewrites call_pure_packed into direct calls and enters nested functions, which this one does
 * not: VMCodeGen compiles call_pure_packed as it is, and LambdaLift has lifted local functions).
 */
tvm_tir_ir_module_obj* tvm_relax_transform_remove_purity_checking(const tvm_tir_ir_module_obj* mod);

/*
 * CallTIRRewrite: `lv = R.call_tir(f, (x, y), out_sinfo)` in an ordinary block becomes
 *   alloc = R.builtin.alloc_tensor(R.shape(dims), R.dtype(dt), R.prim_value(0))
 *   _ = f(x, y, alloc)
 *   lv = alloc
 * (a tuple out_sinfo: one alloc per field and `lv = (alloc, alloc1, ...)`). The outputs' shapes
 * must be known (dims may be symbolic). call_tir in a DataflowBlock is a ValueError (run
 * ToNonDataflow first), as is call_tir with packed TIR arguments or a non-tuple argument.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_call_tir_rewrite(const tvm_tir_ir_module_obj* mod);

/*
 * StaticPlanBlockMemory: within each Relax function's top-level blocks, the tensors made by
 * `R.builtin.alloc_tensor` with constant shapes share storage when their lifetimes (from the
 * allocation to the last use of the tensor or of a variable bound to it) do not overlap:
 *   storage = R.memory.alloc_storage(R.shape([bytes]), R.prim_value(0), R.str("global"),
 *                                    R.dtype("uint8"))
 *   alloc = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape(dims), R.dtype(dt))
 * A storage is reused by any dtype; a request takes the smallest free storage at least its size,
 * else grows the largest smaller one (upstream's rule, within a factor of 16). Not planned (left
 * as R.builtin.alloc_tensor): symbolic shapes, allocations inside If branches, and tensors that
 * escape (returned, put in a tuple, the result of a branch, captured by a nested function, passed
 * to anything but a PrimFunc of the module, memory.alloc_tensor, a kill or shape_of: a Relax or
 * packed function might return the tensor or a view of it).
 */
tvm_tir_ir_module_obj* tvm_relax_transform_static_plan_block_memory(const tvm_tir_ir_module_obj* mod);

/*
 * KillAfterLastUse: after the last use (at the top level of each Relax function) of a tensor
 * made by R.memory.alloc_tensor or R.builtin.alloc_tensor, or of a storage made by
 * R.memory.alloc_storage (uses through variables bound to it included), insert
 * `_ = R.memory.kill_tensor(t)` / `_ = R.memory.kill_storage(s)`. Values that escape (see
 * StaticPlanBlockMemory) are not killed.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_kill_after_last_use(const tvm_tir_ir_module_obj* mod);

/*
 * LowerRuntimeBuiltin: calls of the operators the VM implements as builtins become calls of the
 * builtins' ExternFuncs (pure, with the call's struct info as sinfo_args): R.reshape ->
 * vm.builtin.reshape (a view), R.shape_of -> vm.builtin.shape_of, R.tensor_to_shape ->
 * vm.builtin.tensor_to_shape. The memory operators stay: VMCodeGen maps them (this project has
 * no R.vm.* operators).
 */
tvm_tir_ir_module_obj* tvm_relax_transform_lower_runtime_builtin(const tvm_tir_ir_module_obj* mod);

/*
 * ComputePrimValue: `R.prim_value(e)` with e neither a constant nor a variable (`n * 2`,
 * `n % 2 == 0`) becomes a call of a new PrimFunc `compute_symbolic_expr(vars...)` returning e
 * (T.ret), with e's variables as R.prim_value arguments and e's struct info as sinfo_args,
 * bound to a new variable first where A-normal form needs one.
 */
tvm_tir_ir_module_obj* tvm_relax_transform_compute_prim_value(const tvm_tir_ir_module_obj* mod);

/* ---- Pipelines -------------------------------------------------------------------------------- */
typedef tvm_tir_ir_module_obj* (*tvm_relax_pass_fn)(const tvm_tir_ir_module_obj* mod);
typedef struct {
  const char* name; /* "CallTIRRewrite" */
  tvm_relax_pass_fn run;
} tvm_relax_pass;

/*
 * The passes that take a Relax module to what VMCodeGen compiles, in order:
 *   LambdaLift, LegalizeOps, AnnotateTIROpPattern, FoldConstant, FuseOps, FuseTIR,
 *   RewriteDataflowReshape, DeadCodeElimination, ToNonDataflow, RemovePurityChecking,
 *   CallTIRRewrite, StaticPlanBlockMemory, KillAfterLastUse, LowerRuntimeBuiltin,
 *   ComputePrimValue (upstream's order; VMCodeGen then does VMShapeLower's work). Upstream's
 *   default CPU pipeline has no DeadCodeElimination; MLC-LLM's, built on it, runs it after
 *   FuseTIR; here it goes one pass later, so that the kernels replaced by reshape views go too.
 * Stores the (static) list in *out and returns its length.
 */
int64_t tvm_relax_build_pipeline_passes(const tvm_relax_pass** out);

/*
 * Run passes[0..n) on mod (borrowed) in order; returns the result (a new reference) or NULL with
 * the error of the failing pass (its name in the context). In builds without NDEBUG each result
 * is checked with tvm_relax_verify_well_formed, a failure naming the pass.
 */
tvm_tir_ir_module_obj* tvm_relax_run_passes(const tvm_tir_ir_module_obj* mod,
                                           const tvm_relax_pass* passes, int64_t n);

/*
 * Called after each pass of a run with the pass's name and its result (borrowed): `tvmc build
 * --dump-ir` writes it out, test builds print and parse it back. Returns 0 to go on, or -1 with
 * an error raised to stop the run (the error then names the pass).
 */
typedef int (*tvm_relax_pass_observer)(void* ctx, const char* pass,
                                       const tvm_tir_ir_module_obj* result);

/* tvm_relax_run_passes with observer (NULL = none) called after each pass. */
tvm_tir_ir_module_obj* tvm_relax_run_passes_observed(const tvm_tir_ir_module_obj* mod,
                                                    const tvm_relax_pass* passes, int64_t n,
                                                    tvm_relax_pass_observer observer, void* ctx);

/* tvm_relax_run_passes with the build pipeline. */
tvm_tir_ir_module_obj* tvm_relax_build_pipeline(const tvm_tir_ir_module_obj* mod);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_RELAX_TRANSFORM_H_ */
