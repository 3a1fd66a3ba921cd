/*
 * tvm/tir/schedule.h: the default CPU schedule, TIR -> TIR rules applied to kernels that nobody
 * scheduled (the legalized and fused kernels of a Relax model).
 *
 * Input: PrimFuncs before tvm_tir_lower (multi-dimensional buffer accesses, plain For loops;
 * SBlocks are lowered first by tvm_tir_schedule_default). Every rule is a plain function
 *
 *   void* tvm_tir_schedule_<rule>(const void* mod_or_func, const tvm_tir_schedule_target* t);
 *
 * taking a tir.PrimFunc or an ir.IRModule (borrowed) and returning a new reference (the
 * argument itself, retained, when nothing changed), or NULL with an error raised. A rule only
 * rewrites a loop nest it has proved it may (iterations that touch disjoint elements, no
 * calls with effects): anything else is left as it is, so the result always computes what the
 * input computed, element for element in the same order of floating-point operations (rules
 * move loops of independent iterations, never reorder a reduction, except vector_reduce's sums
 * below; pad adds terms 0 * w where
 * a test skipped a term, which changes nothing unless w is infinite or NaN). A function whose attrs
 * hold "tir.is_scheduled" (true) is skipped, and so is any loop nest that already holds a
 * parallel, vectorized, unrolled or thread-bound loop (scheduled by hand).
 *
 * Vocabulary: a loop over v is *independent* when, for each buffer it writes (other than buffers
 * allocated in its body), one dimension d indexes every access to it in the body as c * v + r
 * with one constant c != 0 and remainders r that, outer variables cancelling, all lie in one
 * interval narrower than |c| over the inner loops' ranges: distinct iterations write distinct
 * elements and read only their own. Such a loop may run in parallel, be moved inward
 * (interchanged with inner loops, distributed over a sequence) or vectorized.
 *
 * The rules, in the order tvm_tir_schedule_default applies them:
 *
 *   pad           an accumulation guarded by range tests on the indices of a load of a
 *                 parameter buffer X (a padded convolution's window: `if 0 <= y + r < H and
 *                 0 <= x + s < W: acc += X[.., y + r, x + s] * w`) reads a zero-padded copy of X
 *                 (made once per call before the body, X of constant shape) without the test,
 *                 so the window's loop nest is a plain one (the operand packing of a
 *                 convolution). Loops still testing a condition on their variable are then split
 *                 by loop_partition (tvm/tir/transform.h) so that interiors are free of tests.
 *   local_accum   a loop R that accumulates into one element O[idx] of a parameter buffer,
 *                 or of a buffer the function allocates outside R (a fused kernel's matmul
 *                 result, read by its epilogue), (idx invariant in R: a reduction) accumulates in a one-element local buffer
 *                 instead: acc = init (the store just before R, folded) or O[idx]; R on acc;
 *                 O[idx] = acc. LLVM keeps acc in a register.
 *   vectorize     the innermost independent loop j whose stores are contiguous in j (last
 *                 index j + ..., j in no other index) and whose loads are contiguous in j or do
 *                 not depend on it is split by the vector width: for jo: <body with a
 *                 vectorized loop of `lanes` iterations moved down to every statement: into
 *                 inner (reduction) loops, across sequences, under conditions that do not
 *                 depend on j>, and for extent % lanes a last vector overlapping the previous
 *                 one (constant extent, a body that reads nothing it writes; a reduction
 *                 whose remainder fills whole 256-bit registers gets short vectors of a power
 *                 of two of them instead), a short vector
 *                 of extent % lanes lanes (constant, at least 2) or a serial tail loop
 *                 (symbolic extents too); a constant extent below lanes is one short vector of
 *                 extent lanes (a classifier's 10 columns). Local buffers in the body (accumulators) get one
 *                 copy per lane. lanes = vector_bits / element bits, twice that when the body
 *                 holds a reduction loop (two registers per tile row, as examples/matmul.py).
 *   vector_reduce a serial loop of constant extent n >= L whose body is one store
 *                 S[idx] = S[idx] op e(r) (op +, max or min; idx free of r) with e reading S
 *                 nowhere and every buffer contiguously in r or not depending on it (softmax's
 *                 max and sum, layer norm's mean and variance): the L lanes keep L interleaved
 *                 partial results in one vector (L = vector_bits / element bits), reduced into S
 *                 at the end, then the n % L last terms. max / min give the same result; a
 *                 floating-point sum is reassociated (as vectorized BLAS / PyTorch reductions
 *                 are): the one rule whose result may differ, by rounding, from the input's.
 *   register_tile matmul-like nests (dense, matmul, batch matmul, convolutions): a vectorized
 *                 accumulation acc[jj] += a * b[jj], inside reduction loops, where a depends on
 *                 an enclosing independent loop i that b does not depend on: i is split by
 *                 tile_rows and the unrolled row loop moved down next to the vector loop, so
 *                 tile_rows x lanes accumulators stay in registers and each vector load of b
 *                 serves tile_rows FMAs. Where no such row loop exists (one row: a
 *                 matrix-vector product), the loop over the vector panels is tiled the same way,
 *                 so each reduction step streams tile_rows contiguous vectors of b's row.
 *   pack          a register-tiled matrix product whose loop over row tiles (256 rows at
 *                 least: below, the copy costs more than it saves) holds exactly the loop over
 *                 vector panels, every vector load reading row k
 *                 (a reduction loop over the whole dimension) of one panel of a parameter
 *                 buffer B (never written): the two loops are interchanged and each panel
 *                 B[.., :, jo * L : jo * L + L] copied once into a contiguous local buffer that
 *                 every row tile reads, as examples/matmul.py does by hand.
 *   epilogue      (with local_accum) an elementwise epilogue inlined into the write-back of the
 *                 accumulators it reads: in a sequence, a loop nest N (the last statement of
 *                 the item before) storing T[idx] = v, T an intermediate the function
 *                 allocates, stored nowhere else, idx injective over N, followed by a loop nest
 *                 of the same shape whose one store O[..] = g(T[idx], ..) reads T only at N's
 *                 idx (and nothing else reads T): N stores O[..] = g(v, ..) instead, the second
 *                 nest and T go (a reverse-compute-inline; the item before stores only T and
 *                 its own buffers and does not touch O). A dense layer's bias add and
 *                 activation are applied to the accumulators before the one store.
 *   parallel      the outermost independent loops of each top-level loop nest, fused (one loop
 *                 over the product of their extents, the indices recovered with // and %) until
 *                 the product reaches min_parallel_extent, become one parallel loop on the thread
 *                 pool, unless the nest's work (stores and loads times their loops' extents,
 *                 a vectorized loop counted in registers of vector_bits / 32 lanes, each
 *                 transcendental call (exp, log, tanh, ...) as 16, a symbolic extent counting as
 *                 large: roughly instructions) is below parallel_grain: small kernels stay
 *                 serial.
 */
#ifndef TVM_TIR_SCHEDULE_H_
#define TVM_TIR_SCHEDULE_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* The target facts and knobs the rules read (tvm_tir_schedule_target_default, then adjust;
 * libcodegen fills vector_bits from the host CPU). */
typedef struct {
  int vector_bits;             /* SIMD register width: 128 (SSE/NEON), 256 (AVX2), 512 */
  int tile_rows;               /* rows (or panels) of a register tile; default 4 */
  int64_t parallel_grain;      /* nests with less work stay serial; default 65536 (~10 us) */
  int64_t min_parallel_extent; /* fuse outer loops until this many iterations; default 64 */
  /* Which rules tvm_tir_schedule_default applies (all on by default). */
  bool pad, local_accum, vectorize, register_tile, pack, parallel;
  bool vector_reduce; /* after vectorize (reassociates floating-point sums; see above) */
} tvm_tir_schedule_target;

/* vector_bits 256, the defaults above, every rule on. */
tvm_tir_schedule_target tvm_tir_schedule_target_default(void);

/* The attr that marks a PrimFunc as scheduled (the rules leave it alone). */
#define TVM_TIR_ATTR_IS_SCHEDULED "tir.is_scheduled"

void* tvm_tir_schedule_pad(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_local_accum(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_vectorize(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_vector_reduce(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_register_tile(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_pack(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_epilogue(const void* mod_or_func, const tvm_tir_schedule_target* t);
void* tvm_tir_schedule_parallel(const void* mod_or_func, const tvm_tir_schedule_target* t);

/*
 * The default schedule: on every PrimFunc that is not marked scheduled and holds no
 * non-serial loop, lower_init and convert_blocks (blocks to plain loops), then the rules
 * enabled in t (NULL = tvm_tir_schedule_target_default()) in the order above. The functions it
 * changed get "tir.is_scheduled" = true. A new reference, or NULL + error.
 */
void* tvm_tir_schedule_default(const void* mod_or_func, const tvm_tir_schedule_target* t);

/* The attr that marks a PrimFunc as host code in a GPU build (upstream's "tir.is_host_func"):
 * the GPU schedule leaves it alone and the CUDA code generator compiles it as a CPU function
 * (the Relax build's shape functions, which read the VM's shape heap on the host). */
#define TVM_TIR_ATTR_IS_HOST_FUNC "tir.is_host_func"

/*
 * The default GPU schedule (schedule_gpu.c; upstream's DefaultGPUSchedule): every PrimFunc not
 * marked scheduled or host, with buffer parameters, no non-serial loop and no break / continue,
 * gets lower_init, convert_blocks and simplify, then each top-level loop nest becomes a launch:
 * its outermost perfectly nested independent loops fused and split into blockIdx.x x
 * threadIdx.x (max_threads_per_block threads, fewer for a smaller constant product; a guard
 * `g < product` unless the threads divide it), the loops inside (reductions) serial in each
 * thread. A nest without an independent outer loop (a reduction to one element), a statement
 * that is no loop, and a body under top-level Allocates (intermediate buffers, made "local")
 * run in one block of one thread. Marks the changed functions "tir.is_scheduled". The result
 * runs in the interpreter (bound loops as loops) and lowers for libtir's GPU passes. A new
 * reference, or NULL + error (ValueError for max_threads_per_block outside 1..1024).
 */
void* tvm_tir_schedule_gpu(const void* mod_or_func, int64_t max_threads_per_block);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_SCHEDULE_H_ */
