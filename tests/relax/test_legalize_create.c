/*
 * test_legalize_create.c: the kernels of the creation operators (zeros, ones, full and their
 * _like forms, arange, hamming_window, tril, triu), legalized and run by the reference evaluator, against values
 * computed here; symbolic output shapes included.
 */
#include "legalize_testing.h"

/* Legalize and run main(params) { call } on args; the caller releases params. */
static int run(void* params, tvm_relax_expr_obj* call, int n, void* const* tensors, TVMFFIAny* out) {
  TVMFFIAny args[4];
  for (int i = 0; i < n; ++i) args[i] = tvm_ffi_any_obj(tensors[i]);
  return lg_eval(params, call, args, n, out);
}

TEST(fills) {
  /* main(x: (n,), f: ()) with n = 4: zeros / ones / full((n, 3)), full_like(x, f), ... */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* three = tvm_tir_const_int(I64, 3);
  void* dn[1] = {n};
  void* vals = rt_array(2, n, three);
  void* x = rv_rand(1, (int64_t[]){4});
  void* f = rv_rand(0, NULL);
  float fv = *lg_f(f);
  void* dt = rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32));
  for (int op = 0; op < 7; ++op) {
    tvm_relax_var_obj* xv = rt_var_take("x", rt_tensor_sym(F32, 1, dn));
    tvm_relax_var_obj* fvar = rt_var_take("f", rt_tensor(F32, 0));
    void* params = rt_array(2, xv, fvar);
    tvm_relax_expr_obj* shape = tvm_relax_shape_expr_new(vals);
    tvm_tir_expr_obj* f25 = tvm_tir_const_float(F32, 2.5);
    tvm_relax_expr_obj* c25 = tvm_relax_prim_value_new(f25);
    tvm_ffi_release(f25);
    tvm_relax_expr_obj* call = NULL;
    double want = 0;
    int64_t count = 12;
    switch (op) {
      case 0: call = tvm_relax_call_op("relax.zeros", dt, 1, shape), want = 0; break;
      case 1: call = tvm_relax_call_op("relax.ones", dt, 1, shape), want = 1; break;
      case 2: call = tvm_relax_call_op("relax.full", NULL, 2, shape, c25), want = 2.5; break;
      case 3: call = tvm_relax_call_op("relax.full", NULL, 2, shape, fvar), want = fv; break;
      case 4: call = tvm_relax_call_op("relax.full_like", NULL, 2, xv, fvar), want = fv, count = 4; break;
      case 5: call = tvm_relax_call_op("relax.ones_like", NULL, 1, xv), want = 1, count = 4; break;
      case 6: call = tvm_relax_call_op("relax.zeros_like", NULL, 1, xv), want = 0, count = 4; break;
    }
    void* ts[2] = {x, f};
    TVMFFIAny out;
    CHECK_OK(run(params, call, 2, ts, &out));
    double w[12];
    for (int i = 0; i < 12; ++i) w[i] = want;
    CHECK_EQ_INT(lg_bad(&out, w, count, 0), 0);
    if (out.type_index == kTVMFFITensor && count == 12) CHECK(lg_shape_is(out.v_obj, 2, (int64_t[]){4, 3}));
    tvm_ffi_any_release(&out);
    tvm_ffi_release(c25), tvm_ffi_release(shape), tvm_ffi_release(params);
    tvm_ffi_release(xv), tvm_ffi_release(fvar);
  }
  tvm_ffi_release(dt), tvm_ffi_release(f), tvm_ffi_release(x), tvm_ffi_release(vals);
  tvm_ffi_release(three), tvm_ffi_release(n);
}

TEST(arange) {
  /* int64: arange(2, 11, 3) = [2, 5, 8]; float32: arange(0.5, -1.0, -0.25) (6 values) */
  void* params = tvm_ffi_array_new(NULL, 0);
  tvm_relax_expr_obj* a = tvm_relax_prim_value_int64(2);
  tvm_relax_expr_obj* b = tvm_relax_prim_value_int64(11);
  tvm_relax_expr_obj* c = tvm_relax_prim_value_int64(3);
  void* di = rt_attrs(1, "dtype", tvm_ffi_any_dtype(I64));
  TVMFFIAny out;
  CHECK_OK(run(params, tvm_relax_call_op("relax.arange", di, 3, a, b, c), 0, NULL, &out));
  CHECK(out.type_index == kTVMFFITensor);
  if (out.type_index == kTVMFFITensor) {
    const DLTensor* dl = tvm_ffi_tensor_dl(out.v_obj);
    CHECK_EQ_INT(tvm_ffi_dltensor_numel(dl), 3);
    const int64_t* p = dl->data;
    for (int i = 0; i < 3 && tvm_ffi_dltensor_numel(dl) == 3; ++i) CHECK_EQ_INT(p[i], 2 + 3 * i);
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(c), tvm_ffi_release(di);
  tvm_tir_expr_obj* fa = tvm_tir_const_float(F32, 0.5);
  tvm_tir_expr_obj* fb = tvm_tir_const_float(F32, -1.0);
  tvm_tir_expr_obj* fc = tvm_tir_const_float(F32, -0.25);
  a = tvm_relax_prim_value_new(fa);
  b = tvm_relax_prim_value_new(fb);
  c = tvm_relax_prim_value_new(fc);
  tvm_ffi_release(fa), tvm_ffi_release(fb), tvm_ffi_release(fc);
  void* df = rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32));
  CHECK_OK(run(params, tvm_relax_call_op("relax.arange", df, 3, a, b, c), 0, NULL, &out));
  double w[6];
  for (int i = 0; i < 6; ++i) w[i] = 0.5 - 0.25 * i;
  CHECK_EQ_INT(lg_bad(&out, w, 6, 0), 0);
  tvm_ffi_any_release(&out);
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(c), tvm_ffi_release(df);
  tvm_ffi_release(params);
}

/* hamming_window(N, periodic, 0.54, 0.46): alpha - beta cos(2 pi i / d), d = N (periodic) or
 * N - 1, against the C formula in double; N = 1 is the one value alpha - beta. */
TEST(hamming_window) {
  void* params = tvm_ffi_array_new(NULL, 0);
  void* df = rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32));
  int64_t sizes[3] = {20, 7, 1};
  for (int k = 0; k < 3; ++k) {
    for (int periodic = 0; periodic < 2; ++periodic) {
      int64_t n = sizes[k];
      tvm_relax_expr_obj* a = tvm_relax_prim_value_int64(n);
      tvm_relax_expr_obj* p = tvm_relax_prim_value_int64(periodic);
      tvm_tir_expr_obj* fa = tvm_tir_const_float(F32, 0.54), *fb = tvm_tir_const_float(F32, 0.46);
      tvm_relax_expr_obj* al = tvm_relax_prim_value_new(fa), *be = tvm_relax_prim_value_new(fb);
      TVMFFIAny out;
      CHECK_OK(run(params, tvm_relax_call_op("relax.hamming_window", df, 4, a, p, al, be), 0,
                   NULL, &out));
      double w[20], d = periodic ? (double)n : (double)(n - 1);
      if (d < 1) d = 1;
      for (int64_t i = 0; i < n; ++i) w[i] = 0.54f - 0.46f * cos(2 * M_PI * (double)i / d);
      CHECK_EQ_INT(lg_bad(&out, w, n, 1e-6), 0);
      if (out.type_index == kTVMFFITensor) CHECK(lg_shape_is(out.v_obj, 1, &n));
      tvm_ffi_any_release(&out);
      tvm_ffi_release(a), tvm_ffi_release(p), tvm_ffi_release(al), tvm_ffi_release(be);
      tvm_ffi_release(fa), tvm_ffi_release(fb);
    }
  }
  /* a window of no value, an integer dtype */
  tvm_relax_expr_obj* z = tvm_relax_prim_value_int64(0), *one = tvm_relax_prim_value_int64(1);
  RT_EXPECT_CALL_ERROR(tvm_relax_call_op("relax.hamming_window", df, 4, z, one, one, one),
                       "ValueError", "argument 'window_size' must be positive, got 0");
  void* di = rt_attrs(1, "dtype", tvm_ffi_any_dtype(I64));
  RT_EXPECT_CALL_ERROR(tvm_relax_call_op("relax.hamming_window", di, 4, one, one, one, one),
                       "TypeError", "attribute 'dtype' must be a float dtype, got int64");
  tvm_ffi_release(z), tvm_ffi_release(one), tvm_ffi_release(di);
  tvm_ffi_release(df), tvm_ffi_release(params);
}

TEST(tril_triu) {
  /* x: (2, n, m) with n = 4, m = 5; k in {-1, 0, 2} */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_var_obj* m = tvm_tir_var_new("m", I64);
  tvm_tir_expr_obj* two = tvm_tir_const_int(I64, 2);
  void* d[3] = {two, n, m};
  void* x = rv_rand(3, (int64_t[]){2, 4, 5});
  for (int lower = 0; lower < 2; ++lower) {
    for (int64_t k = -1; k <= 2; k += (k == 0 ? 2 : 1)) {
      tvm_relax_var_obj* xv = rt_var_take("x", rt_tensor_sym(F32, 3, d));
      void* params = rt_array(1, xv);
      tvm_relax_expr_obj* kv = tvm_relax_prim_value_int64(k);
      tvm_relax_expr_obj* call = tvm_relax_call_op(lower ? "relax.tril" : "relax.triu", NULL, 2, xv, kv);
      TVMFFIAny out;
      CHECK_OK(run(params, call, 1, &x, &out));
      double w[40];
      for (int b = 0; b < 2; ++b)
        for (int i = 0; i < 4; ++i)
          for (int j = 0; j < 5; ++j) {
            bool keep = lower ? j <= i + k : j >= i + k;
            w[(b * 4 + i) * 5 + j] = keep ? lg_f(x)[(b * 4 + i) * 5 + j] : 0.0;
          }
      CHECK_EQ_INT(lg_bad(&out, w, 40, 0), 0);
      tvm_ffi_any_release(&out);
      tvm_ffi_release(kv), tvm_ffi_release(params), tvm_ffi_release(xv);
    }
  }
  tvm_ffi_release(x), tvm_ffi_release(two), tvm_ffi_release(n), tvm_ffi_release(m);
}

int main(void) {
  RUN(fills);
  RUN(arange);
  RUN(hamming_window);
  RUN(tril_triu);
  return test_summary();
}
