/*
 * tvm/tir/transform.h: the TIR -> TIR lowering passes consumed by the code generators.
 *
 * Every pass is a plain function
 *
 *   void* tvm_tir_transform_<name>(const void* mod_or_func);
 *
 * taking a tir.PrimFunc or an ir.IRModule (borrowed) and returning a new reference to the
 * transformed PrimFunc / IRModule (the argument itself, retained, when nothing changed), or NULL
 * with an error raised. On a module the pass runs on every PrimFunc (other functions are kept).
 * An error the caller left raised is set aside while a pass (or tvm_tir_lower) runs, and raised
 * again after it unless the pass fails (tvm_ffi_error_give_back).
 * Errors name the pass and the offending node, with its access path in the input function when
 * it has one: "<pass>: <what> (<node text>) at <root>.body..."; on a module they are prefixed
 * with "in function `name`: ", through tvm_tir_lower with "lower: pass <name>: ".
 *
 * The pipeline, in order (TVM_TIR_LOWER_PASSES lists it; tvm_tir_lower runs it):
 *
 *  1. lower_init       SBlock.init -> IfThenElse(every kCommReduce iter var == its dom min,
 *                      init) in front of the block body (the spec's "first iteration"); the
 *                      init of a block without reduction iter vars runs unconditionally.
 *  2. convert_blocks   SBlockRealize/SBlock -> plain statements: iter vars substituted by their
 *                      values (a LetStmt when the value reads memory, calls or holds a Let), the
 *                      predicate an IfThenElse, alloc_buffers Allocate + DeclBuffer,
 *                      match_buffers a DeclBuffer'd view of the source (its data Var, the source
 *                      strides, elem_offset = source offset + sum(min_k * stride_k)) that replaces
 *                      the matched buffer, whose shape/stride/elem_offset Vars are substituted by
 *                      the view's values; reads/writes/annotations dropped; an alloc_buffer
 *                      with strides / elem_offset gets the one extent its layout reaches; a
 *                      DeclBuffer whose data Var nothing binds (T.decl_buffer without data)
 *                      becomes Allocate + DeclBuffer. Needs lower_init.
 *  3. flatten_buffers  every BufferLoad/BufferStore to a flat buffer: index = elem_offset +
 *                      sum(index_k * stride_k) (row-major strides when strides are empty), one
 *                      flat axis per axis_separators group; Allocate extents -> their product.
 *                      buffer_map keeps the parameters' original buffers (the packed-API pass
 *                      reads their shape/strides/elem_offset); the body starts with a DeclBuffer
 *                      of each parameter's flat view (same data Var, elem_offset 0, strides
 *                      empty, shape [elem_offset + span]) and uses only flat buffers.
 *  4. loop_partition   a serial/parallel loop with constant bounds whose body tests a
 *                      condition on its variable (the tail predicate of a split loop, a padding
 *                      border) -> up to three loops, the middle one over the largest interval
 *                      where the condition is provably true (the next simplify folds it away
 *                      there, leaving straight-line code to vectorize); fresh variables per part.
 *  5. simplify         tvm_tir_simplify_expr on every expression under the ranges of the
 *                      enclosing loops; IfThenElse with a constant condition folded, no-op
 *                      Evaluate(constant) statements dropped from sequences.
 *  6. unroll_loops     For kind unrolled with a constant extent -> the body repeated with the
 *                      loop var replaced by each value (binding sites renamed so SSA holds); a
 *                      non-constant extent becomes a serial loop; above 65536 is a ValueError.
 *  7. vectorize_loops  For kind vectorized with a constant extent N (1 < N <= 64) -> one vector
 *                      body: loop var -> Ramp(min, 1, N), invariant scalars broadcast, loads and
 *                      stores with Ramp indices. A body that cannot be vectorized (a loop, an
 *                      allocation, an if on a lane-varying condition, a call that is not
 *                      elementwise, a store to a lane-invariant location, a vector buffer, ...)
 *                      keeps a serial loop, which is always correct, as do N > 64 and a
 *                      non-constant extent. N == 1 substitutes min.
 *  8. simplify         again, to fold what unrolling and vectorizing exposed.
 *
 * With tvm_tir_lower_options.bounds_check, bounds_check runs between steps 2 and 3:
 *
 *     bounds_check     every BufferLoad/BufferStore with scalar indices: index 0 becomes
 *                      Call(TVM_TIR_BOUNDS_CHECK_OP, ["<buffer>", indices..., shape...]), index 0
 *                      once 0 <= index_k < shape_k for every k, else IndexError "buffer A: index
 *                      [i, j] is out of bounds for shape [m, n]" raised by the compiled code
 *                      (libcodegen). Vectorized loops holding it stay serial.
 *
 * After step 3 no SBlock, SBlockRealize or BufferRealize is left and buffer accesses have one
 * index per axis_separators group; after step 7 no unrolled or vectorized loop is left.
 *
 * GPU kernels (thread-bound loops, T.launch_thread) go through the same pipeline (thread-bound
 * loops and launches pass unchanged), then through the GPU passes, in this order
 * (TVM_TIR_GPU_PASSES; libcodegen runs them for a CUDA target):
 *
 *  g1. lower_thread_bindings  For thread_binding over [min, min + extent) with tag T ->
 *                      AttrStmt(IterVar(v, [0, extent), thread index, T), "thread_extent"
 *                      (vthread: "virtual_thread"), extent, body[loop var -> v + min]); an
 *                      unknown or missing tag is a ValueError.
 *  g1b. inject_virtual_thread  virtual_thread launches -> serial loops of the thread (a body
 *                      without barriers), or split at its barriers (each statement in its own
 *                      loop over the virtual threads, the barrier once, uniform loops/ifs and
 *                      threadIdx launches kept around the split, local allocations made one per
 *                      virtual thread); NotImplementedError where that is not exact.
 *  g2. thread_sync     inside a kernel, outside its threadIdx launches: a
 *                      T.tvm_storage_sync("shared") between two statements of a sequence when
 *                      the later one reads what the earlier wrote or writes what it read or
 *                      wrote (buffers not of "local" scope), and at the end of a loop body
 *                      that writes memory it also accesses: the barriers a GPU needs for the
 *                      sibling thread loops to behave as the loops they are.
 *  g3. lower_thread_allreduce  T.tvm_thread_allreduce (under its reduce_scope attribute) ->
 *                      warp shuffles (reduction extent a power of two <= 32 over the lowest
 *                      thread axes, 32-bit values), a warp reduction per warp + shared
 *                      partials + a second warp reduction (a multiple of 32 up to 1024), or
 *                      a shared-memory tree with barriers (anything else); thread extents
 *                      must be constants (NotImplementedError otherwise).
 *  g4. split_host_device  each kernel (an outermost thread launch) -> a device PrimFunc
 *                      (calling_conv 2, params = the Vars it uses and does not bind, handles
 *                      first; tir.kernel_launch_params) called from the host function in its
 *                      place; "shared.dyn" allocations laid out (tir.dyn_shared_offset /
 *                      tir.dyn_shared_bytes). Returns an IRModule. A host Allocate of a
 *                      non-global scope used by one kernel moves into it; other host code
 *                      touching buffer memory is a ValueError.
 *
 * Each leaves the program runnable by the interpreter with the same results (thread launches
 * are loops there; barriers outside thread loops are no-ops, those inside run the loop's
 * iterations in lockstep phases: docs/tir-decisions.md).
 */
#ifndef TVM_TIR_TRANSFORM_H_
#define TVM_TIR_TRANSFORM_H_

#include <stdbool.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

void* tvm_tir_transform_lower_init(const void* mod_or_func);
void* tvm_tir_transform_convert_blocks(const void* mod_or_func);
void* tvm_tir_transform_flatten_buffers(const void* mod_or_func);
void* tvm_tir_transform_loop_partition(const void* mod_or_func);
void* tvm_tir_transform_simplify(const void* mod_or_func);
void* tvm_tir_transform_unroll_loops(const void* mod_or_func);
void* tvm_tir_transform_vectorize_loops(const void* mod_or_func);
/* Opt-in (tvm_tir_lower_options.bounds_check): guard every buffer access (see above). */
void* tvm_tir_transform_bounds_check(const void* mod_or_func);
/* The op of the guard: Call(index dtype, op, ["<buffer name>", indices..., shape...]). */
#define TVM_TIR_BOUNDS_CHECK_OP "tir.bounds_check"

/* GPU passes (see above). */
void* tvm_tir_transform_lower_thread_bindings(const void* mod_or_func);
void* tvm_tir_transform_inject_virtual_thread(const void* mod_or_func);
void* tvm_tir_transform_thread_sync(const void* mod_or_func);
void* tvm_tir_transform_lower_thread_allreduce(const void* mod_or_func);
void* tvm_tir_transform_split_host_device(const void* mod_or_func);

/* float64 exp, exp2, exp10, log, log2, log10, log1p, sinh, cosh, tanh, sigmoid, erf, sin, cos,
 * tan and pow (scalar calls) written out as arithmetic, for targets without a math library (CUDA kernels; libcodegen
 * runs it after the GPU passes). Accuracy: docs/tir-decisions.md "float64 math without libm". */
void* tvm_tir_transform_expand_f64_math(const void* mod_or_func);

/* A pass of the pipeline. */
typedef void* (*tvm_tir_pass_fn)(const void* mod_or_func);
typedef struct {
  const char* name;
  tvm_tir_pass_fn fn;
} tvm_tir_pass;

/* The flat pipeline (the order above). */
#define TVM_TIR_LOWER_PASSES                                  \
  {"lower_init", tvm_tir_transform_lower_init},               \
      {"convert_blocks", tvm_tir_transform_convert_blocks},   \
      {"flatten_buffers", tvm_tir_transform_flatten_buffers}, \
      {"loop_partition", tvm_tir_transform_loop_partition},   \
      {"simplify", tvm_tir_transform_simplify},               \
      {"unroll_loops", tvm_tir_transform_unroll_loops},       \
      {"vectorize_loops", tvm_tir_transform_vectorize_loops}, \
      {"simplify", tvm_tir_transform_simplify}

/* The GPU passes, run after TVM_TIR_LOWER_PASSES. */
#define TVM_TIR_GPU_PASSES                                                \
  {"lower_thread_bindings", tvm_tir_transform_lower_thread_bindings},     \
      {"inject_virtual_thread", tvm_tir_transform_inject_virtual_thread}, \
      {"thread_sync", tvm_tir_transform_thread_sync},                     \
      {"lower_thread_allreduce", tvm_tir_transform_lower_thread_allreduce}, \
      {"split_host_device", tvm_tir_transform_split_host_device}

typedef struct {
  /* Run tvm_tir_verify_well_formed on the input and after every pass; a failure is a
   * ValueError "lower: after pass <name>: well-formedness: ...". */
  bool check;
  /* Run bounds_check after convert_blocks: compiled code raises IndexError on an access outside
   * its buffer instead of reading or writing there. */
  bool bounds_check;
} tvm_tir_lower_options;

/* Default options: check on in debug builds (NDEBUG undefined), off otherwise; no
 * bounds_check. */
tvm_tir_lower_options tvm_tir_lower_options_default(void);

/* Run the pipeline on a PrimFunc or IRModule (borrowed); options NULL = the defaults. A new
 * reference, or NULL with the failing pass's error raised (prefixed "lower: pass <name>: "). */
void* tvm_tir_lower(const void* mod_or_func, const tvm_tir_lower_options* options);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_TRANSFORM_H_ */
