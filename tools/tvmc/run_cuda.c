/*
 * run_cuda.c: `tvmc run --target cuda`: the kernel's tensors on the GPU. The inputs tvmc makes
 * live in host memory; a wrapper Function copies every tensor argument to CUDA device 0 (libvm's
 * vm.builtin.to_device), calls the kernel there and copies the tensors back, so that the
 * comparison with the interpreter works on host memory as for the CPU. Timing keeps the tensors
 * on the device: after a warm-up launch, CUDA events recorded on the stream around `repeat`
 * launches (libvm's vm.builtin.cuda_time_launches: cuEventRecord, cuEventSynchronize,
 * cuEventElapsedTime) give the mean device time per launch.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/vm/vm.h>

#include "run.h"
#include "tvmc.h"

/* A tensor object holding a copy of t's elements (compact, host memory). */
static void* host_copy(const DLTensor* t) {
  void* h = tvm_ffi_tensor_empty(t->shape, t->ndim, t->dtype, (DLDevice){kDLCPU, 0});
  if (!h) return NULL;
  size_t n = (size_t)tvm_ffi_dtype_bytes(t->dtype);
  for (int d = 0; d < t->ndim; ++d) n *= (size_t)t->shape[d];
  memcpy(tvm_ffi_tensor_dl(h)->data, (const char*)t->data + t->byte_offset, n);
  return h;
}

/* t copied to (type, 0): a new tensor, or NULL + error. */
static void* copy_to(void* t, int type) {
  TVMFFIAny args[3] = {tvm_ffi_any_obj(t), tvm_ffi_any_int(type), tvm_ffi_any_int(0)};
  TVMFFIAny out = tvm_ffi_any_none();
  if (tvm_ffi_global_call("vm.builtin.to_device", args, 3, &out) != 0) return NULL;
  return out.v_obj;
}

static bool compact(const DLTensor* t) {
  if (!t->strides) return true;
  int64_t expect = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    if (t->shape[d] != 1 && t->strides[d] != expect) return false;
    expect *= t->shape[d];
  }
  return true;
}

/* Device copies of the tensor arguments of args[0..n) into dev[] (NULL for the others) and the
 * arguments to pass in out[]. */
static int to_device_args(const TVMFFIAny* args, int32_t n, void** dev, TVMFFIAny* out) {
  for (int32_t k = 0; k < n; ++k) {
    dev[k] = NULL;
    out[k] = args[k];
    if (args[k].type_index != kTVMFFIDLTensorPtr) {
      if (args[k].type_index == kTVMFFIOpaquePtr)
        return tvm_ffi_raise("NotImplementedError",
                             "tvmc run --target cuda: argument %d is a raw pointer (a handle "
                             "parameter); only tensors are copied to the GPU",
                             (int)k);
      continue;
    }
    const DLTensor* t = args[k].v_ptr;
    if (!compact(t))
      return tvm_ffi_raise("NotImplementedError",
                           "tvmc run --target cuda: argument %d is strided; only compact tensors "
                           "are copied to the GPU",
                           (int)k);
    void* h = host_copy(t);
    dev[k] = h ? copy_to(h, kDLCUDA) : NULL;
    tvm_ffi_release(h);
    if (!dev[k]) return -1;
    out[k] = tvm_ffi_any_obj(dev[k]);
  }
  return 0;
}

static void release_all(void** dev, int32_t n) {
  for (int32_t k = 0; k < n; ++k) tvm_ffi_release(dev[k]);
}

/* The wrapper's call: copy in, run, copy every tensor back into the caller's memory. */
static int run_on_gpu(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (n > TVMC_MAX_PARAMS) return tvm_ffi_raise("ValueError", "too many arguments");
  void* dev[TVMC_MAX_PARAMS];
  TVMFFIAny dargs[TVMC_MAX_PARAMS];
  int rc = to_device_args(args, n, dev, dargs);
  if (rc == 0) rc = tvm_ffi_function_call(self, dargs, n, rv);
  for (int32_t k = 0; rc == 0 && k < n; ++k) {
    if (!dev[k]) continue;
    void* back = copy_to(dev[k], kDLCPU);
    if (!back) {
      rc = -1;
      break;
    }
    const DLTensor* t = args[k].v_ptr;
    size_t bytes = (size_t)tvm_ffi_dtype_bytes(t->dtype);
    for (int d = 0; d < t->ndim; ++d) bytes *= (size_t)t->shape[d];
    memcpy((char*)t->data + t->byte_offset, tvm_ffi_tensor_dl(back)->data, bytes);
    tvm_ffi_release(back);
  }
  release_all(dev, n);
  return rc;
}

static void release_fn(void* self) { tvm_ffi_release(self); }

void* tvmc_cuda_wrap(void* fn) {
  tvm_ffi_retain(fn);
  void* w = tvm_ffi_function_new(fn, run_on_gpu, release_fn);
  if (!w) tvm_ffi_release(fn);
  return w;
}

/* One launch of the kernel on the device arguments (the closure vm.builtin.cuda_time_launches
 * calls). */
typedef struct {
  void* fn;
  const TVMFFIAny* args;
  int32_t n;
} launch_ctx;

static int launch_once(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)args;
  (void)n;
  const launch_ctx* c = self;
  return tvm_ffi_function_call(c->fn, c->args, c->n, rv);
}

/* The milliseconds CUDA events measure around `repeat` launches on device 0. */
static int time_launches(void* fn, const TVMFFIAny* dargs, int32_t n, int64_t repeat, double* ms) {
  launch_ctx c = {fn, dargs, n};
  void* once = tvm_ffi_function_new(&c, launch_once, NULL);
  if (!once) return -1;
  TVMFFIAny a[3] = {tvm_ffi_any_int(0), tvm_ffi_any_obj(once), tvm_ffi_any_int(repeat)};
  TVMFFIAny out = tvm_ffi_any_none();
  int rc = tvm_ffi_global_call("vm.builtin.cuda_time_launches", a, 3, &out);
  tvm_ffi_release(once);
  if (rc == 0 && out.type_index != kTVMFFIFloat)
    rc = tvm_ffi_raise("TypeError", "vm.builtin.cuda_time_launches returned no float");
  if (rc == 0) *ms = out.v_float64;
  return rc;
}

/* Wait for the device: copy one element of a device tensor back (the copy waits for the
 * stream the kernels were launched on). */
static int device_sync(void* t) {
  int64_t one = 1;
  void* v = tvm_ffi_tensor_view(t, &one, 1, NULL, 0, tvm_ffi_tensor_dl(t)->dtype);
  void* back = v ? copy_to(v, kDLCPU) : NULL;
  tvm_ffi_release(v);
  tvm_ffi_release(back);
  return back ? 0 : -1;
}

int tvmc_cuda_time(void* fn, const char* name, const tvmc_args* args, int64_t repeat,
                   const tvmc_counts* counts) {
  void* dev[TVMC_MAX_PARAMS];
  TVMFFIAny dargs[TVMC_MAX_PARAMS], ret = tvm_ffi_any_none();
  void* any_dev = NULL;
  int rc = to_device_args(args->args, args->n, dev, dargs);
  for (int k = 0; rc == 0 && k < args->n && !any_dev; ++k) any_dev = dev[k];
  if (rc == 0 && !any_dev) rc = tvm_ffi_raise("ValueError", "the kernel has no tensor argument");
  double ms = 0;
  /* a warm-up launch (module load, first-launch costs), then the timed ones */
  if (rc == 0) rc = tvm_ffi_function_call(fn, dargs, args->n, &ret);
  tvm_ffi_any_release(&ret);
  if (rc == 0) rc = device_sync(any_dev);
  if (rc == 0) rc = time_launches(fn, dargs, args->n, repeat, &ms);
  release_all(dev, args->n);
  if (rc != 0) {
    tvmc_report_error("run", "the kernel failed on the GPU");
    return TVMC_FAILURE;
  }
  double mean = ms * 1e-3 / (double)repeat;
  double bytes = tvmc_args_bytes(args);
  char flops[64] = "n/a GFLOP/s";
  if (counts->known && mean > 0)
    snprintf(flops, sizeof(flops), "%.2f GFLOP/s (%.0f flops)", counts->flops / mean * 1e-9,
             counts->flops);
  printf("%s: mean %.4g ms over %lld launches on cuda:0 (CUDA events around the launches); "
         "%s, %.2f GB/s (%.0f bytes)\n",
         name, mean * 1e3, (long long)repeat, flops, mean > 0 ? bytes / mean * 1e-9 : 0.0, bytes);
  return TVMC_OK;
}
