/*
 * ffi_bench.c: nanoseconds per operation of the tvm-ffi ABI (median of repeated runs).
 *
 * Columns: ours; a plain C call through a function pointer measured in the same run (the
 * floor any ABI call pays); and the figures the upstream implementation (apache/tvm-ffi)
 * measured on this 2-core machine, quoted from the project's issue for comparison.
 */
#include <string.h>
#include <tvm/ffi/ffi.h>

#include "bench_util.h"

static int noop(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) { return 0; }

static int (*volatile g_plain)(void* h, const TVMFFIAny* args, int32_t n, TVMFFIAny* r) = noop;

static void row(const char* name, double ours, double floor_ns, double upstream) {
  char fl[32] = "-", up[32] = "-";
  if (floor_ns >= 0) snprintf(fl, sizeof(fl), "%.1f", floor_ns);
  if (upstream >= 0) snprintf(up, sizeof(up), "%.1f", upstream);
  printf("| %-52s | %9.1f | %10s | %9s | %s\n", name, ours, fl, up,
         upstream < 0 ? "" : (ours <= upstream ? "ok" : "SLOWER"));
}

int main(void) {
  tvm_ffi_init();
  const int R = 15;
  const long N = 2000000;
  double t, base;
  printf("| %-52s | %9s | %10s | %9s |\n", "operation (ns/op, median of 15)", "ours",
         "plain C", "upstream");
  printf("|%s|%s|%s|%s|\n", "------------------------------------------------------", "-----------",
         "------------", "-----------");

  void* f = tvm_ffi_function_new(NULL, noop, NULL);
  TVMFFIAny res;
  TVMFFIAny args[3];
  DLTensor dummy;
  memset(&dummy, 0, sizeof(dummy));
  args[0] = tvm_ffi_any_int(1);
  args[1] = tvm_ffi_any_float(2.0);
  args[2] = tvm_ffi_any_dltensor(&dummy);

  BENCH_MEDIAN_NS(base, R, N, { res.type_index = kTVMFFINone; g_plain(f, args, 0, &res); });
  BENCH_MEDIAN_NS(t, R, N, {
    res.type_index = kTVMFFINone;
    TVMFFIFunctionCall(f, args, 0, &res);
  });
  row("TVMFFIFunctionCall, 0 args", t, base, 5.0);
  BENCH_MEDIAN_NS(t, R, N, {
    res.type_index = kTVMFFINone;
    TVMFFIFunctionCall(f, args, 1, &res);
  });
  row("TVMFFIFunctionCall, 1 arg (int)", t, base, 5.0);
  BENCH_MEDIAN_NS(t, R, N, {
    res.type_index = kTVMFFINone;
    TVMFFIFunctionCall(f, args, 3, &res);
  });
  row("TVMFFIFunctionCall, 3 args (int, float, DLTensor*)", t, base, 5.6);
  tvm_ffi_release(f);

  tvm_ffi_global_register("bench.noop", noop, true);
  TVMFFIByteArray name = {"bench.noop", 10};
  BENCH_MEDIAN_NS(t, R, N, {
    void* g;
    TVMFFIFunctionGetGlobal(&name, &g);
    TVMFFIObjectDecRef(g);
  });
  row("TVMFFIFunctionGetGlobal + release", t, -1, 90.0);

  void* obj = tvm_ffi_str_obj("a string object", 15);
  BENCH_MEDIAN_NS(t, R, N, {
    TVMFFIObjectIncRef(obj);
    TVMFFIObjectDecRef(obj);
  });
  row("TVMFFIObjectIncRef + TVMFFIObjectDecRef", t, -1, 8.5);
  tvm_ffi_release(obj);

  BENCH_MEDIAN_NS(t, R, N / 10, {
    TVMFFIErrorSetRaisedFromCStr("RuntimeError", "benchmark error");
    void* e;
    TVMFFIErrorMoveFromRaised(&e);
    TVMFFIObjectDecRef(e);
  });
  row("raise + move + release an error", t, -1, 290.0);

  /* A kernel library loaded through the ABI globals, as an outside loader does. */
  void* mod = tvm_ffi_module_load_file(BENCH_ADD_ONE_LIB);
  void* kernel = NULL;
  if (mod && tvm_ffi_module_get_function(mod, "add_one", false, &kernel) == 0 && kernel) {
    float x = 1.0f, y = 0.0f;
    int64_t shape = 1;
    DLTensor tx = {&x, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &shape, NULL, 0};
    DLTensor ty = {&y, {kDLCPU, 0}, 1, {kDLFloat, 32, 1}, &shape, NULL, 0};
    TVMFFIAny kargs[2] = {tvm_ffi_any_dltensor(&tx), tvm_ffi_any_dltensor(&ty)};
    BENCH_MEDIAN_NS(t, R, N, {
      res.type_index = kTVMFFINone;
      TVMFFIFunctionCall(kernel, kargs, 2, &res);
    });
    row("loaded library add_one, 1-element tensor", t, -1, 9.9);
    if (y != 2.0f) printf("!! add_one computed %f, expected 2\n", (double)y);
  } else {
    void* e = tvm_ffi_error_take();
    printf("!! could not load %s: %s\n", BENCH_ADD_ONE_LIB, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
  }
  tvm_ffi_release(kernel);
  tvm_ffi_release(mod);
  printf("\nallocator: %s\n", tvm_ffi_allocator_name());
  return 0;
}
