/*
 * cuda_bench.c: GPU kernels of tests/gpu/kernels compiled for CUDA and timed on GPU 0, next to
 * the device's own copy bandwidth measured in the same run. Prints a table; without a CUDA
 * driver it says so and exits 0.
 *
 *   copy    a 1 GiB device-to-device copy by the driver (vm.builtin.to_device, which allocates
 *           the destination: that is in the time); GB/s counts bytes read + written
 *   add     C = A + B over 1 GiB per buffer (add.py); GB/s counts 3 buffers
 *   matmul  4096 x 4096 float32 through 16x16 shared-memory tiles (matmul_tiled.py)
 *   softmax rows of 256 over 1M rows, shared-memory tree reductions (softmax.py)
 *   softmax_warp  the same rows, a warp per row, tvm_thread_allreduce lowered to warp shuffles
 *           (softmax_warp.py)
 * Each kernel: a warm-up launch, then the median of 5 rounds of `iters` launches closed by one
 * synchronisation (a one-element copy back), per launch.
 */
#include <string.h>
#include <tvm/codegen/codegen.h>
#include <tvm/script/parser.h>
#include <tvm/tir/transform.h>
#include <tvm/vm/vm.h>

#include "bench_util.h"

#ifndef BENCH_GPU_KERNEL_DIR
#error "BENCH_GPU_KERNEL_DIR must name tests/gpu/kernels"
#endif

static void* to_device(void* t, int type) {
  TVMFFIAny args[3] = {tvm_ffi_any_obj(t), tvm_ffi_any_int(type), tvm_ffi_any_int(0)}, out;
  return tvm_ffi_global_call("vm.builtin.to_device", args, 3, &out) == 0 ? out.v_obj : NULL;
}

static int sync_on(void* dev) {
  int64_t one = 1;
  void* v = tvm_ffi_tensor_view(dev, &one, 1, NULL, 0, tvm_ffi_tensor_dl(dev)->dtype);
  void* back = v ? to_device(v, kDLCPU) : NULL;
  tvm_ffi_release(v);
  tvm_ffi_release(back);
  return back ? 0 : -1;
}

/* A device tensor of shape (d0[, d1]) float32 filled with small values (copied from the host). */
static void* device_tensor(int ndim, int64_t d0, int64_t d1) {
  int64_t shape[2] = {d0, d1};
  void* h = tvm_ffi_tensor_empty(shape, ndim, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
  if (!h) return NULL;
  float* p = tvm_ffi_tensor_dl(h)->data;
  int64_t n = ndim == 1 ? d0 : d0 * d1;
  for (int64_t i = 0; i < n; ++i) p[i] = (float)((i * 7) % 13) * 0.125f - 0.75f;
  void* d = to_device(h, kDLCUDA);
  tvm_ffi_release(h);
  return d;
}

static void* build(const char* file, const char* name, void** out_mod) {
  char path[1024];
  snprintf(path, sizeof(path), "%s/%s", BENCH_GPU_KERNEL_DIR, file);
  FILE* fp = fopen(path, "rb");
  if (!fp) return NULL;
  static char text[1 << 16];
  size_t n = fread(text, 1, sizeof(text) - 1, fp);
  fclose(fp);
  tvm_script_parse_options o;
  tvm_script_parse_options_init(&o);
  void* ir = tvm_script_parse(text, n, &o);
  void* low = ir ? tvm_tir_lower(ir, NULL) : NULL;
  void* m = low ? tvm_codegen_build(low, "cuda", NULL) : NULL;
  void* fn = NULL;
  if (m) tvm_ffi_module_get_function(m, name, false, &fn);
  tvm_ffi_release(ir);
  tvm_ffi_release(low);
  *out_mod = m;
  return fn;
}

/* Median per-launch seconds of fn(args) over 5 rounds of iters launches. */
static double time_fn(void* fn, TVMFFIAny* args, int n, void* sync, int iters) {
  TVMFFIAny r;
  if (tvm_ffi_function_call(fn, args, n, &r) != 0 || sync_on(sync) != 0) return -1;
  double t;
  int bad = 0;
  BENCH_MEDIAN_NS(t, 5, 1, {
    for (int k = 0; k < iters; ++k) bad |= tvm_ffi_function_call(fn, args, n, &r);
    bad |= sync_on(sync);
  });
  return bad ? -1 : t * 1e-9 / iters;
}

static void row(const char* what, const char* size, double s, double bytes, double flops, double base) {
  if (s <= 0) {
    void* e = tvm_ffi_error_take();
    printf("%-8s %-22s failed: %s\n", what, size, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    return;
  }
  double gbs = bytes / s * 1e-9;
  printf("%-8s %-22s %10.3f ms %9.1f GB/s", what, size, s * 1e3, gbs);
  if (flops > 0) printf(" %9.1f GFLOP/s", flops / s * 1e-9);
  if (base > 0) printf("  (%.0f%% of the copy)", 100.0 * gbs / base);
  printf("\n");
}

int main(void) {
  tvm_vm_init();
  void* probe_mod = NULL;
  void* probe = build("add.py", "add", &probe_mod);
  if (!probe) {
    void* e = tvm_ffi_error_take();
    const char* msg = e ? tvm_ffi_error_message(e) : "the add kernel did not build";
    if (strstr(msg, "no CUDA driver")) {
      printf("skipped: no CUDA GPU here (%s)\n", msg);
      tvm_ffi_release(e);
      return 0;
    }
    fprintf(stderr, "cuda_bench: %s\n", msg);
    tvm_ffi_release(e);
    return 1;
  }
  printf("%-8s %-22s %13s %14s\n", "kernel", "size", "time/launch", "bandwidth");
  /* copy baseline: 1 GiB */
  const int64_t n = 1LL << 28;
  void* a = device_tensor(1, n, 0);
  double copy_gbs = 0;
  if (a) {
    tvm_ffi_release(to_device(a, kDLCUDA)); /* warm-up (the allocation pool) */
    double t;
    BENCH_MEDIAN_NS(t, 5, 1, {
      void* c = to_device(a, kDLCUDA);
      sync_on(c);
      tvm_ffi_release(c);
    });
    copy_gbs = 2.0 * (double)n * 4 / (t * 1e-9) * 1e-9;
    row("copy", "1 GiB (d2d, driver)", t * 1e-9, 2.0 * (double)n * 4, 0, 0);
  }
  void* b = device_tensor(1, n, 0);
  void* c = device_tensor(1, n, 0);
  if (a && b && c) {
    TVMFFIAny args[3] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b), tvm_ffi_any_obj(c)};
    row("add", "3 x 1 GiB", time_fn(probe, args, 3, c, 5), 3.0 * (double)n * 4, (double)n, copy_gbs);
  }
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(c);
  tvm_ffi_release(probe);
  tvm_ffi_release(probe_mod);
  void* mm_mod;
  void* mm = build("matmul_tiled.py", "matmul", &mm_mod);
  const int64_t m = 4096;
  a = device_tensor(2, m, m), b = device_tensor(2, m, m), c = device_tensor(2, m, m);
  if (mm && a && b && c) {
    TVMFFIAny args[3] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b), tvm_ffi_any_obj(c)};
    row("matmul", "4096^3 (16x16 tiles)", time_fn(mm, args, 3, c, 3), 3.0 * (double)m * m * 4,
        2.0 * (double)m * m * m, 0);
  }
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(c);
  tvm_ffi_release(mm);
  tvm_ffi_release(mm_mod);
  void* sm_mod;
  void* sm = build("softmax.py", "softmax", &sm_mod);
  const int64_t rows = 1 << 20;
  a = device_tensor(2, rows, 256), b = device_tensor(2, rows, 256);
  if (sm && a && b) {
    TVMFFIAny args[2] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b)};
    row("softmax", "1M rows x 256", time_fn(sm, args, 2, b, 5), 2.0 * (double)rows * 256 * 4, 0,
        copy_gbs);
  }
  void* smw_mod;
  void* smw = build("softmax_warp.py", "softmax_warp", &smw_mod);
  if (smw && a && b) {
    TVMFFIAny args[2] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b)};
    row("softmax_warp", "1M rows x 256", time_fn(smw, args, 2, b, 5), 2.0 * (double)rows * 256 * 4,
        0, copy_gbs);
  }
  tvm_ffi_release(smw);
  tvm_ffi_release(smw_mod);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(sm);
  tvm_ffi_release(sm_mod);
  return 0;
}
