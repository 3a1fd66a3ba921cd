/*
 * cuda_module.c: the module kind "cuda" (GPU kernels as PTX), created from the bytes that an
 * exported library carries in __tvm_ffi__library_bin through the global
 * ffi.Module.load_from_bytes.cuda, and its kernels launched with the driver API (cuda_driver.h).
 *
 * Payload (upstream's CUDAModule layout: integers u64 little endian, str = u64 length + bytes,
 * vec = u64 count + items):
 *   str fmt                         "ptx"
 *   u64 nfuncs, then per function:  str key; str name; vec<str> arg dtypes ("handle", "int32",
 *                                   "float32", ...); vec<str> launch parameter tags
 *                                   ("blockIdx.x" ... "threadIdx.z", then optionally
 *                                   "tir.use_dyn_shared_memory"); vec<i32> extra arg tags
 *   str data                        the PTX text
 * Every length and count is checked against the bytes there (ValueError "cuda module: ...").
 *
 * A kernel's Function takes its arguments (a handle as an opaque pointer, DLTensor* or Tensor:
 * its data; a scalar as int or float), then one int per launch tag (extents of the grid and the
 * block, then the dynamic shared memory bytes), then optionally the CUDA device id (our
 * extension; 0 when absent). It launches on the stream TVMFFIEnvGetStream(kDLCUDA, id) gives
 * and returns None; a launch with a zero extent does nothing. The module keeps one CUmodule
 * per device (each device's primary context), loaded with cuModuleLoadData at the first launch
 * there. Loading needs the driver: without one, ffi.Module.load_from_bytes.cuda raises
 * "no CUDA driver: ...". Driver errors are raised with the driver's error name.
 */
#include <stdio.h>
#include <string.h>

#include "cuda_driver.h"

enum { TAG_DYN_SHARED = 6, MAX_TAGS = 7 };

typedef struct {
  char* name;
  int32_t nargs;
  DLDataType* arg_types;
  int32_t ntags;
  int8_t tags[MAX_TAGS]; /* 0..2 grid x/y/z, 3..5 block x/y/z, TAG_DYN_SHARED */
} cu_func_info;

typedef struct {
  tvm_ffi_module_obj base;
  char* payload; /* the bytes it was made from (save_to_bytes) */
  size_t payload_size;
  char* fmt;
  char* ptx; /* NUL-terminated */
  size_t ptx_size;
  int32_t nfuncs;
  cu_func_info* funcs;
  pthread_mutex_t lock;
  CUmodule mods[CUDA_MAX_DEVICES];
  CUfunction* fns[CUDA_MAX_DEVICES]; /* nfuncs each, looked up on first launch */
} cuda_module;

/* ---- Reading the payload ---------------------------------------------------------------- */
typedef struct {
  const uint8_t* p;
  size_t left;
} rd;

static int bad(const char* what) {
  return tvm_ffi_raise("ValueError", "cuda module: corrupted payload: %s", what);
}

static int read_u64(rd* r, uint64_t* out, const char* what) {
  if (r->left < 8) return bad(what);
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | r->p[i];
  r->p += 8;
  r->left -= 8;
  *out = v;
  return 0;
}

/* A str as a new NUL-terminated copy. */
static int read_str(rd* r, char** out, size_t* out_len, const char* what) {
  uint64_t n = 0;
  *out = NULL;
  if (read_u64(r, &n, what) != 0) return -1;
  if (n > r->left) return bad(what);
  *out = tvm_ffi_malloc((size_t)n + 1);
  if (!*out) return -1;
  memcpy(*out, r->p, (size_t)n);
  (*out)[n] = '\0';
  r->p += n;
  r->left -= (size_t)n;
  if (out_len) *out_len = (size_t)n;
  return 0;
}

static int tag_code(const char* t) {
  static const char* const names[MAX_TAGS] = {"blockIdx.x",  "blockIdx.y",  "blockIdx.z",
                                              "threadIdx.x", "threadIdx.y", "threadIdx.z",
                                              "tir.use_dyn_shared_memory"};
  for (int k = 0; k < MAX_TAGS; ++k)
    if (strcmp(t, names[k]) == 0) return k;
  return -1;
}

static int read_func(rd* r, cu_func_info* f) {
  char* key = NULL;
  int rc = read_str(r, &key, NULL, "function key");
  tvm_ffi_free(key);
  if (rc == 0) rc = read_str(r, &f->name, NULL, "function name");
  uint64_t n = 0;
  if (rc == 0) rc = read_u64(r, &n, "argument count");
  if (rc == 0 && n > r->left / 8) rc = bad("argument count");
  if (rc == 0) {
    f->nargs = (int32_t)n;
    f->arg_types = tvm_ffi_calloc((size_t)n + 1, sizeof(DLDataType));
    if (!f->arg_types) rc = -1;
  }
  for (uint64_t k = 0; rc == 0 && k < n; ++k) {
    char* t = NULL;
    size_t len = 0;
    rc = read_str(r, &t, &len, "argument dtype");
    if (rc == 0 && tvm_ffi_dtype_parse(t, len, &f->arg_types[k]) != 0) {
      tvm_ffi_error_clear();
      rc = tvm_ffi_raise("ValueError", "cuda module: function %s: unknown argument dtype \"%s\"",
                         f->name, t);
    }
    tvm_ffi_free(t);
  }
  if (rc == 0) rc = read_u64(r, &n, "launch tag count");
  if (rc == 0 && n > MAX_TAGS) rc = bad("more launch tags than there are");
  f->ntags = (int32_t)n;
  for (uint64_t k = 0; rc == 0 && k < n; ++k) {
    char* t = NULL;
    rc = read_str(r, &t, NULL, "launch tag");
    int code = rc == 0 ? tag_code(t) : -1;
    if (rc == 0 && (code < 0 || (code == TAG_DYN_SHARED && k + 1 != n)))
      rc = tvm_ffi_raise("ValueError", "cuda module: function %s: unknown launch tag \"%s\"",
                         f->name, t);
    f->tags[k] = (int8_t)code;
    tvm_ffi_free(t);
  }
  if (rc == 0) rc = read_u64(r, &n, "extra tag count");
  if (rc == 0 && n > r->left / 4) rc = bad("extra tag count");
  if (rc == 0) {
    r->p += n * 4;
    r->left -= (size_t)n * 4;
  }
  return rc;
}

static void cuda_module_destroy(void* self) {
  cuda_module* m = self;
  for (int d = 0; d < CUDA_MAX_DEVICES; ++d) {
    if (m->mods[d]) {
      const tvm_vm_cuda_driver* cu = tvm_vm__cuda_driver();
      if (cu && tvm_vm__cuda_set_context((DLDevice){kDLCUDA, d}) == 0) cu->ModuleUnload(m->mods[d]);
      tvm_ffi_error_clear();
    }
    tvm_ffi_free(m->fns[d]);
  }
  for (int32_t k = 0; k < m->nfuncs; ++k) {
    tvm_ffi_free(m->funcs[k].name);
    tvm_ffi_free(m->funcs[k].arg_types);
  }
  tvm_ffi_free(m->funcs);
  tvm_ffi_free(m->fmt);
  tvm_ffi_free(m->ptx);
  tvm_ffi_free(m->payload);
  pthread_mutex_destroy(&m->lock);
}

/* ---- Launching ------------------------------------------------------------------------------ */
typedef struct {
  cuda_module* m;
  int32_t index;
} cu_closure;

static void closure_free(void* self) {
  cu_closure* c = self;
  tvm_ffi_release(c->m);
  tvm_ffi_free(c);
}

/* The CUfunction of kernel k on device d (loading the module there on first use). */
static int function_on(cuda_module* m, int32_t k, int d, CUfunction* out) {
  const tvm_vm_cuda_driver* cu = tvm_vm__cuda_driver();
  if (!cu) return -1;
  int rc = 0;
  pthread_mutex_lock(&m->lock);
  if (!m->fns[d]) {
    m->fns[d] = tvm_ffi_calloc((size_t)m->nfuncs + 1, sizeof(CUfunction));
    if (!m->fns[d]) rc = -1;
  }
  if (rc == 0 && !m->mods[d]) rc = tvm_vm__cuda_check(cu->ModuleLoadData(&m->mods[d], m->ptx), "cuModuleLoadData");
  if (rc == 0 && !m->fns[d][k]) {
    rc = tvm_vm__cuda_check(cu->ModuleGetFunction(&m->fns[d][k], m->mods[d], m->funcs[k].name),
                            "cuModuleGetFunction");
    if (rc != 0) tvm_ffi_raise_context("CUDA kernel %s", m->funcs[k].name);
  }
  if (rc == 0) *out = m->fns[d][k];
  pthread_mutex_unlock(&m->lock);
  return rc;
}

/* One kernel argument into an 8-byte slot, as the kernel's parameter type. */
static int kernel_arg(const cu_func_info* f, int32_t k, const TVMFFIAny* a, uint64_t* slot) {
  DLDataType t = f->arg_types[k];
  *slot = 0;
  if (t.code == kDLOpaqueHandle) {
    void* p = NULL;
    if (a->type_index == kTVMFFIOpaquePtr) {
      p = a->v_ptr;
    } else if (a->type_index == kTVMFFIDLTensorPtr || a->type_index == kTVMFFITensor) {
      DLTensor* dl = a->type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(a->v_obj) : a->v_ptr;
      p = (char*)dl->data + dl->byte_offset;
    } else if (a->type_index != kTVMFFINone) {
      return tvm_ffi_raise("TypeError", "CUDA kernel %s: argument %d: expected a pointer, got %s",
                           f->name, (int)k, tvm_ffi_any_type_name(a));
    }
    memcpy(slot, &p, sizeof(p));
    return 0;
  }
  bool is_int = a->type_index == kTVMFFIInt || a->type_index == kTVMFFIBool;
  if ((t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1 && is_int) {
    int64_t v = a->v_int64;
    if (t.bits == 64) memcpy(slot, &v, 8);
    else if (t.bits == 32) { int32_t x = (int32_t)v; memcpy(slot, &x, 4); }
    else if (t.bits == 16) { int16_t x = (int16_t)v; memcpy(slot, &x, 2); }
    else if (t.bits == 8 || t.bits == 1) { int8_t x = (int8_t)v; memcpy(slot, &x, 1); }
    else return tvm_ffi_raise("NotImplementedError", "CUDA kernel %s: argument dtype %d bits", f->name, t.bits);
    return 0;
  }
  if (t.code == kDLFloat && t.lanes == 1 && (is_int || a->type_index == kTVMFFIFloat)) {
    double v = a->type_index == kTVMFFIFloat ? a->v_float64 : (double)a->v_int64;
    if (t.bits == 64) memcpy(slot, &v, 8);
    else if (t.bits == 32) { float x = (float)v; memcpy(slot, &x, 4); }
    else return tvm_ffi_raise("NotImplementedError", "CUDA kernel %s: argument of float%d", f->name, t.bits);
    return 0;
  }
  return tvm_ffi_raise("TypeError", "CUDA kernel %s: argument %d: cannot pass %s as a kernel parameter",
                       f->name, (int)k, tvm_ffi_any_type_name(a));
}

static int cuda_launch(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  cu_closure* c = self;
  cuda_module* m = c->m;
  const cu_func_info* f = &m->funcs[c->index];
  int32_t want = f->nargs + f->ntags;
  if (n != want && n != want + 1) {
    return tvm_ffi_raise("TypeError",
                         "CUDA kernel %s: expected %d arguments (%d kernel arguments, %d launch "
                         "parameters, then optionally the device id), got %d",
                         f->name, (int)want, (int)f->nargs, (int)f->ntags, (int)n);
  }
  uint64_t small[32];
  void* small_ptrs[32];
  uint64_t* slots = f->nargs <= 32 ? small : tvm_ffi_malloc(sizeof(uint64_t) * (size_t)f->nargs);
  void** ptrs = f->nargs <= 32 ? small_ptrs : tvm_ffi_malloc(sizeof(void*) * (size_t)f->nargs);
  int rc = slots && ptrs ? 0 : -1;
  for (int32_t k = 0; rc == 0 && k < f->nargs; ++k) {
    rc = kernel_arg(f, k, &args[k], &slots[k]);
    ptrs[k] = &slots[k];
  }
  unsigned dims[6] = {1, 1, 1, 1, 1, 1}, shmem = 0;
  bool empty = false;
  for (int32_t k = 0; rc == 0 && k < f->ntags; ++k) {
    const TVMFFIAny* a = &args[f->nargs + k];
    if (a->type_index != kTVMFFIInt || a->v_int64 < 0 || a->v_int64 > UINT32_MAX) {
      rc = tvm_ffi_raise("ValueError", "CUDA kernel %s: launch parameter %d must be an int in [0, "
                         "2**32), got %s", f->name, (int)k, tvm_ffi_any_type_name(a));
    } else if (f->tags[k] == TAG_DYN_SHARED) {
      shmem = (unsigned)a->v_int64;
    } else {
      dims[f->tags[k]] = (unsigned)a->v_int64;
      empty |= a->v_int64 == 0;
    }
  }
  int64_t device_id = 0;
  if (rc == 0 && n == want + 1 && !tvm_ffi_arg_int(f->name, args, want, &device_id)) rc = -1;
  if (rc == 0 && (device_id < 0 || device_id >= CUDA_MAX_DEVICES))
    rc = tvm_ffi_raise("ValueError", "CUDA kernel %s: device id %lld", f->name, (long long)device_id);
  DLDevice dev = {kDLCUDA, (int32_t)device_id};
  const tvm_vm_cuda_driver* cu = rc == 0 && !empty ? tvm_vm__cuda_driver() : NULL;
  if (rc == 0 && !empty && !cu) rc = -1;
  CUfunction fn = NULL;
  if (rc == 0 && !empty) rc = tvm_vm__cuda_set_context(dev);
  if (rc == 0 && !empty) rc = function_on(m, c->index, dev.device_id, &fn);
  if (rc == 0 && !empty && shmem > 48 * 1024) {
    rc = tvm_vm__cuda_check(
        cu->FuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)shmem),
        "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
  }
  if (rc == 0 && !empty) {
    CUstream stream = TVMFFIEnvGetStream(kDLCUDA, dev.device_id);
    rc = tvm_vm__cuda_check(cu->LaunchKernel(fn, dims[0], dims[1], dims[2], dims[3], dims[4],
                                             dims[5], shmem, stream, ptrs, NULL),
                            "cuLaunchKernel");
    if (rc != 0)
      tvm_ffi_raise_context("launching CUDA kernel %s (grid %u x %u x %u, block %u x %u x %u, "
                            "%u bytes of dynamic shared memory)",
                            f->name, dims[0], dims[1], dims[2], dims[3], dims[4], dims[5], shmem);
  }
  if (slots != small) tvm_ffi_free(slots);
  if (ptrs != small_ptrs) tvm_ffi_free(ptrs);
  if (rc == 0) *rv = tvm_ffi_any_none();
  return rc;
}

/* ---- The module ------------------------------------------------------------------------------ */
static int cuda_get_function(void* self, const char* name, void** out) {
  cuda_module* m = self;
  *out = NULL;
  for (int32_t k = 0; k < m->nfuncs; ++k) {
    if (strcmp(m->funcs[k].name, name) != 0) continue;
    cu_closure* c = tvm_ffi_malloc(sizeof(cu_closure));
    if (!c) return -1;
    tvm_ffi_retain(m);
    c->m = m;
    c->index = k;
    *out = tvm_ffi_function_new(c, cuda_launch, closure_free);
    if (!*out) {
      closure_free(c);
      return -1;
    }
    return 0;
  }
  return 0;
}

static int cuda_list_functions(void* self, void* list) {
  cuda_module* m = self;
  for (int32_t k = 0; k < m->nfuncs; ++k) {
    TVMFFIAny s = tvm_ffi_string(m->funcs[k].name);
    if (tvm_ffi_list_push_take(list, &s) != 0) return -1;
  }
  return 0;
}

static int cuda_inspect_source(void* self, const char* format, TVMFFIAny* out) {
  cuda_module* m = self;
  if (format && format[0] && strcmp(format, m->fmt) != 0)
    return tvm_ffi_raise("ValueError", "cuda module: no source in format \"%s\" (it holds %s)",
                         format, m->fmt);
  *out = tvm_ffi_string(m->ptx);
  return 0;
}

static int cuda_save_to_bytes(void* self, TVMFFIAny* out) {
  cuda_module* m = self;
  *out = tvm_ffi_bytes_n(m->payload, m->payload_size);
  return out->type_index == kTVMFFINone ? -1 : 0;
}

static const tvm_ffi_module_vtable k_cuda_vtable = {
    .kind = "cuda",
    .property_mask = TVM_FFI_MODULE_BINARY_SERIALIZABLE | TVM_FFI_MODULE_RUNNABLE,
    .get_function = cuda_get_function,
    .list_functions = cuda_list_functions,
    .inspect_source = cuda_inspect_source,
    .save_to_bytes = cuda_save_to_bytes,
    .destroy = cuda_module_destroy,
};

static void* cuda_module_from_bytes(const void* data, size_t size) {
  cuda_module* m = tvm_ffi_module_new(&k_cuda_vtable, sizeof(cuda_module));
  if (!m) return NULL;
  pthread_mutex_init(&m->lock, NULL);
  rd r = {data, size};
  uint64_t nf = 0;
  int rc = read_str(&r, &m->fmt, NULL, "format");
  if (rc == 0 && strcmp(m->fmt, "ptx") != 0)
    rc = tvm_ffi_raise("ValueError", "cuda module: format \"%s\" is not supported (only ptx)", m->fmt);
  if (rc == 0) rc = read_u64(&r, &nf, "function count");
  if (rc == 0 && nf > r.left / 40) rc = bad("function count");
  if (rc == 0) {
    m->funcs = tvm_ffi_calloc((size_t)nf + 1, sizeof(cu_func_info));
    if (!m->funcs) rc = -1;
  }
  for (uint64_t k = 0; rc == 0 && k < nf; ++k) {
    m->nfuncs = (int32_t)k + 1;
    rc = read_func(&r, &m->funcs[k]);
  }
  if (rc == 0) rc = read_str(&r, &m->ptx, &m->ptx_size, "PTX");
  if (rc == 0 && r.left != 0) rc = bad("bytes after the PTX");
  if (rc == 0) {
    m->payload = tvm_ffi_malloc(size + 1);
    if (!m->payload) rc = -1;
    else memcpy(m->payload, data, size);
    m->payload_size = size;
  }
  /* Kernels run on a GPU: without a driver the module cannot do anything, so say it now. */
  if (rc == 0 && !tvm_vm__cuda_driver()) rc = -1;
  if (rc != 0) {
    tvm_ffi_raise_context("loading a CUDA module");
    tvm_ffi_release(m);
    return NULL;
  }
  return m;
}

static int load_from_bytes(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  TVMFFIByteArray b;
  if (!tvm_ffi_check_num_args("ffi.Module.load_from_bytes.cuda", n, 1) ||
      !tvm_ffi_arg_bytes("ffi.Module.load_from_bytes.cuda", args, 0, &b))
    return -1;
  void* m = cuda_module_from_bytes(b.data, b.size);
  if (!m) return -1;
  *rv = tvm_ffi_any_obj(m);
  return 0;
}

int tvm_vm__register_cuda_module(void) {
  return tvm_ffi_global_register("ffi.Module.load_from_bytes.cuda", load_from_bytes, true);
}
