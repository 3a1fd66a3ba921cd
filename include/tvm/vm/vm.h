/*
 * tvm/vm/vm.h: the Relax virtual machine, as a C embedding API.
 *
 * libvm depends on libtvmffi only: a serving stack links libtvmvm + libtvmffi, loads an
 * executable, creates a VM on its devices and calls functions by name. Every function returns
 * 0 / a non-NULL pointer on success, or -1 / NULL with an error raised in the tvm-ffi
 * thread-local slot (tvm_ffi_error_take); nothing aborts or prints. Objects returned are new
 * references (release with tvm_ffi_release or the _release helpers below); arguments are
 * borrowed.
 *
 * Executables and VMs are tvm-ffi modules, so they also work through the generic module API
 * (tvm_ffi_module_get_function):
 *   executable (kind "relax.VMExecutable"): stats, as_text, as_python, save (Bytes),
 *     vm_load_executable (a VM still to initialise), get_function_arity(name),
 *     get_function_param_name(name, i)
 *   VM (kind "relax.VirtualMachine"): vm_initialization(dev_type, dev_id, alloc_type, ...),
 *     set_input(name, args...), invoke_stateful(name), get_output(name, i...),
 *     get_output_arity(name, i...), save_function(name, saved_name, include_return, args...),
 *     invoke_closure(closure, args...), set_instrument(func | global name [, factory args]),
 *     get_function_arity(name), get_function_param_name(name, i),
 *     time_evaluator(name, number, repeat, min_repeat_ms), and every function of the
 *     executable (and every saved function) by its name.
 * The VM is not thread-safe: call one VM from one thread at a time (use one VM per thread).
 *
 * ---- Binary format (little-endian; "str" is u64 length + bytes, "vec<T>" is u64 count + T...)
 *
 *   u64  magic 0xD225DE2F4214151E
 *   str  version "0.14"
 *   Globals      vec<func>: i32 kind (0 packed, 1 VM, 2 VM-TIR), str name, i64 start_instr,
 *                i64 end_instr, i64 num_args, i64 register_file_size, vec<str> param_names
 *   MemoryScopes vec<(i64 const_idx, str scope)>
 *   Constants    u64 count, then per constant an i32 tag (the tvm-ffi type index) and:
 *                  70 Tensor   the dmlc NDArray record: u64 magic 0xDD5E40F096B4A13F,
 *                              u64 reserved (0), i32 device_type (1: CPU), i32 device_id (0),
 *                              i32 ndim, u8 code, u8 bits, u16 lanes, i64 shape[ndim],
 *                              i64 data_byte_size, data bytes (row-major; sized by the tvm-ffi
 *                              rule: sub-byte types packed, e.g. int4[5] is 3 bytes, which is
 *                              upstream's size for every byte-multiple type)
 *                  69 Shape    vec<i64>
 *                  65 String   str
 *                   1 Int      i64
 *                   3 Float    f64
 *                   5 DataType u8 code, u8 bits, u16 lanes
 *   Code         vec<i64> instr_offset, vec<i64> instr_data
 *
 * Deviations from upstream (apache/tvm src/runtime/vm/executable.cc), all additions:
 *   - Constant tags upstream does not write: 0 None (no payload), 2 Bool (i64), 66 Bytes (str)
 *     and 64 "any other FFI object" (str: the tvm-ffi JSON graph of the object). A file using
 *     only upstream's tags is upstream-compatible.
 *   - The loader is strict where upstream trusts its input: trailing bytes after the code
 *     section, duplicate function names, overlapping function ranges, instructions not tiling
 *     instr_data exactly, out-of-range registers/constants/functions/jump targets, a VM
 *     function whose last instruction can fall through, and argument counts of calls to VM
 *     functions that differ from the callee's num_args are all rejected.
 *   - Only version "0.14" is accepted. Tensor records must say CPU, device 0, reserved 0.
 *
 * ---- Execution notes
 *   - A register read before any write reads None. (The verifier proves, per function, whether
 *     every read follows a write on all paths; only functions where it cannot are given
 *     None-initialised register files.)
 *   - VM-to-VM calls run in one loop with an explicit frame stack: recursion depth is limited
 *     by tvm_vm_set_max_call_depth, not by the C stack.
 *   - Errors raised by callees keep their kind and message; the VM appends where they
 *     happened ("at VM function f, instruction i: call g in: %0 dst: %1") to the error's
 *     backtrace, innermost first (at most 32 frames, then a count).
 */
#ifndef TVM_VM_VM_H_
#define TVM_VM_VM_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/vm/bytecode.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* "MAJOR.MINOR.PATCH" of libvm (libvm/VERSION). */
const char* tvm_vm_version(void);

/* Registers the VM's object types and vm.builtin.* global functions. Idempotent; every entry
 * point below calls it. Returns 0, or -1 with an error raised. */
int tvm_vm_init(void);

#define TVM_VM_BYTECODE_MAGIC UINT64_C(0xD225DE2F4214151E)
#define TVM_VM_FORMAT_VERSION "0.14"
#define TVM_VM_TENSOR_MAGIC UINT64_C(0xDD5E40F096B4A13F)

/* ------------------------------------------------------------------------------------------ */
/* Executables                                                                                */
/* ------------------------------------------------------------------------------------------ */
typedef struct tvm_vm_executable_obj tvm_vm_executable; /* an ffi.Module, kind relax.VMExecutable */

/* Parse and verify an executable. Errors name the section and what was wrong. */
tvm_vm_executable* tvm_vm_executable_load_bytes(const void* data, size_t size);
/* A file of the binary format, or a model library (an ELF shared library whose
 * __tvm_ffi__library_bin holds a relax.VMExecutable, as tvm_codegen_relax_export writes): loaded
 * with tvm_ffi_module_load_file, the executable found as tvm_vm_executable_load_from_module
 * does, its packed functions resolving to the library's kernels (its import). A path without a
 * '/' names the file in the working directory (not dlopen's search path). */
tvm_vm_executable* tvm_vm_executable_load_file(const char* path);
/* The executable inside a module: the module itself if it is one, the executable of a VM
 * module, else the first executable among its imports (depth first), else the result of its
 * `vm_load_executable` function (an executable, or a VM whose executable is taken). */
tvm_vm_executable* tvm_vm_executable_load_from_module(void* module);
/* True if obj is an executable. */
bool tvm_vm_is_executable(const void* obj);
/* Serialize: *out_bytes receives an owned ffi.Bytes value. */
int tvm_vm_executable_save(const tvm_vm_executable* exec, TVMFFIAny* out_bytes);
int tvm_vm_executable_save_file(const tvm_vm_executable* exec, const char* path);
/* Add a module whose functions resolve packed (and __vmtir__) functions of the executable. */
int tvm_vm_executable_import(tvm_vm_executable* exec, void* module);
/* Human-readable listings as owned string values (see upstream's AsText/AsPython/Stats). */
int tvm_vm_executable_as_text(const tvm_vm_executable* exec, TVMFFIAny* out);
int tvm_vm_executable_as_python(const tvm_vm_executable* exec, TVMFFIAny* out);
int tvm_vm_executable_stats(const tvm_vm_executable* exec, TVMFFIAny* out);
/* Function table queries: index of a name (-1 if absent, nothing raised), entry fields. */
int64_t tvm_vm_executable_num_functions(const tvm_vm_executable* exec);
int64_t tvm_vm_executable_find_function(const tvm_vm_executable* exec, const char* name);
const char* tvm_vm_executable_function_name(const tvm_vm_executable* exec, int64_t index);
int tvm_vm_executable_function_kind(const tvm_vm_executable* exec, int64_t index);
int64_t tvm_vm_executable_function_num_args(const tvm_vm_executable* exec, int64_t index);
int64_t tvm_vm_executable_num_constants(const tvm_vm_executable* exec);
/* Borrowed view of constant i (a CPU copy for tensors), NULL if out of range. */
const TVMFFIAny* tvm_vm_executable_constant(const tvm_vm_executable* exec, int64_t index);
int64_t tvm_vm_executable_num_instructions(const tvm_vm_executable* exec);
static inline void tvm_vm_executable_release(tvm_vm_executable* exec) { tvm_ffi_release(exec); }

/* ------------------------------------------------------------------------------------------ */
/* Virtual machines                                                                           */
/* ------------------------------------------------------------------------------------------ */
typedef struct tvm_vm_obj tvm_vm; /* an ffi.Module, kind relax.VirtualMachine */

/*
 * Create a VM for `exec` on devices[0..n) with a pooled allocator each (tvm_vm_create) or the
 * given allocator types. A CPU device is appended when the last device is not CPU (it holds
 * shape computations). Constants are placed on devices[0]; packed functions are resolved from
 * the executable's imports, then the global registry (a missing one is an error naming it).
 * Requesting a CUDA device loads the driver (libcuda.so.1, or $TVM_VM_LIBCUDA) with dlopen.
 */
tvm_vm* tvm_vm_create(tvm_vm_executable* exec, const DLDevice* devices, int32_t num_devices);
tvm_vm* tvm_vm_create_ex(tvm_vm_executable* exec, const DLDevice* devices,
                         const int32_t* allocator_types, int32_t num_devices);
static inline void tvm_vm_release(tvm_vm* vm) { tvm_ffi_release(vm); }
static inline void tvm_vm_free(tvm_vm* vm) { tvm_ffi_release(vm); }
bool tvm_vm_is_vm(const void* obj);
/* The VM's executable (borrowed). */
tvm_vm_executable* tvm_vm_get_executable(const tvm_vm* vm);

/* A Function calling `name` (a function of the executable or a saved function); a missing
 * name raises a ValueError. The function keeps the VM's state alive. */
void* tvm_vm_get_function(tvm_vm* vm, const char* name);
/* Call `name` with args (views); *out receives the owned result. */
int tvm_vm_invoke(tvm_vm* vm, const char* name, const TVMFFIAny* args, int32_t num_args,
                  TVMFFIAny* out);

/* Stateful interface (for RPC-style use): inputs are kept per function (tensors moved to
 * devices[0] when they live elsewhere), invoke_stateful keeps the output. */
int tvm_vm_set_input(tvm_vm* vm, const char* name, const TVMFFIAny* args, int32_t num_args);
int tvm_vm_invoke_stateful(tvm_vm* vm, const char* name);
/* The saved output of `name`, indexed into nested tuples by index[0..depth); a tuple result
 * needs an index (upstream's RPC rule: get_output never returns a tuple). */
int tvm_vm_get_output(tvm_vm* vm, const char* name, const int64_t* index, int32_t depth,
                      TVMFFIAny* out);
/* Number of fields of the (indexed) output if it is a tuple, else -1. */
int tvm_vm_get_output_arity(tvm_vm* vm, const char* name, const int64_t* index, int32_t depth,
                            int64_t* out_arity);

/* Save `func_name` with all arguments bound under `saved_name` (tvm_vm_get_function and
 * tvm_vm_invoke find it; it takes no further arguments). Without include_return the saved
 * function returns None. */
int tvm_vm_save_function(tvm_vm* vm, const char* func_name, const char* saved_name,
                         bool include_return, const TVMFFIAny* args, int32_t num_args);

/*
 * Instrumentation: func (a Function, or NULL to remove) is called before and after every Call
 * instruction as func(callee, callee_name, before_run, ret_value, args...). ret_value is None
 * before the call. Returning the int TVM_VM_INSTRUMENT_SKIP_RUN (1) from the "before" call
 * skips the call (its destination becomes None, and no "after" call follows). Calls of
 * bytecode functions go through their closures while an instrument is set, so they are
 * reported too (the top-level call made through this API is not an instruction and is not).
 * An instrument may replace itself; a call whose "before" ran still gets its "after".
 */
int tvm_vm_set_instrument(tvm_vm* vm, void* func);

/*
 * Time `name`: one warm-up call, then `repeat` measurements of `number` calls each; with
 * min_repeat_ms > 0 `number` grows until one measurement lasts at least that long. Writes the
 * mean seconds per call of each measurement into out_seconds[0..repeat). Devices are
 * synchronised around each measurement. (The module function "time_evaluator" returns a
 * Function taking the call's arguments and returning these times as an ffi.Array of floats.)
 */
int tvm_vm_time_evaluator(tvm_vm* vm, const char* name, const TVMFFIAny* args,
                          int32_t num_args, int32_t number, int32_t repeat,
                          int32_t min_repeat_ms, double* out_seconds);

/* Limits: VM call depth (frames, default 10000; raising it beyond the frames already allocated
 * is only possible while no call runs; a depth limit set from inside a call applies to the
 * interpreter runs started after it) and nested native re-entries of the interpreter
 * (packed functions calling back into the VM, default 256). Exceeding either raises a
 * RecursionError. */
int tvm_vm_set_max_call_depth(tvm_vm* vm, int64_t max_depth);
int tvm_vm_set_max_native_nesting(tvm_vm* vm, int32_t max_nesting);

/* Devices of the VM (after the appended CPU, if any). */
int32_t tvm_vm_num_devices(const tvm_vm* vm);
DLDevice tvm_vm_device(const tvm_vm* vm, int32_t index);
/* Memory held by device i's allocator: bytes in live allocations and bytes cached for reuse. */
int tvm_vm_memory_usage(const tvm_vm* vm, int32_t device_index, size_t* out_allocated,
                        size_t* out_cached);

/* ------------------------------------------------------------------------------------------ */
/* Closures and storage objects                                                               */
/* ------------------------------------------------------------------------------------------ */
/* "vm.Closure": a function name and an implementation taking the VM context first. */
int32_t tvm_vm_closure_type_index(void);
/* "vm.Storage": one device allocation that tensors (vm.builtin.alloc_tensor) are views of. */
int32_t tvm_vm_storage_type_index(void);

/*
 * Compiled execution (exec_mode="compiled"): the functions a compiled VM function
 * `__vmtir__<name>(ctx, r, c, f)` calls (vmtir_abi.c; generated by libcodegen, resolved from
 * the process, so a program loading such a model library exports them with -rdynamic as it
 * does the TVMFFI* symbols). ctx is the VM context the VM passes, regs the register file,
 * caller the compiled function's index (for error messages). Each returns -1 with an error
 * raised on failure.
 *   tvm_vm_tir_call: regs[dst] (or nothing for TVM_VM_REG_VOID) = function table entry
 *     func called with the arguments words[0..nargs) (tvm_vm_arg_* words, as a Call
 *     instruction holds them);
 *   tvm_vm_tir_cond: 1 or 0 for the int / bool in regs[reg] (TypeError for anything else);
 *   tvm_vm_tir_ret: regs[dst] = a new reference to regs[src].
 */
int32_t tvm_vm_tir_call(void* ctx, TVMFFIAny* regs, int64_t caller, int64_t dst, int64_t func,
                        const int64_t* words, int32_t nargs);
int32_t tvm_vm_tir_cond(void* ctx, const TVMFFIAny* regs, int64_t caller, int64_t reg);
int32_t tvm_vm_tir_ret(TVMFFIAny* regs, int64_t src, int64_t dst);
/* A compiled function calls packed functions itself (TVMFFIFunctionCall on the Function in the
 * function pool, its arguments gathered from the registers) unless tvm_vm_tir_instrumented
 * (tested on entry) says the VM has an instrument; tvm_vm_tir_result then takes the call's
 * return code rc and *res: on failure it adds where it happened to the raised error (-1), else
 * it makes a view result (raw string, byte array, r-value reference) an owned value and stores
 * it into regs[dst] (drops it for TVM_VM_REG_VOID), releasing the old value. */
int32_t tvm_vm_tir_instrumented(void* ctx);
int32_t tvm_vm_tir_result(void* ctx, TVMFFIAny* regs, int64_t caller, int64_t dst, int64_t func,
                          int32_t rc, TVMFFIAny* res);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_VM_VM_H_ */
