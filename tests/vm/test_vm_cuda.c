/*
 * test_vm_cuda.c: the VM on a CUDA device, through the driver API libvm loads with dlopen.
 *
 *   vm_cuda real     the machine's driver (libcuda.so.1): exits 77 (CTest skip) without one
 *   vm_cuda fake     $TVM_VM_LIBCUDA is the fake driver of fake_cuda.c (host memory)
 *   vm_cuda missing  $TVM_VM_LIBCUDA names no library: a clear error, the CPU still works
 */
#include <dlfcn.h>
#include <stdlib.h>

#include "stdout_capture.h"
#include "vm_test_funcs.h"

static const char* g_mode = "real";
static bool g_skipped;

/* weights() -> the constant tensor (on device 0); alloc(dev_index) -> a fresh f32[4] there;
 * to_cpu(t) -> t copied to the host; cond(t) -> read_if_cond(t). */
static tvm_vm_executable* build_program(void* weights) {
  int64_t four = 4;
  tvm_vm_builder* b = tvm_vm_builder_new();
  int64_t cw = tvm_vm_builder_const_tensor(b, weights);
  int64_t cs = tvm_vm_builder_const_shape(b, &four, 1);
  int64_t cd = tvm_vm_builder_const_dtype(b, tvm_ffi_dtype(kDLFloat, 32, 1));
  tvm_vm_builder_declare_packed(b, "vm.builtin.copy");
  tvm_vm_builder_declare_packed(b, "vm.builtin.alloc_storage");
  tvm_vm_builder_declare_packed(b, "vm.builtin.alloc_tensor");
  tvm_vm_builder_declare_packed(b, "vm.builtin.to_device");
  tvm_vm_builder_declare_packed(b, "vm.builtin.read_if_cond");
  tvm_vm_builder_function_begin(b, "weights", 0, 1, NULL);
  int64_t w[] = {tvm_vm_arg_const(cw)};
  tvm_vm_builder_emit_call(b, "vm.builtin.copy", w, 1, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "alloc", 1, 3, NULL);
  int64_t st[] = {tvm_vm_arg_reg(TVM_VM_REG_VM), tvm_vm_arg_const(cs), tvm_vm_arg_reg(0), tvm_vm_arg_const(cd)};
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_storage", st, 4, 1);
  int64_t at[] = {tvm_vm_arg_reg(1), tvm_vm_arg_imm(0), tvm_vm_arg_const(cs), tvm_vm_arg_const(cd)};
  tvm_vm_builder_emit_call(b, "vm.builtin.alloc_tensor", at, 4, 2);
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "to_cpu", 1, 2, NULL);
  int64_t td[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(kDLCPU), tvm_vm_arg_imm(0)};
  tvm_vm_builder_emit_call(b, "vm.builtin.to_device", td, 3, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_builder_function_begin(b, "cond", 1, 2, NULL);
  int64_t c[] = {tvm_vm_arg_reg(0)};
  tvm_vm_builder_emit_call(b, "vm.builtin.read_if_cond", c, 1, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  return e;
}

static void* cpu_f32(const float* v, int64_t n) {
  void* t = tvm_ffi_tensor_empty(&n, 1, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(t)->data, v, (size_t)n * 4);
  return t;
}

TEST(cuda_device) {
  const float wv[4] = {1.5f, -2.0f, 3.25f, 8.0f};
  void* weights = cpu_f32(wv, 4);
  tvm_vm_executable* e = build_program(weights);
  DLDevice cuda = {kDLCUDA, 0};
  tvm_vm* vm = tvm_vm_create(e, &cuda, 1);
  if (!vm) {
    void* err = tvm_ffi_error_take();
    const char* msg = err ? tvm_ffi_error_message(err) : "";
    bool no_driver = strstr(msg, "not available") || strstr(msg, "does not exist") ||
                     strstr(msg, "initialisation failed");
    if (strcmp(g_mode, "real") == 0 && no_driver) {
      printf("SKIP: no usable CUDA driver or device: %s\n", msg);
      g_skipped = true;
      tvm_ffi_release(err);
      tvm_vm_executable_release(e);
      tvm_ffi_release(weights);
      return;
    }
    fprintf(stderr, "creating a CUDA VM failed: %s\n", msg);
    tvm_ffi_release(err);
    CHECK(false);
    tvm_vm_executable_release(e);
    tvm_ffi_release(weights);
    return;
  }
  CHECK_EQ_INT(tvm_vm_num_devices(vm), 2); /* the host CPU is appended */
  CHECK_EQ_INT(tvm_vm_device(vm, 1).device_type, kDLCPU);
  /* The constant lives on the GPU; copied back it has the original contents. */
  TVMFFIAny w, host;
  CHECK_OK(tvm_vm_invoke(vm, "weights", NULL, 0, &w));
  CHECK_EQ_INT(tvm_ffi_tensor_dl(w.v_obj)->device.device_type, kDLCUDA);
  CHECK_OK(tvm_vm_invoke(vm, "to_cpu", &w, 1, &host));
  CHECK_EQ_INT(tvm_ffi_tensor_dl(host.v_obj)->device.device_type, kDLCPU);
  CHECK(memcmp(tvm_ffi_tensor_dl(host.v_obj)->data, wv, 16) == 0);
  tvm_ffi_any_release(&host);
  tvm_ffi_any_release(&w);
  /* Storage on the GPU (device index 0) and on the host (-1). */
  TVMFFIAny idx = tvm_ffi_any_int(0), t;
  CHECK_OK(tvm_vm_invoke(vm, "alloc", &idx, 1, &t));
  CHECK_EQ_INT(tvm_ffi_tensor_dl(t.v_obj)->device.device_type, kDLCUDA);
  tvm_ffi_any_release(&t);
  idx = tvm_ffi_any_int(-1);
  CHECK_OK(tvm_vm_invoke(vm, "alloc", &idx, 1, &t));
  CHECK_EQ_INT(tvm_ffi_tensor_dl(t.v_obj)->device.device_type, kDLCPU);
  tvm_ffi_any_release(&t);
  /* set_input moves host tensors to the GPU. */
  const float one[1] = {0.0f};
  void* zero = cpu_f32(one, 1);
  TVMFFIAny z = tvm_ffi_any_obj(zero);
  CHECK_OK(tvm_vm_set_input(vm, "to_cpu", &z, 1));
  CHECK_OK(tvm_vm_invoke_stateful(vm, "to_cpu"));
  CHECK_OK(tvm_vm_get_output(vm, "to_cpu", NULL, 0, &t));
  CHECK_EQ_INT(tvm_ffi_tensor_dl(t.v_obj)->device.device_type, kDLCPU);
  tvm_ffi_any_release(&t);
  tvm_ffi_release(zero);
  /* read_if_cond of a GPU scalar. */
  int8_t c = 5;
  int64_t n1 = 1;
  void* cc = tvm_ffi_tensor_empty(&n1, 1, tvm_ffi_dtype(kDLInt, 8, 1), (DLDevice){kDLCPU, 0});
  memcpy(tvm_ffi_tensor_dl(cc)->data, &c, 1);
  TVMFFIAny args[] = {tvm_ffi_any_obj(cc), tvm_ffi_any_int(kDLCUDA), tvm_ffi_any_int(0)}, gc, r;
  CHECK_OK(tvm_ffi_global_call("vm.builtin.to_device", args, 3, &gc));
  CHECK_OK(tvm_vm_invoke(vm, "cond", &gc, 1, &r));
  CHECK(r.type_index == kTVMFFIBool && r.v_int64 == 1);
  /* relax.run.print and assert_op read GPU tensors through a copy to the host. */
  TVMFFIAny pa[2] = {tvm_ffi_string("gpu {}"), gc};
  capture_begin();
  int prc = tvm_ffi_global_call("relax.run.print", pa, 2, &r);
  CHECK_STR_EQ(capture_end(), "gpu [5]\n");
  CHECK_EQ_INT(prc, 0);
  tvm_ffi_any_release(&pa[0]);
  void* fb = tvm_ffi_tensor_empty(NULL, 0, tvm_ffi_dtype(kDLBool, 8, 1), (DLDevice){kDLCPU, 0});
  *(uint8_t*)tvm_ffi_tensor_dl(fb)->data = 0;
  TVMFFIAny fargs[] = {tvm_ffi_any_obj(fb), tvm_ffi_any_int(kDLCUDA), tvm_ffi_any_int(0)}, gfb;
  CHECK_OK(tvm_ffi_global_call("vm.builtin.to_device", fargs, 3, &gfb));
  TVMFFIAny aa[2] = {gfb, tvm_ffi_string("on the gpu")};
  CHECK(tvm_ffi_global_call("relax.run.assert_op", aa, 2, &r) != 0);
  CHECK_RAISED("AssertionError", "on the gpu");
  tvm_ffi_any_release(&aa[1]), tvm_ffi_any_release(&gfb);
  tvm_ffi_release(fb);
  tvm_ffi_any_release(&gc);
  tvm_ffi_release(cc);
  /* Timing synchronises the devices. */
  double secs[2];
  CHECK_OK(tvm_vm_time_evaluator(vm, "weights", NULL, 0, 2, 2, 0, secs));
  DLDevice bad = {kDLCUDA, 9};
  CHECK(tvm_vm_create(e, &bad, 1) == NULL);
  CHECK_RAISED("ValueError", "CUDA device 9 does not exist");
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
  tvm_ffi_release(weights);
}

TEST(cuda_fake_driver_counters) {
  void* lib = dlopen(getenv("TVM_VM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
  CHECK(lib != NULL);
  if (!lib) return;
  int (*live)(void) = (int (*)(void))dlsym(lib, "fake_cuda_live_allocations");
  int (*copies)(void) = (int (*)(void))dlsym(lib, "fake_cuda_copies");
  int (*syncs)(void) = (int (*)(void))dlsym(lib, "fake_cuda_syncs");
  CHECK(live && copies && syncs);
  if (live) CHECK_EQ_INT(live(), 0); /* every device allocation was freed */
  if (copies) CHECK(copies() >= 5);
  if (syncs) CHECK(syncs() >= 4);
  dlclose(lib);
}

/* vm.builtin.cuda_time_launches: events around `repeat` calls of a closure; with the fake
 * driver, 0.25 ms per kernel launch between the events (none here), the events destroyed on
 * every path, driver and closure errors raised. */
static int g_calls;
static int count_call(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  (void)self;
  (void)args;
  (void)n;
  *rv = tvm_ffi_any_none();
  return ++g_calls > 100 ? tvm_ffi_raise("ValueError", "closure failed on purpose") : 0;
}

static int time_calls(void* fn, int64_t repeat, double* ms) {
  TVMFFIAny a[3] = {tvm_ffi_any_int(0), tvm_ffi_any_obj(fn), tvm_ffi_any_int(repeat)};
  TVMFFIAny out = tvm_ffi_any_none();
  int rc = tvm_ffi_global_call("vm.builtin.cuda_time_launches", a, 3, &out);
  if (rc == 0) {
    CHECK(out.type_index == kTVMFFIFloat);
    *ms = out.v_float64;
  }
  return rc;
}

TEST(cuda_event_timing) {
  void* fn = tvm_ffi_function_new(NULL, count_call, NULL);
  double ms = -1;
  g_calls = 0;
  CHECK(time_calls(fn, 5, &ms) == 0);
  CHECK_EQ_INT(g_calls, 5);
  CHECK(ms >= 0);
  CHECK(time_calls(fn, 0, &ms) != 0);
  CHECK_RAISED("ValueError", "bad device 0 or repeat 0");
  TVMFFIAny bad[3] = {tvm_ffi_any_int(0), tvm_ffi_any_int(1), tvm_ffi_any_int(1)};
  TVMFFIAny out = tvm_ffi_any_none();
  CHECK(tvm_ffi_global_call("vm.builtin.cuda_time_launches", bad, 3, &out) != 0);
  CHECK_RAISED("TypeError", "argument 1 must be a Function");
  g_calls = 100; /* the next call fails: raised, nothing timed */
  CHECK(time_calls(fn, 3, &ms) != 0);
  CHECK_RAISED("ValueError", "closure failed on purpose");
  if (strcmp(g_mode, "fake") == 0) {
    void* lib = dlopen(getenv("TVM_VM_LIBCUDA"), RTLD_NOW | RTLD_NOLOAD);
    void (*fail_event)(int) = lib ? (void (*)(int))dlsym(lib, "fake_cuda_fail_event") : NULL;
    int (*live)(void) = lib ? (int (*)(void))dlsym(lib, "fake_cuda_events_live") : NULL;
    int (*recorded)(void) = lib ? (int (*)(void))dlsym(lib, "fake_cuda_events_recorded") : NULL;
    CHECK(fail_event && live && recorded);
    if (fail_event && live && recorded) {
      CHECK(ms == 0.0 || ms == -1); /* no kernel launched between the events */
      int before = recorded();
      g_calls = 0;
      CHECK(time_calls(fn, 2, &ms) == 0 && ms == 0.0);
      CHECK_EQ_INT(recorded() - before, 2);
      fail_event(719);
      CHECK(time_calls(fn, 2, &ms) != 0);
      CHECK_RAISED("RuntimeError", "CUDA: cuEventElapsedTime failed: CUDA_ERROR_LAUNCH_FAILED (719)");
      CHECK_EQ_INT(live(), 0); /* every event destroyed, on every path */
    }
    if (lib) dlclose(lib);
  }
  tvm_ffi_release(fn);
}

TEST(cuda_missing_driver) {
  tvm_vm_executable* e = build_fib();
  DLDevice cuda = {kDLCUDA, 0};
  CHECK(tvm_vm_create(e, &cuda, 1) == NULL);
  CHECK_RAISED("RuntimeError", "CUDA driver (/nonexistent/libcuda.so.1) not available: ");
  /* Everything else still works. */
  tvm_vm* vm = cpu_vm(e);
  TVMFFIAny n = tvm_ffi_any_int(10);
  CHECK_EQ_INT(call_int(vm, "fib", &n, 1), 55);
  tvm_vm_release(vm);
  tvm_vm_executable_release(e);
}

int main(int argc, char** argv) {
  tvm_vm_init();
  register_test_funcs();
  if (argc > 1) g_mode = argv[1];
  if (strcmp(g_mode, "missing") == 0) {
    setenv("TVM_VM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    RUN(cuda_missing_driver);
    return test_summary();
  }
  if (strcmp(g_mode, "real") == 0) unsetenv("TVM_VM_LIBCUDA");
  RUN(cuda_device);
  if (g_skipped) return 77;
  RUN(cuda_event_timing);
  if (strcmp(g_mode, "fake") == 0) RUN(cuda_fake_driver_counters);
  return test_summary();
}
