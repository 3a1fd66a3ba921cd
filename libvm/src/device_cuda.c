/*
 * device_cuda.c: CUDA devices through the driver API, loaded with dlopen on first use, so
 * libvm needs no CUDA headers or libraries to build and runs without a driver.
 *
 * The library is libcuda.so.1, or $TVM_VM_LIBCUDA when set (tests point it at a fake driver).
 * Each device uses its primary context; copies run on the stream TVMFFIEnvGetStream gives
 * for the device (NULL: the default stream) and copies to or from host memory wait for it.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <tvm-private/vm.h>

#include "builtin_list.h"
#include "cuda_driver.h"

static struct {
  pthread_mutex_t lock;
  int state; /* 0: not tried, 1: loaded, -1: failed (message in error) */
  char error[512];
  void* handle;
  int num_devices;
  CUcontext ctx[CUDA_MAX_DEVICES];
  tvm_vm_cuda_driver api;
} g_cu = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const char* cu_error_string(CUresult r) {
  const char* s = NULL;
  if (g_cu.api.GetErrorString && g_cu.api.GetErrorString(r, &s) == 0 && s) return s;
  return "unknown error";
}

static const char* cu_error_name(CUresult r) {
  const char* s = NULL;
  if (g_cu.api.GetErrorName && g_cu.api.GetErrorName(r, &s) == 0 && s) return s;
  return "CUDA_ERROR_UNKNOWN";
}

/* Errors carry the driver's name of the code (CUDA_ERROR_INVALID_VALUE), its number and text. */
static int cu_check(CUresult r, const char* call) {
  if (r == 0) return 0;
  return tvm_ffi_raise("RuntimeError", "CUDA: %s failed: %s (%d): %s", call, cu_error_name(r),
                       (int)r, cu_error_string(r));
}

int tvm_vm__cuda_check(CUresult r, const char* call) { return cu_check(r, call); }

static int load_locked(void) {
  const char* path = getenv("TVM_VM_LIBCUDA");
  if (!path || !path[0]) path = "libcuda.so.1";
  g_cu.handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
  if (!g_cu.handle) {
    const char* why = dlerror();
    snprintf(g_cu.error, sizeof(g_cu.error), "no CUDA driver: CUDA driver (%s) not available: %s", path,
             why ? why : "dlopen failed");
    return -1;
  }
#define CUDA_LOAD_(field, sym, params)                                                      \
  g_cu.api.field = (CUresult(*) params)dlsym(g_cu.handle, sym);                           \
  if (!g_cu.api.field) {                                                                   \
    snprintf(g_cu.error, sizeof(g_cu.error), "CUDA driver (%s) has no symbol %s", path, sym); \
    return -1;                                                                             \
  }
  CUDA_SYMBOLS(CUDA_LOAD_)
#undef CUDA_LOAD_
  CUresult r = g_cu.api.Init(0);
  if (r == 0) r = g_cu.api.DeviceGetCount(&g_cu.num_devices);
  if (r != 0) {
    snprintf(g_cu.error, sizeof(g_cu.error), "CUDA driver (%s): initialisation failed: %s (%d)",
             path, cu_error_string(r), (int)r);
    return -1;
  }
  return 0;
}

/* Load the driver once and retain the primary context of device `id`. */
static int cuda_init(DLDevice dev) {
  pthread_mutex_lock(&g_cu.lock);
  if (g_cu.state == 0) __atomic_store_n(&g_cu.state, load_locked() == 0 ? 1 : -1, __ATOMIC_RELEASE);
  int rc = 0;
  if (g_cu.state < 0) {
    rc = tvm_ffi_raise("RuntimeError", "%s", g_cu.error);
  } else if (dev.device_id >= g_cu.num_devices || dev.device_id >= CUDA_MAX_DEVICES) {
    rc = tvm_ffi_raise("ValueError", "CUDA device %d does not exist (%d devices)",
                       (int)dev.device_id, g_cu.num_devices);
  } else if (!g_cu.ctx[dev.device_id]) {
    CUdevice d;
    CUcontext ctx = NULL;
    rc = cu_check(g_cu.api.DeviceGet(&d, dev.device_id), "cuDeviceGet");
    if (rc == 0) rc = cu_check(g_cu.api.PrimaryCtxRetain(&ctx, d), "cuDevicePrimaryCtxRetain");
    if (rc == 0) __atomic_store_n(&g_cu.ctx[dev.device_id], ctx, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_cu.lock);
  return rc;
}

/* Make the device's context current on this thread (loading the driver on first use). */
static int set_context(DLDevice dev) {
  CUcontext ctx = NULL;
  if (__atomic_load_n(&g_cu.state, __ATOMIC_ACQUIRE) == 1 && dev.device_id >= 0 &&
      dev.device_id < CUDA_MAX_DEVICES) {
    ctx = __atomic_load_n(&g_cu.ctx[dev.device_id], __ATOMIC_ACQUIRE);
  }
  if (!ctx) {
    if (cuda_init(dev) != 0) return -1;
    ctx = g_cu.ctx[dev.device_id];
  }
  return cu_check(g_cu.api.CtxSetCurrent(ctx), "cuCtxSetCurrent");
}

static int cuda_alloc(DLDevice dev, size_t nbytes, size_t alignment, void** out) {
  *out = NULL;
  if (set_context(dev) != 0) return -1;
  CUdeviceptr p = 0;
  CUresult r = g_cu.api.MemAlloc(&p, nbytes ? nbytes : 1);
  if (r != 0) {
    return tvm_ffi_raise("MemoryError", "CUDA: cuMemAlloc of %zu bytes on cuda:%d failed: %s",
                         nbytes, (int)dev.device_id, cu_error_string(r));
  }
  *out = (void*)(uintptr_t)p;
  return 0;
}

static void cuda_free(DLDevice dev, void* ptr) {
  if (set_context(dev) != 0) {
    tvm_ffi_error_clear();
    return;
  }
  g_cu.api.MemFree((CUdeviceptr)(uintptr_t)ptr);
}

static int cuda_copy(const void* from, DLDevice fd, void* to, DLDevice td, size_t n) {
  if (n == 0) return 0;
  DLDevice dev = fd.device_type == kDLCUDA ? fd : td;
  if (set_context(dev) != 0) return -1;
  CUstream s = (CUstream)TVMFFIEnvGetStream(kDLCUDA, dev.device_id);
  CUdeviceptr src = (CUdeviceptr)(uintptr_t)from, dst = (CUdeviceptr)(uintptr_t)to;
  if (fd.device_type == kDLCUDA && td.device_type == kDLCUDA) {
    return cu_check(g_cu.api.MemcpyDtoDAsync(dst, src, n, s), "cuMemcpyDtoDAsync");
  }
  int rc = fd.device_type == kDLCUDA ? cu_check(g_cu.api.MemcpyDtoHAsync(to, src, n, s), "cuMemcpyDtoHAsync")
                                     : cu_check(g_cu.api.MemcpyHtoDAsync(dst, from, n, s), "cuMemcpyHtoDAsync");
  /* The host side may be read or freed as soon as we return. */
  return rc ? rc : cu_check(g_cu.api.StreamSynchronize(s), "cuStreamSynchronize");
}

static int cuda_sync(DLDevice dev) {
  if (set_context(dev) != 0) return -1;
  return cu_check(g_cu.api.StreamSynchronize((CUstream)TVMFFIEnvGetStream(kDLCUDA, dev.device_id)),
                  "cuStreamSynchronize");
}

const tvm_vm_device_api tvm_vm__cuda_api = {"cuda", cuda_init, cuda_alloc, cuda_free, cuda_copy,
                                            cuda_sync};

int tvm_vm__cuda_set_context(DLDevice dev) { return set_context(dev); }

const tvm_vm_cuda_driver* tvm_vm__cuda_driver(void) {
  if (__atomic_load_n(&g_cu.state, __ATOMIC_ACQUIRE) != 1) {
    pthread_mutex_lock(&g_cu.lock);
    if (g_cu.state == 0) __atomic_store_n(&g_cu.state, load_locked() == 0 ? 1 : -1, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_cu.lock);
    if (g_cu.state != 1) {
      tvm_ffi_raise("RuntimeError", "%s", g_cu.error);
      return NULL;
    }
  }
  return &g_cu.api;
}

int tvm_vm__cuda_compute_capability(int device_id, int* major, int* minor) {
  DLDevice dev = {kDLCUDA, device_id};
  if (cuda_init(dev) != 0) return -1;
  CUdevice d;
  int rc = cu_check(g_cu.api.DeviceGet(&d, device_id), "cuDeviceGet");
  if (rc == 0)
    rc = cu_check(g_cu.api.DeviceGetAttribute(major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, d),
                  "cuDeviceGetAttribute");
  if (rc == 0)
    rc = cu_check(g_cu.api.DeviceGetAttribute(minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, d),
                  "cuDeviceGetAttribute");
  return rc;
}

/* vm.builtin.cuda_time_launches(device_id, fn, repeat): CUDA events recorded on the device's
 * stream (TVMFFIEnvGetStream) before and after `repeat` calls of fn(), the second waited for;
 * the milliseconds between them (cuEventElapsedTime), a float. Events are destroyed on every
 * path; a driver error is raised with its name. */
int tvm_vm__builtin_cuda_time_launches(void* self, const TVMFFIAny* args, int32_t n,
                                       TVMFFIAny* rv) {
  (void)self;
  const char* fname = "vm.builtin.cuda_time_launches";
  int64_t id, repeat;
  if (!tvm_ffi_check_num_args(fname, n, 3) || !tvm_ffi_arg_int(fname, args, 0, &id) ||
      !tvm_ffi_arg_int(fname, args, 2, &repeat)) {
    return -1;
  }
  if (args[1].type_index != kTVMFFIFunction)
    return tvm_ffi_raise("TypeError", "%s: argument 1 must be a Function", fname);
  if (id < 0 || id >= CUDA_MAX_DEVICES || repeat < 1)
    return tvm_ffi_raise("ValueError", "%s: bad device %lld or repeat %lld", fname, (long long)id,
                         (long long)repeat);
  DLDevice dev = {kDLCUDA, (int32_t)id};
  if (set_context(dev) != 0) return -1;
  CUstream s = (CUstream)TVMFFIEnvGetStream(kDLCUDA, dev.device_id);
  CUevent ev[2] = {NULL, NULL};
  int rc = cu_check(g_cu.api.EventCreate(&ev[0], 0), "cuEventCreate");
  if (rc == 0) rc = cu_check(g_cu.api.EventCreate(&ev[1], 0), "cuEventCreate");
  if (rc == 0) rc = cu_check(g_cu.api.EventRecord(ev[0], s), "cuEventRecord");
  for (int64_t r = 0; rc == 0 && r < repeat; ++r) {
    TVMFFIAny out = tvm_ffi_any_none();
    rc = tvm_ffi_function_call(args[1].v_obj, NULL, 0, &out);
    tvm_ffi_any_release(&out);
  }
  if (rc == 0) rc = cu_check(g_cu.api.EventRecord(ev[1], s), "cuEventRecord");
  if (rc == 0) rc = cu_check(g_cu.api.EventSynchronize(ev[1]), "cuEventSynchronize");
  float ms = 0;
  if (rc == 0) rc = cu_check(g_cu.api.EventElapsedTime(&ms, ev[0], ev[1]), "cuEventElapsedTime");
  for (int k = 0; k < 2; ++k)
    if (ev[k]) g_cu.api.EventDestroy(ev[k]);
  if (rc == 0) *rv = tvm_ffi_any_float(ms);
  return rc;
}
