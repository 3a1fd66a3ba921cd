/*
 * test_gpu_launch.c: the host side of CUDA kernels, exported and JIT-compiled.
 *
 *   gpu_launch fake     $TVM_VM_LIBCUDA is tests/vm's fake driver (host memory, launches recorded):
 *                       the exported library's symbols, its loading through
 *                       ffi.Module.load_from_file.so (the library module importing the cuda
 *                       module), the argument checks of the host functions (device type,
 *                       device id, shapes) as located errors, the launch each call makes (grid,
 *                       block, dynamic shared memory, parameters, device, stream), launches of
 *                       nothing, and driver errors by name; the same through the JIT
 *   gpu_launch missing  no driver: export works, loading and JIT say "no CUDA driver"
 *   gpu_launch real     the machine's driver (exits 77, skipped, without one): every kernel run on
 *                       the GPU and compared with the interpreter on the CPU
 */
#include <unistd.h>
#include <tvm/codegen/codegen.h>
#include <tvm/vm/vm.h>

#include "gpu_modes.h"
#include "gpu_testing.h"

#ifndef TVM_GPU_TMPDIR
#define TVM_GPU_TMPDIR "/tmp"
#endif


static bool raised_(int line, const char* kind, const char* part) {
  void* e = tvm_ffi_error_take();
  bool ok = e && strcmp(tvm_ffi_error_kind(e), kind) == 0 && strstr(tvm_ffi_error_message(e), part);
  if (!ok) {
    fprintf(stderr, "line %d: expected %s containing \"%s\", got %s: %s\n", line, kind, part,
            e ? tvm_ffi_error_kind(e) : "nothing", e ? tvm_ffi_error_message(e) : "");
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
  return ok;
}
#define RAISED(kind, part) raised_(__LINE__, (kind), (part))

/* A kernel file lowered (a new reference). */
static void* lowered_(int line, const char* file) {
  void* f = test_parse_file_(line, TVM_GPU_KERNEL_DIR, file);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  if (f && !g) gpu_fail_(line, "lowering");
  tvm_ffi_release(f);
  return g;
}
#define lowered(file) lowered_(__LINE__, (file))

static void export_path(const char* tag, char* out, size_t n) {
  snprintf(out, n, "%s/gpu_launch_%s_%d.so", TVM_GPU_TMPDIR, tag, (int)getpid());
}

/* Every undefined dynamic symbol of the library is a TVMFFI* function (or a weak C runtime
 * one): no libc, no CUDA. Returns how many TVMFFI* it references. */
static int ffi_only_symbols(const char* path) {
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "nm -D --undefined-only '%s'", path);
  FILE* p = popen(cmd, "r");
  if (!p) return -1;
  char line[512];
  int n = 0;
  while (fgets(line, sizeof(line), p)) {
    char type[8] = {0}, name[400] = {0};
    if (sscanf(line, " %7s %399s", type, name) != 2) continue;
    if (strncmp(name, "TVMFFI", 6) == 0) {
      n++;
    } else if (strcmp(type, "w") != 0) {
      fprintf(stderr, "unexpected undefined symbol: %s\n", name);
      g_test_failed_checks++;
    }
  }
  pclose(p);
  return n;
}

/* A float32 tensor of the CUDA device `id` over host memory (what the fake driver gives). */
static DLTensor cuda_view(gpu_buf* b, int id) {
  DLTensor t = b->t;
  t.device = (DLDevice){kDLCUDA, id};
  return t;
}

static void* module_function(void* mod, const char* name) {
  void* fn = NULL;
  if (tvm_ffi_module_get_function(mod, name, false, &fn) != 0 || !fn) {
    fprintf(stderr, "no function %s\n", name);
    g_test_failed_checks++;
  }
  return fn;
}

/* add(A, B, C) over n = 1000 through module m's function: the launch the fake recorded. */
static void check_add_launch(void* m) {
  void* fn = module_function(m, "add");
  if (!fn) return;
  unsigned seed = 3;
  gpu_buf a, b, c;
  gpu_buf_init(&a, 1, 1000, 0, &seed);
  gpu_buf_init(&b, 1, 1000, 0, &seed);
  gpu_buf_init(&c, 1, 1000, 0, NULL);
  DLTensor ta = cuda_view(&a, 0), tb = cuda_view(&b, 0), tc = cuda_view(&c, 0);
  TVMFFIAny args[3] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb), tvm_ffi_any_dltensor(&tc)};
  TVMFFIAny r = tvm_ffi_any_none();
  int launches = FAKE(int (*)(void), "fake_cuda_launches")();
  CHECK(tvm_ffi_function_call(fn, args, 3, &r) == 0);
  CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_launches")(), launches + 1);
  CHECK(strcmp(FAKE(const char* (*)(void), "fake_cuda_last_kernel")(), "add_kernel") == 0);
  unsigned (*dim)(int) = FAKE(unsigned (*)(int), "fake_cuda_last_dim");
  CHECK(dim(0) == 8 && dim(1) == 1 && dim(2) == 1); /* (1000 + 127) // 128 blocks */
  CHECK(dim(3) == 128 && dim(4) == 1 && dim(5) == 1);
  CHECK_EQ_INT(FAKE(unsigned (*)(void), "fake_cuda_last_shmem")(), 0);
  CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_last_nparams")(), 4);
  uint64_t (*param)(int) = FAKE(uint64_t (*)(int), "fake_cuda_last_param");
  CHECK(param(0) == (uint64_t)(uintptr_t)a.data && param(1) == (uint64_t)(uintptr_t)b.data &&
        param(2) == (uint64_t)(uintptr_t)c.data);
  CHECK_EQ_INT((int32_t)param(3), 1000);
  /* on device 1, on its stream */
  ta.device.device_id = tb.device.device_id = tc.device.device_id = 1;
  void* prev = NULL;
  CHECK(TVMFFIEnvSetStream(kDLCUDA, 1, (void*)0x5678, &prev) == 0);
  CHECK(tvm_ffi_function_call(fn, args, 3, &r) == 0);
  CHECK(FAKE(void* (*)(void), "fake_cuda_last_stream")() == (void*)0x5678);
  CHECK(TVMFFIEnvSetStream(kDLCUDA, 1, prev, NULL) == 0);
  /* the argument checks, located */
  tb.device.device_id = 0;
  CHECK(tvm_ffi_function_call(fn, args, 3, &r) != 0);
  RAISED("ValueError", "add: argument B: device id (all tensors on one device): expected 1, got 0");
  tb.device.device_id = 1;
  TVMFFIAny cpu[3] = {tvm_ffi_any_dltensor(&a.t), tvm_ffi_any_dltensor(&b.t), tvm_ffi_any_dltensor(&c.t)};
  CHECK(tvm_ffi_function_call(fn, cpu, 3, &r) != 0);
  RAISED("ValueError", "add: argument A: expected a CUDA tensor (device type 2), got device type 1");
  int64_t short_shape = 999;
  tc.shape = &short_shape;
  CHECK(tvm_ffi_function_call(fn, args, 3, &r) != 0);
  RAISED("ValueError", "add: argument C: shape[0]: expected 1000, got 999");
  tc.shape = c.shape;
  CHECK(tvm_ffi_function_call(fn, args, 2, &r) != 0);
  RAISED("TypeError", "add: expected 3 arguments, got 2");
  /* n = 0: a grid of no block, nothing launched */
  int64_t zero = 0;
  ta.shape = tb.shape = tc.shape = &zero;
  launches = FAKE(int (*)(void), "fake_cuda_launches")();
  CHECK(tvm_ffi_function_call(fn, args, 3, &r) == 0);
  CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_launches")(), launches);
  ta.shape = a.shape, tb.shape = b.shape, tc.shape = c.shape;
  /* a launch the driver refuses: its error, by name */
  FAKE(void (*)(int), "fake_cuda_fail_next")(1);
  CHECK(tvm_ffi_function_call(fn, args, 3, &r) != 0);
  RAISED("RuntimeError", "cuLaunchKernel failed: CUDA_ERROR_INVALID_VALUE (1)");
  gpu_buf_free(&a);
  gpu_buf_free(&b);
  gpu_buf_free(&c);
  tvm_ffi_release(fn);
}

TEST(exported_library) {
  void* g = lowered("add.py");
  char path[512];
  export_path("add", path, sizeof(path));
  CHECK(g && tvm_codegen_export_target(g, "cuda -arch=sm_80", path, NULL) == 0);
  CHECK(ffi_only_symbols(path) > 0);
  void* m = tvm_ffi_module_load_file(path);
  CHECK(m != NULL);
  if (m) {
    /* the library module, importing the cuda module */
    void* imports = ((tvm_ffi_module_obj*)m)->imports;
    CHECK(imports && tvm_ffi_seq_size(imports) == 1);
    if (imports && tvm_ffi_seq_size(imports) == 1)
      CHECK(strcmp(((tvm_ffi_module_obj*)tvm_ffi_seq_obj_at(imports, 0))->vtable->kind, "cuda") == 0);
    check_add_launch(m);
  } else {
    gpu_fail_(__LINE__, "load");
  }
  tvm_ffi_release(m);
  remove(path);
  tvm_ffi_release(g);
}

TEST(jit) {
  void* g = lowered("add.py");
  void* m = g ? tvm_codegen_build(g, "cuda", NULL) : NULL;
  CHECK(m != NULL);
  if (m) check_add_launch(m);
  else gpu_fail_(__LINE__, "build");
  tvm_ffi_release(m);
  tvm_ffi_release(g);
}

/* Launch shapes of the 2-D kernels, dynamic shared memory, the matmul's shape checks. */
TEST(launch_shapes) {
  void* g = lowered("matmul_tiled.py");
  void* m = g ? tvm_codegen_build(g, "cuda -arch=sm_90", NULL) : NULL;
  void* fn = m ? module_function(m, "matmul") : NULL;
  if (fn) {
    gpu_buf a, b, c;
    gpu_buf_init(&a, 2, 64, 64, NULL);
    gpu_buf_init(&b, 2, 64, 64, NULL);
    gpu_buf_init(&c, 2, 64, 64, NULL);
    DLTensor ta = cuda_view(&a, 0), tb = cuda_view(&b, 0), tc = cuda_view(&c, 0);
    TVMFFIAny args[3] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb), tvm_ffi_any_dltensor(&tc)};
    TVMFFIAny r;
    CHECK(tvm_ffi_function_call(fn, args, 3, &r) == 0);
    unsigned (*dim)(int) = FAKE(unsigned (*)(int), "fake_cuda_last_dim");
    CHECK(dim(0) == 4 && dim(1) == 4 && dim(2) == 1 && dim(3) == 16 && dim(4) == 16 && dim(5) == 1);
    int64_t bad[2] = {64, 48};
    tb.shape = bad;
    CHECK(tvm_ffi_function_call(fn, args, 3, &r) != 0);
    RAISED("ValueError", "matmul: argument B: shape[1]: expected 64, got 48");
    /* the kernel's own assertion runs on the host, before the launch */
    int64_t odd[2] = {40, 40};
    ta.shape = tb.shape = tc.shape = odd;
    CHECK(tvm_ffi_function_call(fn, args, 3, &r) != 0);
    RAISED("AssertionError", "n must be a multiple of 16");
    gpu_buf_free(&a);
    gpu_buf_free(&b);
    gpu_buf_free(&c);
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(g);
  /* shared.dyn: its bytes are the last launch parameter */
  const char* text =
      "from tvm.script import tirx as T\n@T.prim_func\n"
      "def d(a: T.handle, b: T.handle):\n"
      "    n = T.int32()\n"
      "    A = T.match_buffer(a, (n, 32), \"float32\")\n"
      "    B = T.match_buffer(b, (n, 32), \"float32\")\n"
      "    bx = T.launch_thread(\"blockIdx.x\", n)\n"
      "    s = T.decl_buffer((n + 32,), \"float32\", scope=\"shared.dyn\")\n"
      "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
      "    s[tx] = A[bx, tx]\n"
      "    T.tvm_storage_sync(\"shared\")\n"
      "    B[bx, tx] = s[31 - tx]\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(text, strlen(text), &opts);
  g = f ? tvm_tir_lower(f, NULL) : NULL;
  m = g ? tvm_codegen_build(g, "cuda", NULL) : NULL;
  fn = m ? module_function(m, "d") : NULL;
  CHECK(fn != NULL);
  if (fn) {
    gpu_buf a, b;
    gpu_buf_init(&a, 2, 3, 32, NULL);
    gpu_buf_init(&b, 2, 3, 32, NULL);
    DLTensor ta = cuda_view(&a, 0), tb = cuda_view(&b, 0);
    TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb)}, r;
    CHECK(tvm_ffi_function_call(fn, args, 2, &r) == 0);
    CHECK_EQ_INT(FAKE(unsigned (*)(void), "fake_cuda_last_shmem")(), (3 + 32) * 4 / 16 * 16 + 16);
    CHECK_EQ_INT(FAKE(unsigned (*)(int), "fake_cuda_last_dim")(0), 3);
    gpu_buf_free(&a);
    gpu_buf_free(&b);
  } else {
    gpu_fail_(__LINE__, "shared.dyn kernel");
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(g);
  tvm_ffi_release(f);
}

/* No driver: export still works; what needs the GPU says why it cannot. */
TEST(no_driver) {
  void* g = lowered("add.py");
  char path[512];
  export_path("nodriver", path, sizeof(path));
  CHECK(g && tvm_codegen_export_target(g, "cuda -arch=sm_80", path, NULL) == 0);
  CHECK(tvm_ffi_module_load_file(path) == NULL);
  RAISED("RuntimeError", "no CUDA driver");
  CHECK(g && tvm_codegen_build(g, "cuda", NULL) == NULL);
  RAISED("RuntimeError", "no CUDA driver");
  remove(path);
  tvm_ffi_release(g);
}

/* ---- On a GPU -------------------------------------------------------------------------------- */
/* t (a host tensor) copied to the device (kDLCUDA, 0) or back, through libvm's builtin. */
static void* to_device(void* t, int type) {
  TVMFFIAny args[3] = {tvm_ffi_any_obj(t), tvm_ffi_any_int(type), tvm_ffi_any_int(0)}, out;
  if (tvm_ffi_global_call("vm.builtin.to_device", args, 3, &out) != 0) return NULL;
  return out.v_obj;
}

typedef struct {
  const char* file;
  const char* name;
  int nbuf;
  int ndim[3];
  int64_t dims[3][2];
  double tol;
} gpu_case;

static const gpu_case kGpu[] = {
    {"add.py", "add", 3, {1, 1, 1}, {{100000}, {100000}, {100000}}, 0},
    {"row_sum.py", "row_sum", 2, {2, 1}, {{300, 256}, {300}}, 1e-5},
    {"matmul_tiled.py", "matmul", 3, {2, 2, 2}, {{256, 256}, {256, 256}, {256, 256}}, 1e-4},
    {"matmul_sched.py", "matmul_sched", 3, {2, 2, 2}, {{64, 64}, {64, 64}, {64, 64}}, 1e-4},
    {"transpose.py", "transpose", 2, {2, 2}, {{333, 517}, {517, 333}}, 0},
    {"softmax.py", "softmax", 2, {2, 2}, {{200, 256}, {200, 256}}, 1e-5},
    {"row_sum_allreduce.py", "row_sum_allreduce", 2, {2, 1}, {{300, 256}, {300}}, 1e-5},
    {"softmax_warp.py", "softmax_warp", 2, {2, 2}, {{200, 256}, {200, 256}}, 1e-5},
    {"col_sum_tree.py", "col_sum_tree", 2, {2, 1}, {{24, 512}, {512}}, 1e-5},
    {"row_argmax.py", "row_argmax", 2, {2, 1}, {{300, 32}, {300}}, 0},
    {"row_sum_upstream.py", "row_sum_upstream", 2, {2, 1}, {{128, 128}, {128}}, 1e-5},
    {"matmul_vthread.py", "matmul_vthread", 3, {2, 2, 2}, {{64, 64}, {64, 64}, {64, 64}}, 1e-4},
};

TEST(on_the_gpu) {
  for (size_t k = 0; k < sizeof(kGpu) / sizeof(kGpu[0]); ++k) {
    const gpu_case* c = &kGpu[k];
    void* f = gpu_parse(c->file);
    void* g = f ? tvm_tir_lower(f, NULL) : NULL;
    void* m = g ? tvm_codegen_build(g, "cuda", NULL) : NULL;
    void* fn = m ? module_function(m, c->name) : NULL;
    if (!fn) {
      gpu_fail_(__LINE__, c->file);
    } else {
      unsigned seed = 11;
      void *host[3] = {NULL}, *dev[3] = {NULL}, *back = NULL;
      TVMFFIAny iargs[3], dargs[3], r;
      gpu_buf ib[3];
      bool ok = true;
      for (int i = 0; i < c->nbuf; ++i) {
        bool input = i < c->nbuf - 1;
        gpu_buf_init(&ib[i], c->ndim[i], c->dims[i][0], c->dims[i][1], input ? &seed : NULL);
        iargs[i] = gpu_arg(&ib[i]);
        host[i] = tvm_ffi_tensor_empty(ib[i].shape, c->ndim[i], tvm_ffi_dtype(kDLFloat, 32, 1),
                                       (DLDevice){kDLCPU, 0});
        memcpy(tvm_ffi_tensor_dl(host[i])->data, ib[i].data, (size_t)ib[i].n * 4);
        dev[i] = host[i] ? to_device(host[i], kDLCUDA) : NULL;
        ok = ok && dev[i];
        dargs[i] = tvm_ffi_any_obj(dev[i]);
      }
      if (!ok || tvm_tir_interp_run(f, NULL, iargs, c->nbuf, NULL) != 0 ||
          tvm_ffi_function_call(fn, dargs, c->nbuf, &r) != 0 ||
          !(back = to_device(dev[c->nbuf - 1], kDLCPU))) {
        gpu_fail_(__LINE__, c->file);
      } else if (gpu_close((const float*)tvm_ffi_tensor_dl(back)->data, ib[c->nbuf - 1].data,
                           ib[c->nbuf - 1].n, c->tol)) {
        fprintf(stderr, "%s: the GPU differs from the interpreter\n", c->file);
      }
      tvm_ffi_release(back);
      for (int i = 0; i < c->nbuf; ++i) {
        tvm_ffi_release(host[i]);
        tvm_ffi_release(dev[i]);
        gpu_buf_free(&ib[i]);
      }
    }
    tvm_ffi_release(fn);
    tvm_ffi_release(m);
    tvm_ffi_release(g);
    tvm_ffi_release(f);
  }
}

int main(int argc, char** argv) {
  tvm_vm_init();
  gpu_mode mode;
  int rc = gpu_mode_setup(argc, argv, &mode);
  if (rc != 0) return rc;
  if (mode == GPU_MODE_MISSING) {
    RUN(no_driver);
    return test_summary();
  }
  if (mode == GPU_MODE_REAL) {
    RUN(on_the_gpu);
    return test_summary();
  }
  RUN(exported_library);
  RUN(jit);
  RUN(launch_shapes);
  rc = test_summary();
  dlclose(g_fake);
  return rc;
}
