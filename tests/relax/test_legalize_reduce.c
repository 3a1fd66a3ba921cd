/*
 * test_legalize_reduce.c: the kernels of variance / std (axes, keepdims, all axes, a symbolic
 * dim) and of the scans cumsum / cumprod (an axis, a negative axis, exclusive, the flattened
 * tensor, an output dtype, a symbolic dim), legalized and run by the reference evaluator on
 * random inputs, against direct C loops; and the inputs without a kernel.
 */
#include "legalize_testing.h"

/* Run main(params from tensors) { op(params) } with attrs; *out the result. */
static int run(const char* op, void* attrs, int n, void* const* tensors, TVMFFIAny* out) {
  tvm_relax_var_obj* p[4];
  TVMFFIAny args[4];
  for (int i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "p%d", i);
    p[i] = rt_var_take(name, lg_sinfo_of(tensors[i]));
    args[i] = tvm_ffi_any_obj(tensors[i]);
  }
  void* params = tvm_ffi_array_of_objects((void**)p, n);
  void* cargs = tvm_ffi_array_of_objects((void**)p, n);
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  tvm_relax_expr_obj* call = tvm_relax_call_new(tvm_relax_op(info->id), cargs, attrs, NULL, NULL);
  int rc = lg_eval(params, call, args, n, out);
  tvm_ffi_release(cargs), tvm_ffi_release(params);
  for (int i = 0; i < n; ++i) tvm_ffi_release(p[i]);
  return rc;
}

/* Population variance of x (2, 3, 4) over the dims marked in red, row-major over the kept dims
 * into want; std when is_std. */
static void var_ref(const float* x, const bool* red, bool is_std, double* want) {
  int64_t s[3] = {2, 3, 4}, k = 0;
  int64_t lim[3];
  for (int d = 0; d < 3; ++d) lim[d] = red[d] ? 1 : s[d];
  for (int64_t a = 0; a < lim[0]; ++a)
    for (int64_t b = 0; b < lim[1]; ++b)
      for (int64_t c = 0; c < lim[2]; ++c) {
        double sum = 0, sq = 0;
        int64_t cnt = 0;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 3; ++j)
            for (int64_t l = 0; l < 4; ++l) {
              if ((!red[0] && i != a) || (!red[1] && j != b) || (!red[2] && l != c)) continue;
              sum += x[(i * 3 + j) * 4 + l], ++cnt;
            }
        double mean = sum / (double)cnt;
        for (int64_t i = 0; i < 2; ++i)
          for (int64_t j = 0; j < 3; ++j)
            for (int64_t l = 0; l < 4; ++l) {
              if ((!red[0] && i != a) || (!red[1] && j != b) || (!red[2] && l != c)) continue;
              double d = x[(i * 3 + j) * 4 + l] - mean;
              sq += d * d;
            }
        want[k++] = is_std ? sqrt(sq / (double)cnt) : sq / (double)cnt;
      }
}

TEST(variance_and_std) {
  int64_t s[3] = {2, 3, 4};
  void* t = rv_rand(3, s);
  static const struct {
    int naxes;
    int64_t axes[3];
    bool keep;
    int out_ndim;
  } cases[] = {{1, {1}, false, 2}, {2, {0, -1}, true, 3}, {0, {0}, false, 0}, {3, {0, 1, 2}, true, 3}};
  for (int is_std = 0; is_std < 2; ++is_std) {
    for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
      void* axes = cases[c].naxes ? lg_ints(cases[c].naxes, cases[c].axes) : NULL;
      void* attrs = rt_attrs(2, "axis", axes ? tvm_ffi_any_obj(axes) : tvm_ffi_any_none(), "keepdims",
                             tvm_ffi_any_bool(cases[c].keep));
      bool red[3] = {cases[c].naxes == 0, cases[c].naxes == 0, cases[c].naxes == 0};
      for (int i = 0; i < cases[c].naxes; ++i) red[(cases[c].axes[i] + 3) % 3] = true;
      double want[24];
      var_ref(lg_f(t), red, is_std, want);
      int64_t n = (red[0] ? 1 : 2) * (red[1] ? 1 : 3) * (red[2] ? 1 : 4);
      TVMFFIAny out;
      CHECK_OK(run(is_std ? "relax.std" : "relax.variance", attrs, 1, &t, &out));
      if (out.type_index == kTVMFFITensor) {
        CHECK_EQ_INT(tvm_ffi_tensor_dl(out.v_obj)->ndim, cases[c].out_ndim);
        CHECK_EQ_INT(lg_bad(&out, want, n, 1e-5), 0);
      }
      tvm_ffi_any_release(&out);
      tvm_ffi_release(attrs), tvm_ffi_release(axes);
    }
  }
  tvm_ffi_release(t);
}

TEST(variance_symbolic_dim) {
  /* x: (n, 4), variance over axis 0 -> (4,), run with n = 1, 5 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* c4 = tvm_tir_const_int(I64, 4);
  void* d[2] = {n, c4};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, d));
  void* params = rt_array(1, x);
  void* axes = lg_ints(1, (int64_t[]){0});
  void* attrs = rt_attrs(1, "axis", tvm_ffi_any_obj(axes));
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.variance", attrs, 1, x);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  for (int64_t nv = 1; legal && nv <= 5; nv += 4) {
    int64_t xs[2] = {nv, 4};
    void* xt = rv_rand(2, xs);
    TVMFFIAny arg = tvm_ffi_any_obj(xt), out;
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &out));
    double want[4];
    const float* p = lg_f(xt);
    for (int j = 0; j < 4; ++j) {
      double m = 0, v = 0;
      for (int64_t i = 0; i < nv; ++i) m += p[i * 4 + j];
      m /= (double)nv;
      for (int64_t i = 0; i < nv; ++i) v += (p[i * 4 + j] - m) * (p[i * 4 + j] - m);
      want[j] = v / (double)nv;
    }
    CHECK_EQ_INT(lg_bad(&out, want, 4, 1e-5), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs), tvm_ffi_release(axes);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(c4), tvm_ffi_release(n);
}

/* cumsum / cumprod of x (2, 3, 4) along axis (-1: flattened) into want. */
static void scan_ref(const float* x, int axis, bool prod, bool exclusive, double* want) {
  int64_t s[3] = {2, 3, 4}, str[3] = {12, 4, 1};
  if (axis < 0) {
    double acc = prod ? 1 : 0;
    for (int i = 0; i < 24; ++i) {
      if (exclusive) want[i] = acc;
      acc = prod ? acc * x[i] : acc + x[i];
      if (!exclusive) want[i] = acc;
    }
    return;
  }
  for (int64_t i = 0; i < 24; ++i) {
    int64_t pos = (i / str[axis]) % s[axis];
    int64_t start = i - pos * str[axis];
    double acc = prod ? 1 : 0;
    for (int64_t r = 0; r < pos + (exclusive ? 0 : 1); ++r) {
      double v = x[start + r * str[axis]];
      acc = prod ? acc * v : acc + v;
    }
    want[i] = acc;
  }
}

TEST(cumsum_and_cumprod) {
  int64_t s[3] = {2, 3, 4};
  void* t = rv_rand(3, s);
  for (int prod = 0; prod < 2; ++prod) {
    for (int axis = -1; axis < 3; ++axis) {
      for (int excl = 0; excl < 2; ++excl) {
        /* axis 2 given as -1 (a negative axis); -1 here means None (the flattened tensor) */
        TVMFFIAny ax = axis < 0 ? tvm_ffi_any_none() : tvm_ffi_any_int(axis == 2 ? -1 : axis);
        void* attrs = rt_attrs(2, "axis", ax, "exclusive", tvm_ffi_any_bool(excl));
        double want[24];
        scan_ref(lg_f(t), axis, prod, excl, want);
        TVMFFIAny out;
        CHECK_OK(run(prod ? "relax.cumprod" : "relax.cumsum", attrs, 1, &t, &out));
        if (out.type_index == kTVMFFITensor) {
          CHECK_EQ_INT(tvm_ffi_tensor_dl(out.v_obj)->ndim, axis < 0 ? 1 : 3);
          CHECK_EQ_INT(lg_bad(&out, want, 24, 1e-5), 0);
        }
        tvm_ffi_any_release(&out);
        tvm_ffi_release(attrs);
      }
    }
  }
  tvm_ffi_release(t);
}

TEST(cumsum_dtype_and_symbolic) {
  /* int64 input summed as float32 (dtype attribute): x (n, 3) along axis 0, n = 2, 4. */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* c3 = tvm_tir_const_int(I64, 3);
  void* d[2] = {n, c3};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(I64, 2, d));
  void* params = rt_array(1, x);
  void* attrs = rt_attrs(2, "axis", tvm_ffi_any_int(0), "dtype", tvm_ffi_any_dtype(F32));
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.cumsum", attrs, 1, x);
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  for (int64_t nv = 2; legal && nv <= 4; nv += 2) {
    int64_t xs[2] = {nv, 3};
    void* xt = rv_rand_int(2, xs, -50, 50);
    TVMFFIAny arg = tvm_ffi_any_obj(xt), out;
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &out));
    double want[12];
    const int64_t* p = tvm_ffi_tensor_dl(xt)->data;
    for (int j = 0; j < 3; ++j) {
      double acc = 0;
      for (int64_t i = 0; i < nv; ++i) want[i * 3 + j] = acc += (double)p[i * 3 + j];
    }
    CHECK_EQ_INT(lg_bad(&out, want, nv * 3, 0), 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  /* The flattened symbolic tensor: (n, 3) -> (n * 3,). */
  attrs = rt_attrs(1, "exclusive", tvm_ffi_any_bool(true));
  call = tvm_relax_call_op("relax.cumprod", attrs, 1, x);
  legal = lg_legalize(params, call);
  CHECK(legal != NULL);
  if (legal) {
    int64_t xs[2] = {3, 3};
    void* xt = rv_rand_int(2, xs, -3, 4);
    TVMFFIAny arg = tvm_ffi_any_obj(xt), out;
    CHECK_OK(tvm_relax_eval(legal, "main", &arg, 1, &out));
    const int64_t* p = tvm_ffi_tensor_dl(xt)->data;
    int64_t acc = 1, bad = 0;
    if (out.type_index == kTVMFFITensor && tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(out.v_obj)) == 9) {
      const int64_t* q = tvm_ffi_tensor_dl(out.v_obj)->data;
      for (int i = 0; i < 9; ++i) {
        bad += q[i] != acc;
        acc *= p[i];
      }
    } else {
      bad = 1;
    }
    CHECK_EQ_INT(bad, 0);
    tvm_ffi_any_release(&out);
    tvm_ffi_release(xt);
  }
  tvm_ffi_release(legal), tvm_ffi_release(call), tvm_ffi_release(attrs);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(c3), tvm_ffi_release(n);
}

TEST(no_kernel_for_integer_variance) {
  int64_t s[1] = {4};
  void* t = rv_rand_int(1, s, 0, 9);
  TVMFFIAny out = tvm_ffi_any_none();
  CHECK(run("relax.std", NULL, 1, &t, &out) != 0);
  CHECK_RAISED("NotImplementedError", "relax.std: only floating-point tensors have a kernel");
  tvm_ffi_release(t);
}

int main(void) {
  RUN(variance_and_std);
  RUN(variance_symbolic_dim);
  RUN(cumsum_and_cumprod);
  RUN(cumsum_dtype_and_symbolic);
  RUN(no_kernel_for_integer_variance);
  return test_summary();
}
