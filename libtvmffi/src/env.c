/*
 * env.c: the environment half of the ABI (extra/c_env_api.h) and the parallel runtime.
 *
 * - Streams: per thread, per (device_type, device_id). A fixed table covers the common case
 *   (device types < STREAM_TYPES, ids < STREAM_IDS) without allocating; other pairs go to a
 *   per-thread list freed when the thread exits.
 * - DLPack allocator: a per-thread override, else the process-wide one, else ours (CPU only,
 *   64-byte aligned data, DLPack 1.1 versioned tensors with compact strides).
 * - C API registry: host-provided symbols by name (TVMFFIEnvRegisterCAPI).
 * The parallel runtime (tvm_ffi_parallel_launch, TVMBackendParallelLaunch) is thread_pool.c.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"

/* ==== Streams ============================================================================ */

#define STREAM_TYPES 20 /* DLPack device types run up to kDLTrn = 18 */
#define STREAM_IDS 8

typedef struct {
  int32_t device_type;
  int32_t device_id;
  TVMFFIStreamHandle stream;
} stream_entry;

typedef struct {
  TVMFFIStreamHandle fixed[STREAM_TYPES][STREAM_IDS];
  stream_entry* extra; /* pairs outside the fixed table; tvm_ffi_malloc'd */
  size_t extra_size;
  size_t extra_cap;
} stream_table;

static __thread stream_table t_streams;
static pthread_key_t g_streams_key;
static pthread_once_t g_streams_key_once = PTHREAD_ONCE_INIT;

/* Runs at thread exit for threads that used the extra list. */
static void free_stream_extra(void* table) {
  stream_table* t = (stream_table*)table;
  tvm_ffi_free(t->extra);
  t->extra = NULL;
  t->extra_size = t->extra_cap = 0;
}

static void make_streams_key(void) { pthread_key_create(&g_streams_key, free_stream_extra); }

static stream_entry* find_extra(int32_t device_type, int32_t device_id) {
  for (size_t i = 0; i < t_streams.extra_size; ++i) {
    stream_entry* e = &t_streams.extra[i];
    if (e->device_type == device_type && e->device_id == device_id) return e;
  }
  return NULL;
}

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  if (device_type < 0 || device_id < 0) {
    return tvm_ffi_raise("ValueError", "TVMFFIEnvSetStream: invalid device (type %d, id %d)",
                         (int)device_type, (int)device_id);
  }
  TVMFFIStreamHandle* slot;
  if (device_type < STREAM_TYPES && device_id < STREAM_IDS) {
    slot = &t_streams.fixed[device_type][device_id];
  } else {
    stream_entry* e = find_extra(device_type, device_id);
    if (!e) {
      if (t_streams.extra_size == t_streams.extra_cap) {
        size_t cap = t_streams.extra_cap ? 2 * t_streams.extra_cap : 4;
        stream_entry* grown =
            (stream_entry*)tvm_ffi_realloc(t_streams.extra, cap * sizeof(stream_entry));
        if (!grown) return -1;
        if (!t_streams.extra) {
          /* First use on this thread: arrange for the list to be freed at thread exit. */
          pthread_once(&g_streams_key_once, make_streams_key);
          pthread_setspecific(g_streams_key, &t_streams);
        }
        t_streams.extra = grown;
        t_streams.extra_cap = cap;
      }
      e = &t_streams.extra[t_streams.extra_size++];
      e->device_type = device_type;
      e->device_id = device_id;
      e->stream = NULL;
    }
    slot = &e->stream;
  }
  if (opt_out_original_stream) *opt_out_original_stream = *slot;
  *slot = stream;
  return 0;
}

TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  if (device_type < 0 || device_id < 0) return NULL;
  if (device_type < STREAM_TYPES && device_id < STREAM_IDS) {
    return t_streams.fixed[device_type][device_id];
  }
  stream_entry* e = find_extra(device_type, device_id);
  return e ? e->stream : NULL;
}

/* ==== DLPack tensor allocator ============================================================ */

static const char* device_name(int32_t device_type) {
  switch (device_type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLVPI: return "vpi";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLExtDev: return "ext_dev";
    case kDLCUDAManaged: return "cuda_managed";
    case kDLOneAPI: return "oneapi";
    case kDLWebGPU: return "webgpu";
    case kDLHexagon: return "hexagon";
    case kDLMAIA: return "maia";
    case kDLTrn: return "trn";
    default: return NULL;
  }
}

/* Hand the error raised on this thread to an allocator's SetError callback. */
static void report_raised(void* error_ctx, void (*set_error)(void*, const char*, const char*)) {
  void* err = tvm_ffi_error_take();
  if (set_error) {
    set_error(error_ctx, err ? tvm_ffi_error_kind(err) : "MemoryError",
              err ? tvm_ffi_error_message(err) : "out of memory");
  }
  tvm_ffi_release(err);
}

/* The default allocator's tensors: one block { DLManagedTensorVersioned, shape, strides };
 * manager_ctx is the data block. */
static void cpu_tensor_deleter(DLManagedTensorVersioned* self) {
  tvm_ffi_free(self->manager_ctx);
  tvm_ffi_free(self);
}

static int cpu_allocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                         void (*set_error)(void* error_ctx, const char* kind,
                                           const char* message)) {
  if (!prototype || !out) {
    if (set_error) set_error(error_ctx, "ValueError", "DLPack allocator: prototype or out is NULL");
    return -1;
  }
  *out = NULL;
  if (prototype->device.device_type != kDLCPU) {
    const char* name = device_name(prototype->device.device_type);
    tvm_ffi_strbuf b = {0};
    tvm_ffi_strbuf_printf(&b, "no allocator for device ");
    if (name) tvm_ffi_strbuf_puts(&b, name);
    else tvm_ffi_strbuf_printf(&b, "type %d", (int)prototype->device.device_type);
    tvm_ffi_strbuf_printf(&b,
                          ":%d: the default DLPack allocator of libtvmffi only allocates CPU "
                          "memory; install one with TVMFFIEnvSetDLPackManagedTensorAllocator",
                          (int)prototype->device.device_id);
    if (set_error) set_error(error_ctx, "RuntimeError", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return -1;
  }
  int32_t ndim = prototype->ndim;
  const int64_t* strides = prototype->strides;
  const char* bad = NULL;
  if (ndim < 0 || (ndim > 0 && !prototype->shape)) {
    bad = "DLPack allocator: the prototype has a negative ndim or no shape";
  }
  for (int32_t i = 0; !bad && i < ndim; ++i) {
    if (prototype->shape[i] < 0) bad = "DLPack allocator: the prototype has a negative dimension";
    if (strides && strides[i] < 0) bad = "DLPack allocator: the prototype has a negative stride";
  }
  if (!bad && (prototype->dtype.bits == 0 || prototype->dtype.lanes == 0)) {
    bad = "DLPack allocator: the prototype's data type has no size";
  }
  if (bad) {
    if (set_error) set_error(error_ctx, "ValueError", bad);
    return -1;
  }
  /* Bytes to allocate: those of numel elements when compact; with strides, those of the
   * elements the layout spans, 1 + sum(stride * (dim - 1)), or none when a dim is 0.
   * tvm_ffi_dltensor_nbytes checks overflow. */
  DLTensor sizing = *prototype;
  int64_t span = 1;
  if (strides) {
    for (int32_t i = 0; i < ndim; ++i) {
      int64_t step;
      if (prototype->shape[i] == 0) {
        span = 0;
        break;
      }
      if (__builtin_mul_overflow(strides[i], prototype->shape[i] - 1, &step) ||
          __builtin_add_overflow(span, step, &span)) {
        if (set_error) {
          set_error(error_ctx, "ValueError",
                    "DLPack allocator: the strided layout overflows int64");
        }
        return -1;
      }
    }
    sizing.ndim = 1;
    sizing.shape = &span;
  }
  int64_t nbytes = tvm_ffi_dltensor_nbytes(&sizing);
  if (nbytes < 0) {
    report_raised(error_ctx, set_error);
    return -1;
  }
  /* Compact strides can overflow even when numel does not (a zero dim hides the others). */
  for (int64_t i = ndim - 1, s = 1; i > 0 && !strides; --i) {
    if (__builtin_mul_overflow(s, prototype->shape[i] > 0 ? prototype->shape[i] : 1, &s)) {
      if (set_error) {
        set_error(error_ctx, "ValueError", "DLPack allocator: the strides overflow int64");
      }
      return -1;
    }
  }
  size_t head = sizeof(DLManagedTensorVersioned) + 2 * (size_t)ndim * sizeof(int64_t);
  DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)tvm_ffi_malloc(head);
  void* data = m ? tvm_ffi_aligned_alloc(64, (size_t)nbytes) : NULL;
  if (!data) {
    tvm_ffi_free(m);
    report_raised(error_ctx, set_error);
    return -1;
  }
  int64_t* shape = (int64_t*)(m + 1);
  int64_t* out_strides = shape + ndim;
  if (ndim) memcpy(shape, prototype->shape, (size_t)ndim * sizeof(int64_t));
  if (strides) {
    if (ndim) memcpy(out_strides, strides, (size_t)ndim * sizeof(int64_t));
  } else {
    int64_t s = 1; /* checked above */
    for (int32_t i = ndim - 1; i >= 0; --i) {
      out_strides[i] = s;
      if (i > 0) s *= shape[i] > 0 ? shape[i] : 1;
    }
  }
  m->version.major = 1;
  m->version.minor = 1;
  m->manager_ctx = data;
  m->deleter = cpu_tensor_deleter;
  m->flags = 0;
  m->dl_tensor.data = data;
  m->dl_tensor.device = prototype->device;
  m->dl_tensor.ndim = ndim;
  m->dl_tensor.dtype = prototype->dtype;
  m->dl_tensor.shape = shape;
  m->dl_tensor.strides = out_strides;
  m->dl_tensor.byte_offset = 0;
  *out = m;
  return 0;
}

static __thread DLPackManagedTensorAllocator t_allocator; /* NULL: use the global one */
static DLPackManagedTensorAllocator g_allocator;          /* NULL: use cpu_allocator */

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) {
  if (t_allocator) return t_allocator;
  DLPackManagedTensorAllocator g = __atomic_load_n(&g_allocator, __ATOMIC_ACQUIRE);
  return g ? g : cpu_allocator;
}

/* As upstream: the thread's allocator is always set (NULL clears the override); with
 * write_to_global_context the process-wide one too (NULL restores ours). The original is the
 * allocator this thread saw before the call. */
int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator) {
  DLPackManagedTensorAllocator current = TVMFFIEnvGetDLPackManagedTensorAllocator();
  if (write_to_global_context) __atomic_store_n(&g_allocator, allocator, __ATOMIC_RELEASE);
  t_allocator = allocator;
  if (opt_out_original_allocator) *opt_out_original_allocator = current;
  return 0;
}

/* SetError for allocators called by TVMFFIEnvTensorAlloc: raise here, note it in *error_ctx. */
static void raise_from_allocator(void* error_ctx, const char* kind, const char* message) {
  *(int*)error_ctx = 1;
  TVMFFIErrorSetRaisedFromCStr(kind ? kind : "RuntimeError", message ? message : "");
}

int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out) {
  static const char fname[] = "TVMFFIEnvTensorAlloc";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  if (!prototype) return tvm_ffi_raise("ValueError", "%s: prototype is NULL", fname);
  if (prototype->ndim < 0) {
    return tvm_ffi_raise("ValueError", "%s: ndim %d is negative", fname, (int)prototype->ndim);
  }
  if (prototype->ndim > 0 && !prototype->shape) {
    return tvm_ffi_raise("ValueError", "%s: shape is NULL", fname);
  }
  for (int32_t i = 0; i < prototype->ndim; ++i) {
    if (prototype->shape[i] < 0) {
      return tvm_ffi_raise("ValueError", "%s: dimension %d has negative extent %lld", fname,
                           (int)i, (long long)prototype->shape[i]);
    }
  }
  DLPackManagedTensorAllocator alloc = TVMFFIEnvGetDLPackManagedTensorAllocator();
  DLManagedTensorVersioned* m = NULL;
  int reported = 0;
  int rc = alloc(prototype, &m, &reported, raise_from_allocator);
  if (rc != 0) {
    if (!reported) {
      tvm_ffi_raise("RuntimeError", "%s: the allocator failed (code %d) without an error", fname,
                    rc);
    }
    return -1;
  }
  if (!m) return tvm_ffi_raise("RuntimeError", "%s: the allocator returned no tensor", fname);
  /* A tensor that does not match the request would be misused by the caller. */
  const DLTensor* got = &m->dl_tensor;
  bool same = got->ndim == prototype->ndim &&
              tvm_ffi_dtype_equal(got->dtype, prototype->dtype) &&
              got->device.device_type == prototype->device.device_type &&
              got->device.device_id == prototype->device.device_id &&
              (got->ndim == 0 ||
               (got->shape && memcmp(got->shape, prototype->shape,
                                     (size_t)got->ndim * sizeof(int64_t)) == 0));
  if (!same) {
    if (m->deleter) m->deleter(m);
    return tvm_ffi_raise("RuntimeError",
                         "%s: the allocator returned a tensor whose shape, dtype or device "
                         "differs from the prototype",
                         fname);
  }
  if (TVMFFITensorFromDLPackVersioned(m, 0, 0, out) != 0) {
    if (m->deleter) m->deleter(m); /* ownership stayed with us */
    return -1;
  }
  return 0;
}

/* ==== Host environment ==================================================================== */

int TVMFFIEnvCheckSignals(void) {
  /* No host interpreter owns signals here; a C host polls its own flags. */
  return 0;
}

typedef struct {
  char* name;
  void* symbol;
} capi_entry;

static pthread_mutex_t g_capi_lock = PTHREAD_MUTEX_INITIALIZER;
static capi_entry* g_capi;
static size_t g_capi_size, g_capi_cap;

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  if (!name || !name[0]) return tvm_ffi_raise("ValueError", "TVMFFIEnvRegisterCAPI: empty name");
  int rc = 0;
  pthread_mutex_lock(&g_capi_lock);
  size_t i = 0;
  while (i < g_capi_size && strcmp(g_capi[i].name, name) != 0) ++i;
  if (i < g_capi_size) {
    g_capi[i].symbol = symbol; /* re-registration replaces */
  } else {
    if (g_capi_size == g_capi_cap) {
      size_t cap = g_capi_cap ? 2 * g_capi_cap : 8;
      capi_entry* grown = (capi_entry*)tvm_ffi_realloc(g_capi, cap * sizeof(capi_entry));
      if (grown) {
        g_capi = grown;
        g_capi_cap = cap;
      }
    }
    char* copy = g_capi_size < g_capi_cap ? tvm_ffi_strndup(name, strlen(name)) : NULL;
    if (copy) {
      g_capi[g_capi_size].name = copy;
      g_capi[g_capi_size].symbol = symbol;
      g_capi_size++;
    } else {
      rc = -1; /* MemoryError raised by the allocator */
    }
  }
  pthread_mutex_unlock(&g_capi_lock);
  return rc;
}

void* tvm_ffi_env_capi_lookup(const char* name) {
  if (!name) return NULL;
  void* found = NULL;
  pthread_mutex_lock(&g_capi_lock);
  for (size_t i = 0; i < g_capi_size; ++i) {
    if (strcmp(g_capi[i].name, name) == 0) {
      found = g_capi[i].symbol;
      break;
    }
  }
  pthread_mutex_unlock(&g_capi_lock);
  return found;
}

/* The environment registers no types or global functions (everything here is reached through
 * the C ABI); init creates the thread-exit key of the stream lists and registers the parallel
 * launch entry point for loaded libraries. TVM_NUM_THREADS is read at first parallel use, not
 * here, so a program may still set it in main(). */
void tvm_ffi__init_env(void) {
  pthread_once(&g_streams_key_once, make_streams_key);
  tvm_ffi__init_thread_pool();
}
