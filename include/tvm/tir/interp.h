/*
 * tvm/tir/interp.h: the TIR reference interpreter.
 *
 * Executes a PrimFunc exactly as the semantics sections of the TIR Language Specification say
 * (shared/seeds/tir-spec.md), with the choices written down in docs/tir-decisions.md
 * ("Interpreter"). It is the oracle that generated code is tested against, so it favours
 * exactness and clear errors over speed: every buffer access is bounds checked, integer
 * division by zero, failed assertions, unbound variables and unsupported builtins raise.
 *
 * Arguments (spec: "Semantics of Statements", PrimFunc):
 *   - a parameter that is a key of buffer_map takes a DLTensor pointer (kTVMFFIDLTensorPtr) or
 *     an ffi.Tensor object in host memory; its dtype and ndim must match the buffer's, and the
 *     buffer's symbolic shape / strides / elem_offset variables are bound from it (the first
 *     binding wins; a later mismatch is a ValueError naming the argument and dimension);
 *   - a scalar parameter takes an int, bool or float value (converted to the parameter's
 *     dtype; an int that does not fit is a ValueError); a handle parameter takes an opaque
 *     pointer, None, or a DLTensor pointer, which it receives as itself (the address of the
 *     DLTensor, as compiled code and upstream's packed API do);
 *   - num_args is either len(params), or the number of parameters that are not themselves
 *     shape / stride / elem_offset variables of a buffer in buffer_map (those are then bound
 *     from the tensors, spec PrimFunc item i).
 *
 * Result: *out_ret is the value passed to tir.ret (int, bool, float or opaque pointer), or None
 * when the function returns nothing.
 */
#ifndef TVM_TIR_INTERP_H_
#define TVM_TIR_INTERP_H_

#include <tvm/tir/function.h>
#include <tvm/tir/node.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/*
 * Run a PrimFunc. func_or_module is a tir.PrimFunc (func_name NULL) or an ir.IRModule
 * (func_name names the function to run; calls through GlobalVars resolve in the module; a
 * PrimFunc passed alone can only call itself through a GlobalVar named by its global_symbol).
 * Arguments are borrowed. Returns 0, or -1 with an error raised:
 *   TypeError       wrong number or kind of arguments
 *   MemoryError     an allocation over the memory limit (tvm_tir_interp_memory_limit)
 *   ValueError      tensor dtype/ndim/shape/stride/offset/device mismatch or NULL data,
 *                   integer division by zero, an invalid shift amount, tir.clz(0), a float
 *                   cast to an integer type it does not fit
 *   IndexError      a buffer index outside the buffer's shape, an address outside any live
 *                   allocation, a Shuffle index out of range
 *   AssertionError  an AssertStmt failed (the message is the statement's)
 *   RuntimeError    an unbound variable, a call to a missing function, recursion too deep
 *   NotImplementedError  a builtin or node the interpreter does not execute (named)
 */
int tvm_tir_interp_run(const void* func_or_module, const char* func_name, const TVMFFIAny* args,
                       int32_t num_args, TVMFFIAny* out_ret);

/* Memory of the caller's that the run may reach through pointer arguments: a handle parameter
 * (not a buffer) given an opaque pointer into it, which the body declares a buffer over. The
 * interpreter checks every access against live memory, and an opaque pointer carries no
 * extent, so the caller says what is there. */
typedef struct {
  void* data;
  int64_t nbytes;
} tvm_tir_interp_memory;

/* tvm_tir_interp_run, with memory[0..num_memory) live (and accessible) for the run as well. */
int tvm_tir_interp_run_with_memory(const void* func_or_module, const char* func_name,
                                   const TVMFFIAny* args, int32_t num_args,
                                   const tvm_tir_interp_memory* memory, int32_t num_memory,
                                   TVMFFIAny* out_ret);

/*
 * The memory limit: the most bytes the interpreter's own allocations (Allocate, alloc_buffers,
 * BufferRealize; not the argument tensors) may hold at once during one run. An allocation that
 * would pass it is a MemoryError naming the buffer and its size, raised before any memory is
 * taken. The environment variable TVM_TIR_INTERP_MEMORY_LIMIT sets it in bytes ("1000000",
 * "64K", "512M", "2G"; read at each run's first allocation); by default it is half the
 * physical memory, so a runaway size fails instead of paging the machine to a standstill.
 * Returns the limit, or -1 with a ValueError for an unreadable variable.
 */
int64_t tvm_tir_interp_memory_limit(void);

/* The maximum number of lanes of a value (the spec's largest vector width). */
#define TVM_TIR_INTERP_MAX_LANES 64
/* The maximum depth of nested PrimFunc calls (recursion through GlobalVars). */
#define TVM_TIR_INTERP_MAX_CALL_DEPTH 64

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_INTERP_H_ */
