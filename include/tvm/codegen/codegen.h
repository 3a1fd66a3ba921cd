/*
 * tvm/codegen/codegen.h: lowered TIR -> native CPU code through LLVM (libcodegen).
 *
 * Input: a tir.PrimFunc or an ir.IRModule of PrimFuncs, already lowered with tvm_tir_lower
 * (flat 1-D buffers, no blocks, vectorized loops turned into Ramp/Broadcast); every function
 * needs a global_symbol. Each function becomes an exported entry point
 *
 *   int __tvm_ffi_<global_symbol>(void* handle, const TVMFFIAny* args, int32_t num_args,
 *                                 TVMFFIAny* result);
 *
 * whose prologue (the packed API, generated directly in LLVM IR from the PrimFunc's signature)
 * checks the argument count, then for each parameter: its type index (a DLTensor pointer or an
 * ffi.Tensor for a buffer; int / bool / float for a scalar, an
 * int fitting the parameter's dtype), ndim, dtype, device (CPU), data not
 * NULL, the shape against the buffer's (each extent non-negative; binding symbolic dimensions on
 * first sight, checking them afterwards; a value that does not fit the Var's dtype is refused),
 * the strides (compact when the buffer has none, else bound/checked) and the
 * byte_offset against elem_offset. A failed check raises through TVMFFIErrorSetRaisedFromCStrParts
 * ("TypeError" for the count and type indices, "ValueError" otherwise) with a message naming the
 * function, the argument and what was wrong, e.g.
 *   "add: argument A: expected dtype float32, got float16"
 * and returns -1. A failed AssertStmt raises "AssertionError" with its message.
 *
 * Parallel loops: the body is outlined into a closure with upstream TVM's FTVMParallelLambda
 * signature, launched through the module's pointer variable `__TVMBackendParallelLaunch`
 * (upstream's context symbol, `int (*)(FTVMParallelLambda, void* cdata, int num_task)`): the
 * loader fills it at load time (libtvmffi registers its adapter over tvm_ffi_parallel_launch
 * with TVMFFIEnvModRegisterContextSymbol at init) and the JIT fills it after adding the module;
 * while it is NULL (a runtime without it) the loop runs serially. A failed task's error is
 * raised on the caller. A parallel loop over an unsigned variable runs serially.
 *
 * Allocate: each function (the body, each parallel task) takes at most
 * TVM_CODEGEN_MAX_STACK_ALLOC bytes of stack for its Allocates in total. Constant sizes that fit
 * what is left are stack slots; other sizes (symbolic, or beyond the budget) are computed at run
 * time (a negative extent or an int64 overflow is a ValueError) and go on
 * the stack up to TVM_CODEGEN_MAX_DYN_STACK_ALLOC bytes while the budget allows (restored at the end of the Allocate's
 * scope, so an Allocate inside a loop does not grow the stack), else to TVMFFIEnvTensorAlloc,
 * released on every exit path (normal, failed checks, failed tasks).
 *
 * tir.call_extern / tir.call_pure_extern("name", args...) call the C function `name` with the
 * C types of the argument dtypes, returning the call's dtype (void for a 0-bit handle); the
 * symbol resolves from the process in the JIT and at load time in an exported library.
 *
 * Integer Div/Mod/FloorDiv/FloorMod by a divisor that is not a constant other than 0 and -1
 * raise ValueError "<name>: <Op>: integer division by zero" for a zero divisor and wrap for
 * MIN / -1, as the interpreter does (a loop-invariant divisor's check is hoisted out of the loop;
 * constant divisors get none).
 *
 * Limits (this version): packed calls, the tvm_struct_* / tvm_stack_* builtins, thread-bound
 * loops in CPU code (build for a CUDA target) and vector arguments or results of call_extern
 * are not supported (NotImplementedError at build time); TVMBackendParallelBarrier is not
 * provided (the group's sync_handle is NULL).
 *
 * Dependencies of exported libraries: TVMFFI* functions of the loading runtime, libm (math
 * builtins computed lane by lane) and whatever call_extern names; nothing else. float16 and
 * bfloat16 conversions are emitted inline (nearest even, on every host alike): no
 * runtime-library functions such as __truncsfbf2.
 */
#ifndef TVM_CODEGEN_CODEGEN_H_
#define TVM_CODEGEN_CODEGEN_H_

#include <stdbool.h>
#include <tvm/codegen/target.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/schedule.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* "MAJOR.MINOR.PATCH" of libcodegen (libcodegen/VERSION). */
const char* tvm_codegen_version(void);

/* Whether the code generator represents dtype t (any lanes): handles, Int/UInt of 1 to 64 bits,
 * float16/32/64, bfloat16; with in_memory (a buffer's or an Allocate's elements) integers must
 * also be whole bytes or bool. Any other dtype is a NotImplementedError "unsupported dtype" at
 * build time; `tvmc check` reports it before. */
bool tvm_codegen_dtype_supported(DLDataType t, bool in_memory);

/* Allocate: TVM_CODEGEN_MAX_STACK_ALLOC is the stack budget of one function (the body, or a
 * parallel task) for all its Allocates. A constant size that fits what is left is a stack slot of
 * the function; any other size is computed at run time and goes on the stack (released per
 * iteration) up to TVM_CODEGEN_MAX_DYN_STACK_ALLOC bytes while the budget has them, else to
 * TVMFFIEnvTensorAlloc. */
#define TVM_CODEGEN_MAX_STACK_ALLOC (1 << 20)
#define TVM_CODEGEN_MAX_DYN_STACK_ALLOC (16 << 10)

/* Loop unrolling policy (libcodegen/README.md, "Loop metadata"): a For loop whose body holds
 * vector values of at least TVM_CODEGEN_UNROLL_VECTOR_BITS bits and whose constant extent times
 * its body size (TIR operations, nested constant extents multiplied in) exceeds
 * TVM_CODEGEN_UNROLL_BUDGET gets llvm.loop.unroll.count = the largest power of two c with
 * c * body size <= the budget (llvm.loop.unroll.disable when c = 1) instead of LLVM's full
 * unrolling. Other loops keep LLVM's default; every For loop is llvm.loop.mustprogress. */
#define TVM_CODEGEN_UNROLL_VECTOR_BITS 128
#define TVM_CODEGEN_UNROLL_BUDGET 128

/* tvm_codegen_options.exec_mode (upstream relax.build's exec_mode). */
typedef enum {
  TVM_CODEGEN_EXEC_BYTECODE = 0, /* "bytecode": VM instructions, interpreted */
  TVM_CODEGEN_EXEC_COMPILED = 1  /* "compiled": each Relax function a native `__vmtir__<name>` */
} tvm_codegen_exec_mode;

typedef struct {
  int opt_level;  /* 0..3: the LLVM pipeline default<On>; default 3 */
  bool fast_math; /* fast-math flags on float operations; default off */
  /* Allow fusing a float multiply and add into an FMA (LLVM's `contract` flag alone, like
   * gcc's -ffp-contract=fast); results may differ from separate roundings in the last bit.
   * Default on. */
  bool fp_contract;
  bool host_cpu;  /* use the host CPU name and features (AVX2, FMA, ...); default on */
  /* The Relax build (tvm_codegen_relax_build / _export) applies libtir's default CPU schedule
   * (tvm/tir/schedule.h, sized by tvm_codegen_schedule_target) to every kernel not marked
   * scheduled before lowering it. Default on; `tvmc build --no-schedule` turns it off. */
  bool schedule;
  /* The Relax build calls this after each pass of its pipeline with the pass's name and result
   * (tvm_relax_pass_observer's contract: 0 goes on, -1 with an error stops the build); NULL =
   * none (the default). `tvmc build --dump-ir` uses it. */
  int (*relax_after_pass)(void* ctx, const char* pass, const tvm_tir_ir_module_obj* result);
  void* relax_after_pass_ctx;
  /* How the Relax build runs Relax functions (tvm/codegen/relax_build.h): bytecode for libvm's
   * interpreter (the default, 0) or compiled to native code (`tvmc build --exec-mode
   * compiled`). */
  tvm_codegen_exec_mode exec_mode;
  /* The Relax build's target (tvm_codegen_relax_build / _export; tvm/codegen/target.h): NULL or
   * "llvm" (the default) compiles the kernels for the CPU; "cuda" / "cuda -arch=sm_XY" gives
   * them the default GPU schedule (tvm_tir_schedule_gpu) and compiles them for CUDA, the
   * model's tensors then live on the CUDA device the VM is created with. "llvm -mcpu=..." is a
   * ValueError: the Relax build's CPU is the host's or TVM_CODEGEN_CPU's. */
  const char* target;
} tvm_codegen_options;

tvm_codegen_options tvm_codegen_options_default(void);

/*
 * The default schedule's target facts for the CPU the options compile for: vector_bits 512
 * with AVX-512 (avx512f), 256 with AVX, else 128 (the host's LLVM features; with
 * TVM_CODEGEN_CPU set, the named CPU's ISA; host_cpu off: generic x86-64, 128), tile_rows 8
 * with AVX-512's 32 registers (else 4), the other fields tvm_tir_schedule_target_default()'s.
 * options NULL = the defaults.
 */
void tvm_codegen_schedule_target(const tvm_codegen_options* options, tvm_tir_schedule_target* out);

/*
 * Compile mod_or_func (borrowed) for target (NULL = "llvm"; the forms of tvm/codegen/target.h)
 * and load it in-process (ORC LLJIT). Returns a new ffi.Module (kind "llvm_jit") whose
 * get_function("<global_symbol>") gives ordinary FFI Functions; the module owns the JIT and the
 * code. NULL + error on failure. options NULL = the defaults.
 *
 * For a CUDA target ("cuda", "cuda -arch=sm_90"): the GPU lowering passes of libtir run first
 * (tvm/tir/transform.h, TVM_TIR_GPU_PASSES); the device kernels become PTX (LLVM's NVPTX
 * backend) held by a module of kind "cuda" (libvm's, which needs the CUDA driver: without one
 * this fails with "no CUDA driver"), imported by the returned module, whose functions are the
 * host functions: the same packed API, each tensor checked to be on a CUDA device (all on the
 * same one), then the kernels launched there on the stream TVMFFIEnvGetStream gives. A host
 * function that launches no kernel, and a kernel that uses what the GPU code generator lacks
 * (codegen_nvptx.c: libm functions other than the float32 exp/log/sin/cos/tanh family, calls,
 * virtual threads, warp shuffles), are errors at build time.
 */
void* tvm_codegen_build(const void* mod_or_func, const char* target,
                        const tvm_codegen_options* options);

/*
 * Compile mod_or_func and write a shared library to path_so (an object file next to it,
 * "<path_so>.o", is linked with `cc -shared` and removed). The library exports
 * __tvm_ffi_<global_symbol> for each function (and __TVMBackendParallelLaunch when it has
 * parallel loops) and the tvm-ffi ABI version it is built against (TVM_FFI_SYMBOL_ABI_VERSION,
 * checked by libtvmffi's loader), and references only TVMFFI* symbols, libm and call_extern
 * targets; it loads with tvm_ffi_module_load_file / ffi.Module.load_from_file.so. 0, or -1 +
 * error.
 */
int tvm_codegen_export(const void* mod_or_func, const char* path_so,
                       const tvm_codegen_options* options);

/* tvm_codegen_export for a target (NULL = "llvm"). A CUDA target writes the host functions as
 * CPU code and the kernels' PTX in the library's __tvm_ffi__library_bin as a module of kind
 * "cuda" imported by the library's own module: loading the library needs libvm's
 * ffi.Module.load_from_bytes.cuda (tvm_vm_init registers it) and the CUDA driver. 0, or -1 +
 * error. */
int tvm_codegen_export_target(const void* mod_or_func, const char* target, const char* path_so,
                              const tvm_codegen_options* options);

/* The PTX text of the device kernels of mod_or_func (lowered TIR, as for tvm_codegen_build) for
 * a CUDA target (NULL = "cuda"), as an owned string value; no driver needed. 0, or -1 + error. */
int tvm_codegen_emit_ptx(const void* mod_or_func, const char* target,
                         const tvm_codegen_options* options, TVMFFIAny* out);

/* The textual LLVM IR of the compiled (optimised) module, as an owned string value. */
int tvm_codegen_emit_llvm_ir(const void* mod_or_func, const tvm_codegen_options* options,
                             TVMFFIAny* out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_CODEGEN_CODEGEN_H_ */
