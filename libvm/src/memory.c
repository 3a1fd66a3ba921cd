/*
 * memory.c: device dispatch, the CPU device, allocators (naive and pooled) and storage objects,
 * the memory that vm.builtin.alloc_storage / alloc_tensor hand out.
 *
 * An allocator is an object: every storage holds a reference to the allocator it came from,
 * so tensors may outlive the VM. The pooled allocator keeps freed blocks in free lists by size
 * class (64 bytes, then four classes per power of two: 1.25, 1.5, 1.75 and 2 times the power)
 * and reuses them; the cache is returned to the device when an allocation fails and when the
 * allocator dies. Allocators are thread-safe (tensors may be released on any thread).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

/* ---- Devices ---------------------------------------------------------------------------- */
static int cpu_init(DLDevice dev) { return 0; }

static int cpu_alloc(DLDevice dev, size_t nbytes, size_t alignment, void** out) {
  *out = tvm_ffi_aligned_alloc(alignment, nbytes ? nbytes : 1);
  return *out ? 0 : -1;
}

static void cpu_free(DLDevice dev, void* ptr) { tvm_ffi_free(ptr); }

static int cpu_copy(const void* from, DLDevice from_dev, void* to, DLDevice to_dev, size_t n) {
  if (n) memcpy(to, from, n);
  return 0;
}

static int cpu_sync(DLDevice dev) { return 0; }

const tvm_vm_device_api tvm_vm__cpu_api = {"cpu", cpu_init, cpu_alloc, cpu_free, cpu_copy, cpu_sync};

const char* tvm_vm__device_name(DLDevice dev) {
  switch ((int)dev.device_type) {
    case kDLCPU:
      return "cpu";
    case kDLCUDA:
      return "cuda";
    case kDLCUDAHost:
      return "cuda_host";
    case kDLOpenCL:
      return "opencl";
    case kDLVulkan:
      return "vulkan";
    case kDLMetal:
      return "metal";
    case kDLROCM:
      return "rocm";
    default:
      return "unknown";
  }
}

const tvm_vm_device_api* tvm_vm__device_api(DLDevice dev) {
  if (dev.device_id < 0) {
    tvm_ffi_raise("ValueError", "invalid device id %d", (int)dev.device_id);
    return NULL;
  }
  switch ((int)dev.device_type) {
    case kDLCPU:
      return &tvm_vm__cpu_api;
    case kDLCUDA:
      return &tvm_vm__cuda_api;
    default:
      tvm_ffi_raise("ValueError",
                    "device type %d (%s) is not supported by the VM (supported: cpu, cuda)",
                    (int)dev.device_type, tvm_vm__device_name(dev));
      return NULL;
  }
}

/* ---- Allocators ------------------------------------------------------------------------- */
static int32_t g_allocator_type = -1;
static int32_t g_storage_type = -1;

int32_t tvm_vm__allocator_type_index(void) { return g_allocator_type; }
int32_t tvm_vm__storage_type_index(void) { return g_storage_type; }
int32_t tvm_vm_storage_type_index(void) {
  tvm_vm_init();
  return g_storage_type;
}

/* Size class of n bytes: index and rounded size; -1 when n is too large to round. */
static int size_class(size_t n, size_t* out_size) {
  if (n <= 64) {
    *out_size = 64;
    return 0;
  }
  if (n > ((size_t)1 << 62)) return -1;
  int k = 63 - __builtin_clzll((unsigned long long)(n - 1)); /* n in (2^k, 2^(k+1)] */
  size_t step = (size_t)1 << (k - 2);
  size_t rounded = ((n - 1) / step + 1) * step;
  *out_size = rounded;
  return 1 + 4 * (k - 6) + (int)(rounded / step - 5);
}

static void release_pool_locked(tvm_vm_allocator* a) {
  for (int c = 0; c < TVM_VM_NUM_SIZE_CLASSES; ++c) {
    tvm_vm_block_list* l = &a->pool[c];
    for (size_t i = 0; i < l->size; ++i) a->api->free(a->device, l->items[i]);
    l->size = 0;
  }
  a->cached = 0;
}

static void allocator_destroy(void* self) {
  tvm_vm_allocator* a = (tvm_vm_allocator*)self;
  release_pool_locked(a);
  for (int c = 0; c < TVM_VM_NUM_SIZE_CLASSES; ++c) tvm_ffi_free(a->pool[c].items);
  pthread_mutex_destroy(&a->lock);
}

tvm_vm_allocator* tvm_vm__allocator_new(DLDevice dev, int32_t type) {
  if (type != TVM_VM_ALLOC_NAIVE && type != TVM_VM_ALLOC_POOLED) {
    tvm_ffi_raise("ValueError", "unknown allocator type %d (1: naive, 2: pooled)", (int)type);
    return NULL;
  }
  const tvm_vm_device_api* api = tvm_vm__device_api(dev);
  if (!api || api->init(dev) != 0) return NULL;
  tvm_vm_allocator* a =
      (tvm_vm_allocator*)tvm_ffi_object_new(g_allocator_type, sizeof(tvm_vm_allocator));
  if (!a) return NULL;
  pthread_mutex_init(&a->lock, NULL);
  a->type = type;
  a->device = dev;
  a->api = api;
  return a;
}

/* Allocate a block of at least nbytes; *out_size receives its usable size. */
static int allocator_alloc(tvm_vm_allocator* a, size_t nbytes, void** out, size_t* out_size) {
  size_t size = nbytes ? nbytes : 1;
  int cls = -1;
  if (a->type == TVM_VM_ALLOC_POOLED) {
    cls = size_class(nbytes, &size);
    if (cls < 0) {
      return tvm_ffi_raise("MemoryError", "cannot allocate %zu bytes on %s:%d", nbytes,
                           tvm_vm__device_name(a->device), (int)a->device.device_id);
    }
    pthread_mutex_lock(&a->lock);
    tvm_vm_block_list* l = &a->pool[cls];
    if (l->size) {
      *out = l->items[--l->size];
      a->cached -= size;
      a->allocated += size;
      pthread_mutex_unlock(&a->lock);
      *out_size = size;
      return 0;
    }
    pthread_mutex_unlock(&a->lock);
  }
  if (a->api->alloc(a->device, size, TVM_VM_ALLOC_ALIGNMENT, out) != 0) {
    pthread_mutex_lock(&a->lock);
    bool had_cache = a->cached != 0;
    release_pool_locked(a);
    pthread_mutex_unlock(&a->lock);
    if (!had_cache) return -1;
    tvm_ffi_error_clear();
    if (a->api->alloc(a->device, size, TVM_VM_ALLOC_ALIGNMENT, out) != 0) return -1;
  }
  pthread_mutex_lock(&a->lock);
  a->allocated += size;
  pthread_mutex_unlock(&a->lock);
  *out_size = size;
  return 0;
}

static void allocator_free(tvm_vm_allocator* a, void* ptr, size_t size) {
  pthread_mutex_lock(&a->lock);
  a->allocated -= size;
  if (a->type == TVM_VM_ALLOC_POOLED) {
    size_t cls_size;
    tvm_vm_block_list* l = &a->pool[size_class(size, &cls_size)];
    if (l->size == l->cap) {
      size_t cap = l->cap ? l->cap * 2 : 8;
      void** items = (void**)tvm_ffi_realloc(l->items, cap * sizeof(void*));
      if (!items) {
        tvm_ffi_error_clear(); /* a destructor must not leave an error: free the block instead */
        pthread_mutex_unlock(&a->lock);
        a->api->free(a->device, ptr);
        return;
      }
      l->items = items;
      l->cap = cap;
    }
    l->items[l->size++] = ptr;
    a->cached += size;
    pthread_mutex_unlock(&a->lock);
    return;
  }
  pthread_mutex_unlock(&a->lock);
  a->api->free(a->device, ptr);
}

int tvm_vm__allocator_usage(tvm_vm_allocator* a, size_t* allocated, size_t* cached);
int tvm_vm__allocator_usage(tvm_vm_allocator* a, size_t* allocated, size_t* cached) {
  pthread_mutex_lock(&a->lock);
  if (allocated) *allocated = a->allocated;
  if (cached) *cached = a->cached;
  pthread_mutex_unlock(&a->lock);
  return 0;
}

/* Process-wide naive allocators for copies that happen outside a VM (vm.builtin.to_device). */
#define MAX_DEFAULT_ALLOCATORS 64
static tvm_vm_allocator* g_default[MAX_DEFAULT_ALLOCATORS];
static int g_num_default;
static pthread_mutex_t g_default_lock = PTHREAD_MUTEX_INITIALIZER;

tvm_vm_allocator* tvm_vm__default_allocator(DLDevice dev) {
  pthread_mutex_lock(&g_default_lock);
  tvm_vm_allocator* found = NULL;
  for (int i = 0; i < g_num_default && !found; ++i) {
    if (g_default[i]->device.device_type == dev.device_type &&
        g_default[i]->device.device_id == dev.device_id) {
      found = g_default[i];
    }
  }
  if (!found) {
    if (g_num_default == MAX_DEFAULT_ALLOCATORS) {
      tvm_ffi_raise("RuntimeError", "too many devices in use");
    } else if ((found = tvm_vm__allocator_new(dev, TVM_VM_ALLOC_NAIVE)) != NULL) {
      g_default[g_num_default++] = found;
    }
  }
  pthread_mutex_unlock(&g_default_lock);
  return found;
}

/* ---- Storage ------------------------------------------------------------------------------ */
static void storage_destroy(void* self) {
  tvm_vm_storage_obj* s = (tvm_vm_storage_obj*)self;
  if (s->data) allocator_free(s->alloc, s->data, s->block_size);
  tvm_ffi_release(s->alloc);
}

tvm_vm_storage_obj* tvm_vm__storage_new(tvm_vm_allocator* alloc, size_t nbytes) {
  tvm_vm_storage_obj* s =
      (tvm_vm_storage_obj*)tvm_ffi_object_new(g_storage_type, sizeof(tvm_vm_storage_obj));
  if (!s) return NULL;
  tvm_ffi_retain(alloc);
  s->alloc = alloc;
  s->device = alloc->device;
  if (allocator_alloc(alloc, nbytes, &s->data, &s->block_size) != 0) {
    s->data = NULL;
    tvm_ffi_release(s);
    return NULL;
  }
  s->size = nbytes;
  return s;
}

typedef struct {
  DLManagedTensorVersioned m;
  int64_t shape[];
} storage_view;

static void storage_view_delete(DLManagedTensorVersioned* m) {
  tvm_ffi_release(m->manager_ctx);
  tvm_ffi_free(m);
}

int64_t tvm_vm__nbytes(const int64_t* shape, int32_t ndim, DLDataType dtype, const char* what) {
  if (ndim < 0 || ndim > TVM_VM_MAX_TENSOR_NDIM) {
    tvm_ffi_raise("ValueError", "%s: ndim %d out of range [0, %d]", what, (int)ndim,
                  TVM_VM_MAX_TENSOR_NDIM);
    return -1;
  }
  if (dtype.bits == 0 || dtype.lanes == 0) {
    tvm_ffi_raise("ValueError", "%s: dtype with zero bits or lanes", what);
    return -1;
  }
  int64_t numel = 1;
  for (int32_t d = 0; d < ndim; ++d) {
    if (shape[d] < 0) {
      tvm_ffi_raise("ValueError", "%s: dimension %d is negative (%lld)", what, (int)d,
                    (long long)shape[d]);
      return -1;
    }
    if (__builtin_mul_overflow(numel, shape[d], &numel) ||
        __builtin_mul_overflow(numel, (int64_t)dtype.bits * dtype.lanes, &(int64_t){0})) {
      tvm_ffi_raise("ValueError", "%s: tensor size overflows", what);
      return -1;
    }
  }
  /* The tvm-ffi rule (sub-byte types packed, one byte per bool): what tensors are sized by. */
  DLTensor proto = {.ndim = ndim, .dtype = dtype, .shape = (int64_t*)shape};
  int64_t n = tvm_ffi_dltensor_nbytes(&proto);
  if (n < 0) tvm_ffi_raise_context("%s", what);
  return n;
}

void* tvm_vm__storage_tensor(tvm_vm_storage_obj* s, int64_t offset, const int64_t* shape,
                             int32_t ndim, DLDataType dtype) {
  int64_t nbytes = tvm_vm__nbytes(shape, ndim, dtype, "vm.builtin.alloc_tensor");
  if (nbytes < 0) return NULL;
  if (offset < 0 || (uint64_t)offset > s->size || (uint64_t)nbytes > s->size - (uint64_t)offset) {
    tvm_ffi_raise("ValueError",
                  "vm.builtin.alloc_tensor: %lld bytes at offset %lld do not fit in a storage of "
                  "%zu bytes",
                  (long long)nbytes, (long long)offset, s->size);
    return NULL;
  }
  storage_view* v = (storage_view*)tvm_ffi_calloc(1, sizeof(storage_view) + (size_t)ndim * 8);
  if (!v) return NULL;
  if (ndim) memcpy(v->shape, shape, (size_t)ndim * 8);
  tvm_ffi_retain(s);
  v->m.version.major = DLPACK_MAJOR_VERSION;
  v->m.version.minor = DLPACK_MINOR_VERSION;
  v->m.manager_ctx = s;
  v->m.deleter = storage_view_delete;
  v->m.dl_tensor.data = (char*)s->data + offset;
  v->m.dl_tensor.device = s->device;
  v->m.dl_tensor.ndim = ndim;
  v->m.dl_tensor.dtype = dtype;
  v->m.dl_tensor.shape = v->shape;
  void* t = NULL;
  if (TVMFFITensorFromDLPackVersioned(&v->m, 0, 0, &t) != 0) {
    storage_view_delete(&v->m);
    return NULL;
  }
  return t;
}

void* tvm_vm__alloc_tensor(tvm_vm_allocator* alloc, const int64_t* shape, int32_t ndim,
                           DLDataType dtype) {
  int64_t nbytes = tvm_vm__nbytes(shape, ndim, dtype, "allocating a tensor");
  if (nbytes < 0) return NULL;
  tvm_vm_storage_obj* s = tvm_vm__storage_new(alloc, (size_t)nbytes);
  if (!s) return NULL;
  void* t = tvm_vm__storage_tensor(s, 0, shape, ndim, dtype);
  tvm_ffi_release(s);
  return t;
}

int tvm_vm__tensor_copy(const DLTensor* from, const DLTensor* to) {
  if (!tvm_ffi_dltensor_is_contiguous(from) || !tvm_ffi_dltensor_is_contiguous(to)) {
    return tvm_ffi_raise("ValueError", "tensor copy: only compact tensors can be copied");
  }
  int64_t n = tvm_ffi_dltensor_nbytes(from);
  if (n != tvm_ffi_dltensor_nbytes(to)) {
    return tvm_ffi_raise("ValueError", "tensor copy: sizes differ (%lld vs %lld bytes)",
                         (long long)n, (long long)tvm_ffi_dltensor_nbytes(to));
  }
  DLDevice fd = from->device, td = to->device;
  DLDevice other = fd.device_type != kDLCPU ? fd : td;
  if (fd.device_type != kDLCPU && td.device_type != kDLCPU && fd.device_type != td.device_type) {
    return tvm_ffi_raise("ValueError", "tensor copy between %s and %s is not supported",
                         tvm_vm__device_name(fd), tvm_vm__device_name(td));
  }
  const tvm_vm_device_api* api = tvm_vm__device_api(other);
  if (!api) return -1;
  return api->copy((const char*)from->data + from->byte_offset, fd,
                   (char*)to->data + to->byte_offset, td, (size_t)n);
}

void* tvm_vm__tensor_to_device(const DLTensor* src, DLDevice dev, tvm_vm_allocator* alloc) {
  if (!alloc && !(alloc = tvm_vm__default_allocator(dev))) return NULL;
  void* t = tvm_vm__alloc_tensor(alloc, src->shape, src->ndim, src->dtype);
  if (!t) return NULL;
  if (tvm_vm__tensor_copy(src, tvm_ffi_tensor_dl(t)) != 0) {
    tvm_ffi_release(t);
    return NULL;
  }
  return t;
}

/* Strided CPU gather into a compact buffer, one element (of `elem` bytes) at a time. */
static void gather_strided(const DLTensor* t, int64_t elem, char* dst) {
  int64_t idx[TVM_VM_MAX_TENSOR_NDIM] = {0};
  int64_t numel = tvm_ffi_dltensor_numel(t);
  const char* base = (const char*)t->data + t->byte_offset;
  for (int64_t i = 0; i < numel; ++i) {
    int64_t off = 0;
    for (int32_t d = 0; d < t->ndim; ++d) off += idx[d] * t->strides[d];
    memcpy(dst + i * elem, base + off * elem, (size_t)elem);
    for (int32_t d = t->ndim - 1; d >= 0; --d) {
      if (++idx[d] < t->shape[d]) break;
      idx[d] = 0;
    }
  }
}

void* tvm_vm__tensor_copy_to_cpu(const DLTensor* t) {
  int64_t nbytes = tvm_vm__nbytes(t->shape, t->ndim, t->dtype, "copying a tensor");
  if (nbytes < 0) return NULL;
  DLDevice cpu = TVMFFIDLDeviceFromIntPair(kDLCPU, 0);
  void* out = tvm_ffi_tensor_empty(t->shape, t->ndim, t->dtype, cpu);
  if (!out) return NULL;
  DLTensor* o = tvm_ffi_tensor_dl(out);
  int rc = 0;
  if (tvm_ffi_dltensor_is_contiguous(t)) {
    rc = tvm_vm__tensor_copy(t, o);
  } else if (t->device.device_type == kDLCPU && t->dtype.bits % 8 == 0) {
    gather_strided(t, (int64_t)t->dtype.bits / 8 * t->dtype.lanes, (char*)o->data + o->byte_offset);
  } else {
    rc = tvm_ffi_raise("ValueError", "cannot copy a strided %s tensor", tvm_vm__device_name(t->device));
  }
  if (rc != 0) {
    tvm_ffi_release(out);
    return NULL;
  }
  return out;
}

int tvm_vm__register_memory_types(void);
int tvm_vm__register_memory_types(void) {
  g_allocator_type = tvm_ffi_type_register("vm.Allocator", kTVMFFIObject, -1,
                                           sizeof(tvm_vm_allocator), allocator_destroy,
                                           kTVMFFISEqHashKindUniqueInstance);
  g_storage_type = tvm_ffi_type_register("vm.Storage", kTVMFFIObject, -1,
                                         sizeof(tvm_vm_storage_obj), storage_destroy,
                                         kTVMFFISEqHashKindUniqueInstance);
  return g_allocator_type < 0 || g_storage_type < 0 ? -1 : 0;
}
