/* internal.h: libcodegen's private interface between its files. */
#ifndef TVM_CODEGEN_INTERNAL_H_
#define TVM_CODEGEN_INTERNAL_H_

#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/TargetMachine.h>
#include <tvm/codegen/codegen.h>
#include <tvm/tir/tir.h>

/* One variable binding: a Var node -> its LLVM value (scoped as a stack). */
typedef struct {
  const void* var;
  LLVMValueRef value;
} cg_binding;

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
  /* Parallel loops call tvm_ffi_parallel_launch (JIT only: exported code references TVMFFI*
   * symbols alone, so there they run serially). */
  bool parallel;
  int nclosures;
} cg_state;

/* codegen_llvm.c */
void cg_init(cg_state* s, LLVMContextRef ctx, LLVMModuleRef mod, const tvm_codegen_options* o);
void cg_free(cg_state* s);
int cg_bind(cg_state* s, const void* var, LLVMValueRef v);
LLVMValueRef cg_lookup(cg_state* s, const void* var);
LLVMTypeRef cg_type(cg_state* s, DLDataType t);     /* register type (bool = i1) */
LLVMTypeRef cg_mem_type(cg_state* s, DLDataType t); /* in-memory element type (bool = i8) */
LLVMValueRef cg_expr(cg_state* s, const void* e);
int cg_stmt(cg_state* s, const void* st);
int cg_fail(cg_state* s, const char* kind, const char* fmt, ...) TVM_FFI_PRINTF(3, 4);
LLVMValueRef cg_cstr(cg_state* s, const char* text);
/* Emit: raise(kind, parts...) and `ret i32 -1`; the builder continues in a fresh block. */
void cg_emit_raise(cg_state* s, const char* kind, LLVMValueRef* parts, int n);
/* Emit a branch on cond: if false, raise and return -1; continues on the true path. */
void cg_emit_check(cg_state* s, LLVMValueRef cond, const char* kind, LLVMValueRef* parts, int n);
LLVMValueRef cg_fmt_i64(cg_state* s, LLVMValueRef v);
/* Generate the whole exported function of a lowered PrimFunc (codegen_llvm_entry.c). */
int cg_function(cg_state* s, const tvm_tir_prim_func_obj* f, const char* symbol);

/* codegen_llvm_compat.c: everything LLVM-version specific. */
int cg_llvm_init(void);
LLVMTargetMachineRef cg_target_machine(const tvm_codegen_options* o, bool jit);
int cg_optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, const tvm_codegen_options* o);
int cg_emit_object(LLVMModuleRef mod, LLVMTargetMachineRef tm, const char* path);
/* JIT: takes the module and its context (thread-safe context) and the TM; *out_jit handle. */
typedef struct cg_jit cg_jit;
cg_jit* cg_jit_create(LLVMTargetMachineRef tm_taken);
int cg_jit_add_module(cg_jit* j, LLVMModuleRef mod_taken, void* tsctx);
void* cg_jit_lookup(cg_jit* j, const char* name);
void cg_jit_dispose(cg_jit* j);
void* cg_tsctx_new(LLVMContextRef* out_ctx);
void cg_tsctx_dispose(void* tsctx);
int cg_llvm_error(LLVMErrorRef err, const char* what);
/* Attach a self-referential llvm.loop node to a loop's latch branch: llvm.loop.mustprogress
 * when must_progress, and unroll_count 0 = no unroll hint, 1 = llvm.loop.unroll.disable,
 * n > 1 = llvm.loop.unroll.count n. */
void cg_loop_metadata(cg_state* s, LLVMValueRef latch_br, bool must_progress,
                      unsigned unroll_count);

#endif
