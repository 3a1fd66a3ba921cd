/*
 * vm_bench.c: Relax VM costs.
 *   - dispatch of a Call instruction to a no-op packed function (straight-line code)
 *   - fib(25) through VM function calls with packed arithmetic, per fib call, next to the same
 *     recursion in Lua 5.4 measured in this run (`lua5.4 -e`, os.clock), "n/a" without lua5.4
 *   - loading an executable of 10,000 instructions and 1,000 constants
 */
#include <stdio.h>
#include <string.h>
#include <tvm/vm/builder.h>
#include <tvm/vm/vm.h>

#include "../bench_util.h"

/* CPU time of this thread: what Lua's os.clock measures, and robust to a loaded machine. */
static double cpu_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* BENCH_MEDIAN_NS measured in CPU time: the median over `repeats` samples of the time per
 * iteration of BODY. */
#define CPU_MEDIAN_NS(out, repeats, iters, BODY)                      \
  do {                                                                \
    double samples_[64];                                              \
    int reps_ = (repeats) > 64 ? 64 : (repeats);                      \
    for (int r_ = 0; r_ < reps_; ++r_) {                              \
      double t0_ = cpu_now_ns();                                      \
      for (long i_ = 0; i_ < (long)(iters); ++i_) {                   \
        BODY;                                                         \
      }                                                               \
      samples_[r_] = (cpu_now_ns() - t0_) / (double)(iters);          \
    }                                                                 \
    qsort(samples_, (size_t)reps_, sizeof(double), bench_cmp_double); \
    (out) = samples_[reps_ / 2];                                      \
  } while (0)

static int b_noop(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) { return 0; }

/* Arithmetic for the fib program, checking its arguments like any packed function must. */
#define INT_ARGS(name)                                                                        \
  if (__builtin_expect(n != 2 || a[0].type_index != kTVMFFIInt || a[1].type_index != kTVMFFIInt, \
                       0)) {                                                                  \
    return tvm_ffi_raise("TypeError", name " expects two ints");                              \
  }
static int b_add(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  INT_ARGS("bench.add");
  *r = tvm_ffi_any_int(a[0].v_int64 + a[1].v_int64);
  return 0;
}
static int b_sub(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  INT_ARGS("bench.sub");
  *r = tvm_ffi_any_int(a[0].v_int64 - a[1].v_int64);
  return 0;
}
static int b_lt(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  INT_ARGS("bench.lt");
  *r = tvm_ffi_any_bool(a[0].v_int64 < a[1].v_int64);
  return 0;
}

static void die(const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "vm_bench: %s: %s\n", what, e ? tvm_ffi_error_message(e) : "failed");
  exit(1);
}

static tvm_vm* make_vm(tvm_vm_builder* b) {
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  if (!e) die("building");
  DLDevice cpu = {kDLCPU, 0};
  tvm_vm* vm = tvm_vm_create(e, &cpu, 1);
  tvm_vm_executable_release(e);
  if (!vm) die("creating the VM");
  return vm;
}

#define DISPATCH_CALLS 1000

static double bench_dispatch(void) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "bench.noop");
  tvm_vm_builder_function_begin(b, "calls", 1, 2, NULL);
  int64_t arg[] = {tvm_vm_arg_reg(0)};
  for (int i = 0; i < DISPATCH_CALLS; ++i) tvm_vm_builder_emit_call(b, "bench.noop", arg, 1, 1);
  tvm_vm_builder_emit_ret(b, 1);
  tvm_vm_builder_function_end(b);
  tvm_vm* vm = make_vm(b);
  void* f = tvm_vm_get_function(vm, "calls");
  TVMFFIAny x = tvm_ffi_any_int(1), r;
  double ns;
  CPU_MEDIAN_NS(ns, 15, 2000, {
    if (tvm_ffi_function_call(f, &x, 1, &r) != 0) die("calls");
  });
  tvm_ffi_release(f);
  tvm_vm_release(vm);
  return ns / DISPATCH_CALLS;
}

static double bench_fib(int n, int64_t* out_value) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  tvm_vm_builder_declare_packed(b, "bench.lt");
  tvm_vm_builder_declare_packed(b, "bench.sub");
  tvm_vm_builder_declare_packed(b, "bench.add");
  tvm_vm_builder_function_begin(b, "fib", 1, 7, NULL);
  int64_t lt[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(2)};
  tvm_vm_builder_emit_call(b, "bench.lt", lt, 2, 1);
  int64_t br = tvm_vm_builder_emit_if(b, 1, 0);
  tvm_vm_builder_emit_ret(b, 0);
  tvm_vm_builder_set_jump_target(b, br, tvm_vm_builder_next_instr(b));
  int64_t s1[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(1)}, s2[] = {tvm_vm_arg_reg(0), tvm_vm_arg_imm(2)};
  int64_t r2[] = {tvm_vm_arg_reg(2)}, r3[] = {tvm_vm_arg_reg(3)};
  int64_t add[] = {tvm_vm_arg_reg(4), tvm_vm_arg_reg(5)};
  tvm_vm_builder_emit_call(b, "bench.sub", s1, 2, 2);
  tvm_vm_builder_emit_call(b, "fib", r2, 1, 4);
  tvm_vm_builder_emit_call(b, "bench.sub", s2, 2, 3);
  tvm_vm_builder_emit_call(b, "fib", r3, 1, 5);
  tvm_vm_builder_emit_call(b, "bench.add", add, 2, 6);
  tvm_vm_builder_emit_ret(b, 6);
  tvm_vm_builder_function_end(b);
  tvm_vm* vm = make_vm(b);
  void* f = tvm_vm_get_function(vm, "fib");
  TVMFFIAny x = tvm_ffi_any_int(n), r = tvm_ffi_any_none();
  double samples[11];
  for (int i = 0; i < 11; ++i) {
    double t0 = cpu_now_ns();
    if (tvm_ffi_function_call(f, &x, 1, &r) != 0) die("fib");
    samples[i] = cpu_now_ns() - t0;
  }
  qsort(samples, 11, sizeof(double), bench_cmp_double);
  double ns = samples[5];
  *out_value = r.v_int64;
  tvm_ffi_release(f);
  tvm_vm_release(vm);
  /* fib(n) makes 2 * fib(n + 1) - 1 calls. */
  int64_t a = 0, c = 1;
  for (int i = 0; i < n + 1; ++i) {
    int64_t t = a + c;
    a = c;
    c = t;
  }
  return ns / (double)(2 * a - 1);
}

/* Lua 5.4 per-call time of the same recursion (median of 11 runs inside one process). */
static double bench_lua(int n) {
  char cmd[1024];
  snprintf(cmd, sizeof(cmd),
           "lua5.4 -e 'local function fib(n) if n < 2 then return n end "
           "return fib(n - 1) + fib(n - 2) end "
           "local calls = 0; do local a, b = 0, 1 for i = 1, %d do a, b = b, a + b end "
           "calls = 2 * a - 1 end "
           "local t = {} for r = 1, 11 do local s = os.clock() fib(%d) "
           "t[r] = (os.clock() - s) / calls * 1e9 end table.sort(t) print(t[6])' 2>/dev/null",
           n + 1, n);
  FILE* p = popen(cmd, "r");
  if (!p) return -1;
  double ns = -1;
  if (fscanf(p, "%lf", &ns) != 1) ns = -1;
  if (pclose(p) != 0) ns = -1;
  return ns;
}

static double bench_load(size_t* out_size) {
  tvm_vm_builder* b = tvm_vm_builder_new();
  for (int i = 0; i < 1000; ++i) {
    char s[32];
    int64_t dims[] = {i, 4};
    switch (i % 4) {
      case 0: tvm_vm_builder_const_int(b, i); break;
      case 1: snprintf(s, sizeof(s), "const_%d", i); tvm_vm_builder_const_str(b, s); break;
      case 2: tvm_vm_builder_const_shape(b, dims, 2); break;
      default: {
        int64_t n = 16;
        void* t = tvm_ffi_tensor_empty(&n, 1, tvm_ffi_dtype(kDLFloat, 32, 1), (DLDevice){kDLCPU, 0});
        memset(tvm_ffi_tensor_dl(t)->data, 0, 64);
        tvm_vm_builder_const_tensor(b, t);
        tvm_ffi_release(t);
      }
    }
  }
  tvm_vm_builder_declare_packed(b, "bench.add");
  tvm_vm_builder_function_begin(b, "big", 2, 8, NULL);
  for (int i = 0; i < 9999; ++i) {
    int64_t args[] = {tvm_vm_arg_reg(i % 2), tvm_vm_arg_const(i % 1000), tvm_vm_arg_imm(i)};
    tvm_vm_builder_emit_call(b, "bench.add", args, 3, 2 + i % 6);
  }
  tvm_vm_builder_emit_ret(b, 2);
  tvm_vm_builder_function_end(b);
  tvm_vm_executable* e = tvm_vm_builder_finish(b);
  tvm_vm_builder_free(b);
  if (!e) die("building the large executable");
  TVMFFIAny bytes;
  if (tvm_vm_executable_save(e, &bytes) != 0) die("saving");
  tvm_vm_executable_release(e);
  TVMFFIByteArray data;
  tvm_ffi_any_as_bytes(&bytes, &data);
  *out_size = data.size;
  double ns;
  CPU_MEDIAN_NS(ns, 21, 5, {
    tvm_vm_executable* l = tvm_vm_executable_load_bytes(data.data, data.size);
    if (!l) die("loading");
    tvm_vm_executable_release(l);
  });
  tvm_ffi_any_release(&bytes);
  return ns;
}

int main(void) {
  if (tvm_vm_init() != 0) die("init");
  tvm_ffi_global_register("bench.noop", b_noop, true);
  tvm_ffi_global_register("bench.add", b_add, true);
  tvm_ffi_global_register("bench.sub", b_sub, true);
  tvm_ffi_global_register("bench.lt", b_lt, true);
  double dispatch = bench_dispatch();
  int64_t fib_value = 0;
  double fib = bench_fib(25, &fib_value);
  if (fib_value != 75025) {
    fprintf(stderr, "vm_bench: fib(25) = %lld, expected 75025\n", (long long)fib_value);
    return 1;
  }
  double lua = bench_lua(25);
  size_t size = 0;
  double load = bench_load(&size);
  printf("%-56s %12s  %s\n", "benchmark", "value", "unit");
  printf("%-56s %12.2f  %s\n", "Call dispatch, no-op packed function", dispatch, "ns/call");
  printf("%-56s %12.2f  %s\n", "fib(25) in VM bytecode (packed lt/sub/add)", fib, "ns/fib call");
  if (lua > 0) printf("%-56s %12.2f  %s\n", "fib(25) in Lua 5.4 (same run)", lua, "ns/fib call");
  else printf("%-56s %12s  %s\n", "fib(25) in Lua 5.4 (same run)", "n/a", "ns/fib call");
  char what[96];
  snprintf(what, sizeof(what), "load executable: 10000 instr, 1000 consts (%zu KiB)", size / 1024);
  printf("%-56s %12.1f  %s\n", what, load / 1e3, "us");
  return 0;
}
