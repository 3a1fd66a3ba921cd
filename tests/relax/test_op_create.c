/*
 * test_op_create.c: struct info inference of the creation operators (zeros, ones, full, the
 * *_like operators, arange, tril, triu, eye, eye_like): static, symbolic and unknown shapes,
 * dtype defaults and overrides, and the errors on bad arguments and attributes.
 */
#include "relax_testing.h"

/* {"dtype": dtype} with the dtype given as text ("" = unspecified). */
static void* dtype_attr(const char* dtype) {
  TVMFFIAny v = tvm_ffi_string(dtype);
  void* m = rt_attrs(1, "dtype", v);
  tvm_ffi_any_release(&v);
  return m;
}

static tvm_relax_expr_obj* shape2(int64_t a, int64_t b) {
  int64_t d[2] = {a, b};
  return tvm_relax_shape_expr_of_ints(d, 2);
}

TEST(zeros_ones_of_a_shape) {
  void* f32 = dtype_attr("float32");
  tvm_relax_expr_obj* s = shape2(2, 3);
  RT_EXPECT_SINFO(RT_CALL("relax.zeros", f32, s), "R.Tensor((2, 3), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.ones", f32, s), "R.Tensor((2, 3), dtype=\"float32\")");
  /* A symbolic ShapeExpr and a shape variable: the result's shape is that expression. */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  void* dims = rt_array(1, n);
  tvm_relax_expr_obj* sn = tvm_relax_shape_expr_new(dims);
  RT_EXPECT_SINFO(RT_CALL("relax.zeros", f32, sn), "R.Tensor((n,), dtype=\"float32\")");
  tvm_relax_var_obj* sv = rt_var_take("s", tvm_relax_shape_sinfo_new(NULL, 3));
  tvm_relax_expr_obj* c = RT_CALL("relax.ones", f32, sv);
  CHECK(c != NULL);
  if (c) {
    tvm_relax_tensor_sinfo_obj* t = (tvm_relax_tensor_sinfo_obj*)tvm_relax_sinfo_of(c);
    CHECK(t->shape == (void*)sv);
    CHECK_EQ_INT(t->ndim, 3);
  }
  tvm_ffi_release(c);
  /* Errors: no dtype, a tensor where a shape is expected. */
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.zeros", NULL, s), "ValueError", "attribute 'dtype' is required");
  void* none_dtype = dtype_attr("");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.ones", none_dtype, s), "ValueError",
               "attribute 'dtype' must be a data type");
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)2));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.zeros", f32, x), "TypeError",
               "relax.zeros: argument 'shape' must be a shape (R.Shape), got R.Tensor((2,)");
  tvm_ffi_release(none_dtype);
  tvm_ffi_release(x);
  tvm_ffi_release(sv);
  tvm_ffi_release(sn);
  tvm_ffi_release(dims);
  tvm_ffi_release(n);
  tvm_ffi_release(s);
  tvm_ffi_release(f32);
}

TEST(full_takes_the_fill_dtype) {
  tvm_relax_expr_obj* s = shape2(4, 5);
  tvm_relax_var_obj* v = rt_var_take("v", rt_tensor(F32, 0));
  RT_EXPECT_SINFO(RT_CALL("relax.full", NULL, s, v), "R.Tensor((4, 5), dtype=\"float32\")");
  void* i32 = dtype_attr("int32");
  RT_EXPECT_SINFO(RT_CALL("relax.full", i32, s, v), "R.Tensor((4, 5), dtype=\"int32\")");
  /* An R.Prim fill value. */
  tvm_relax_expr_obj* p = tvm_relax_prim_value_int64(7);
  RT_EXPECT_SINFO(RT_CALL("relax.full", NULL, s, p), "R.Tensor((4, 5), dtype=\"int64\")");
  /* The fill value must be a scalar. */
  tvm_relax_var_obj* w = rt_var_take("w", rt_tensor(F32, 1, (int64_t)1));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.full", NULL, s, w), "TypeError",
               "argument 'fill_value' must be a scalar");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.full", NULL, w, v), "TypeError", "argument 'shape' must be a shape");
  tvm_ffi_release(w);
  tvm_ffi_release(p);
  tvm_ffi_release(i32);
  tvm_ffi_release(v);
  tvm_ffi_release(s);
}

TEST(like_operators) {
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* d[2] = {n, four};
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor_sym(F32, 2, d));
  RT_EXPECT_SINFO(RT_CALL("relax.zeros_like", NULL, x), "R.Tensor((n, 4), dtype=\"float32\")");
  void* i8 = dtype_attr("int8");
  RT_EXPECT_SINFO(RT_CALL("relax.ones_like", i8, x), "R.Tensor((n, 4), dtype=\"int8\")");
  tvm_relax_expr_obj* fv = tvm_relax_prim_value_new(four);
  RT_EXPECT_SINFO(RT_CALL("relax.full_like", NULL, x, fv), "R.Tensor((n, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.full_like", i8, x, fv), "R.Tensor((n, 4), dtype=\"int8\")");
  /* Unknown shape and rank stay unknown. */
  tvm_relax_var_obj* u = rt_var_take("u", tvm_relax_tensor_sinfo_new(NULL, F32, 3, NULL));
  RT_EXPECT_SINFO(RT_CALL("relax.ones_like", i8, u), "R.Tensor(dtype=\"int8\", ndim=3)");
  tvm_relax_var_obj* r =
      rt_var_take("r", tvm_relax_tensor_sinfo_new(NULL, F32, TVM_RELAX_UNKNOWN_NDIM, NULL));
  RT_EXPECT_SINFO(RT_CALL("relax.zeros_like", NULL, r), "R.Tensor(dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.zeros_like", NULL, fv), "TypeError", "argument 'x' must be a tensor");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.full_like", NULL, x, x), "TypeError",
               "argument 'fill_value' must be a scalar");
  tvm_ffi_release(r);
  tvm_ffi_release(u);
  tvm_ffi_release(fv);
  tvm_ffi_release(i8);
  tvm_ffi_release(x);
  tvm_ffi_release(four);
  tvm_ffi_release(n);
}

static tvm_relax_expr_obj* pv(int64_t v) { return tvm_relax_prim_value_int64(v); }

static tvm_relax_expr_obj* pvf(double v) {
  tvm_tir_expr_obj* c = tvm_tir_const_float(F32, v);
  tvm_relax_expr_obj* p = tvm_relax_prim_value_new(c);
  tvm_ffi_release(c);
  return p;
}

/* arange(start, end, step) with integer bounds. */
static tvm_relax_expr_obj* arange_i(int64_t a, int64_t b, int64_t c, void* attrs) {
  tvm_relax_expr_obj *x = pv(a), *y = pv(b), *z = pv(c);
  tvm_relax_expr_obj* r = RT_CALL("relax.arange", attrs, x, y, z);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  tvm_ffi_release(z);
  return r;
}

TEST(arange_lengths) {
  RT_EXPECT_SINFO(arange_i(0, 10, 1, NULL), "R.Tensor((10,), dtype=\"int64\")");
  RT_EXPECT_SINFO(arange_i(0, 10, 3, NULL), "R.Tensor((4,), dtype=\"int64\")");
  RT_EXPECT_SINFO(arange_i(10, 0, -2, NULL), "R.Tensor((5,), dtype=\"int64\")");
  RT_EXPECT_SINFO(arange_i(10, 0, -3, NULL), "R.Tensor((4,), dtype=\"int64\")");
  RT_EXPECT_SINFO(arange_i(5, 2, 1, NULL), "R.Tensor((0,), dtype=\"int64\")");
  void* f32 = dtype_attr("float32");
  RT_EXPECT_SINFO(arange_i(1, 4, 1, f32), "R.Tensor((3,), dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(arange_i(0, 4, 0, NULL), "ValueError", "argument 'step' must not be zero");
  /* Float bounds: ceil((end - start) / step), dtype from the bounds. */
  tvm_relax_expr_obj *a = pvf(0.0), *b = pvf(1.0), *c = pvf(0.25), *d = pvf(0.3);
  RT_EXPECT_SINFO(RT_CALL("relax.arange", NULL, a, b, c), "R.Tensor((4,), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.arange", NULL, a, b, d), "R.Tensor((4,), dtype=\"float32\")");
  /* A symbolic end: floordiv(n + 1, 2) for step 2 from 0. */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_relax_expr_obj* pn = tvm_relax_prim_value_new((tvm_tir_expr_obj*)n);
  tvm_relax_expr_obj *z = pv(0), *two = pv(2);
  tvm_relax_expr_obj* call = RT_CALL("relax.arange", NULL, z, pn, two);
  CHECK(call != NULL);
  if (call) {
    void* dims = tvm_relax_tensor_sinfo_dims(tvm_relax_sinfo_of(call));
    CHECK(dims != NULL && tvm_ffi_seq_size(dims) == 1);
    /* The length at n = 7 and n = 9, by substitution. */
    for (int64_t v = 7; dims && v <= 9; v += 2) {
      TVMFFIAny key = tvm_ffi_any_obj(n), val = tvm_ffi_any_obj(tvm_tir_const_int(I64, v));
      void* map = tvm_ffi_map_new(&key, &val, 1);
      tvm_ffi_any_release(&val);
      tvm_relax_sinfo_obj* at = tvm_relax_sinfo_substitute(tvm_relax_sinfo_of(call), map);
      CHECK_STR_EQ(rt_text(at),
                   v == 7 ? "R.Tensor((4,), dtype=\"int64\")" : "R.Tensor((5,), dtype=\"int64\")");
      tvm_ffi_release(at);
      tvm_ffi_release(map);
    }
  }
  tvm_ffi_release(call);
  /* An unknown bound: the length is unknown. */
  tvm_relax_var_obj* pu = rt_var_take("pu", tvm_relax_prim_sinfo_new(I64, NULL));
  RT_EXPECT_SINFO(RT_CALL("relax.arange", NULL, z, pu, two), "R.Tensor(dtype=\"int64\", ndim=1)");
  /* Arguments must be scalars. */
  tvm_relax_var_obj* t = rt_var_take("t", rt_tensor(F32, 0));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.arange", NULL, z, t, two), "TypeError",
               "argument 'end' must be a scalar value (R.Prim)");
  tvm_ffi_release(t);
  tvm_ffi_release(pu);
  tvm_ffi_release(z);
  tvm_ffi_release(two);
  tvm_ffi_release(pn);
  tvm_ffi_release(n);
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  tvm_ffi_release(c);
  tvm_ffi_release(d);
  tvm_ffi_release(f32);
}

TEST(tril_triu) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 3, (int64_t)2, (int64_t)3, (int64_t)4));
  tvm_relax_expr_obj* k = pv(1);
  RT_EXPECT_SINFO(RT_CALL("relax.tril", NULL, x, k), "R.Tensor((2, 3, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.triu", NULL, x, k), "R.Tensor((2, 3, 4), dtype=\"float32\")");
  tvm_relax_var_obj* v = rt_var_take("v", rt_tensor(F32, 1, (int64_t)3));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.triu", NULL, v, k), "ValueError",
               "relax.triu: argument 'x' must have ndim >= 2, got 1");
  tvm_relax_expr_obj* kf = pvf(1.0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.tril", NULL, x, kf), "TypeError",
               "argument 'k' must be an integer scalar");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.tril", NULL, x, x), "TypeError",
               "argument 'k' must be a scalar value");
  tvm_ffi_release(kf);
  tvm_ffi_release(v);
  tvm_ffi_release(k);
  tvm_ffi_release(x);
}

/* eye (upstream's rule): (n, m) of the dtype attribute (float32 by default, as upstream's
 * wrapper), from integer R.Prim arguments; eye_like: x's struct info, ndim 2. */
TEST(eye_and_eye_like) {
  tvm_relax_expr_obj *three = pv(3), *four = pv(4), *k = pv(-1), *kf = pvf(1.0), *neg = pv(-2);
  RT_EXPECT_SINFO(RT_CALL("relax.eye", NULL, three, four, k),
                  "R.Tensor((3, 4), dtype=\"float32\")");
  void* i32 = dtype_attr("int32");
  RT_EXPECT_SINFO(RT_CALL("relax.eye", i32, three, three, k),
                  "R.Tensor((3, 3), dtype=\"int32\")");
  /* a symbolic n stays; an int32 one is cast to the int64 of shapes; an unknown m: ndim 2 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_relax_expr_obj* pn = tvm_relax_prim_value_new((tvm_tir_expr_obj*)n);
  RT_EXPECT_SINFO(RT_CALL("relax.eye", NULL, pn, four, k),
                  "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_tir_var_obj* n32 = tvm_tir_var_new("n32", tvm_tir_dtype_int(32));
  tvm_relax_expr_obj* p32 = tvm_relax_prim_value_new((tvm_tir_expr_obj*)n32);
  RT_EXPECT_SINFO(RT_CALL("relax.eye", NULL, four, p32, k),
                  "R.Tensor((4, T.Cast(\"int64\", n32)), dtype=\"float32\")");
  tvm_relax_var_obj* pu = rt_var_take("pu", tvm_relax_prim_sinfo_new(I64, NULL));
  RT_EXPECT_SINFO(RT_CALL("relax.eye", NULL, three, pu, k),
                  "R.Tensor(dtype=\"float32\", ndim=2)");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye", NULL, neg, four, k), "ValueError",
                       "relax.eye: argument 'n' must be non-negative, got -2");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye", NULL, three, four, kf), "TypeError",
                       "relax.eye: argument 'k' must be an integer scalar, got dtype float32");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye", NULL, three, kf, k), "TypeError",
                       "argument 'm' must be an integer scalar");
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)3, (int64_t)5));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye", NULL, x, four, k), "TypeError",
                       "argument 'n' must be a scalar value (R.Prim)");
  /* eye_like */
  RT_EXPECT_SINFO(RT_CALL("relax.eye_like", NULL, x, k),
                  "R.Tensor((3, 5), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.eye_like", i32, x, k), "R.Tensor((3, 5), dtype=\"int32\")");
  tvm_relax_var_obj* u = rt_var_take("u", tvm_relax_tensor_sinfo_new(NULL, F32, -1, NULL));
  RT_EXPECT_SINFO(RT_CALL("relax.eye_like", i32, u, k), "R.Tensor(dtype=\"int32\")");
  tvm_relax_var_obj* x3 =
      rt_var_take("x3", rt_tensor(F32, 3, (int64_t)2, (int64_t)3, (int64_t)4));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye_like", NULL, x3, k), "ValueError",
                       "relax.eye_like: argument 'x' must have ndim 2, got 3");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye_like", NULL, x, kf), "TypeError",
                       "argument 'k' must be an integer scalar");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.eye_like", NULL, pn, k), "TypeError",
                       "argument 'x' must be a tensor");
  void* objs[] = {three, four, k, kf, neg, i32, n, pn, n32, p32, pu, x, u, x3};
  for (size_t i = 0; i < sizeof(objs) / sizeof(objs[0]); ++i) tvm_ffi_release(objs[i]);
}

int main(void) {
  RUN(zeros_ones_of_a_shape);
  RUN(full_takes_the_fill_dtype);
  RUN(like_operators);
  RUN(arange_lengths);
  RUN(tril_triu);
  RUN(eye_and_eye_like);
  return test_summary();
}
