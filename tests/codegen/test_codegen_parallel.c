/*
 * test_codegen_parallel.c: parallel loops launched through the __TVMBackendParallelLaunch
 * context symbol, in exported libraries (filled by the loader) and in the JIT: results against
 * the interpreter, the variable's value after load, the serial fallback when it is NULL, and a
 * failing task raising on the caller without hanging.
 */
#include <dlfcn.h>
#include <stdatomic.h>

#include "codegen_testing.h"

typedef struct {
  void* sync_handle;
  int32_t num_task;
} group_env; /* upstream's TVMParallelGroupEnv */
typedef int (*lambda_fn)(int task_id, group_env* penv, void* cdata);
typedef int (*launch_fn)(lambda_fn flambda, void* cdata, int num_task);

/* The launch variable of the loaded library at path (found with dlsym), or NULL. */
static launch_fn* launch_variable(const char* path) {
  void* h = dlopen(path, RTLD_LAZY | RTLD_NOLOAD);
  if (!h) return NULL;
  launch_fn* var = (launch_fn*)dlsym(h, "__TVMBackendParallelLaunch");
  dlclose(h); /* the loaded module still holds the library */
  return var;
}

/* A launch function that counts its calls and forwards to libtvmffi's. */
static atomic_int g_launches;
static launch_fn g_real_launch;
static int counting_launch(lambda_fn flambda, void* cdata, int num_task) {
  atomic_fetch_add(&g_launches, 1);
  return g_real_launch(flambda, cdata, num_task);
}

/* B[i] = A[i] unless A[i] == 1000 (an assertion), i a parallel loop over 64. */
static void* make_checked_copy(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 64);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 64);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_for_take(
      ref(i), tvm_tir_int(0), tvm_tir_int(64), TVM_TIR_FOR_PARALLEL,
      tvm_tir_assert_take(tvm_tir_ne_take(tvm_tir_load_take(ref(A), ref(i)), tvm_tir_f32(1000)),
                          "checked: A holds 1000",
                          tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(A), ref(i)), ref(i))));
  void* f = tvm_tir_func_take("pcheck", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(A, B, i);
  return f;
}

/* C[i, j] = A[i, j] * B[j] + i over (n, 37) with n symbolic, i and j both parallel (the inner
 * launch runs serially inside a task). */
static void* make_nested(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT64, 2, (void*[]){ref(n), tvm_tir_int(37)}, NULL);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT64, 37);
  tvm_tir_buffer_obj* C =
      tvm_tir_buffer_decl_takev("C", TVM_TIR_FLOAT64, 2, (void*[]){ref(n), tvm_tir_int(37)}, NULL);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* value = tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), ref(j)),
                                                  tvm_tir_load_take(ref(B), ref(j))),
                                 tvm_tir_cast_take(TVM_TIR_FLOAT64, ref(i)));
  void* body = tvm_tir_for_take(
      ref(i), tvm_tir_int(0), ref(n), TVM_TIR_FOR_PARALLEL,
      tvm_tir_for_take(ref(j), tvm_tir_int(0), tvm_tir_int(37), TVM_TIR_FOR_PARALLEL,
                       tvm_tir_store_take(ref(C), value, ref(i), ref(j))));
  void* f = tvm_tir_func_take("pnested", tvm_tir_list_take(ref(A), ref(B), ref(C)), body);
  RELEASE(n, A, B, C, i, j);
  return f;
}

/* Run pcheck on 0..63 (expect a copy), then with A[50] = 1000 (expect the assertion). */
static void run_checked_copy(void* fn) {
  float a[64], b[64];
  for (int e = 0; e < 64; ++e) {
    a[e] = (float)e + 0.5f;
    b[e] = -1;
  }
  int64_t shape[1] = {64};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
  TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
  CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
  bool same = true;
  for (int e = 0; e < 64; ++e) same &= b[e] == a[e];
  CHECK(same);
  a[50] = 1000;
  EXPECT_CALL_ERR(fn, args, 2, "AssertionError", "checked: A holds 1000");
  a[50] = 50; /* the pool still works after a failed task */
  CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
  CHECK(b[50] == 50);
}

/* Exported: the loader fills the variable with libtvmffi's TVMBackendParallelLaunch; results
 * match the interpreter with it, through a counting wrapper, and with it NULL (serial). */
TEST(exported_parallel_loops) {
  void* f1 = make_binary("padd", TVM_TIR_FLOAT32, 5, 300, TVM_TIR_KIND_Mul, TVM_TIR_FOR_PARALLEL);
  void* f2 = make_nested();
  void* f3 = make_checked_copy();
  void* mod = tvm_tir_module_take(f1, f2, f3);
  void* g = mod ? tvm_tir_lower(mod, NULL) : NULL;
  CHECK(g != NULL);
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "parallel", path) : NULL;
  launch_fn* var = lib ? launch_variable(path) : NULL;
  CHECK(var != NULL);
  launch_fn real = (launch_fn)tvm_ffi_env_capi_lookup("TVMBackendParallelLaunch");
  CHECK(real != NULL);
  if (var) CHECK(*var == real); /* filled at load time */
  const char* names[2] = {"padd", "pnested"};
  for (int k = 0; k < 2 && var && real; ++k) {
    void* fn = GET_FN(lib, names[k]);
    void* gk = tvm_tir_ir_module_lookup(g, names[k]);
    void* fk = tvm_tir_ir_module_lookup(mod, names[k]);
    if (fn && gk && fk) {
      cg_opts o = {.seed = 21, .sym = 45};
      diff_fn_(__LINE__, fk, gk, fn, &o);
      g_real_launch = real;
      atomic_store(&g_launches, 0);
      *var = counting_launch;
      diff_fn_(__LINE__, fk, gk, fn, &o);
      /* padd: one launch per row (its inner loop is the parallel one); pnested: one, plus one
       * per outer iteration for the inner loop (run serially by the pool inside a task). */
      int launches = k == 0 ? 5 : 1 + 45;
      CHECK_EQ_INT(atomic_load(&g_launches), launches);
      *var = NULL; /* a runtime without TVMBackendParallelLaunch: the loop runs serially */
      diff_fn_(__LINE__, fk, gk, fn, &o);
      *var = real;
    }
    RELEASE(fn, gk);
    tvm_ffi_release(fk);
  }
  void* fn = var ? GET_FN(lib, "pcheck") : NULL;
  if (fn) {
    run_checked_copy(fn);
    *var = NULL;
    run_checked_copy(fn);
    *var = real;
  }
  RELEASE(fn, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(mod, g);
}

/* A library loaded while another launch function is registered gets that one. */
TEST(context_symbol_registration) {
  void* f = make_binary("padd", TVM_TIR_FLOAT32, 3, 64, TVM_TIR_KIND_Add, TVM_TIR_FOR_PARALLEL);
  void* g = tvm_tir_lower(f, NULL);
  launch_fn real = (launch_fn)tvm_ffi_env_capi_lookup("TVMBackendParallelLaunch");
  g_real_launch = real;
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("__TVMBackendParallelLaunch", (void*)counting_launch));
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "ctxsym", path) : NULL;
  CHECK_OK(TVMFFIEnvModRegisterContextSymbol("__TVMBackendParallelLaunch", (void*)real));
  launch_fn* var = lib ? launch_variable(path) : NULL;
  CHECK(var != NULL && *var == counting_launch);
  void* fn = lib ? GET_FN(lib, "padd") : NULL;
  if (fn) {
    atomic_store(&g_launches, 0);
    diff_fn_(__LINE__, f, g, fn, &(cg_opts){.seed = 8});
    CHECK_EQ_INT(atomic_load(&g_launches), 3); /* one per row */
  }
  RELEASE(fn, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(f, g);
}

/* The JIT binds the same variable to the same function and runs the same code. */
TEST(jit_parallel_loops) {
  void* f = make_nested();
  DIFF(f, .seed = 3, .sym = 1);
  DIFF(f, .seed = 4, .sym = 61);
  tvm_ffi_release(f);
  f = make_checked_copy();
  void* m;
  void* fn = jit_fn_(__LINE__, f, "pcheck", &m);
  if (fn) run_checked_copy(fn);
  RELEASE(fn, m, f);
}

int main(void) {
  RUN(exported_parallel_loops);
  RUN(context_symbol_registration);
  RUN(jit_parallel_loops);
  return test_summary();
}
