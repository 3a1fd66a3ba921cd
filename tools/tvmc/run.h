/*
 * run.h: the pieces of `tvmc run`: binding symbolic sizes, random arguments for a PrimFunc's
 * signature, comparing results, and counting the operations a function executes.
 *
 * Bindings are an ffi.Dict from tir.Var (the function's symbolic shape variables and integer
 * scalar parameters) to an int.
 */
#ifndef TVMC_RUN_H_
#define TVMC_RUN_H_

#include <stdbool.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/function.h>

/* ---- Evaluation and counting (run_count.c) ------------------------------------------------ */
/* Value of an integer expression of constants and bound Vars (+ - * / % min max, casts).
 * False when it uses anything else or divides by zero. */
bool tvmc_eval_int(const void* expr, const void* bindings, int64_t* out);

typedef struct {
  double flops; /* float add/sub/mul executed (one per lane), fma two */
  double work;  /* IR nodes evaluated: a cost estimate for the interpreter */
  bool known;   /* false when a loop trip count could not be evaluated */
} tvmc_counts;
/* Counts of one execution of func (a PrimFunc, lowered or not) under bindings. 0, or -1 +
 * error. */
int tvmc_count_ops(const void* func, const void* bindings, tvmc_counts* out);
/* The same for one statement (bindings may be NULL). */
int tvmc_count_stmt(const void* stmt, const void* bindings, tvmc_counts* out);

/* The interpreter work (tvmc_counts.work) a check may take, about 2 s (cmd_run.c;
 * TVMC_CHECK_WORK overrides it). */
double tvmc_check_budget(void);

/* ---- Arguments (run_args.c) --------------------------------------------------------------- */
enum { TVMC_MAX_PARAMS = 64, TVMC_MAX_NDIM = 16 };

/* The arguments of one call: tensors over malloc'd (64-byte aligned) data, and scalars. */
typedef struct {
  int n;
  TVMFFIAny args[TVMC_MAX_PARAMS];
  DLTensor t[TVMC_MAX_PARAMS];
  int64_t shape[TVMC_MAX_PARAMS][TVMC_MAX_NDIM];
  int64_t strides[TVMC_MAX_PARAMS][TVMC_MAX_NDIM]; /* of a buffer with explicit strides */
  void* data[TVMC_MAX_PARAMS];   /* NULL for a scalar parameter */
  size_t nbytes[TVMC_MAX_PARAMS]; /* of data, the byte_offset included */
  const char* name[TVMC_MAX_PARAMS]; /* the buffer's (or parameter's) name, borrowed */
  bool raw[TVMC_MAX_PARAMS]; /* a handle parameter: the data pointer is passed, not t[k] */
} tvmc_args;

/*
 * Bind the symbolic variables of func's signature from `--shape NAME=VALUE` strings. The
 * names are those of the Vars in the buffers' shapes and of the integer scalar parameters.
 * Returns the bindings (a new ffi.Dict), or NULL with the problem reported (a usage error): a
 * malformed item, a name the signature does not have, a non-positive size, or unbound names
 * (all of them listed).
 */
void* tvmc_bind_shapes(const char* cmd, const tvm_tir_prim_func_obj* func, const char** items,
                       int num_items);
/* A copy of bindings (a new ffi.Dict) with every value about halved, keeping its remainder
 * modulo 64; NULL when no value can shrink. */
void* tvmc_bindings_halved(const void* bindings);

/* Arguments for func under bindings: random non-zero values of each buffer's dtype (floats
 * k/16 for k in [-64, 64], integers in [-99, 99], unsigned in [1, 99]), float scalars random,
 * integer scalars from the bindings. A buffer with explicit strides gets a strided tensor: each
 * stride evaluated under the bindings, a stride Var that is not bound taking the compact
 * row-major value; the memory covers every element its layout reaches. The caller will hold `copies` copies of them (these and
 * tvmc_args_copy's) on top of `held` bytes: when that total passes tvmc_memory_limit, nothing
 * is allocated and a MemoryError naming the buffer and the sizes is reported. False with the
 * problem reported. */
bool tvmc_args_make(const char* cmd, const tvm_tir_prim_func_obj* func, const void* bindings,
                    unsigned seed, int copies, uint64_t held, tvmc_args* out);
/* dst = a deep copy of src (dst uninitialised). False on OOM. */
bool tvmc_args_copy(const tvmc_args* src, tvmc_args* dst);
void tvmc_args_free(tvmc_args* a);
/* Total bytes of the buffer arguments. */
double tvmc_args_bytes(const tvmc_args* a);

/*
 * Compare every buffer of got (compiled) with want (interpreter): integers exactly, floats
 * within a relative tolerance of their type. With `init` (the arguments both runs started
 * from), only elements that want changed are compared (a partial reference run). Reports the
 * first mismatch (buffer, index, both values) on stdout; adds the compared element count to
 * *out_compared. Returns the number of mismatching elements.
 */
int64_t tvmc_args_compare(const tvmc_args* got, const tvmc_args* want, const tvmc_args* init,
                          double reduction, int64_t* out_compared);
/* The relative tolerance for floats of type t (scalar) whose longest accumulation is
 * `reduction` terms long (tvmc_reduction_length): the type's own (float16 1e-2, bfloat16 2e-2,
 * float32 1e-4, float64 1e-9), widened to 2 * reduction * the type's unit roundoff when that is
 * larger: the worst-case error bound of a recursive sum (both runs may err, in opposite
 * directions; see docs/tir-decisions.md). */
double tvmc_tolerance(DLDataType t, double reduction);
/* *out = the number of terms of f's longest floating-point accumulation under bindings (>= 1):
 * see run_reduce.c. 0, or -1 with an error raised. */
int tvmc_reduction_length(const void* func, const void* bindings, double* out);

/* ---- Sampled reference runs (run_sample.c) ------------------------------------------------ */
/*
 * A copy of f (a new reference) whose outermost spatial loops (see run_sample.c) run only their
 * first iterations, so that its work (`work` for the whole of f) comes near `budget`; `what`
 * receives a description ("loop `i` narrowed to 12 of 1024 iterations"). The sampled loops may
 * be in the last statement of a sequence (after, say, an initialisation): then *out_base is f
 * without that statement (a new reference; else NULL), and the elements the sample wrote are
 * those where the two runs differ. NULL, with no error raised, when f has no such loop (or an
 * error raised on failure).
 */
void* tvmc_sample_func(const tvm_tir_prim_func_obj* f, double work, double budget, char* what,
                       size_t what_size, void** out_base);

/* ---- The CUDA target (run_cuda.c) ---------------------------------------------------------- */
/* A Function calling fn with every tensor argument copied to CUDA device 0 and back after the
 * call (a new reference). */
void* tvmc_cuda_wrap(void* fn);
/* Time `repeat` launches of fn with the arguments on the GPU; prints the result line. */
int tvmc_cuda_time(void* fn, const char* name, const tvmc_args* args, int64_t repeat,
                   const tvmc_counts* counts);

#endif /* TVMC_RUN_H_ */
