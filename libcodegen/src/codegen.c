/*
 * codegen.c: the public API (tvm/codegen/codegen.h): collecting PrimFuncs, building one LLVM
 * module for them, then either loading it in an ORC LLJIT behind an ffi.Module ("llvm_jit"),
 * or writing an object file and linking it into a shared library with `cc -shared`.
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "internal.h"

extern char** environ;

tvm_codegen_options tvm_codegen_options_default(void) {
  tvm_codegen_options o;
  o.opt_level = 3;
  o.fast_math = false;
  o.fp_contract = true;
  o.host_cpu = true;
  o.schedule = true;
  o.relax_after_pass = NULL;
  o.relax_after_pass_ctx = NULL;
  o.exec_mode = TVM_CODEGEN_EXEC_BYTECODE;
  o.target = NULL;
  return o;
}

/* The PrimFuncs to compile and their symbols (borrowed from the input). */
typedef struct {
  int64_t n;
  const tvm_tir_prim_func_obj** funcs;
  const char** names;
} func_list;

static void func_list_free(func_list* l) {
  tvm_ffi_free(l->funcs);
  tvm_ffi_free(l->names);
}

/* Whether f is a device kernel (calling_conv 2, made by split_host_device). */
bool tvm_codegen__is_device_kernel(const void* f) {
  if (tvm_tir_kind_of(f) != TVM_TIR_KIND_PrimFunc) return false;
  const TVMFFIAny* cc = tvm_ffi_map_get_str(((const tvm_tir_prim_func_obj*)f)->func.attrs, "calling_conv");
  return cc && cc->type_index == kTVMFFIInt && cc->v_int64 == 2;
}

bool tvm_codegen__is_host_func(const void* f) {
  if (tvm_tir_kind_of(f) != TVM_TIR_KIND_PrimFunc) return false;
  const TVMFFIAny* a =
      tvm_ffi_map_get_str(((const tvm_tir_prim_func_obj*)f)->func.attrs, TVM_TIR_ATTR_IS_HOST_FUNC);
  return a && (a->type_index == kTVMFFIBool || a->type_index == kTVMFFIInt) && a->v_int64 != 0;
}

/* The host functions (device kernels are compiled by codegen_nvptx.c, for a GPU target). */
static int collect(const void* mod_or_func, func_list* out, const cg_host* h) {
  memset(out, 0, sizeof(*out));
  tvm_tir_kind k = tvm_tir_kind_of(mod_or_func);
  if (k == TVM_TIR_KIND_PrimFunc) {
    const char* sym = tvm_tir_func_global_symbol(mod_or_func);
    if (!sym) return tvm_ffi_raise("ValueError", "codegen: the PrimFunc has no global_symbol");
    out->funcs = tvm_ffi_malloc(sizeof(void*));
    out->names = tvm_ffi_malloc(sizeof(char*));
    if (!out->funcs || !out->names) return func_list_free(out), -1;
    out->funcs[0] = mod_or_func;
    out->names[0] = sym;
    out->n = 1;
    return 0;
  }
  if (k != TVM_TIR_KIND_IRModule)
    return tvm_ffi_raise("TypeError", "codegen: expected a tir.PrimFunc or an ir.IRModule");
  const tvm_tir_ir_module_obj* m = mod_or_func;
  int64_t cap = tvm_ffi_map_size(m->functions);
  out->funcs = tvm_ffi_malloc(sizeof(void*) * (size_t)(cap + 1));
  out->names = tvm_ffi_malloc(sizeof(char*) * (size_t)(cap + 1));
  if (!out->funcs || !out->names) return func_list_free(out), -1;
  const TVMFFIAny *key, *val;
  for (int64_t pos = tvm_ffi_map_next(m->functions, 0, &key, &val); pos >= 0;
       pos = tvm_ffi_map_next(m->functions, pos, &key, &val)) {
    if (tvm_tir_kind_of(val->v_obj) != TVM_TIR_KIND_PrimFunc) continue;
    if (h->device_type != kDLCPU && tvm_codegen__is_device_kernel(val->v_obj)) continue;
    const char* sym = tvm_tir_func_global_symbol(val->v_obj);
    if (!sym) sym = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)key->v_obj)->name_hint);
    out->funcs[out->n] = (const tvm_tir_prim_func_obj*)val->v_obj;
    out->names[out->n] = sym;
    out->n++;
  }
  return 0;
}

/* Generate (unoptimised) IR for every function into mod. */
static int generate(const void* mod_or_func, const func_list* l, LLVMContextRef ctx,
                    LLVMModuleRef mod, const tvm_codegen_options* o, const cg_host* h) {
  cg_state s;
  tvm_codegen__init(&s, ctx, mod, o);
  s.unit = mod_or_func; /* where calls through GlobalVars find their callee */
  s.device_type = h->device_type;
  if (h->cpu) s.f16c = false; /* another CPU than the host's: no F16C assumed */
  int rc = 0;
  for (int64_t i = 0; i < l->n && rc == 0; ++i) {
    /* host functions of a GPU build (the Relax build's shape functions) take CPU tensors */
    s.device_type = tvm_codegen__is_host_func(l->funcs[i]) ? kDLCPU : h->device_type;
    rc = tvm_codegen__function(&s, l->funcs[i], l->names[i]);
  }
  if (rc != 0 && !tvm_ffi_error_pending()) tvm_ffi_raise("RuntimeError", "codegen failed");
  tvm_codegen__free(&s);
  return rc;
}

/* ---- The JIT module ----------------------------------------------------------------------- */
typedef struct {
  tvm_ffi_module_obj base;
  cg_jit* jit;
  int64_t n;
  char** names;
} jit_module;

static void jit_destroy(void* mod) {
  jit_module* m = mod;
  tvm_codegen__jit_dispose(m->jit);
  for (int64_t i = 0; i < m->n; ++i) tvm_ffi_free(m->names[i]);
  tvm_ffi_free(m->names);
}

static void release_module(void* self) { tvm_ffi_release(self); }

static int jit_get_function(void* mod, const char* name, void** out) {
  jit_module* m = mod;
  *out = NULL;
  bool found = false;
  for (int64_t i = 0; i < m->n && !found; ++i) found = strcmp(m->names[i], name) == 0;
  if (!found) return 0;
  char sym[512];
  snprintf(sym, sizeof(sym), "__tvm_ffi_%s", name);
  void* addr = tvm_codegen__jit_lookup(m->jit, sym);
  if (!addr) return -1;
  /* The Function holds the module (hence the JIT and its code) alive; the generated code
   * ignores its handle argument. */
  tvm_ffi_retain(mod);
  TVMFFISafeCallType fn;
  memcpy(&fn, &addr, sizeof(fn));
  *out = tvm_ffi_function_new(mod, fn, release_module);
  if (!*out) {
    tvm_ffi_release(mod);
    return -1;
  }
  return 0;
}

static int jit_list_functions(void* mod, void* list) {
  jit_module* m = mod;
  for (int64_t i = 0; i < m->n; ++i) {
    TVMFFIAny s = tvm_ffi_string(m->names[i]);
    if (tvm_ffi_list_push_take(list, &s) != 0) return -1;
  }
  return 0;
}

static const tvm_ffi_module_vtable g_jit_vtable = {
    .kind = "llvm_jit",
    .property_mask = TVM_FFI_MODULE_RUNNABLE,
    .get_function = jit_get_function,
    .list_functions = jit_list_functions,
    .destroy = jit_destroy,
};

void* tvm_codegen_build(const void* mod_or_func, const char* target,
                        const tvm_codegen_options* options) {
  tvm_codegen_options o = options ? *options : tvm_codegen_options_default();
  tvm_codegen_target t;
  if (tvm_codegen_target_parse(target, &t) != 0) return NULL;
  /* A stale error the caller left raised is set aside: lowering reads a raised error as its
   * own failure (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  void* lib;
  if (t.kind == TVM_CODEGEN_TARGET_CUDA) {
    lib = tvm_codegen__cuda_build(mod_or_func, &t, &o);
  } else {
    cg_host h = {.cpu = t.mcpu[0] ? t.mcpu : NULL, .device_type = kDLCPU};
    lib = tvm_codegen__jit_build(mod_or_func, &o, &h);
  }
  tvm_ffi_error_give_back(stale);
  return lib;
}

void* tvm_codegen__jit_build(const void* mod_or_func, const tvm_codegen_options* options,
                             const cg_host* h) {
  tvm_codegen_options o = *options;
  if (tvm_codegen__llvm_init() != 0) return NULL;
  func_list l;
  if (collect(mod_or_func, &l, h) != 0) return NULL;
  LLVMContextRef ctx;
  void* tsctx = tvm_codegen__tsctx_new(&ctx);
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("tvm_codegen", ctx);
  LLVMTargetMachineRef tm = NULL;
  jit_module* m = NULL;
  cg_jit* jit = NULL;
  if (generate(mod_or_func, &l, ctx, mod, &o, h) != 0) goto fail;
  tm = tvm_codegen__target_machine(&o, true, h->cpu);
  if (!tm || tvm_codegen__optimize(mod, tm, &o) != 0) goto fail;
  jit = tvm_codegen__jit_create(tm); /* takes tm */
  tm = NULL;
  if (!jit) goto fail;
  bool parallel = LLVMGetNamedGlobal(mod, CG_PARALLEL_LAUNCH_SYMBOL) != NULL;
  bool has_ctx = LLVMGetNamedGlobal(mod, TVM_CODEGEN_SYMBOL_LIBRARY_CTX) != NULL;
  LLVMModuleRef taken = mod;
  mod = NULL;
  if (tvm_codegen__jit_add_module(jit, taken, tsctx) != 0) goto fail;
  if (parallel) {
    /* What the loader does for a library: fill the launch variable with libtvmffi's
     * TVMBackendParallelLaunch (NULL, hence serial loops, if the runtime has none). */
    void** var = tvm_codegen__jit_lookup(jit, CG_PARALLEL_LAUNCH_SYMBOL);
    if (!var) goto fail;
    *var = tvm_ffi_env_capi_lookup(CG_PARALLEL_LAUNCH_CAPI);
  }
  m = tvm_ffi_module_new(&g_jit_vtable, sizeof(jit_module));
  if (!m) goto fail;
  if (h->import && tvm_ffi_module_import(m, h->import) != 0) goto fail;
  if (has_ctx) {
    /* What the loader does for a library: its context variable is its module, from which
     * the launches look their kernels up (TVMFFIEnvModLookupFromImports). */
    void** var = tvm_codegen__jit_lookup(jit, TVM_CODEGEN_SYMBOL_LIBRARY_CTX);
    if (!var) goto fail;
    *var = m;
  }
  m->names = tvm_ffi_calloc((size_t)l.n + 1, sizeof(char*));
  if (!m->names) goto fail;
  m->jit = jit;
  jit = NULL;
  for (int64_t i = 0; i < l.n; ++i) {
    m->names[i] = tvm_ffi_strndup(l.names[i], strlen(l.names[i]));
    if (!m->names[i]) goto fail;
    m->n = i + 1;
  }
  tvm_codegen__tsctx_dispose(tsctx);
  func_list_free(&l);
  return m;
fail:
  tvm_ffi_release(m);
  tvm_codegen__jit_dispose(jit);
  if (tm) LLVMDisposeTargetMachine(tm);
  if (mod) LLVMDisposeModule(mod);
  tvm_codegen__tsctx_dispose(tsctx);
  func_list_free(&l);
  return NULL;
}

/* Build an optimised module in a fresh context (for export and IR dumps). */
static int build_standalone(const void* mod_or_func, const tvm_codegen_options* o,
                            const cg_host* h, LLVMContextRef* out_ctx, LLVMModuleRef* out_mod,
                            LLVMTargetMachineRef* out_tm) {
  if (tvm_codegen__llvm_init() != 0) return -1;
  func_list l;
  if (collect(mod_or_func, &l, h) != 0) return -1;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef mod = LLVMModuleCreateWithNameInContext("tvm_codegen", ctx);
  LLVMTargetMachineRef tm = NULL;
  int rc = generate(mod_or_func, &l, ctx, mod, o, h);
  func_list_free(&l);
  if (rc == 0) tm = tvm_codegen__target_machine(o, false, h->cpu);
  if (rc == 0 && (!tm || tvm_codegen__optimize(mod, tm, o) != 0)) rc = -1;
  if (rc != 0) {
    if (tm) LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(mod);
    LLVMContextDispose(ctx);
    return -1;
  }
  *out_ctx = ctx;
  *out_mod = mod;
  *out_tm = tm;
  return 0;
}

static void dispose_standalone(LLVMContextRef ctx, LLVMModuleRef mod, LLVMTargetMachineRef tm) {
  LLVMDisposeTargetMachine(tm);
  LLVMDisposeModule(mod);
  LLVMContextDispose(ctx);
}

int tvm_codegen_emit_llvm_ir(const void* mod_or_func, const tvm_codegen_options* options,
                             TVMFFIAny* out) {
  tvm_codegen_options o = options ? *options : tvm_codegen_options_default();
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  cg_host h = {.device_type = kDLCPU};
  if (build_standalone(mod_or_func, &o, &h, &ctx, &mod, &tm) != 0) return -1;
  char* text = LLVMPrintModuleToString(mod);
  *out = tvm_ffi_string(text);
  LLVMDisposeMessage(text);
  dispose_standalone(ctx, mod, tm);
  return out->type_index == kTVMFFINone ? -1 : 0;
}

/* Run `cc -shared -o so obj` (no shell); 0 or -1 + RuntimeError. */
static int link_shared(const char* so, const char* obj) {
  const char* cc = getenv("CC");
  if (!cc || !*cc) cc = "cc";
  char* argv[] = {(char*)cc, "-shared", "-o", (char*)so, (char*)obj, NULL};
  pid_t pid;
  int rc = posix_spawnp(&pid, cc, NULL, NULL, argv, environ);
  if (rc != 0) return tvm_ffi_raise("RuntimeError", "codegen: cannot run %s: %s", cc, strerror(rc));
  int status = 0;
  while (waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR)
      return tvm_ffi_raise("RuntimeError", "codegen: waitpid: %s", strerror(errno));
  }
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return tvm_ffi_raise("RuntimeError", "codegen: `%s -shared -o %s %s` failed (status %d)", cc,
                         so, obj, status);
  return 0;
}

/* The library's record of the tvm-ffi ABI it is built against (TVM_FFI_SYMBOL_ABI_VERSION:
 * major, minor, patch as uint32), which libtvmffi's loader checks; upstream's ignores it. */
static void add_abi_version_record(LLVMModuleRef mod) {
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(mod));
  LLVMValueRef v[3] = {LLVMConstInt(i32, TVM_FFI_VERSION_MAJOR, 0),
                       LLVMConstInt(i32, TVM_FFI_VERSION_MINOR, 0),
                       LLVMConstInt(i32, TVM_FFI_VERSION_PATCH, 0)};
  LLVMValueRef g = LLVMAddGlobal(mod, LLVMArrayType2(i32, 3), TVM_FFI_SYMBOL_ABI_VERSION);
  LLVMSetInitializer(g, LLVMConstArray2(i32, v, 3));
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 4);
}

/* The library's __tvm_ffi__library_bin: the bytes as one constant exported array (its ELF
 * symbol size bounds what libtvmffi's loader reads). */
static void add_library_bin(LLVMModuleRef mod, const void* bin, size_t size) {
  LLVMContextRef ctx = LLVMGetModuleContext(mod);
  LLVMValueRef init = LLVMConstStringInContext2(ctx, bin, size, 1);
  LLVMValueRef g = LLVMAddGlobal(mod, LLVMTypeOf(init), TVM_CODEGEN_SYMBOL_LIBRARY_BIN);
  LLVMSetInitializer(g, init);
  LLVMSetGlobalConstant(g, 1);
  LLVMSetAlignment(g, 8);
}

int tvm_codegen__export_library(const void* mod_or_func, const char* path_so,
                                const tvm_codegen_options* options, const void* bin,
                                size_t bin_size) {
  cg_host h = {.device_type = kDLCPU};
  return tvm_codegen__export_host(mod_or_func, path_so, options, &h, bin, bin_size);
}

int tvm_codegen__export_host(const void* mod_or_func, const char* path_so,
                             const tvm_codegen_options* options, const cg_host* h,
                             const void* bin, size_t bin_size) {
  tvm_codegen_options o = options ? *options : tvm_codegen_options_default();
  LLVMContextRef ctx;
  LLVMModuleRef mod;
  LLVMTargetMachineRef tm;
  if (!path_so) return tvm_ffi_raise("ValueError", "codegen: export: the path is NULL");
  if (build_standalone(mod_or_func, &o, h, &ctx, &mod, &tm) != 0) return -1;
  add_abi_version_record(mod);
  if (bin) add_library_bin(mod, bin, bin_size);
  size_t n = strlen(path_so);
  char* obj = tvm_ffi_malloc(n + 3);
  int rc = -1;
  if (obj) {
    memcpy(obj, path_so, n);
    memcpy(obj + n, ".o", 3);
    rc = tvm_codegen__emit_object(mod, tm, obj);
    if (rc == 0) rc = link_shared(path_so, obj);
    unlink(obj);
    tvm_ffi_free(obj);
  }
  dispose_standalone(ctx, mod, tm);
  return rc;
}

int tvm_codegen_export(const void* mod_or_func, const char* path_so,
                       const tvm_codegen_options* options) {
  /* A stale error the caller left raised is set aside, as tvm_codegen_build does. */
  void* stale = tvm_ffi_error_take();
  int rc = tvm_codegen__export_library(mod_or_func, path_so, options, NULL, 0);
  tvm_ffi_error_give_back(stale);
  return rc;
}

int tvm_codegen_export_target(const void* mod_or_func, const char* target, const char* path_so,
                              const tvm_codegen_options* options) {
  tvm_codegen_target t;
  if (tvm_codegen_target_parse(target, &t) != 0) return -1;
  tvm_codegen_options o = options ? *options : tvm_codegen_options_default();
  void* stale = tvm_ffi_error_take(); /* set aside, as tvm_codegen_build does */
  int rc;
  if (t.kind == TVM_CODEGEN_TARGET_CUDA) {
    rc = tvm_codegen__cuda_export(mod_or_func, &t, &o, path_so, NULL);
  } else {
    cg_host h = {.cpu = t.mcpu[0] ? t.mcpu : NULL, .device_type = kDLCPU};
    rc = tvm_codegen__export_host(mod_or_func, path_so, &o, &h, NULL, 0);
  }
  tvm_ffi_error_give_back(stale);
  return rc;
}
