/*
 * codegen_llvm_compat.c: every LLVM call that depends on the LLVM version (target setup, the
 * new pass manager through LLVMRunPasses, object emission, ORC LLJIT). Written against LLVM 19;
 * porting to another version should touch only this file.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/LLJIT.h>
#include <llvm-c/Orc.h>
#include <llvm-c/Target.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static pthread_once_t g_init_once = PTHREAD_ONCE_INIT;
static int g_init_rc;

static void llvm_init_once(void) {
  if (LLVMInitializeNativeTarget() || LLVMInitializeNativeAsmPrinter()) g_init_rc = -1;
}

int tvm_codegen__llvm_init(void) {
  pthread_once(&g_init_once, llvm_init_once);
  if (g_init_rc != 0) return tvm_ffi_raise("RuntimeError", "codegen: LLVM has no native target");
  return 0;
}

bool tvm_codegen__host_has_feature(const char* feature) {
  char* features = LLVMGetHostCPUFeatures(); /* "+sse2,-avx512f,+f16c,..." */
  bool found = false;
  size_t n = strlen(feature);
  for (const char* p = features; p && *p && !found;) {
    const char* end = strchr(p, ',');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    found = len == n + 1 && p[0] == '+' && strncmp(p + 1, feature, n) == 0;
    p = end ? end + 1 : p + len;
  }
  if (features) LLVMDisposeMessage(features);
  return found;
}

int tvm_codegen__llvm_error(LLVMErrorRef err, const char* what) {
  char* msg = LLVMGetErrorMessage(err); /* consumes err */
  tvm_ffi_raise("RuntimeError", "codegen: %s: %s", what, msg ? msg : "?");
  LLVMDisposeErrorMessage(msg);
  return -1;
}

/* With host_cpu, the environment variable TVM_CODEGEN_CPU (an LLVM CPU name such as
 * "haswell") replaces the host CPU and its features by that CPU's: code for a smaller machine
 * (an AVX2-only one) can be built and timed on a larger one. */
LLVMTargetMachineRef tvm_codegen__target_machine(const tvm_codegen_options* o, bool jit,
                                                 const char* cpu_name) {
  char* triple = LLVMGetDefaultTargetTriple();
  const char* cpu_env = cpu_name ? cpu_name : o->host_cpu ? getenv("TVM_CODEGEN_CPU") : NULL;
  bool named_cpu = cpu_env && cpu_env[0];
  char* cpu = named_cpu ? LLVMCreateMessage(cpu_env) : o->host_cpu ? LLVMGetHostCPUName() : NULL;
  char* features = o->host_cpu && !named_cpu ? LLVMGetHostCPUFeatures() : NULL;
  LLVMTargetRef target = NULL;
  char* err = NULL;
  LLVMTargetMachineRef tm = NULL;
  if (LLVMGetTargetFromTriple(triple, &target, &err) != 0) {
    tvm_ffi_raise("RuntimeError", "codegen: no LLVM target for %s: %s", triple, err ? err : "");
  } else {
    LLVMCodeGenOptLevel lvl = o->opt_level >= 3   ? LLVMCodeGenLevelAggressive
                              : o->opt_level == 0 ? LLVMCodeGenLevelNone
                                                  : LLVMCodeGenLevelDefault;
    tm = LLVMCreateTargetMachine(target, triple, cpu ? cpu : "generic", features ? features : "",
                                 lvl, LLVMRelocPIC,
                                 jit ? LLVMCodeModelJITDefault : LLVMCodeModelDefault);
    if (!tm)
      tvm_ffi_raise("RuntimeError", "codegen: cannot create a target machine for %s", triple);
  }
  if (err) LLVMDisposeMessage(err);
  LLVMDisposeMessage(triple);
  if (cpu) LLVMDisposeMessage(cpu);
  if (features) LLVMDisposeMessage(features);
  return tm;
}

int tvm_codegen__optimize(LLVMModuleRef mod, LLVMTargetMachineRef tm, const tvm_codegen_options* o) {
  char* triple = LLVMGetTargetMachineTriple(tm);
  LLVMSetTarget(mod, triple);
  LLVMDisposeMessage(triple);
  LLVMTargetDataRef td = LLVMCreateTargetDataLayout(tm);
  char* layout = LLVMCopyStringRepOfTargetData(td);
  LLVMSetDataLayout(mod, layout);
  LLVMDisposeMessage(layout);
  LLVMDisposeTargetData(td);
  char* msg = NULL;
  if (LLVMVerifyModule(mod, LLVMReturnStatusAction, &msg)) {
    tvm_ffi_raise("InternalError", "codegen: generated LLVM IR is invalid: %s", msg ? msg : "");
    LLVMDisposeMessage(msg);
    return -1;
  }
  if (msg) LLVMDisposeMessage(msg);
  char pipeline[32];
  int lvl = o->opt_level < 0 ? 0 : o->opt_level > 3 ? 3 : o->opt_level;
  snprintf(pipeline, sizeof(pipeline), "default<O%d>", lvl);
  LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
  LLVMPassBuilderOptionsSetLoopVectorization(po, lvl >= 2);
  LLVMPassBuilderOptionsSetSLPVectorization(po, lvl >= 2);
  LLVMPassBuilderOptionsSetLoopUnrolling(po, lvl >= 2);
  LLVMErrorRef err = LLVMRunPasses(mod, pipeline, tm, po);
  LLVMDisposePassBuilderOptions(po);
  if (err) return tvm_codegen__llvm_error(err, "optimisation");
  return 0;
}

int tvm_codegen__emit_object(LLVMModuleRef mod, LLVMTargetMachineRef tm, const char* path) {
  char* err = NULL;
  if (LLVMTargetMachineEmitToFile(tm, mod, (char*)path, LLVMObjectFile, &err) != 0) {
    tvm_ffi_raise("RuntimeError", "codegen: cannot write %s: %s", path, err ? err : "");
    if (err) LLVMDisposeMessage(err);
    return -1;
  }
  if (err) LLVMDisposeMessage(err);
  return 0;
}

/* A pointer to a private constant C string (LLVM 20 renames this builder call). */
LLVMValueRef tvm_codegen__cstr(cg_state* s, const char* text) {
  return LLVMBuildGlobalStringPtr(s->b, text, ".str");
}

/* A pointer to a private constant holding the n bytes at data (NULs included) and a final NUL:
 * a StringImm's whole value, which LLVMBuildGlobalStringPtr would cut at its first NUL. */
LLVMValueRef tvm_codegen__bytes(cg_state* s, const char* data, size_t n) {
  LLVMValueRef init = LLVMConstStringInContext2(s->ctx, data, n, 0);
  LLVMValueRef g = LLVMAddGlobal(s->mod, LLVMTypeOf(init), ".str");
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetLinkage(g, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(g, LLVMGlobalUnnamedAddr);
  LLVMSetAlignment(g, 1);
  return g;
}

/* Loop metadata: !{!self, !{"llvm.loop.mustprogress"}, !{"llvm.loop.unroll.count", i32 n}}, the
 * self reference made through a temporary node (LLVMMetadataReplaceAllUsesWith deletes it). */
static LLVMMetadataRef md_flag(LLVMContextRef ctx, const char* name, LLVMMetadataRef value) {
  LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(ctx, name, strlen(name)), value};
  return LLVMMDNodeInContext2(ctx, ops, value ? 2 : 1);
}

void tvm_codegen__loop_metadata(cg_state* s, LLVMValueRef latch_br, bool must_progress,
                      unsigned unroll_count) {
  if (!must_progress && unroll_count == 0) return;
  LLVMMetadataRef ops[3];
  size_t n = 0;
  LLVMMetadataRef self = LLVMTemporaryMDNode(s->ctx, NULL, 0);
  ops[n++] = self;
  if (must_progress) ops[n++] = md_flag(s->ctx, "llvm.loop.mustprogress", NULL);
  if (unroll_count == 1)
    ops[n++] = md_flag(s->ctx, "llvm.loop.unroll.disable", NULL);
  else if (unroll_count > 1)
    ops[n++] = md_flag(s->ctx, "llvm.loop.unroll.count",
                       LLVMValueAsMetadata(LLVMConstInt(s->i32, unroll_count, 0)));
  LLVMMetadataRef loop = LLVMMDNodeInContext2(s->ctx, ops, n);
  LLVMMetadataReplaceAllUsesWith(self, loop);
  unsigned kind = LLVMGetMDKindIDInContext(s->ctx, "llvm.loop", 9);
  LLVMSetMetadata(latch_br, kind, LLVMMetadataAsValue(s->ctx, loop));
}

/* ---- ORC LLJIT ---------------------------------------------------------------------------- */
struct cg_jit {
  LLVMOrcLLJITRef jit;
};

void* tvm_codegen__tsctx_new(LLVMContextRef* out_ctx) {
  LLVMOrcThreadSafeContextRef t = LLVMOrcCreateNewThreadSafeContext();
  *out_ctx = LLVMOrcThreadSafeContextGetContext(t);
  return t;
}
void tvm_codegen__tsctx_dispose(void* tsctx) {
  if (tsctx) LLVMOrcDisposeThreadSafeContext(tsctx);
}

/* The ABI functions generated code may call, defined as absolute symbols so that the JIT does
 * not depend on the host executable exporting them. */
static const struct {
  const char* name;
  void* addr;
} g_abi_symbols[] = {
    {"TVMFFIErrorSetRaisedFromCStrParts", (void*)TVMFFIErrorSetRaisedFromCStrParts},
    {"TVMFFIErrorSetRaisedFromCStr", (void*)TVMFFIErrorSetRaisedFromCStr},
    {"TVMFFIEnvGetStream", (void*)TVMFFIEnvGetStream},
    {"TVMFFIEnvTensorAlloc", (void*)TVMFFIEnvTensorAlloc},
    {"TVMFFIObjectDecRef", (void*)TVMFFIObjectDecRef},
    {"TVMFFIEnvModLookupFromImports", (void*)TVMFFIEnvModLookupFromImports},
    {"TVMFFIFunctionCall", (void*)TVMFFIFunctionCall},
    /* What the Relax VM's compiled functions call (libvm vmtir_abi.c, relax_vm_tir.c). */
    {"tvm_vm_tir_call", (void*)tvm_vm_tir_call},
    {"tvm_vm_tir_cond", (void*)tvm_vm_tir_cond},
    {"tvm_vm_tir_ret", (void*)tvm_vm_tir_ret},
    {"tvm_vm_tir_instrumented", (void*)tvm_vm_tir_instrumented},
    {"tvm_vm_tir_result", (void*)tvm_vm_tir_result},
};

cg_jit* tvm_codegen__jit_create(LLVMTargetMachineRef tm_taken) {
  cg_jit* j = tvm_ffi_calloc(1, sizeof(cg_jit));
  if (!j) {
    LLVMDisposeTargetMachine(tm_taken);
    return NULL;
  }
  LLVMOrcLLJITBuilderRef builder = LLVMOrcCreateLLJITBuilder();
  LLVMOrcLLJITBuilderSetJITTargetMachineBuilder(
      builder, LLVMOrcJITTargetMachineBuilderCreateFromTargetMachine(tm_taken));
  LLVMErrorRef err = LLVMOrcCreateLLJIT(&j->jit, builder);
  if (err) {
    tvm_codegen__llvm_error(err, "creating the JIT");
    tvm_ffi_free(j);
    return NULL;
  }
  LLVMOrcJITDylibRef jd = LLVMOrcLLJITGetMainJITDylib(j->jit);
  enum { N = sizeof(g_abi_symbols) / sizeof(g_abi_symbols[0]) };
  LLVMOrcCSymbolMapPair pairs[N];
  for (int i = 0; i < N; ++i) {
    pairs[i].Name = LLVMOrcLLJITMangleAndIntern(j->jit, g_abi_symbols[i].name);
    pairs[i].Sym.Address = (LLVMOrcExecutorAddress)(uintptr_t)g_abi_symbols[i].addr;
    pairs[i].Sym.Flags.GenericFlags =
        LLVMJITSymbolGenericFlagsExported | LLVMJITSymbolGenericFlagsCallable;
    pairs[i].Sym.Flags.TargetFlags = 0;
  }
  err = LLVMOrcJITDylibDefine(jd, LLVMOrcAbsoluteSymbols(pairs, N));
  if (err) {
    tvm_codegen__llvm_error(err, "defining the ABI symbols");
    tvm_codegen__jit_dispose(j);
    return NULL;
  }
  /* Everything else (libm: expf, tanhf, ...) resolves from the process. */
  LLVMOrcDefinitionGeneratorRef gen = NULL;
  err = LLVMOrcCreateDynamicLibrarySearchGeneratorForProcess(
      &gen, LLVMOrcLLJITGetGlobalPrefix(j->jit), NULL, NULL);
  if (err) {
    tvm_codegen__llvm_error(err, "searching the process for symbols");
    tvm_codegen__jit_dispose(j);
    return NULL;
  }
  LLVMOrcJITDylibAddGenerator(jd, gen);
  return j;
}

int tvm_codegen__jit_add_module(cg_jit* j, LLVMModuleRef mod_taken, void* tsctx) {
  LLVMOrcThreadSafeModuleRef tsm = LLVMOrcCreateNewThreadSafeModule(mod_taken, tsctx);
  LLVMErrorRef err = LLVMOrcLLJITAddLLVMIRModule(j->jit, LLVMOrcLLJITGetMainJITDylib(j->jit), tsm);
  if (err) return tvm_codegen__llvm_error(err, "adding the module to the JIT");
  return 0;
}

void* tvm_codegen__jit_lookup(cg_jit* j, const char* name) {
  LLVMOrcExecutorAddress addr = 0;
  LLVMErrorRef err = LLVMOrcLLJITLookup(j->jit, &addr, name);
  if (err) {
    tvm_codegen__llvm_error(err, "JIT lookup");
    return NULL;
  }
  return (void*)(uintptr_t)addr;
}

void tvm_codegen__jit_dispose(cg_jit* j) {
  if (!j) return;
  if (j->jit) {
    LLVMErrorRef err = LLVMOrcDisposeLLJIT(j->jit);
    if (err) LLVMConsumeError(err);
  }
  tvm_ffi_free(j);
}
