/*
 * tvm/codegen/relax_build.h: compiling Relax modules for the Relax VM (libvm).
 *
 *   tvm_vm_executable* exec = tvm_codegen_relax_build(mod, NULL);  (runs the build pipeline)
 *   tvm_vm* vm = tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1);
 *   tvm_vm_invoke(vm, "main", args, n, &out);
 *
 * VMCodeGen's input must be legalized: every operator call a call_tir, a direct call of a
 * PrimFunc (with its outputs as arguments, or returning a value: ComputePrimValue's), or one of
 * the operators VMCodeGen maps to a VM builtin (shape_of, null_value, call_pure_packed and
 * call_inplace_packed (a call of the packed function),
 * builtin.alloc_tensor, memory.alloc_storage / alloc_tensor / kill_storage / kill_tensor); the
 * other builtins come as ExternFunc calls (LowerRuntimeBuiltin: vm.builtin.reshape, ...).
 */
#ifndef TVM_CODEGEN_RELAX_BUILD_H_
#define TVM_CODEGEN_RELAX_BUILD_H_

#include <tvm/codegen/codegen.h>
#include <tvm/relax/expr.h>
#include <tvm/relax/transform.h>
#include <tvm/vm/vm.h>

#ifdef __cplusplus
extern "C" {
#endif

#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/*
 * VMCodeGen: each Relax function of mod (borrowed) to bytecode, named by its GlobalVar:
 * parameters in registers 0..n-1, one register per binding; the parameters' struct info checked
 * on entry and their symbolic dims stored in a shape heap (vm.builtin.check_tensor_info /
 * match_shape, with the function and parameter in the error text); call_tir becomes an output
 * allocation (vm.builtin.alloc_storage / alloc_tensor) and a call of the kernel's packed
 * function (its global_symbol, resolved from the executable's imports); the allocation operators
 * become vm.builtin.alloc_storage / alloc_tensor and a kill overwrites the killed variable's
 * register with vm.builtin.null_value (upstream's kill); tuples, If, match_cast,
 * constants (the constant pool), shapes (constant or vm.builtin.make_shape), calls of GlobalVars
 * and ExternFuncs. Returns the executable (no imports), or NULL with an error naming the
 * function and the construct it cannot compile.
 */
tvm_vm_executable* tvm_codegen_relax_vm_codegen(const tvm_tir_ir_module_obj* mod);

/*
 * VMCodeGen, with the kernels the executable calls: *out_kernels (a new reference, NULL on
 * error) receives an IRModule of mod's PrimFuncs (each with a global_symbol, its GlobalVar's name
 * when it had none) and of the shape functions VMCodeGen generated. Symbolic dims live in a
 * shape heap per function call (an int64 tensor); a composite dim (`n * 2`, `(n + 1) // 2`) of a
 * parameter, a match_cast, a shape to make or a prim value is computed into its own slot by a
 * generated PrimFunc `shape_func(H: T.Buffer((heap_size,), "int64"))` (shape_func1, ... when the
 * module has more; upstream VMShapeLower's design), run where the dim is first needed. A
 * parameter's composite dim is checked once every parameter is matched, with an error naming
 * the function, the parameter, the dim, its expression and both values. tvm_codegen_relax_vm_codegen
 * is this without out_kernels, and a ValueError when the executable needs shape functions.
 */
tvm_vm_executable* tvm_codegen_relax_vm_codegen_kernels(const tvm_tir_ir_module_obj* mod,
                                                        tvm_tir_ir_module_obj** out_kernels);

/*
 * The Relax build: mod (borrowed) taken through the build pipeline (tvm_relax_build_pipeline,
 * tvm/relax/transform.h; each result checked for well-formedness in debug builds), then
 * VMCodeGen, and the module's PrimFuncs with VMCodeGen's shape functions given the default CPU
 * schedule (options->schedule, on by default: tvm_tir_schedule_default sized by
 * tvm_codegen_schedule_target; kernels marked "tir.is_scheduled" or holding a non-serial loop
 * are left as written), lowered (tvm_tir_lower) and compiled with LLVM in-process
 * (tvm_codegen_build; each gets global_symbol = its GlobalVar's name when it has none),
 * imported into the executable. options NULL = defaults.
 *
 * options->exec_mode TVM_CODEGEN_EXEC_COMPILED (upstream's exec_mode="compiled"): each Relax
 * function is compiled, with the kernels, to a native function `__vmtir__<name>(ctx, r, c, f)`
 * made from its VM instructions (packed calls made in place, If as a native branch) and the
 * executable declares it of kind vm_tir (TVM_VM_FUNC_VMTIR, no bytecode), which libvm calls
 * instead of interpreting; results, errors (with "in compiled VM function `f`" added) and the
 * instrument are as in bytecode mode. tvm_codegen_relax_export honours it too (the library
 * then references libvm's tvm_vm_tir_* functions, tvm/vm/vm.h, besides TVMFFI*).
 */
tvm_vm_executable* tvm_codegen_relax_build(const tvm_tir_ir_module_obj* mod,
                                           const tvm_codegen_options* options);

/*
 * The model library: the build pipeline, VMCodeGen and the PrimFuncs compiled as by
 * tvm_codegen_relax_build, written
 * as one shared library at path_so (as tvm_codegen_export writes a kernel library: the kernels'
 * __tvm_ffi_<symbol> entry points, the ABI version record, only TVMFFI* / libm references) whose
 * __tvm_ffi__library_bin holds the executable (tvm_vm_executable_save) as module 0, of kind
 * relax.VMExecutable, importing module 1, "_lib" (the library's kernels): upstream's layout for
 * an exported relax.build result. A serving program that links only libvm and libtvmffi loads
 * it with
 *
 *   tvm_vm_executable* exec = tvm_vm_executable_load_file("model.so");
 *   tvm_vm* vm = tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1);
 *
 * (or tvm_ffi_module_load_file after tvm_vm_init, then tvm_vm_executable_load_from_module); the
 * program must export its tvm-ffi symbols to the library (-rdynamic), as for any kernel library.
 * 0, or -1 + error (the error says which path it was exporting to).
 */
int tvm_codegen_relax_export(const tvm_tir_ir_module_obj* mod, const char* path_so,
                             const tvm_codegen_options* options);
/* tvm_codegen_relax_build with the Relax passes given (passes[0..n), run with
 * tvm_relax_run_passes) instead of the build pipeline; n = 0 compiles mod as it is (call_tir
 * then allocates a fresh output per call, freed when the function returns). */
tvm_vm_executable* tvm_codegen_relax_build_passes(const tvm_tir_ir_module_obj* mod,
                                                  const tvm_relax_pass* passes, int64_t n,
                                                  const tvm_codegen_options* options);

#pragma GCC visibility pop

#ifdef __cplusplus
}
#endif
#endif /* TVM_CODEGEN_RELAX_BUILD_H_ */
