/*
 * codegen_cuda.c: the CUDA target ("cuda", "cuda -arch=sm_XY"; tvm/codegen/target.h).
 *
 * The input is lowered TIR, as for the CPU. Then:
 *   1. libtir's GPU passes (TVM_TIR_GPU_PASSES): thread-bound loops to launches, the barriers
 *      sibling thread loops need, and the host/device split;
 *   2. the device kernels to one NVPTX module, PTX text (codegen_nvptx.c), and the "cuda" module
 *      payload (upstream's CUDAModule layout, read by libvm's cuda_module.c): "ptx", one entry
 *      per kernel (its argument dtypes and launch tags), the PTX;
 *   3. the host functions to CPU code (codegen.c): the packed-API checks of every argument
 *      with device type CUDA (and one device id for all tensors), and each kernel call becomes
 *      a launch: the grid and block extents (the largest extent of each launched axis, computed
 *      from the call's arguments), the dynamic shared memory bytes, then the call of the kernel's
 *      Function, found once through TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx,
 *      "<kernel>") and cached, with the kernel arguments (data pointers, scalars), the launch
 *      values and the device id; a grid with no block launches nothing.
 * tvm_codegen_build JIT-compiles the host code and imports the cuda module (needs a driver:
 * "no CUDA driver" otherwise); tvm_codegen_export_target writes a library whose
 * __tvm_ffi__library_bin is "_lib" importing the cuda module, which libtvmffi's loader turns
 * back into the library module with the cuda module as its import
 * (ffi.Module.load_from_bytes.cuda, registered by libvm).
 *
 * Without -arch the compute capability is CUDA device 0's when a driver is there (one LLVM 19
 * does not know, newer than sm_90, gives sm_90 PTX, which the driver compiles for the device),
 * else sm_75 (the oldest compute capability CUDA 13 compiles for).
 */
#include <stdio.h>
#include <string.h>

#include <tvm-private/vm.h>
#include <tvm/tir/transform.h>
#include <tvm/vm/vm.h>

#include "internal.h"

/* ---- The GPU passes and the arch ------------------------------------------------------------- */
static void* gpu_passes(const void* mod_or_func) {
  static const tvm_tir_pass passes[] = {TVM_TIR_GPU_PASSES};
  void* cur = (void*)mod_or_func;
  tvm_ffi_retain(cur);
  for (size_t k = 0; k < sizeof(passes) / sizeof(passes[0]); ++k) {
    void* next = passes[k].fn(cur);
    tvm_ffi_release(cur);
    if (!next) {
      tvm_ffi_raise_context("CUDA lowering: pass %s", passes[k].name);
      return NULL;
    }
    cur = next;
  }
  /* float64 transcendental functions as arithmetic: no libdevice */
  void* next = tvm_tir_transform_expand_f64_math(cur);
  tvm_ffi_release(cur);
  if (!next) tvm_ffi_raise_context("CUDA lowering: pass expand_f64_math");
  return next;
}

static void resolve_arch(tvm_codegen_target* t) {
  if (t->sm) return;
  int major = 0, minor = 0;
  if (tvm_vm__cuda_compute_capability(0, &major, &minor) == 0 && major >= 3) {
    int sm = major * 10 + minor;
    t->sm = sm > 90 ? 90 : sm;
    if (t->sm >= 90) t->sm = 90;
    else if (t->sm == 88 || t->sm == 89) t->sm = 89;
  } else {
    tvm_ffi_error_clear();
    t->sm = 75;
  }
  snprintf(t->mcpu, sizeof(t->mcpu), "sm_%d", t->sm);
}

/* ---- The device kernels: PTX and the module payload ------------------------------------------- */
static void put_u64(tvm_ffi_strbuf* b, uint64_t v) {
  char x[8];
  for (int i = 0; i < 8; ++i) x[i] = (char)(v >> (8 * i));
  tvm_ffi_strbuf_append(b, x, 8);
}
static void put_str(tvm_ffi_strbuf* b, const char* s, size_t n) {
  put_u64(b, n);
  tvm_ffi_strbuf_append(b, s, n);
}
static void put_cstr(tvm_ffi_strbuf* b, const char* s) { put_str(b, s, strlen(s)); }

/* The launch tags of a kernel, in the order its Function takes the launch values. */
static int launch_tags(const cg_launch_info* li, const char** tags) {
  int n = 0;
  for (int a = 0; a < 6; ++a)
    if (li->used[a]) tags[n++] = tvm_tir__thread_tag_name(a);
  if (li->dyn_bytes) tags[n++] = "tir.use_dyn_shared_memory";
  return n;
}

typedef struct {
  void* mod;                /* the IRModule after the GPU passes */
  tvm_ffi_strbuf ptx;       /* the PTX of its kernels */
  tvm_ffi_strbuf payload;   /* the cuda module's bytes */
  tvm_codegen_target target;
} cuda_unit;

static void unit_free(cuda_unit* u) {
  tvm_ffi_release(u->mod);
  tvm_ffi_strbuf_free(&u->ptx);
  tvm_ffi_strbuf_free(&u->payload);
}

/* A host function must launch what it computes: one that calls no kernel cannot run on
 * device memory (its loops were not bound to GPU threads). */
static int count_kernel_calls(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Call &&
      tvm_tir_kind_of(((const tvm_tir_call_obj*)node)->op) == TVM_TIR_KIND_GlobalVar)
    ++*(int*)v->ctx;
  return TVM_TIR_VISIT_CONTINUE;
}

static int check_host(const char* name, const tvm_tir_prim_func_obj* f) {
  int calls = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = count_kernel_calls;
  v.ctx = &calls;
  int rc = tvm_tir_visit(&v, f->body);
  tvm_tir_visitor_free(&v);
  if (rc != 0 || calls > 0 || tvm_ffi_map_size(f->buffer_map) == 0) return rc;
  return tvm_ffi_raise("ValueError",
                       "codegen: target cuda: function %s launches no GPU kernel: bind its loops "
                       "to GPU threads (T.thread_binding(..., thread=\"blockIdx.x\") and "
                       "\"threadIdx.x\", or T.launch_thread), or build it for llvm",
                       name);
}

static int compile_unit(const void* mod_or_func, const tvm_codegen_target* target,
                        const tvm_codegen_options* o, cuda_unit* u) {
  memset(u, 0, sizeof(*u));
  u->target = *target;
  resolve_arch(&u->target);
  if (tvm_codegen__llvm_init() != 0) return -1;
  u->mod = gpu_passes(mod_or_func);
  if (!u->mod) return -1;
  const tvm_tir_ir_module_obj* m = u->mod;
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef lm = LLVMModuleCreateWithNameInContext("tvm_cuda_kernels", ctx);
  cg_state s;
  tvm_codegen_options dev_o = *o;
  dev_o.host_cpu = false;
  tvm_codegen__init(&s, ctx, lm, &dev_o);
  s.gpu = true;
  s.gpu_sm = u->target.sm;
  s.f16c = true; /* cvt.f32.f16 / cvt.rn.f16.f32 through LLVM's half type */
  s.unit = m;
  tvm_ffi_strbuf fmap = {0};
  int rc = 0, nk = 0;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(m->functions, pos, &k, &v)) >= 0;) {
    const char* name = tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)k->v_obj)->name_hint);
    if (tvm_tir_kind_of(v->v_obj) != TVM_TIR_KIND_PrimFunc) continue;
    const tvm_tir_prim_func_obj* f = (const tvm_tir_prim_func_obj*)v->v_obj;
    const char* sym = tvm_tir_func_global_symbol(f);
    if (!sym) sym = name;
    if (!tvm_codegen__is_device_kernel(f)) {
      if (!tvm_codegen__is_host_func(f)) rc = check_host(sym, f);
      continue;
    }
    cg_launch_info li;
    rc = tvm_codegen__launch_info(f, &li);
    if (rc == 0) rc = tvm_codegen__nvptx_kernel(&s, f, sym, &li);
    if (rc != 0) break;
    nk++;
    put_cstr(&fmap, sym); /* key */
    put_cstr(&fmap, sym); /* FunctionInfo.name */
    put_u64(&fmap, (uint64_t)tvm_tir_array_size(f->params));
    for (int64_t p = 0; p < tvm_tir_array_size(f->params); ++p) {
      DLDataType dt = ((const tvm_tir_var_obj*)tvm_tir_array_at(f->params, p))->expr.dtype;
      if (tvm_tir_dtype_is_bool(dt)) dt = tvm_ffi_dtype(kDLInt, 8, 1);
      if (tvm_codegen__is_f16(dt)) dt = TVM_TIR_FLOAT32; /* a float in registers, passed so */
      put_cstr(&fmap, tvm_tir_dtype_is_handle(dt) ? "handle" : tvm_tir_dtype_str(dt).s);
    }
    const char* tags[8];
    int nt = launch_tags(&li, tags);
    put_u64(&fmap, (uint64_t)nt);
    for (int t = 0; t < nt; ++t) put_cstr(&fmap, tags[t]);
    put_u64(&fmap, 0); /* arg_extra_tags */
  }
  if (rc != 0 && !tvm_ffi_error_pending()) tvm_ffi_raise("RuntimeError", "codegen: CUDA kernels failed");
  tvm_codegen__free(&s);
  if (rc == 0 && nk == 0)
    rc = tvm_ffi_raise("ValueError", "codegen: target cuda: no GPU kernel (no thread launch) to compile");
  if (rc == 0) rc = tvm_codegen__nvptx_emit(lm, &u->target, o, &u->ptx);
  LLVMDisposeModule(lm);
  LLVMContextDispose(ctx);
  if (rc == 0) {
    put_cstr(&u->payload, "ptx");
    put_u64(&u->payload, (uint64_t)nk);
    tvm_ffi_strbuf_append(&u->payload, fmap.data ? fmap.data : "", fmap.size);
    put_str(&u->payload, u->ptx.data ? u->ptx.data : "", u->ptx.size);
    if (u->payload.failed || fmap.failed) rc = tvm_ffi_raise("MemoryError", "codegen: out of memory");
  }
  tvm_ffi_strbuf_free(&fmap);
  return rc;
}

/* ---- Public entry points ---------------------------------------------------------------------- */
void* tvm_codegen__cuda_build(const void* mod_or_func, const tvm_codegen_target* t,
                              const tvm_codegen_options* o) {
  cuda_unit u;
  if (compile_unit(mod_or_func, t, o, &u) != 0) {
    unit_free(&u);
    return NULL;
  }
  void* result = NULL;
  TVMFFIAny bytes = tvm_ffi_bytes_n(u.payload.data, u.payload.size), cmod = tvm_ffi_any_none();
  if (tvm_vm_init() == 0 &&
      tvm_ffi_global_call("ffi.Module.load_from_bytes.cuda", &bytes, 1, &cmod) == 0) {
    cg_host h = {.device_type = kDLCUDA, .import = cmod.v_obj};
    result = tvm_codegen__jit_build(u.mod, o, &h);
  }
  tvm_ffi_any_release(&cmod);
  tvm_ffi_any_release(&bytes);
  unit_free(&u);
  return result;
}

int tvm_codegen_emit_ptx(const void* mod_or_func, const char* target,
                         const tvm_codegen_options* options, TVMFFIAny* out) {
  *out = tvm_ffi_any_none();
  tvm_codegen_target t;
  if (tvm_codegen_target_parse(target ? target : "cuda", &t) != 0) return -1;
  if (t.kind != TVM_CODEGEN_TARGET_CUDA)
    return tvm_ffi_raise("ValueError", "tvm_codegen_emit_ptx: target \"%s\" is not a CUDA target", target);
  tvm_codegen_options o = options ? *options : tvm_codegen_options_default();
  cuda_unit u;
  int rc = compile_unit(mod_or_func, &t, &o, &u);
  if (rc == 0) {
    *out = tvm_ffi_string(tvm_ffi_strbuf_cstr(&u.ptx));
    if (out->type_index == kTVMFFINone) rc = -1;
  }
  unit_free(&u);
  return rc;
}

/* What export packs: a module of kind "cuda" whose bytes are the payload (it runs nothing),
 * imported by a stand-in for the library's own module ("_lib"). */
typedef struct {
  tvm_ffi_module_obj base;
  const tvm_ffi_strbuf* payload;
} packed_cuda;

static int no_function(void* mod, const char* name, void** out) {
  (void)mod, (void)name;
  *out = NULL;
  return 0;
}

static int packed_save(void* mod, TVMFFIAny* out) {
  const tvm_ffi_strbuf* p = ((packed_cuda*)mod)->payload;
  *out = tvm_ffi_bytes_n(p->data, p->size);
  return out->type_index == kTVMFFINone ? -1 : 0;
}

static const tvm_ffi_module_vtable g_packed_cuda = {
    .kind = "cuda",
    .property_mask = TVM_FFI_MODULE_BINARY_SERIALIZABLE,
    .get_function = no_function,
    .save_to_bytes = packed_save,
};
static const tvm_ffi_module_vtable g_packed_lib = {
    .kind = "llvm",
    .property_mask = TVM_FFI_MODULE_COMPILATION_EXPORTABLE,
    .get_function = no_function,
};

int tvm_codegen__cuda_export(const void* mod_or_func, const tvm_codegen_target* t,
                             const tvm_codegen_options* o, const char* path_so, void* root) {
  if (!path_so) return tvm_ffi_raise("ValueError", "codegen: export: the path is NULL");
  cuda_unit u;
  int rc = compile_unit(mod_or_func, t, o, &u);
  tvm_ffi_strbuf bin = {0};
  packed_cuda* cm = NULL;
  void* lib = NULL;
  if (rc == 0) {
    cm = tvm_ffi_module_new(&g_packed_cuda, sizeof(packed_cuda));
    lib = tvm_ffi_module_new(&g_packed_lib, sizeof(tvm_ffi_module_obj));
    rc = cm && lib ? 0 : -1;
  }
  if (rc == 0) {
    cm->payload = &u.payload;
    rc = tvm_ffi_module_import(lib, cm);
  }
  if (rc == 0 && root) rc = tvm_ffi_module_import(root, lib);
  if (rc == 0) rc = tvm_ffi_module_pack_library_bin(root ? root : lib, &bin);
  if (rc == 0 && bin.failed) rc = tvm_ffi_raise("MemoryError", "codegen: out of memory");
  if (rc == 0) {
    cg_host h = {.device_type = kDLCUDA};
    rc = tvm_codegen__export_host(u.mod, path_so, o, &h, bin.data, bin.size);
  }
  tvm_ffi_release(lib);
  tvm_ffi_release(cm);
  tvm_ffi_strbuf_free(&bin);
  unit_free(&u);
  return rc;
}

/* ---- Host code: the launch of a kernel ---------------------------------------------------- */
/* A TVMFFIAny {type_index, 0, payload} at slot. */
static void store_any(cg_state* s, LLVMValueRef slot, int32_t tindex, LLVMValueRef payload) {
  LLVMValueRef off4 = tvm_codegen__const_i64(s, 4), off8 = tvm_codegen__const_i64(s, 8);
  LLVMBuildStore(s->b, tvm_codegen__const_i32(s, tindex), slot);
  LLVMBuildStore(s->b, tvm_codegen__const_i32(s, 0), LLVMBuildGEP2(s->b, s->i8, slot, &off4, 1, ""));
  LLVMBuildStore(s->b, payload ? payload : tvm_codegen__const_i64(s, 0),
                 LLVMBuildGEP2(s->b, s->i8, slot, &off8, 1, ""));
}

static LLVMValueRef library_ctx(cg_state* s) {
  LLVMValueRef g = LLVMGetNamedGlobal(s->mod, TVM_CODEGEN_SYMBOL_LIBRARY_CTX);
  if (!g) {
    g = LLVMAddGlobal(s->mod, s->ptr, TVM_CODEGEN_SYMBOL_LIBRARY_CTX);
    LLVMSetInitializer(g, LLVMConstNull(s->ptr));
    LLVMSetAlignment(g, 8);
  }
  return g;
}

static LLVMValueRef declare(cg_state* s, const char* name, LLVMTypeRef ret, LLVMTypeRef* params,
                            unsigned n, LLVMTypeRef* out_type) {
  *out_type = LLVMFunctionType(ret, params, n, 0);
  LLVMValueRef f = LLVMGetNamedFunction(s->mod, name);
  return f ? f : LLVMAddFunction(s->mod, name, *out_type);
}

/* The kernel's Function: looked up once in the library's imports, then cached. */
static LLVMValueRef kernel_function(cg_state* s, const char* sym) {
  char gname[600];
  snprintf(gname, sizeof(gname), "__tvm_codegen_cuda_fn.%s", sym);
  LLVMValueRef cache = LLVMGetNamedGlobal(s->mod, gname);
  if (!cache) {
    cache = LLVMAddGlobal(s->mod, s->ptr, gname);
    LLVMSetInitializer(cache, LLVMConstNull(s->ptr));
    LLVMSetLinkage(cache, LLVMInternalLinkage);
  }
  LLVMValueRef f0 = LLVMBuildLoad2(s->b, s->ptr, cache, "");
  LLVMSetOrdering(f0, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(f0, 8);
  LLVMBasicBlockRef pre = LLVMGetInsertBlock(s->b);
  LLVMBasicBlockRef look = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "kernel_lookup");
  LLVMBasicBlockRef have = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "kernel_found");
  LLVMBuildCondBr(s->b, LLVMBuildIsNull(s->b, f0, ""), look, have);
  LLVMPositionBuilderAtEnd(s->b, look);
  LLVMValueRef slot = tvm_codegen__entry_alloca(s, s->ptr, "kernel_fn");
  LLVMBuildStore(s->b, LLVMConstNull(s->ptr), slot);
  LLVMTypeRef pts[3] = {s->ptr, s->ptr, s->ptr}, ft;
  LLVMValueRef lookup = declare(s, "TVMFFIEnvModLookupFromImports", s->i32, pts, 3, &ft);
  LLVMValueRef args[3] = {LLVMBuildLoad2(s->b, s->ptr, library_ctx(s), ""), tvm_codegen__cstr(s, sym), slot};
  LLVMValueRef rc = LLVMBuildCall2(s->b, ft, lookup, args, 3, "");
  LLVMBasicBlockRef failed = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "lookup_failed");
  LLVMBasicBlockRef ok = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "lookup_ok");
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, rc, tvm_codegen__const_i32(s, 0), ""), ok, failed);
  LLVMPositionBuilderAtEnd(s->b, failed);
  tvm_codegen__emit_ret(s, tvm_codegen__const_i32(s, -1));
  LLVMPositionBuilderAtEnd(s->b, ok);
  LLVMValueRef f1 = LLVMBuildLoad2(s->b, s->ptr, slot, "");
  char msg[700];
  snprintf(msg, sizeof(msg), "%s: CUDA kernel %s is not among the imports of its library module", s->fname, sym);
  LLVMValueRef part = tvm_codegen__cstr(s, msg);
  tvm_codegen__emit_check(s, LLVMBuildIsNotNull(s->b, f1, ""), "RuntimeError", &part, 1);
  LLVMValueRef st = LLVMBuildStore(s->b, f1, cache);
  LLVMSetOrdering(st, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(st, 8);
  LLVMBasicBlockRef from_look = LLVMGetInsertBlock(s->b);
  LLVMBuildBr(s->b, have);
  LLVMPositionBuilderAtEnd(s->b, have);
  LLVMValueRef phi = LLVMBuildPhi(s->b, s->ptr, "kernel");
  LLVMAddIncoming(phi, (LLVMValueRef[]){f0, f1}, (LLVMBasicBlockRef[]){pre, from_look}, 2);
  return phi;
}

LLVMValueRef tvm_codegen__cuda_launch(cg_state* s, const tvm_tir_call_obj* n,
                                      const tvm_tir_prim_func_obj* k, const char* sym) {
  int64_t np = tvm_tir_array_size(k->params);
  if (tvm_tir_array_size(n->args) != np) {
    tvm_codegen__fail(s, "TypeError", "launch of %s: expected %lld arguments, got %lld", sym,
                      (long long)np, (long long)tvm_tir_array_size(n->args));
    return NULL;
  }
  cg_launch_info li;
  if (tvm_codegen__launch_info(k, &li) != 0) {
    s->failed = true;
    return NULL;
  }
  const char* tags[8];
  int nt = launch_tags(&li, tags);
  int64_t total = np + nt + 1;
  LLVMTypeRef at = LLVMArrayType(s->i64, (unsigned)(2 * total));
  LLVMValueRef args = tvm_codegen__entry_alloca(s, at, "launch_args");
  /* The kernel arguments, and the kernel's parameters bound to them for the extents. */
  int64_t mark = s->nbinds;
  for (int64_t i = 0; i < np; ++i) {
    const void* a = tvm_tir_array_at(n->args, i);
    const tvm_tir_var_obj* p = tvm_tir_array_at(k->params, i);
    DLDataType t = tvm_tir_expr_dtype(a);
    LLVMValueRef v = tvm_codegen__expr(s, a);
    if (!v) return NULL;
    if (!tvm_tir_dtype_equal(t, p->expr.dtype)) {
      tvm_codegen__fail(s, "TypeError", "launch of %s: argument %lld is %s, the kernel takes %s", sym,
                        (long long)i, tvm_tir_dtype_str(t).s, tvm_tir_dtype_str(p->expr.dtype).s);
      return NULL;
    }
    LLVMValueRef idx = tvm_codegen__const_i64(s, 16 * i);
    LLVMValueRef slot = LLVMBuildGEP2(s->b, s->i8, args, &idx, 1, "");
    if (tvm_tir_dtype_is_handle(t)) {
      store_any(s, slot, kTVMFFIOpaquePtr, v);
    } else if (tvm_tir_dtype_is_integer(t)) {
      store_any(s, slot, kTVMFFIInt,
                tvm_codegen__convert(s, v, t, tvm_tir_dtype_is_int(t) ? TVM_TIR_INT64 : TVM_TIR_UINT64));
    } else if (tvm_tir_dtype_is_floating(t)) {
      store_any(s, slot, kTVMFFIFloat, tvm_codegen__convert(s, v, t, TVM_TIR_FLOAT64));
    } else {
      tvm_codegen__fail(s, "NotImplementedError", "launch of %s: argument of dtype %s", sym,
                        tvm_tir_dtype_str(t).s);
      return NULL;
    }
    if (tvm_codegen__bind(s, p, v) != 0) return NULL;
  }
  /* Launch extents: the largest extent of each axis (negative ones count as 0), at least one
   * thread; a grid with an empty axis launches nothing, as the loops run no iteration. */
  LLVMValueRef zero = tvm_codegen__const_i64(s, 0), runs = LLVMConstInt(s->i1, 1, 0);
  int slot_k = (int)np;
  for (int a = 0; a < 6; ++a) {
    if (!li.used[a]) continue;
    LLVMValueRef m = a >= 3 ? tvm_codegen__const_i64(s, 1) : zero;
    for (int e = 0; e < li.n[a]; ++e) {
      const void* x = li.ext[a][e];
      LLVMValueRef v = tvm_codegen__expr(s, x);
      if (!v) return NULL;
      v = LLVMBuildIntCast2(s->b, v, s->i64, tvm_tir_dtype_is_int(tvm_tir_expr_dtype(x)), "");
      m = LLVMBuildSelect(s->b, LLVMBuildICmp(s->b, LLVMIntSGT, v, m, ""), v, m, "");
    }
    if (a < 3) runs = LLVMBuildAnd(s->b, runs, LLVMBuildICmp(s->b, LLVMIntSGT, m, zero, ""), "");
    LLVMValueRef idx = tvm_codegen__const_i64(s, 16 * slot_k++);
    store_any(s, LLVMBuildGEP2(s->b, s->i8, args, &idx, 1, ""), kTVMFFIInt, m);
  }
  if (li.dyn_bytes) {
    LLVMValueRef v = tvm_codegen__expr(s, li.dyn_bytes);
    if (!v) return NULL;
    v = LLVMBuildIntCast2(s->b, v, s->i64, 1, "");
    LLVMValueRef idx = tvm_codegen__const_i64(s, 16 * slot_k++);
    store_any(s, LLVMBuildGEP2(s->b, s->i8, args, &idx, 1, ""), kTVMFFIInt, v);
  }
  s->nbinds = mark;
  LLVMValueRef first = tvm_codegen__device_id(s);
  LLVMValueRef dev = first ? LLVMBuildSExt(s->b, first, s->i64, "") : zero;
  LLVMValueRef idx = tvm_codegen__const_i64(s, 16 * slot_k);
  store_any(s, LLVMBuildGEP2(s->b, s->i8, args, &idx, 1, ""), kTVMFFIInt, dev);
  LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "launch");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "launched");
  LLVMBuildCondBr(s->b, runs, go, done);
  LLVMPositionBuilderAtEnd(s->b, go);
  LLVMValueRef fn = kernel_function(s, sym);
  LLVMValueRef result = tvm_codegen__entry_alloca(s, LLVMArrayType(s->i64, 2), "launch_result");
  store_any(s, result, kTVMFFINone, NULL);
  LLVMTypeRef pts[4] = {s->ptr, s->ptr, s->i32, s->ptr}, ft;
  LLVMValueRef call = declare(s, "TVMFFIFunctionCall", s->i32, pts, 4, &ft);
  LLVMValueRef cargs[4] = {fn, args, tvm_codegen__const_i32(s, total), result};
  LLVMValueRef rc = LLVMBuildCall2(s->b, ft, call, cargs, 4, "");
  LLVMBasicBlockRef failed = LLVMAppendBasicBlockInContext(s->ctx, s->fn, "launch_failed");
  LLVMBuildCondBr(s->b, LLVMBuildICmp(s->b, LLVMIntEQ, rc, tvm_codegen__const_i32(s, 0), ""), done, failed);
  LLVMPositionBuilderAtEnd(s->b, failed);
  tvm_codegen__emit_ret(s, tvm_codegen__const_i32(s, -1));
  LLVMPositionBuilderAtEnd(s->b, done);
  return tvm_codegen__const_i32(s, 0);
}
