/* internal.h: libcodegen's private interface between its files. */
#ifndef TVM_CODEGEN_INTERNAL_H_
#define TVM_CODEGEN_INTERNAL_H_

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>
#include <pthread.h>
#include <tvm-private/tir.h>
#include <tvm/codegen/codegen.h>
#include <tvm/codegen/target.h>
#include <tvm/tir/tir.h>
#include <tvm/vm/vm.h>
#include <tvm-private/codegen.h>

/* One variable binding: a Var node -> its LLVM value (scoped as a stack). */
typedef struct {
  const void* var;
  LLVMValueRef value;
} cg_binding;

/* The GPU launch of a device kernel (codegen_nvptx.c): per axis (0..2 blockIdx.x/y/z,
 * 3..5 threadIdx.x/y/z) whether it is launched, its distinct extents (the launch extent is
 * their largest, at least 1 for threads) and whether an AttrStmt of it must guard its body
 * (an extent that may be below the launch extent). */
#define CG_MAX_LAUNCH_EXTENTS 16
typedef struct {
  bool used[6];
  int n[6];
  const void* ext[6][CG_MAX_LAUNCH_EXTENTS];
  bool guard[6];
  bool threads;          /* some threadIdx axis is launched */
  const void* dyn_bytes; /* int64 PrimExpr: dynamic shared memory bytes, or NULL */
} cg_launch_info;

/* A heap allocation live at the builder's position (its ffi.Tensor handle value, NULL when
 * the allocation is on the stack) and the stack pointer saved before it (llvm.stacksave), or
 * NULL (a constant-size slot). */
typedef struct {
  LLVMValueRef handle, stack;
} cg_alloc;

/* A loop around the builder's position that break / continue can leave: where each jumps
 * (cont made on first use for a For: its latch) and the allocations live when its body began
 * (live_allocs[nallocs ..) are released, and the stack restored, by a jump). */
typedef struct {
  LLVMBasicBlockRef brk, cont;
  int64_t nallocs;
} cg_loop;

/* The state of generating one module. */
typedef struct {
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMBuilderRef b;
  LLVMValueRef fn;         /* the function being generated */
  LLVMBasicBlockRef entry; /* its entry block (allocas) */
  const char* fname;       /* its global symbol, for messages */
  const tvm_codegen_options* opts;
  cg_binding* binds;
  int64_t nbinds, cap;
  bool failed; /* an error is raised; stop generating */
  LLVMTypeRef i1, i8, i16, i32, i64, ptr, vd;
  LLVMValueRef fn_raise_parts; /* TVMFFIErrorSetRaisedFromCStrParts */
  LLVMValueRef fn_fmt_i64;     /* internal: int64 -> decimal text */
  const tvm_tir_prim_func_obj* func;
  /* What is being compiled (an IRModule or one PrimFunc): calls through GlobalVars resolve
   * their callee in it (codegen_llvm_call.c). */
  const void* unit;
  int nclosures; /* parallel-loop closures generated so far (for unique names) */
  /* Heap allocations live at the builder's position (their ffi.Tensor handle values, NULL when
   * the allocation is on the stack): every return emitted while they are live releases
   * live_allocs[alloc_base .. nallocs) first. alloc_base is where the current function (body
   * or parallel closure) starts: a closure does not release its caller's allocations. */
  cg_alloc* live_allocs;
  int64_t nallocs, alloc_cap, alloc_base;
  /* The loops around the builder's position (innermost last); those below loop_base belong to
   * the caller of the function being generated (a parallel closure). */
  cg_loop* loops;
  int64_t nloops, loops_cap, loop_base;
  /* tir.ret writes its value to the caller's result slot: the body function's last parameter
   * (a TVMFFIAny*), valid while generating ret_fn (not inside a parallel closure). */
  LLVMValueRef ret_slot, ret_fn;
  /* The stack budget of the current function (codegen_llvm_alloc.c): bytes of its constant
   * slots, of the dynamic allocas in scope at the builder's position, and the most of those
   * seen at once. Reset for the body and for each parallel closure. */
  int64_t stack_slots, stack_dyn, stack_dyn_peak;
  /* The target converts float <-> float16 in hardware (F16C: nearest even, subnormals kept,
   * NaNs quiet, the same bits as the integer code of codegen_llvm_float16.c). */
  bool f16c;
  /* Host code: the device type its tensor arguments must have (kDLCPU, kDLCUDA for the host
   * functions of a CUDA build). */
  int device_type;
  /* Device code (codegen_nvptx.c): generating a GPU kernel; its launch; the threadIdx
   * launches around the builder's position; the guarded launches around it. */
  bool gpu;
  const cg_launch_info* launch;
  int gpu_thread_depth, gpu_guards;
  int gpu_sm;            /* the target's compute capability (0: unknown) */
  struct cg_wmma* wmma; /* the tensor-core fragments in scope (codegen_nvptx_wmma.c) */
} cg_state;

/* The data symbol through which a library reaches its own module (the loader fills it). */
#define TVM_CODEGEN_SYMBOL_LIBRARY_CTX "__tvm_ffi__library_ctx"

/* The pointer variable through which generated code launches parallel loops: upstream TVM's
 * context symbol, filled by the loader (TVMFFIEnvModRegisterContextSymbol) and by the JIT. */
#define CG_PARALLEL_LAUNCH_SYMBOL "__TVMBackendParallelLaunch"
/* Where libtvmffi publishes the function the variable is set to (tvm_ffi_env_capi_lookup). */
#define CG_PARALLEL_LAUNCH_CAPI "TVMBackendParallelLaunch"

/* codegen_llvm.c */
void tvm_codegen__init(cg_state* s, LLVMContextRef ctx, LLVMModuleRef mod,
                       const tvm_codegen_options* o);
void tvm_codegen__free(cg_state* s);
int tvm_codegen__bind(cg_state* s, const void* var, LLVMValueRef v);
LLVMValueRef tvm_codegen__lookup(cg_state* s, const void* var);
LLVMTypeRef tvm_codegen__type(cg_state* s, DLDataType t); /* register type (bool = i1) */
LLVMTypeRef tvm_codegen__mem_type(cg_state* s,
                                  DLDataType t); /* in-memory element type (bool = i8) */
LLVMValueRef tvm_codegen__expr(cg_state* s, const void* e);
int tvm_codegen__stmt(cg_state* s, const void* st);
int tvm_codegen__fail(cg_state* s, const char* kind, const char* fmt, ...) TVM_FFI_PRINTF(3, 4)
    TVM_FFI_COLD;
LLVMValueRef tvm_codegen__cstr(cg_state* s, const char* text);
/* A global constant of n bytes followed by a NUL (a string literal with all its bytes). */
LLVMValueRef tvm_codegen__bytes(cg_state* s, const char* data, size_t n);
/* Emit: raise(kind, parts...) and `ret i32 -1`; the builder continues in a fresh block. */
void tvm_codegen__emit_raise(cg_state* s, const char* kind, LLVMValueRef* parts, int n);
/* Emit a branch on cond: if false, raise and return -1; continues on the true path. The parts
 * are computed where they are built: numbers formatted with tvm_codegen__fmt_i64 go through
 * tvm_codegen__check_begin / tvm_codegen__check_end instead, so that they are formatted only on failure. */
void tvm_codegen__emit_check(cg_state* s, LLVMValueRef cond, const char* kind, LLVMValueRef* parts, int n);
/* Branch on cond and continue in the failing block (build the message parts there); returns
 * the passing block for tvm_codegen__check_end, which raises and continues on the passing path. */
LLVMBasicBlockRef tvm_codegen__check_begin(cg_state* s, LLVMValueRef cond);
void tvm_codegen__check_end(cg_state* s, LLVMBasicBlockRef ok, const char* kind, LLVMValueRef* parts, int n);
LLVMValueRef tvm_codegen__fmt_i64(cg_state* s, LLVMValueRef v);
/* Emit TVMFFIObjectDecRef(handle) when handle (an ffi object or NULL) is not NULL. */
void tvm_codegen__emit_release(cg_state* s, LLVMValueRef handle);
/* Emit `ret i32 v` after releasing the live heap allocations of the current function. */
void tvm_codegen__emit_ret(cg_state* s, LLVMValueRef v);
/* llvm.stackrestore(sp) (codegen_llvm_alloc.c). */
void tvm_codegen__stack_restore(cg_state* s, LLVMValueRef sp);
/* An alloca in the current function's entry block (so it is allocated once per call). */
LLVMValueRef tvm_codegen__entry_alloca(cg_state* s, LLVMTypeRef t, const char* name);
LLVMValueRef tvm_codegen__const_i32(cg_state* s, int64_t v);
LLVMValueRef tvm_codegen__const_i64(cg_state* s, int64_t v);

/* codegen_llvm_float16.c: float16 / bfloat16 are i16 in memory and float in registers. */
bool tvm_codegen__is_f16(DLDataType t); /* float16 or bfloat16 (scalar or vector) */
/* float (or vector) -> the i16 bits of dtype t, rounding to nearest even. */
LLVMValueRef tvm_codegen__f16_narrow(cg_state* s, LLVMValueRef f, DLDataType t);
/* double (or vector) -> the i16 bits of dtype t, rounded once. */
LLVMValueRef tvm_codegen__f16_narrow_f64(cg_state* s, LLVMValueRef d, DLDataType t);
/* i16 bits of dtype t (or vector) -> float, exact. */
LLVMValueRef tvm_codegen__f16_widen(cg_state* s, LLVMValueRef h, DLDataType t);
/* A float rounded to the nearest value of t when t is a 16-bit float, else unchanged. */
LLVMValueRef tvm_codegen__f16_round(cg_state* s, LLVMValueRef f, DLDataType t);
/* A value of dtype from converted to dtype to, as a Cast does (codegen_llvm.c). */
LLVMValueRef tvm_codegen__convert(cg_state* s, LLVMValueRef v, DLDataType from, DLDataType to);

/* codegen_llvm_parallel.c: For loops of kind parallel. */
int tvm_codegen__parallel_for(cg_state* s, const tvm_tir_for_obj* n, LLVMValueRef lo, LLVMValueRef ext);
/* The unroll hint of a For loop (codegen_llvm.c, policy in codegen.h). */
unsigned tvm_codegen__unroll_hint(const tvm_tir_for_obj* n);

/* codegen_llvm_alloc.c: the Allocate statement (stack or heap). */
int tvm_codegen__allocate(cg_state* s, const tvm_tir_allocate_obj* n);

/* codegen_llvm_extern.c: tir.call_extern / tir.call_pure_extern of a C function by name. */
LLVMValueRef tvm_codegen__call_extern(cg_state* s, const tvm_tir_call_obj* n);
/* codegen_llvm_call.c: a Call whose op is a GlobalVar (a PrimFunc of the same module). */
LLVMValueRef tvm_codegen__call_global(cg_state* s, const tvm_tir_call_obj* n);
/* Whether `name` is a PrimFunc of the module being compiled; the call_extern of such a helper
 * (its arguments after the name), made as a GlobalVar call. */
bool tvm_codegen__has_module_func(cg_state* s, const char* name);
LLVMValueRef tvm_codegen__call_module_extern(cg_state* s, const tvm_tir_call_obj* n,
                                             const char* name);
/* The packed entry __tvm_ffi_<symbol> of a PrimFunc compiled in this module (declared on first
 * use, defined by tvm_codegen__function). */
LLVMValueRef tvm_codegen__packed_entry(cg_state* s, const char* symbol);
/* A CUDA host function: the device id of its first tensor (an i32), where its kernels are
 * launched, bound under the key &tvm_codegen__device_id_key (so that the body function gets
 * it as a parameter, like the variables); NULL when it has no tensor. */
extern const char tvm_codegen__device_id_key;
LLVMValueRef tvm_codegen__device_id(cg_state* s);
/* Generate the whole exported function of a lowered PrimFunc (codegen_llvm_entry.c). */
int tvm_codegen__function(cg_state* s, const tvm_tir_prim_func_obj* f, const char* symbol);

/* codegen.c: tvm_codegen_export, with `bin` (bin_size bytes, NULL = none) written to the
 * library as its __tvm_ffi__library_bin. */
#define TVM_CODEGEN_SYMBOL_LIBRARY_BIN "__tvm_ffi__library_bin"
int tvm_codegen__export_library(const void* mod_or_func, const char* path_so,
                                const tvm_codegen_options* options, const void* bin,
                                size_t bin_size);

/* codegen.c: how host code is built (CPU code of a target). */
typedef struct {
  const char* cpu;  /* an LLVM CPU name (llvm -mcpu), NULL = the options' choice */
  int device_type;  /* of the tensor arguments: kDLCPU, or kDLCUDA (then device kernels are
                     * skipped: codegen_nvptx.c compiles them) */
  void* import;     /* a module the JIT module imports (its kernels), or NULL */
} cg_host;
bool tvm_codegen__is_device_kernel(const void* f);
/* Whether f is marked TVM_TIR_ATTR_IS_HOST_FUNC: compiled for the CPU (its tensors on the CPU)
 * in a GPU build. */
bool tvm_codegen__is_host_func(const void* f);
void* tvm_codegen__jit_build(const void* mod_or_func, const tvm_codegen_options* o, const cg_host* h);
int tvm_codegen__export_host(const void* mod_or_func, const char* path_so,
                             const tvm_codegen_options* options, const cg_host* h,
                             const void* bin, size_t bin_size);

/* codegen_nvptx.c: device kernels. */
int tvm_codegen__launch_info(const tvm_tir_prim_func_obj* f, cg_launch_info* out);
int tvm_codegen__nvptx_kernel(cg_state* s, const tvm_tir_prim_func_obj* f, const char* symbol,
                              const cg_launch_info* launch);
/* GPU hooks of the statement and expression tables. */
int tvm_codegen__gpu_attr(cg_state* s, const tvm_tir_attr_stmt_obj* n);
int tvm_codegen__gpu_allocate(cg_state* s, const tvm_tir_allocate_obj* n);
/* For a store outside the threadIdx launches: branch to a block run by thread (0, 0, 0) only and
 * return the join block (NULL: no guard needed). */
LLVMBasicBlockRef tvm_codegen__gpu_store_guard(cg_state* s, const tvm_tir_buffer_obj* buf);
/* A call the GPU handles itself (barriers, math, the unsupported ones): true and *out (NULL
 * after a failure); false for the common code. */
bool tvm_codegen__gpu_call(cg_state* s, const tvm_tir_call_obj* n, LLVMValueRef* out);
/* codegen_nvptx_wmma.c: an Allocate of a "wmma.*" scope; the WMMA intrinsics (true when n is one). */
int tvm_codegen__wmma_allocate(cg_state* s, const tvm_tir_allocate_obj* n, const char* scope);
bool tvm_codegen__wmma_call(cg_state* s, const tvm_tir_call_obj* n, LLVMValueRef* out);
/* Whether a tvm_load_matrix_sync / tvm_store_matrix_sync in body addresses memory through var. */
bool tvm_codegen__wmma_uses_memory(const void* body, const void* var);
void tvm_codegen__gpu_trap(cg_state* s);
/* Optimise an NVPTX module and append its PTX text to out. */
int tvm_codegen__nvptx_emit(LLVMModuleRef mod, const tvm_codegen_target* t,
                            const tvm_codegen_options* o, tvm_ffi_strbuf* out);

/* codegen_cuda.c: the CUDA target. */
void* tvm_codegen__cuda_build(const void* mod_or_func, const tvm_codegen_target* t,
                              const tvm_codegen_options* o);
/* root (borrowed, NULL = none): a module (the Relax executable) that imports the library's own
 * module ("_lib", importing the cuda module) and is packed as module 0 of the library_bin. */
int tvm_codegen__cuda_export(const void* mod_or_func, const tvm_codegen_target* t,
                             const tvm_codegen_options* o, const char* path_so, void* root);
/* Host code: the launch of device kernel k (symbol sym) for call n. */
LLVMValueRef tvm_codegen__cuda_launch(cg_state* s, const tvm_tir_call_obj* n,
                                      const tvm_tir_prim_func_obj* k, const char* sym);

/* schedule_target.c: the Relax build's kernels (borrowed) scheduled (options->schedule, the
 * default CPU schedule for the options' CPU) and lowered (tvm_tir_lower): a new reference, or
 * NULL + error. */
void* tvm_codegen__schedule_and_lower(const void* mod, const tvm_codegen_options* options);
/* The threads per block of the default GPU schedule in the Relax build. */
#define TVM_CODEGEN_GPU_THREADS 256
/* options->target parsed (NULL options or target = llvm). 0, or -1 + ValueError. */
int tvm_codegen__relax_target(const tvm_codegen_options* options, tvm_codegen_target* out);
/* Whether the Relax build's kernels (mod, borrowed) hold one that runs on the GPU: a PrimFunc
 * not marked host that takes buffers. A CUDA build of a module without one (its PrimFuncs only
 * shape functions, scalar computations or the compiled VM functions) is compiled for the CPU. */
bool tvm_codegen__has_gpu_kernels(const void* mod);
/* VMCodeGen in options->exec_mode (NULL = bytecode): tvm_codegen_relax_vm_codegen_kernels, with
 * each function compiled to `__vmtir__<name>` (in *out_kernels) in compiled mode. */
tvm_vm_executable* tvm_codegen__relax_vm_codegen_mode(const tvm_tir_ir_module_obj* mod,
                                                      tvm_tir_ir_module_obj** out_kernels,
                                                      const tvm_codegen_options* options);

/* codegen_llvm_compat.c: everything LLVM-version specific. */
int tvm_codegen__llvm_init(void);
/* Whether the host CPU's LLVM features include +<feature> (e.g. "f16c"). */
bool tvm_codegen__host_has_feature(const char* feature);
/* cpu: an LLVM CPU name, NULL for the options' choice (the host's, or TVM_CODEGEN_CPU). */
LLVMTargetMachineRef tvm_codegen__target_machine(const tvm_codegen_options* o, bool jit,
                                                 const char* cpu);
int tvm_codegen__optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, const tvm_codegen_options* o);
int tvm_codegen__emit_object(LLVMModuleRef mod, LLVMTargetMachineRef tm, const char* path);
/* JIT: takes the module and its context (thread-safe context) and the TM; *out_jit handle. */
typedef struct cg_jit cg_jit;
cg_jit* tvm_codegen__jit_create(LLVMTargetMachineRef tm_taken);
int tvm_codegen__jit_add_module(cg_jit* j, LLVMModuleRef mod_taken, void* tsctx);
void* tvm_codegen__jit_lookup(cg_jit* j, const char* name);
void tvm_codegen__jit_dispose(cg_jit* j);
void* tvm_codegen__tsctx_new(LLVMContextRef* out_ctx);
void tvm_codegen__tsctx_dispose(void* tsctx);
int tvm_codegen__llvm_error(LLVMErrorRef err, const char* what);
/* Attach a self-referential llvm.loop node to a loop's latch branch: llvm.loop.mustprogress
 * when must_progress, and unroll_count 0 = no unroll hint, 1 = llvm.loop.unroll.disable,
 * n > 1 = llvm.loop.unroll.count n. */
void tvm_codegen__loop_metadata(cg_state* s, LLVMValueRef latch_br, bool must_progress,
                                unsigned unroll_count);

#endif
