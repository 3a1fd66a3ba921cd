/*
 * test_vm_cuda_module.c: the "cuda" module kind (ffi.Module.load_from_bytes.cuda, libvm's
 * cuda_module.c) against the fake driver of fake_cuda.c: parsing and its errors on every
 * truncation, functions, source, save_to_bytes, launches (dimensions, dynamic shared memory,
 * parameters, device id, stream) and driver errors raised with the driver's error name; and,
 * without a driver, a clear error at load.
 *
 *   vm_cuda_module fake     $TVM_VM_LIBCUDA is the fake driver
 *   vm_cuda_module missing  $TVM_VM_LIBCUDA names no library
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <tvm/vm/vm.h>

#include "test_util.h"

static void put_u64(tvm_ffi_strbuf* b, uint64_t v) {
  unsigned char x[8];
  for (int i = 0; i < 8; ++i) x[i] = (unsigned char)(v >> (8 * i));
  tvm_ffi_strbuf_append(b, (const char*)x, 8);
}
static void put_str(tvm_ffi_strbuf* b, const char* s) {
  put_u64(b, strlen(s));
  tvm_ffi_strbuf_append(b, s, strlen(s));
}

static const char kPtx[] =
    "//\n.version 7.8\n.target sm_90\n.address_size 64\n"
    ".visible .entry scale_kernel(\n\t.param .u64 scale_kernel_param_0,\n"
    "\t.param .u32 scale_kernel_param_1,\n\t.param .f32 scale_kernel_param_2\n)\n{\n\tret;\n}\n"
    ".visible .entry dyn_kernel(\n\t.param .u64 dyn_kernel_param_0\n)\n{\n\tret;\n}\n";

/* scale_kernel(handle, int32, float32) over blockIdx.x, threadIdx.x; dyn_kernel(handle) with
 * dynamic shared memory; gone_kernel, which the PTX lacks. */
static void payload(tvm_ffi_strbuf* b, const char* ptx) {
  put_str(b, "ptx");
  put_u64(b, 3);
  put_str(b, "scale_kernel");
  put_str(b, "scale_kernel");
  put_u64(b, 3);
  put_str(b, "handle");
  put_str(b, "int32");
  put_str(b, "float32");
  put_u64(b, 2);
  put_str(b, "blockIdx.x");
  put_str(b, "threadIdx.x");
  put_u64(b, 0);
  put_str(b, "dyn_kernel");
  put_str(b, "dyn_kernel");
  put_u64(b, 1);
  put_str(b, "handle");
  put_u64(b, 3);
  put_str(b, "blockIdx.x");
  put_str(b, "threadIdx.y");
  put_str(b, "tir.use_dyn_shared_memory");
  put_u64(b, 0);
  put_str(b, "gone_kernel");
  put_str(b, "gone_kernel");
  put_u64(b, 0);
  put_u64(b, 1);
  put_str(b, "threadIdx.x");
  put_u64(b, 0);
  put_str(b, ptx);
}

static void* load(const void* data, size_t n) {
  TVMFFIAny arg = tvm_ffi_bytes_n(data, n), out = tvm_ffi_any_none();
  int rc = tvm_ffi_global_call("ffi.Module.load_from_bytes.cuda", &arg, 1, &out);
  tvm_ffi_any_release(&arg);
  return rc == 0 ? out.v_obj : NULL;
}

static void* g_fake;
#define FAKE(type, name) ((type)dlsym(g_fake, name))

static bool raised(const char* kind, const char* part) {
  void* e = tvm_ffi_error_take();
  bool ok = e && strcmp(tvm_ffi_error_kind(e), kind) == 0 && strstr(tvm_ffi_error_message(e), part);
  if (!ok)
    fprintf(stderr, "expected %s containing \"%s\", got %s: %s\n", kind, part,
            e ? tvm_ffi_error_kind(e) : "nothing", e ? tvm_ffi_error_message(e) : "");
  tvm_ffi_release(e);
  return ok;
}

TEST(module_from_bytes) {
  tvm_ffi_strbuf b = {0};
  payload(&b, kPtx);
  void* m = load(b.data, b.size);
  CHECK(m != NULL);
  if (!m) {
    tvm_ffi_strbuf_free(&b);
    return;
  }
  CHECK(strcmp(((tvm_ffi_module_obj*)m)->vtable->kind, "cuda") == 0);
  TVMFFIAny src = tvm_ffi_any_none();
  TVMFFIAny margs[2] = {tvm_ffi_any_obj(m), tvm_ffi_string("")};
  CHECK(tvm_ffi_global_call("ffi.ModuleInspectSource", margs, 2, &src) == 0);
  TVMFFIByteArray s;
  CHECK(tvm_ffi_any_as_bytes(&src, &s) && s.size == strlen(kPtx) && memcmp(s.data, kPtx, s.size) == 0);
  tvm_ffi_any_release(&src);
  tvm_ffi_any_release(&margs[1]);
  /* save_to_bytes gives the payload back (what export packs) */
  tvm_ffi_strbuf packed = {0};
  CHECK(tvm_ffi_module_pack_library_bin(m, &packed) == 0);
  void* again = tvm_ffi_module_from_library_bin(packed.data, packed.size);
  CHECK(again != NULL);
  tvm_ffi_release(again);
  tvm_ffi_strbuf_free(&packed);
  void* fn = NULL;
  CHECK(tvm_ffi_module_get_function(m, "scale_kernel", false, &fn) == 0 && fn);
  float data[4];
  int loaded = FAKE(int (*)(void), "fake_cuda_modules_loaded")();
  int launches = FAKE(int (*)(void), "fake_cuda_launches")();
  if (fn) {
    TVMFFIAny a[6] = {tvm_ffi_any_ptr(data), tvm_ffi_any_int(-7), tvm_ffi_any_float(2.5),
                      tvm_ffi_any_int(40), tvm_ffi_any_int(128), tvm_ffi_any_int(1)};
    TVMFFIAny r = tvm_ffi_any_none();
    CHECK(tvm_ffi_function_call(fn, a, 6, &r) == 0);
    CHECK(r.type_index == kTVMFFINone);
    CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_launches")(), launches + 1);
    CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_modules_loaded")(), loaded + 1);
    CHECK(strcmp(FAKE(const char* (*)(void), "fake_cuda_last_kernel")(), "scale_kernel") == 0);
    unsigned (*dim)(int) = FAKE(unsigned (*)(int), "fake_cuda_last_dim");
    CHECK(dim(0) == 40 && dim(1) == 1 && dim(2) == 1 && dim(3) == 128 && dim(4) == 1 && dim(5) == 1);
    CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_last_nparams")(), 3);
    uint64_t (*param)(int) = FAKE(uint64_t (*)(int), "fake_cuda_last_param");
    CHECK(param(0) == (uint64_t)(uintptr_t)data);
    int32_t i32;
    uint64_t p1 = param(1), p2 = param(2);
    memcpy(&i32, &p1, 4);
    CHECK_EQ_INT(i32, -7);
    float f32;
    memcpy(&f32, &p2, 4);
    CHECK(f32 == 2.5f);
    /* the stream of the device (set for cuda:1 here) */
    void* prev = NULL;
    CHECK(TVMFFIEnvSetStream(kDLCUDA, 1, (void*)0x1234, &prev) == 0);
    CHECK(tvm_ffi_function_call(fn, a, 6, &r) == 0);
    CHECK(FAKE(void* (*)(void), "fake_cuda_last_stream")() == (void*)0x1234);
    CHECK(TVMFFIEnvSetStream(kDLCUDA, 1, prev, NULL) == 0);
    /* the same device: no new module; another device: one more */
    CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_modules_loaded")(), loaded + 1);
    CHECK(tvm_ffi_function_call(fn, a, 5, &r) == 0); /* no device id: device 0 */
    CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_modules_loaded")(), loaded + 2);
    /* a zero extent launches nothing */
    int before = FAKE(int (*)(void), "fake_cuda_launches")();
    TVMFFIAny z[5] = {a[0], a[1], a[2], tvm_ffi_any_int(0), a[4]};
    CHECK(tvm_ffi_function_call(fn, z, 5, &r) == 0);
    CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_launches")(), before);
    /* errors */
    CHECK(tvm_ffi_function_call(fn, a, 4, &r) != 0);
    CHECK(raised("TypeError", "expected 5 arguments (3 kernel arguments, 2 launch parameters"));
    TVMFFIAny w[5] = {tvm_ffi_any_int(3), a[1], a[2], a[3], a[4]};
    CHECK(tvm_ffi_function_call(fn, w, 5, &r) != 0);
    CHECK(raised("TypeError", "argument 0: expected a pointer, got int"));
    TVMFFIAny neg[5] = {a[0], a[1], a[2], tvm_ffi_any_int(-1), a[4]};
    CHECK(tvm_ffi_function_call(fn, neg, 5, &r) != 0);
    CHECK(raised("ValueError", "launch parameter 0"));
    FAKE(void (*)(int), "fake_cuda_fail_next")(719);
    CHECK(tvm_ffi_function_call(fn, a, 5, &r) != 0);
    CHECK(raised("RuntimeError", "cuLaunchKernel failed: CUDA_ERROR_LAUNCH_FAILED (719)"));
    tvm_ffi_release(fn);
  }
  /* dynamic shared memory: the last launch parameter */
  CHECK(tvm_ffi_module_get_function(m, "dyn_kernel", false, &fn) == 0 && fn);
  if (fn) {
    TVMFFIAny a[4] = {tvm_ffi_any_ptr(data), tvm_ffi_any_int(3), tvm_ffi_any_int(8),
                      tvm_ffi_any_int(65536)};
    TVMFFIAny r;
    CHECK(tvm_ffi_function_call(fn, a, 4, &r) == 0);
    unsigned (*dim)(int) = FAKE(unsigned (*)(int), "fake_cuda_last_dim");
    CHECK(dim(0) == 3 && dim(3) == 1 && dim(4) == 8);
    CHECK_EQ_INT(FAKE(unsigned (*)(void), "fake_cuda_last_shmem")(), 65536);
    tvm_ffi_release(fn);
  }
  /* a function the PTX does not define: the driver's error, by name */
  CHECK(tvm_ffi_module_get_function(m, "gone_kernel", false, &fn) == 0 && fn);
  if (fn) {
    TVMFFIAny a[1] = {tvm_ffi_any_int(32)}, r;
    CHECK(tvm_ffi_function_call(fn, a, 1, &r) != 0);
    CHECK(raised("RuntimeError", "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND"));
    tvm_ffi_release(fn);
  }
  CHECK(tvm_ffi_module_get_function(m, "nope", false, &fn) == 0 && !fn);
  tvm_ffi_release(m);
  CHECK_EQ_INT(FAKE(int (*)(void), "fake_cuda_modules_live")(), 0); /* unloaded with the module */
  tvm_ffi_strbuf_free(&b);
}

TEST(bad_payloads) {
  tvm_ffi_strbuf b = {0};
  payload(&b, kPtx);
  /* every truncation is a ValueError, never a crash */
  for (size_t n = 0; n < b.size; ++n) {
    void* m = load(b.data, n);
    CHECK(m == NULL);
    tvm_ffi_release(m);
    if (!raised("ValueError", "cuda module")) {
      fprintf(stderr, "  at length %zu\n", n);
      break;
    }
  }
  /* invalid PTX is the driver's error at the first launch */
  tvm_ffi_strbuf p = {0};
  payload(&p, "not ptx at all");
  void* m = load(p.data, p.size);
  void* fn = NULL;
  CHECK(m && tvm_ffi_module_get_function(m, "gone_kernel", false, &fn) == 0 && fn);
  if (fn) {
    TVMFFIAny a[1] = {tvm_ffi_any_int(32)}, r;
    CHECK(tvm_ffi_function_call(fn, a, 1, &r) != 0);
    CHECK(raised("RuntimeError", "cuModuleLoadData failed: CUDA_ERROR_INVALID_PTX (218)"));
  }
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  /* a format other than PTX, an unknown tag */
  tvm_ffi_strbuf f = {0};
  put_str(&f, "cubin");
  CHECK(load(f.data, f.size) == NULL);
  CHECK(raised("ValueError", "format \"cubin\" is not supported"));
  tvm_ffi_strbuf_free(&f);
  put_str(&f, "ptx");
  put_u64(&f, 1);
  put_str(&f, "k");
  put_str(&f, "k");
  put_u64(&f, 0);
  put_u64(&f, 1);
  put_str(&f, "warpIdx.x");
  put_u64(&f, 0);
  put_str(&f, kPtx);
  CHECK(load(f.data, f.size) == NULL);
  CHECK(raised("ValueError", "unknown launch tag \"warpIdx.x\""));
  tvm_ffi_strbuf_free(&f);
  tvm_ffi_strbuf_free(&p);
  tvm_ffi_strbuf_free(&b);
}

TEST(no_driver) {
  tvm_ffi_strbuf b = {0};
  payload(&b, kPtx);
  CHECK(load(b.data, b.size) == NULL);
  CHECK(raised("RuntimeError", "no CUDA driver"));
  tvm_ffi_strbuf_free(&b);
}

int main(int argc, char** argv) {
  tvm_vm_init();
  const char* mode = argc > 1 ? argv[1] : "fake";
  if (strcmp(mode, "missing") == 0) {
    setenv("TVM_VM_LIBCUDA", "/nonexistent/libcuda.so.1", 1);
    RUN(no_driver);
    return test_summary();
  }
  g_fake = getenv("TVM_VM_LIBCUDA") ? dlopen(getenv("TVM_VM_LIBCUDA"), RTLD_NOW) : NULL;
  if (!g_fake) {
    fprintf(stderr, "TVM_VM_LIBCUDA must name the fake driver\n");
    return 1;
  }
  RUN(module_from_bytes);
  RUN(bad_payloads);
  int rc = test_summary();
  dlclose(g_fake);
  return rc;
}
