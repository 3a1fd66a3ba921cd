/*
 * test_codegen_ret.c: PrimFuncs that return a value with tir.ret (T.ret, `return v` in
 * TVMScript), compiled and compared with the reference interpreter: the value comes back
 * through the ABI result slot with the interpreter's type (Int, Bool, Float, OpaquePtr), a
 * return inside loops and branches stops the function, and heap allocations live at the
 * return are released.
 */
#include "codegen_testing.h"

/* Run the interpreter on f and the compiled f (JIT, and exported + loaded when `exported`) on
 * the same arguments and check that both return `want` (type and value). */
static void same_ret_(int line, void* f, const TVMFFIAny* args, int n, TVMFFIAny want) {
  if (!tir_expect_ok_(line, f)) return;
  TVMFFIAny ri = tvm_ffi_any_none();
  if (tvm_tir_interp_run(f, NULL, args, n, &ri) != 0) {
    interp_fail_(line, "interpreter run failed");
    return;
  }
  void* mod;
  void* fn = jit_fn_(line, f, tvm_tir_func_global_symbol(f), &mod);
  TVMFFIAny rc = tvm_ffi_any_none();
  if (fn && tvm_ffi_function_call(fn, (TVMFFIAny*)args, n, &rc) != 0)
    interp_fail_(line, "compiled run failed");
  const TVMFFIAny* got[2] = {&ri, &rc};
  for (int k = 0; k < 2 && fn; ++k) {
    const char* who = k == 0 ? "interpreter" : "compiled";
    bool same = got[k]->type_index == want.type_index &&
                (want.type_index == kTVMFFIFloat ? got[k]->v_float64 == want.v_float64
                                                 : got[k]->v_int64 == want.v_int64);
    if (!same) {
      fprintf(stderr, "line %d: %s returned type %d value %lld / %g, want type %d value %lld / %g\n",
              line, who, got[k]->type_index, (long long)got[k]->v_int64, got[k]->v_float64,
              want.type_index, (long long)want.v_int64, want.v_float64);
      g_test_failed_checks++;
    }
  }
  tvm_ffi_any_release(&ri);
  tvm_ffi_any_release(&rc);
  tvm_ffi_release(fn);
  tvm_ffi_release(mod);
}
#define SAME_RET(f, want, ...)                                                          \
  same_ret_(__LINE__, (f), (TVMFFIAny[]){__VA_ARGS__},                                  \
            (int)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny)), (want))

static TVMFFIAny want_bool(bool b) {
  TVMFFIAny a = tvm_ffi_any_int(b);
  a.type_index = kTVMFFIBool;
  return a;
}

TEST(scalar_returns) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_INT8);
  tvm_tir_var_obj* u = tvm_tir_var("u", TVM_TIR_INT32);
  /* int32: x * 3 + 1 */
  void* f = ret_func_named_take("ret_i32", tvm_tir_list_take(ref(x)),
                                tvm_tir_add_take(tvm_tir_mul_take(ref(x), tvm_tir_int(3)),
                                                 tvm_tir_int(1)));
  SAME_RET(f, I(-20), I(-7));
  SAME_RET(f, I(3 * 700000 + 1), I(700000));
  tvm_ffi_release(f);
  /* float32 widened to the double of the result slot: y * 2.5 */
  f = ret_func_named_take("ret_f32", tvm_tir_list_take(ref(y)),
                          tvm_tir_mul_take(ref(y), tvm_tir_f32(2.5f)));
  SAME_RET(f, F(-3.125), F(-1.25));
  tvm_ffi_release(f);
  /* float64 */
  f = ret_func_named_take("ret_f64", tvm_tir_list_take(ref(y)),
                          tvm_tir_cast_take(TVM_TIR_FLOAT64, ref(y)));
  SAME_RET(f, F(0.5), F(0.5));
  tvm_ffi_release(f);
  /* bool: a comparison comes back as Bool, not Int */
  f = ret_func_named_take("ret_bool", tvm_tir_list_take(ref(x)),
                          tvm_tir_gt_take(ref(x), tvm_tir_int(3)));
  SAME_RET(f, want_bool(true), I(4));
  SAME_RET(f, want_bool(false), I(3));
  tvm_ffi_release(f);
  /* int8 is sign-extended, uint8 zero-extended */
  f = ret_func_named_take("ret_i8", tvm_tir_list_take(ref(b)), ref(b));
  SAME_RET(f, I(-5), I(-5));
  tvm_ffi_release(f);
  f = ret_func_named_take("ret_u8", tvm_tir_list_take(ref(u)),
                          tvm_tir_cast_take(TVM_TIR_UINT8, ref(u)));
  SAME_RET(f, I(251), I(-5));
  tvm_ffi_release(f);
  RELEASE(x, y, b, u);
}

/* The index of the first element of A above 50, or -1: a return inside a loop and a branch
 * stops the function (the store after it does not run for that i). */
static void* make_find(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(
          ref(i), tvm_tir_int(0), tvm_tir_int(16),
          tvm_tir_seq_take(tvm_tir_if_take(tvm_tir_gt_take(tvm_tir_load_take(ref(A), ref(i)),
                                                           tvm_tir_int(50)),
                                           ret_take(ref(i)), NULL),
                           tvm_tir_store_take(ref(A), tvm_tir_int(0), ref(i)))),
      ret_take(tvm_tir_int(-1)));
  void* f = tvm_tir_func_take("find", tvm_tir_list_take(ref(A)), body);
  RELEASE(A, i);
  return f;
}

TEST(return_from_a_loop) {
  void* f = make_find();
  int32_t a[16], b[16];
  int64_t shape[1] = {16};
  for (int k = 0; k < 16; ++k) a[k] = k == 9 ? 77 : k;
  memcpy(b, a, sizeof(a));
  DLTensor ta = dl(a, TVM_TIR_INT32, 1, shape, NULL), tb = dl(b, TVM_TIR_INT32, 1, shape, NULL);
  /* Interpreter on a, compiled on b: both return 9, zeroed A[0..8] and left A[9..15]. */
  TVMFFIAny ri = tvm_ffi_any_none(), rc = tvm_ffi_any_none();
  TVMFFIAny aa = T(&ta), ab = T(&tb);
  CHECK_OK(tvm_tir_interp_run(f, NULL, &aa, 1, &ri));
  void* mod;
  void* fn = jit_fn_(__LINE__, f, "find", &mod);
  if (fn) CHECK_OK(tvm_ffi_function_call(fn, &ab, 1, &rc));
  CHECK_EQ_INT(ri.type_index, kTVMFFIInt);
  CHECK_EQ_INT(ri.v_int64, 9);
  CHECK_EQ_INT(rc.type_index, kTVMFFIInt);
  CHECK_EQ_INT(rc.v_int64, 9);
  CHECK(memcmp(a, b, sizeof(a)) == 0);
  CHECK_EQ_INT(b[8], 0);
  CHECK_EQ_INT(b[9], 77);
  CHECK_EQ_INT(b[15], 15);
  /* Nothing above 50: the loop ends and the final return gives -1. */
  for (int k = 0; k < 16; ++k) b[k] = k;
  rc = tvm_ffi_any_none();
  if (fn) CHECK_OK(tvm_ffi_function_call(fn, &ab, 1, &rc));
  CHECK_EQ_INT(rc.v_int64, -1);
  /* The same through an exported library. */
  char path[512];
  snprintf(path, sizeof(path), "%s/codegen_ret_%d.so", TVM_CODEGEN_TEST_TMPDIR, (int)getpid());
  void* g = tvm_tir_lower(f, NULL);
  CHECK(g != NULL);
  if (g) CHECK_OK(tvm_codegen_export(g, path, NULL));
  void* lib = tvm_ffi_module_load_file(path);
  CHECK(lib != NULL);
  void* lfn = NULL;
  if (lib) CHECK_OK(tvm_ffi_module_get_function(lib, "find", false, &lfn));
  for (int k = 0; k < 16; ++k) b[k] = k == 12 ? 60 : k;
  rc = tvm_ffi_any_none();
  if (lfn) CHECK_OK(tvm_ffi_function_call(lfn, &ab, 1, &rc));
  CHECK_EQ_INT(rc.type_index, kTVMFFIInt);
  CHECK_EQ_INT(rc.v_int64, 12);
  unlink(path);
  RELEASE(f, fn, mod, g, lfn, lib);
}

/* A return while a heap allocation is live (its buffer too large for the stack) releases it:
 * run under LeakSanitizer, a leak fails the suite. */
TEST(return_releases_live_allocations) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 4);
  tvm_tir_var_obj* data = tvm_tir_ptr_var("big_data", TVM_TIR_INT32, "global");
  void* shape = tvm_tir_list_take(tvm_tir_int(1 << 20));
  tvm_tir_buffer_obj* big = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){
      .data = data, .dtype = TVM_TIR_INT32, .shape = shape, .name = "big"});
  void* body = tvm_tir_allocate_takev(
      ref(data), TVM_TIR_INT32, 1, (void*[]){tvm_tir_int(1 << 20)},
      tvm_tir_decl_buffer_take(
          ref(big), tvm_tir_seq_take(
                        tvm_tir_store_take(ref(big), tvm_tir_load_take(ref(A), tvm_tir_int(2)),
                                           tvm_tir_int(1000)),
                        ret_take(tvm_tir_load_take(ref(big), tvm_tir_int(1000))))));
  void* f = tvm_tir_func_take("ret_alloc", tvm_tir_list_take(ref(A)), body);
  int32_t a[4] = {1, 2, 33, 4};
  int64_t n4[1] = {4};
  DLTensor ta = dl(a, TVM_TIR_INT32, 1, n4, NULL);
  SAME_RET(f, I(33), T(&ta));
  RELEASE(A, data, shape, big, f);
}

TEST(unsupported_returns_are_errors) {
  /* Inside a parallel loop the body is another function: refused, with the reason. */
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* f = tvm_tir_func_take(
      "ret_par", tvm_tir_list_take(),
      tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(4), TVM_TIR_FOR_PARALLEL,
                       ret_take(ref(i))));
  void* g = tvm_tir_lower(f, NULL);
  CHECK(g != NULL);
  CHECK(g && tvm_codegen_build(g, "llvm", NULL) == NULL);
  CHECK_RAISED("NotImplementedError", "tir.ret inside a parallel loop is not supported");
  RELEASE(i, f, g);
}

int main(void) {
  RUN(scalar_returns);
  RUN(return_from_a_loop);
  RUN(return_releases_live_allocations);
  RUN(unsupported_returns_are_errors);
  return test_summary();
}
