/*
 * test_op_manip.c: struct info inference of the manipulation and indexing operators (reshape,
 * permute_dims, expand_dims, squeeze, flatten, broadcast_to, concat, stack, meshgrid, split,
 * strided_slice, take, tile, repeat, flip, layout_transform): static, symbolic and unknown shapes,
 * negative axes, defaults, and the errors on bad arguments and attributes; and that an INTS
 * schema default owns its array.
 */
#include <tvm/tir/attr_value.h>

#include "op_infer_testing.h"

/* ---- Fixtures -------------------------------------------------------------------------------- */
/* Symbolic dims n and m, shared by the tests. */
static tvm_tir_var_obj *g_n, *g_m;

/* A Var of a constant-shape float32 tensor. */
static tvm_relax_var_obj* tvar(int ndim, int64_t d0, int64_t d1, int64_t d2, int64_t d3) {
  return rt_var_take("x", rt_tensor(F32, ndim, d0, d1, d2, d3));
}

/* A Var of a float32 tensor whose dims are objects (PrimExprs). */
static tvm_relax_var_obj* tvar_sym(int ndim, void* d0, void* d1, void* d2) {
  void* d[3] = {d0, d1, d2};
  return rt_var_take("x", rt_tensor_sym(F32, ndim, d));
}

/* A Var of a float32 tensor of unknown shape (ndim, -1 = unknown). */
static tvm_relax_var_obj* tvar_ndim(int ndim) {
  return rt_var_take("u", tvm_relax_tensor_sinfo_new(NULL, F32, ndim, NULL));
}

static tvm_tir_expr_obj* c64(int64_t v) { return tvm_tir_const_int(I64, v); }

/* A ShapeExpr of n ints. */
static tvm_relax_expr_obj* shape_of(int n, int64_t a, int64_t b, int64_t c, int64_t d) {
  int64_t v[4] = {a, b, c, d};
  return tvm_relax_shape_expr_of_ints(v, n);
}

/* An ffi.Array of n ints. */
static void* ints(int n, int64_t a, int64_t b, int64_t c, int64_t d) {
  TVMFFIAny v[4] = {tvm_ffi_any_int(a), tvm_ffi_any_int(b), tvm_ffi_any_int(c), tvm_ffi_any_int(d)};
  return tvm_ffi_array_new(v, n);
}

/* {name: value} with value an object (borrowed) or an int. */
static void* attr_obj(const char* name, void* obj) {
  return rt_attrs(1, name, tvm_ffi_any_obj(obj));
}
static void* attr_int(const char* name, int64_t v) { return rt_attrs(1, name, tvm_ffi_any_int(v)); }
static void* attr_ints(const char* name, int n, int64_t a, int64_t b, int64_t c, int64_t d) {
  void* arr = ints(n, a, b, c, d);
  void* m = attr_obj(name, arr);
  tvm_ffi_release(arr);
  return m;
}

/* Release a list of objects (NULL-terminated). */
static void release_all(void* first, ...) {
  va_list ap;
  va_start(ap, first);
  for (void* p = first; p; p = va_arg(ap, void*)) tvm_ffi_release(p);
  va_end(ap);
}

/* The text of the struct info of expr with v1 = x1 (and v2 = x2 when v2) substituted. */
static const char* text_at(const void* expr, void* v1, int64_t x1, void* v2, int64_t x2) {
  if (!expr) return "(null expr)";
  TVMFFIAny keys[2] = {tvm_ffi_any_obj(v1), tvm_ffi_any_obj(v2)};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(c64(x1)), tvm_ffi_any_obj(c64(x2))};
  void* map = tvm_ffi_map_new(keys, vals, v2 ? 2 : 1);
  tvm_ffi_any_release(&vals[0]);
  tvm_ffi_any_release(&vals[1]);
  tvm_relax_sinfo_obj* at = tvm_relax_sinfo_substitute(tvm_relax_sinfo_of(expr), map);
  const char* t = rt_text(at);
  release_all(at, map, NULL);
  return t;
}

/* ---- reshape, broadcast_to ------------------------------------------------------------------- */
TEST(reshape) {
  tvm_relax_var_obj* x = tvar(2, 2, 6, 0, 0);
  tvm_relax_expr_obj* s34 = shape_of(2, 3, 4, 0, 0);
  tvm_relax_expr_obj* s_1_4 = shape_of(2, -1, 4, 0, 0);
  tvm_relax_expr_obj* s5 = shape_of(1, 5, 0, 0, 0);
  tvm_relax_expr_obj* s_1_5 = shape_of(2, -1, 5, 0, 0);
  tvm_relax_expr_obj* s_1_1 = shape_of(2, -1, -1, 0, 0);
  tvm_relax_expr_obj* s_2 = shape_of(2, -2, 6, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, x, s34), "R.Tensor((3, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, x, s_1_4), "R.Tensor((3, 4), dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, x, s5), "ValueError",
                       "relax.reshape: cannot reshape R.Tensor((2, 6), dtype=\"float32\") (12 "
                       "elements) to R.Shape([5]) (5 elements)");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, x, s_1_5), "ValueError",
                       "cannot reshape R.Tensor((2, 6), dtype=\"float32\") of 12 elements");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, x, s_1_1), "ValueError", "more than one -1");
  tvm_relax_expr_obj* s_1_0 = shape_of(2, -1, 0, 0, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, x, s_1_0), "ValueError",
               "relax.reshape: cannot infer the -1 of R.Shape([-1, 0]): the other dims are 0");
  tvm_ffi_release(s_1_0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, x, s_2), "ValueError", "negative dim -2");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, x, x), "TypeError",
               "argument 'shape' must be a shape (R.Shape)");
  /* Symbolic: (n, 4) -> (-1,) is (n * 4,); (n, 4) -> (2, n * 2) is accepted. */
  tvm_tir_expr_obj* four = c64(4);
  tvm_relax_var_obj* xs = tvar_sym(2, g_n, four, NULL);
  tvm_relax_expr_obj* s_1 = shape_of(1, -1, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, xs, s_1),
               "R.Tensor((n * T.int64(4),), dtype=\"float32\")");
  tvm_tir_expr_obj* two = c64(2);
  tvm_tir_expr_obj* n2 = tvm_tir_mul((tvm_tir_expr_obj*)g_n, two);
  void* d = rt_array(2, two, n2);
  tvm_relax_expr_obj* s2n = tvm_relax_shape_expr_new(d);
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, xs, s2n),
               "R.Tensor((2, n * T.int64(2)), dtype=\"float32\")");
  /* (n, 4) -> (n, 5): n * 4 == n * 5 at n = 0, so it is accepted; (n + 1, 4) is provably a
   * different count. */
  tvm_tir_expr_obj* five = c64(5);
  void* d5 = rt_array(2, g_n, five);
  tvm_relax_expr_obj* sn5 = tvm_relax_shape_expr_new(d5);
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, xs, sn5), "R.Tensor((n, 5), dtype=\"float32\")");
  release_all(sn5, d5, five, NULL);
  tvm_tir_expr_obj* one = c64(1);
  tvm_tir_expr_obj* n1 = tvm_tir_add((tvm_tir_expr_obj*)g_n, one);
  void* d2 = rt_array(2, n1, four);
  tvm_relax_expr_obj* sn1 = tvm_relax_shape_expr_new(d2);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.reshape", NULL, xs, sn1), "ValueError", "cannot reshape");
  /* Unknown input shape: the target shape is trusted; -1 leaves the rank only. */
  tvm_relax_var_obj* u = tvar_ndim(3);
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, u, s34), "R.Tensor((3, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.reshape", NULL, u, s_1_4), "R.Tensor(dtype=\"float32\", ndim=2)");
  /* A shape variable: the result's shape is the variable. */
  tvm_relax_var_obj* sv = rt_var_take("s", tvm_relax_shape_sinfo_new(NULL, 2));
  tvm_relax_expr_obj* c = RT_CALL("relax.reshape", NULL, x, sv);
  CHECK(c && ((tvm_relax_tensor_sinfo_obj*)tvm_relax_sinfo_of(c))->shape == (void*)sv);
  release_all(c, sv, u, sn1, d2, n1, one, s2n, d, n2, two, s_1, xs, four, s_2, s_1_1, s_1_5, s5,
              s_1_4, s34, x, NULL);
}

TEST(broadcast_to) {
  tvm_relax_var_obj* x = tvar(2, 1, 3, 0, 0);
  tvm_relax_expr_obj* s = shape_of(3, 2, 4, 3, 0);
  tvm_relax_expr_obj* bad = shape_of(2, 4, 5, 0, 0);
  tvm_relax_expr_obj* small = shape_of(1, 3, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.broadcast_to", NULL, x, s), "R.Tensor((2, 4, 3), dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.broadcast_to", NULL, x, bad), "ValueError",
               "cannot broadcast dim 1 of extent 3 to 5");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.broadcast_to", NULL, x, small), "ValueError",
               "a tensor of ndim 2 to a shape of ndim 1");
  tvm_relax_var_obj* u = tvar_ndim(-1);
  RT_EXPECT_SINFO(RT_CALL("relax.broadcast_to", NULL, u, bad), "R.Tensor((4, 5), dtype=\"float32\")");
  release_all(u, small, bad, s, x, NULL);
}

/* ---- permute_dims, expand_dims, squeeze, flatten --------------------------------------------- */
TEST(permute_dims) {
  tvm_tir_expr_obj* four = c64(4);
  tvm_relax_var_obj* x = tvar_sym(3, g_n, four, g_m);
  RT_EXPECT_SINFO(RT_CALL("relax.permute_dims", NULL, x), "R.Tensor((m, 4, n), dtype=\"float32\")");
  void* a = attr_ints("axes", 3, 1, -1, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.permute_dims", a, x), "R.Tensor((4, m, n), dtype=\"float32\")");
  void* dup = attr_ints("axes", 3, 0, 0, 1, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.permute_dims", dup, x), "ValueError", "axis 0 is repeated");
  void* short_axes = attr_ints("axes", 2, 0, 1, 0, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.permute_dims", short_axes, x), "ValueError",
               "attribute 'axes' has 2 axes for a tensor of ndim 3");
  void* out = attr_ints("axes", 3, 0, 1, 3, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.permute_dims", out, x), "ValueError",
               "axis 3 is out of range for a tensor of ndim 3");
  tvm_relax_var_obj* u = tvar_ndim(3);
  RT_EXPECT_SINFO(RT_CALL("relax.permute_dims", a, u), "R.Tensor(dtype=\"float32\", ndim=3)");
  tvm_relax_var_obj* r = tvar_ndim(-1);
  RT_EXPECT_SINFO(RT_CALL("relax.permute_dims", a, r), "R.Tensor(dtype=\"float32\", ndim=3)");
  RT_EXPECT_SINFO(RT_CALL("relax.permute_dims", NULL, r), "R.Tensor(dtype=\"float32\")");
  release_all(r, u, out, short_axes, dup, a, x, four, NULL);
}

TEST(expand_dims_squeeze_flatten) {
  tvm_relax_var_obj* x = tvar(3, 2, 1, 3, 0);
  void* ax = attr_ints("axis", 2, 0, -1, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.expand_dims", ax, x), "R.Tensor((1, 2, 1, 3, 1), dtype=\"float32\")");
  void* ax_bad = attr_ints("axis", 1, 5, 0, 0, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.expand_dims", ax_bad, x), "ValueError", "axis 5 is out of range");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.expand_dims", NULL, x), "ValueError", "attribute 'axis' is required");
  tvm_relax_var_obj* u = tvar_ndim(2);
  RT_EXPECT_SINFO(RT_CALL("relax.expand_dims", ax, u), "R.Tensor(dtype=\"float32\", ndim=4)");
  /* squeeze: all 1s by default, given axes (one of a constant extent other than 1 stays, as
   * PyTorch's and upstream's). */
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", NULL, x), "R.Tensor((2, 3), dtype=\"float32\")");
  void* s1 = attr_ints("axis", 1, -2, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", s1, x), "R.Tensor((2, 3), dtype=\"float32\")");
  void* s0 = attr_ints("axis", 1, 0, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", s0, x), "R.Tensor((2, 1, 3), dtype=\"float32\")");
  void* s01 = attr_ints("axis", 2, 0, 1, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", s01, x), "R.Tensor((2, 3), dtype=\"float32\")");
  tvm_tir_expr_obj* one = c64(1);
  tvm_relax_var_obj* xs = tvar_sym(2, g_n, one, NULL);
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", NULL, xs), "R.Tensor(dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", s0, xs), "R.Tensor((1,), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.squeeze", s0, u), "R.Tensor(dtype=\"float32\", ndim=1)");
  /* flatten */
  RT_EXPECT_SINFO(RT_CALL("relax.flatten", NULL, x), "R.Tensor((6,), dtype=\"float32\")");
  tvm_tir_expr_obj* three = c64(3);
  tvm_relax_var_obj* x3 = tvar_sym(3, g_n, three, g_m);
  RT_EXPECT_SINFO(RT_CALL("relax.flatten", NULL, x3),
               "R.Tensor(((n * T.int64(3)) * m,), dtype=\"float32\")");
  tvm_relax_var_obj* sc = tvar(0, 0, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.flatten", NULL, sc), "R.Tensor((1,), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.flatten", NULL, u), "R.Tensor(dtype=\"float32\", ndim=1)");
  release_all(sc, x3, three, xs, one, s0, s01, s1, u, ax_bad, ax, x, NULL);
}

/* ---- stack ----------------------------------------------------------------------------------- */
TEST(stack) {
  tvm_tir_expr_obj* four = c64(4);
  tvm_relax_var_obj* a = tvar_sym(2, g_n, four, NULL); /* (n, 4) */
  tvm_relax_var_obj* b = tvar_sym(2, g_n, four, NULL);
  void* f = rt_array(2, a, b);
  tvm_relax_expr_obj* t = tvm_relax_tuple_new(f);
  RT_EXPECT_SINFO(RT_CALL("relax.stack", NULL, t), "R.Tensor((2, n, 4), dtype=\"float32\")");
  void* ax2 = attr_int("axis", 2), *axm1 = attr_int("axis", -1), *ax3 = attr_int("axis", 3);
  void* axm4 = attr_int("axis", -4);
  RT_EXPECT_SINFO(RT_CALL("relax.stack", ax2, t), "R.Tensor((n, 4, 2), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.stack", axm1, t), "R.Tensor((n, 4, 2), dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", ax3, t), "ValueError", "axis 3 is out of range");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", axm4, t), "ValueError", "axis -4 is out of range");
  /* every dim must agree (concat's axis too); one not provably equal: the shape is unknown */
  tvm_relax_var_obj *c = tvar(2, 3, 4, 0, 0), *d = tvar(2, 3, 5, 0, 0);
  void* f2 = rt_array(2, c, d);
  tvm_relax_expr_obj* t2 = tvm_relax_tuple_new(f2);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", NULL, t2), "ValueError",
                       "tensors differ in dim 1 (4 against 5)");
  void* f3 = rt_array(3, a, c, a);
  tvm_relax_expr_obj* t3 = tvm_relax_tuple_new(f3);
  RT_EXPECT_SINFO(RT_CALL("relax.stack", NULL, t3), "R.Tensor(dtype=\"float32\", ndim=3)");
  /* one tensor of unknown rank: so is the result; different ranks; a lone tensor */
  tvm_relax_var_obj* u = tvar_ndim(-1);
  void* f4 = rt_array(2, u, c);
  tvm_relax_expr_obj* t4 = tvm_relax_tuple_new(f4);
  RT_EXPECT_SINFO(RT_CALL("relax.stack", NULL, t4), "R.Tensor(dtype=\"float32\", ndim=3)");
  tvm_relax_var_obj* v1 = tvar(1, 3, 0, 0, 0);
  void* f5 = rt_array(2, c, v1);
  tvm_relax_expr_obj* t5 = tvm_relax_tuple_new(f5);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", NULL, t5), "ValueError", "different ndims 2 and 1");
  void* f6 = rt_array(1, v1);
  tvm_relax_expr_obj* t6 = tvm_relax_tuple_new(f6);
  RT_EXPECT_SINFO(RT_CALL("relax.stack", axm1, t6), "R.Tensor((3, 1), dtype=\"float32\")");
  /* dtypes, fields, emptiness, not a tuple: concat's errors */
  tvm_relax_var_obj* i = rt_var_take("i", rt_tensor(I64, 2, (int64_t)3, (int64_t)4));
  void* f7 = rt_array(2, c, i);
  tvm_relax_expr_obj* t7 = tvm_relax_tuple_new(f7);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", NULL, t7), "TypeError",
                       "different dtypes float32 and int64");
  tvm_relax_expr_obj* t8 = tvm_relax_tuple_new(NULL);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", NULL, t8), "ValueError", "must hold at least one tensor");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.stack", NULL, c), "TypeError", "must be a tuple of tensors");
  release_all(t8, t7, f7, i, t6, f6, t5, f5, v1, t4, f4, u, t3, f3, t2, f2, c, d, ax2, axm1, ax3,
              axm4, t, f, a, b, four, NULL);
}

/* ---- concat, split --------------------------------------------------------------------------- */
TEST(concat) {
  tvm_tir_expr_obj* four = c64(4);
  tvm_relax_var_obj* a = tvar_sym(2, g_n, four, NULL);
  tvm_relax_var_obj* b = tvar(2, 3, 4, 0, 0);
  void* f = rt_array(2, a, b);
  tvm_relax_expr_obj* t = tvm_relax_tuple_new(f);
  RT_EXPECT_SINFO(RT_CALL("relax.concat", NULL, t),
               "R.Tensor((n + T.int64(3), 4), dtype=\"float32\")");
  void* ax1 = attr_int("axis", -1);
  RT_EXPECT_SINFO(RT_CALL("relax.concat", ax1, t), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_relax_var_obj* c = tvar(2, 3, 5, 0, 0);
  void* f2 = rt_array(2, b, c);
  tvm_relax_expr_obj* t2 = tvm_relax_tuple_new(f2);
  RT_EXPECT_SINFO(RT_CALL("relax.concat", ax1, t2), "R.Tensor((3, 9), dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.concat", NULL, t2), "ValueError", "tensors differ in dim 1");
  /* axis None concatenates 1-d tensors. */
  void* none_axis = rt_attrs(1, "axis", tvm_ffi_any_none());
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.concat", none_axis, t2), "ValueError", "different ndims 1 and 2");
  tvm_relax_var_obj *v1 = tvar(1, 2, 0, 0, 0), *v2 = tvar(1, 5, 0, 0, 0);
  void* f3 = rt_array(2, v1, v2);
  tvm_relax_expr_obj* t3 = tvm_relax_tuple_new(f3);
  RT_EXPECT_SINFO(RT_CALL("relax.concat", none_axis, t3), "R.Tensor((7,), dtype=\"float32\")");
  /* A tuple-typed variable works like a Tuple expression. */
  tvm_ffi_retain(tvm_relax_sinfo_of(t3));
  tvm_relax_var_obj* tv = rt_var_take("tv", tvm_relax_sinfo_of(t3));
  RT_EXPECT_SINFO(RT_CALL("relax.concat", NULL, tv), "R.Tensor((7,), dtype=\"float32\")");
  /* dtype mismatch, non-tensor field, empty tuple, not a tuple. */
  tvm_relax_var_obj* i = rt_var_take("i", rt_tensor(I64, 2, (int64_t)3, (int64_t)4));
  void* f4 = rt_array(2, b, i);
  tvm_relax_expr_obj* t4 = tvm_relax_tuple_new(f4);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.concat", NULL, t4), "TypeError",
               "different dtypes float32 and int64");
  tvm_relax_expr_obj* p = tvm_relax_prim_value_int64(1);
  void* f5 = rt_array(2, b, p);
  tvm_relax_expr_obj* t5 = tvm_relax_tuple_new(f5);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.concat", NULL, t5), "TypeError",
               "argument 'tensors' must be a tuple of tensors, field 1 is R.Prim");
  tvm_relax_expr_obj* t6 = tvm_relax_tuple_new(NULL);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.concat", NULL, t6), "ValueError", "must hold at least one tensor");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.concat", NULL, b), "TypeError", "must be a tuple of tensors");
  release_all(t6, t5, f5, p, t4, f4, i, tv, t3, f3, v1, v2, none_axis, t2, f2, c, ax1, t, f, a, b,
              four, NULL);
}

/* ---- meshgrid -------------------------------------------------------------------------------- */
/* N 1-d tensors give N grids of shape (len_0, ..., len_{N-1}), the first two exchanged for "xy";
 * a shape or rank unknown leaves the shape unknown (rank N). */
TEST(meshgrid) {
  const char* op = "relax.meshgrid";
#define G23 "R.Tensor((2, 3), dtype=\"float32\")"
  CHECK_INFER("R.Tuple(" G23 ", " G23 ")", op, NULL, 1, TUP(2, T("2", F32), T("3", F32)));
  CHECK_INFER("R.Tuple(" G23 ", " G23 ")", op, oi_attrs(1, "indexing", AS("ij")), 1,
              TUP(2, T("2", F32), T("3", F32)));
  /* indexing None is "ij" (upstream's optional attribute) */
  CHECK_INFER("R.Tuple(" G23 ", " G23 ")", op, oi_attrs(1, "indexing", tvm_ffi_any_none()), 1,
              TUP(2, T("2", F32), T("3", F32)));
#undef G23
  /* "xy": (len_1, len_0, len_2); the dtype is the tensors' */
#define G324 "R.Tensor((3, 2, 4), dtype=\"int32\")"
  CHECK_INFER("R.Tuple(" G324 ", " G324 ", " G324 ")", op, oi_attrs(1, "indexing", AS("xy")), 1,
              TUP(3, T("2", I32), T("3", I32), T("4", I32)));
#undef G324
  /* one tensor: one grid, the same for "xy" */
  CHECK_INFER("R.Tuple(R.Tensor((5,), dtype=\"float32\"))", op,
              oi_attrs(1, "indexing", AS("xy")), 1, TUP(1, T("5", F32)));
  /* symbolic lengths, exchanged by "xy" */
  CHECK_INFER("R.Tuple(R.Tensor((n, m), dtype=\"float32\"), R.Tensor((n, m), dtype=\"float32\"))",
              op, NULL, 1, TUP(2, T("n", F32), T("m", F32)));
  CHECK_INFER("R.Tuple(R.Tensor((m, n, 2), dtype=\"float32\"), R.Tensor((m, n, 2), "
              "dtype=\"float32\"), R.Tensor((m, n, 2), dtype=\"float32\"))",
              op, oi_attrs(1, "indexing", AS("xy")), 1, TUP(3, T("n", F32), T("m", F32),
              T("2", F32)));
  /* an unknown shape or rank (taken as 1-d): the rank only; an unknown dtype: unknown */
#define U2 "R.Tensor(dtype=\"float32\", ndim=2)"
  CHECK_INFER("R.Tuple(" U2 ", " U2 ")", op, NULL, 1, TUP(2, T("?1", F32), T("3", F32)));
  CHECK_INFER("R.Tuple(" U2 ", " U2 ")", op, NULL, 1, TUP(2, T("4", F32), T("*", F32)));
#undef U2
  CHECK_INFER("R.Tuple(R.Tensor((2, 3)), R.Tensor((2, 3)))", op, NULL, 1,
              TUP(2, T("2", UNK), T("3", F32)));
  /* errors */
  CHECK_INFER_FAILS("TypeError", "relax.meshgrid: argument 'tensors' must be a tuple of tensors, "
                    "got R.Tensor((2,), dtype=\"float32\")", op, NULL, 1, T("2", F32));
  CHECK_INFER_FAILS("ValueError", "relax.meshgrid: argument 'tensors' must hold at least one "
                    "tensor", op, NULL, 1, TUP(0));
  CHECK_INFER_FAILS("TypeError", "relax.meshgrid: argument 'tensors' must be a tuple of tensors, "
                    "field 1 is R.Shape([3])", op, NULL, 1, TUP(2, T("2", F32), SH("3")));
  CHECK_INFER_FAILS("TypeError", "relax.meshgrid: tensors have different dtypes float32 and int32",
                    op, NULL, 1, TUP(2, T("2", F32), T("3", I32)));
  CHECK_INFER_FAILS("ValueError", "relax.meshgrid: tensors have different ndims 1 and 2 (each "
                    "must be 1-d)", op, NULL, 1, TUP(2, T("2", F32), T("3, 4", F32)));
  CHECK_INFER_FAILS("ValueError", "different ndims 1 and 0 (each must be 1-d)", op, NULL, 1,
                    TUP(1, T("", F32)));
  CHECK_INFER_FAILS("ValueError", "relax.meshgrid: attribute 'indexing' must be \"ij\" or \"xy\", "
                    "got \"ji\"", op, oi_attrs(1, "indexing", AS("ji")), 1,
                    TUP(2, T("2", F32), T("3", F32)));
  CHECK_INFER_FAILS("TypeError", "relax.meshgrid: attribute 'indexing' must be a string or None",
                    op, oi_attrs(1, "indexing", AI(1)), 1, TUP(2, T("2", F32), T("3", F32)));
  oi_free_vars();
}

TEST(split) {
  tvm_relax_var_obj* x = tvar(2, 10, 4, 0, 0);
  void* s3 = attr_int("indices_or_sections", 3);
  RT_EXPECT_SINFO(RT_CALL("relax.split", s3, x),
               "R.Tuple(R.Tensor((4, 4), dtype=\"float32\"), R.Tensor((4, 4), dtype=\"float32\"), "
               "R.Tensor((2, 4), dtype=\"float32\"))");
  void* idx = ints(2, 2, 7, 0, 0);
  TVMFFIAny keys[2] = {tvm_ffi_string("indices_or_sections"), tvm_ffi_string("axis")};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(idx), tvm_ffi_any_int(-2)};
  void* si = tvm_ffi_map_new(keys, vals, 2);
  RT_EXPECT_SINFO(RT_CALL("relax.split", si, x),
               "R.Tuple(R.Tensor((2, 4), dtype=\"float32\"), R.Tensor((5, 4), dtype=\"float32\"), "
               "R.Tensor((3, 4), dtype=\"float32\"))");
  /* Sections of a symbolic dim: ceil(n / 2) and the rest. */
  tvm_tir_expr_obj* four = c64(4);
  tvm_relax_var_obj* xs = tvar_sym(2, g_n, four, NULL);
  void* s2 = attr_int("indices_or_sections", 2);
  tvm_relax_expr_obj* c = RT_CALL("relax.split", s2, xs);
  CHECK(c != NULL);
  if (c) {
    tvm_relax_tuple_sinfo_obj* ts = (tvm_relax_tuple_sinfo_obj*)tvm_relax_sinfo_of(c);
    CHECK_EQ_INT(tvm_ffi_seq_size(ts->fields), 2);
    /* At n = 7: 4 and 3. */
    TVMFFIAny key = tvm_ffi_any_obj(g_n), val = tvm_ffi_any_obj(c64(7));
    void* map = tvm_ffi_map_new(&key, &val, 1);
    tvm_ffi_any_release(&val);
    tvm_relax_sinfo_obj* at = tvm_relax_sinfo_substitute(&ts->base, map);
    CHECK_STR_EQ(rt_text(at),
                 "R.Tuple(R.Tensor((4, 4), dtype=\"float32\"), "
                 "R.Tensor((3, 4), dtype=\"float32\"))");
    release_all(at, map, NULL);
  }
  /* One section is the input itself; unknown shape gives tensors of the rank. */
  void* s1 = attr_int("indices_or_sections", 1);
  RT_EXPECT_SINFO(RT_CALL("relax.split", s1, x), "R.Tensor((10, 4), dtype=\"float32\")");
  tvm_relax_var_obj* u = tvar_ndim(2);
  RT_EXPECT_SINFO(RT_CALL("relax.split", s2, u),
               "R.Tuple(R.Tensor(dtype=\"float32\", ndim=2), "
               "R.Tensor(dtype=\"float32\", ndim=2))");
  void* s0 = attr_int("indices_or_sections", 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.split", s0, x), "ValueError", "number of sections must be positive");
  void* sf = rt_attrs(1, "indices_or_sections", tvm_ffi_any_float(1.5));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.split", sf, x), "TypeError",
               "attribute 'indices_or_sections' must be an int or a list of ints");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.split", NULL, x), "ValueError",
               "attribute 'indices_or_sections' is required");
  for (int k = 0; k < 2; ++k) tvm_ffi_any_release(&keys[k]);
  release_all(sf, s0, u, s1, c, s2, xs, four, si, idx, s3, x, NULL);
}

/* ---- strided_slice --------------------------------------------------------------------------- */
/* A Tuple of n int64 PrimValues. */
static tvm_relax_expr_obj* pv_tuple(int n, int64_t a, int64_t b) {
  int64_t v[2] = {a, b};
  void* objs[2];
  for (int i = 0; i < n; ++i) objs[i] = tvm_relax_prim_value_int64(v[i]);
  void* arr = tvm_ffi_array_of_objects(objs, n);
  for (int i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
  tvm_relax_expr_obj* t = tvm_relax_tuple_new(arr);
  tvm_ffi_release(arr);
  return t;
}

static tvm_relax_expr_obj* slice(void* attrs, void* x, int n, int64_t a0, int64_t a1, int64_t b0,
                                 int64_t b1, int64_t e0, int64_t e1, int64_t s0, int64_t s1) {
  tvm_relax_expr_obj *ax = pv_tuple(n, a0, a1), *b = pv_tuple(n, b0, b1), *e = pv_tuple(n, e0, e1),
                     *s = pv_tuple(n, s0, s1);
  tvm_relax_expr_obj* r = tvm_relax_call_op("relax.strided_slice", attrs, 5, x, ax, b, e, s);
  release_all(ax, b, e, s, NULL);
  return r;
}

TEST(strided_slice) {
  tvm_relax_var_obj* x = tvar(3, 8, 9, 10, 0);
  RT_EXPECT_SINFO(slice(NULL, x, 2, 0, 2, 1, 2, 7, 10, 2, 3),
               "R.Tensor((3, 9, 3), dtype=\"float32\")");
  /* Negative axes and indices, a negative stride, and out-of-bound ends clipped. */
  RT_EXPECT_SINFO(slice(NULL, x, 2, -1, 1, -3, 8, 100, 2, 1, -2),
               "R.Tensor((8, 3, 3), dtype=\"float32\")");
  RT_EXPECT_SINFO(slice(NULL, x, 1, 0, 0, 5, 0, 2, 0, 1, 0),
               "R.Tensor((0, 9, 10), dtype=\"float32\")");
  /* Without strides (4 arguments). */
  tvm_relax_expr_obj *ax = pv_tuple(1, 1, 0), *b = pv_tuple(1, 2, 0), *e = pv_tuple(1, 5, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.strided_slice", NULL, x, ax, b, e),
               "R.Tensor((8, 3, 10), dtype=\"float32\")");
  /* The lists may be R.Shape values too. */
  tvm_relax_expr_obj *sa = shape_of(1, 0, 0, 0, 0), *sb = shape_of(1, 1, 0, 0, 0),
                     *se = shape_of(1, 3, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.strided_slice", NULL, x, sa, sb, se),
               "R.Tensor((2, 9, 10), dtype=\"float32\")");
  release_all(sa, sb, se, NULL);
  /* Symbolic extent: [1, n - 1) of n is n - 2 when assumed in bounds. */
  tvm_tir_expr_obj* four = c64(4);
  tvm_relax_var_obj* xs = tvar_sym(2, g_n, four, NULL);
  void* inb = rt_attrs(1, "assume_inbound", tvm_ffi_any_bool(true));
  RT_EXPECT_SINFO(slice(inb, xs, 1, 0, 0, 1, 0, -1, 0, 1, 0),
               "R.Tensor((n - T.int64(2), 4), dtype=\"float32\")");
  /* Not assumed in bounds: Python's clipping, at n = 5 (3 values) and n = 1 (none). */
  tvm_relax_expr_obj* cl = slice(NULL, xs, 1, 0, 0, 1, 0, -1, 0, 1, 0);
  CHECK_STR_EQ(text_at(cl, g_n, 5, NULL, 0), "R.Tensor((3, 4), dtype=\"float32\")");
  CHECK_STR_EQ(text_at(cl, g_n, 1, NULL, 0), "R.Tensor((0, 4), dtype=\"float32\")");
  /* A symbolic begin k: a negative k counts from the end (k = -2 of n = 10: 2 values). */
  tvm_tir_var_obj* k = tvm_tir_var_new("k", I64);
  tvm_relax_expr_obj* pk = tvm_relax_prim_value_new((tvm_tir_expr_obj*)k);
  void* bk_f = rt_array(1, pk);
  tvm_relax_expr_obj* bk = tvm_relax_tuple_new(bk_f);
  tvm_relax_expr_obj *a0 = pv_tuple(1, 0, 0), *e_big = pv_tuple(1, 100, 0);
  tvm_relax_expr_obj* ck = RT_CALL("relax.strided_slice", NULL, xs, a0, bk, e_big);
  CHECK_STR_EQ(text_at(ck, g_n, 10, k, -2), "R.Tensor((2, 4), dtype=\"float32\")");
  CHECK_STR_EQ(text_at(ck, g_n, 10, k, 3), "R.Tensor((7, 4), dtype=\"float32\")");
  release_all(ck, a0, e_big, bk, bk_f, pk, k, cl, NULL);
  /* Errors: a zero stride, mismatched lengths, repeated axes, a non-tuple. */
  RT_EXPECT_CALL_ERROR(slice(NULL, x, 1, 0, 0, 0, 0, 5, 0, 0, 0), "ValueError",
               "argument 'strides' must not hold a zero stride");
  tvm_relax_expr_obj* b2 = pv_tuple(2, 0, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.strided_slice", NULL, x, ax, b2, e), "ValueError",
               "'begin' has 2 values for 1 axes");
  RT_EXPECT_CALL_ERROR(slice(NULL, x, 2, 0, -3, 0, 0, 1, 1, 1, 1), "ValueError", "axis 0 is repeated");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.strided_slice", NULL, x, x, b, e), "TypeError",
               "argument 'axes' must be a tuple of integer R.Prim values or an R.Shape");
  /* Unknown shape: the rank only. */
  tvm_relax_var_obj* u = tvar_ndim(3);
  RT_EXPECT_SINFO(slice(NULL, u, 1, 0, 0, 1, 0, 2, 0, 1, 0), "R.Tensor(dtype=\"float32\", ndim=3)");
  release_all(u, b2, inb, xs, four, ax, b, e, x, NULL);
}

/* ---- take, tile, repeat, flip ---------------------------------------------------------------- */
TEST(take) {
  tvm_relax_var_obj* x = tvar(3, 4, 5, 6, 0);
  tvm_relax_var_obj* idx = rt_var_take("i", rt_tensor(I64, 2, (int64_t)2, (int64_t)3));
  void* a1 = attr_int("axis", -2);
  RT_EXPECT_SINFO(RT_CALL("relax.take", a1, x, idx), "R.Tensor((4, 2, 3, 6), dtype=\"float32\")");
  tvm_relax_expr_obj* p = tvm_relax_prim_value_int64(1);
  RT_EXPECT_SINFO(RT_CALL("relax.take", a1, x, p), "R.Tensor((4, 6), dtype=\"float32\")");
  tvm_relax_var_obj* v = tvar(1, 9, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.take", NULL, v, idx), "R.Tensor((2, 3), dtype=\"float32\")");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.take", NULL, x, idx), "ValueError",
               "argument 'x' must be 1-d when 'axis' is None, got ndim 3");
  tvm_relax_var_obj* fi = rt_var_take("f", rt_tensor(F32, 1, (int64_t)2));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.take", a1, x, fi), "TypeError",
               "argument 'indices' must have an integer dtype, got float32");
  TVMFFIAny mode = tvm_ffi_string("nearest");
  void* bad_mode = rt_attrs(1, "mode", mode);
  tvm_ffi_any_release(&mode);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.take", bad_mode, v, idx), "ValueError", "attribute 'mode' must be");
  /* mode "nan" fills with NaN: float data only */
  mode = tvm_ffi_string("nan");
  void* nan_mode = rt_attrs(1, "mode", mode);
  tvm_ffi_any_release(&mode);
  RT_EXPECT_SINFO(RT_CALL("relax.take", nan_mode, v, idx), "R.Tensor((2, 3), dtype=\"float32\")");
  tvm_relax_var_obj* iv = rt_var_take("iv", rt_tensor(I64, 1, (int64_t)9));
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.take", nan_mode, iv, idx), "TypeError",
               "argument 'x' must have a float dtype for mode \"nan\", got int64");
  tvm_relax_var_obj* ui = rt_var_take("ui", tvm_relax_tensor_sinfo_new(NULL, I64, 1, NULL));
  RT_EXPECT_SINFO(RT_CALL("relax.take", a1, x, ui), "R.Tensor(dtype=\"float32\", ndim=3)");
  release_all(ui, iv, nan_mode, bad_mode, fi, v, p, a1, idx, x, NULL);
}

TEST(tile_repeat_flip) {
  tvm_relax_var_obj* x = tvar(2, 2, 3, 0, 0);
  void* r3 = attr_ints("repeats", 3, 2, 1, 2, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.tile", r3, x), "R.Tensor((2, 2, 6), dtype=\"float32\")");
  void* r1 = attr_ints("repeats", 1, 3, 0, 0, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.tile", r1, x), "R.Tensor((2, 9), dtype=\"float32\")");
  void* rneg = attr_ints("repeats", 1, -1, 0, 0, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.tile", rneg, x), "ValueError", "must not be negative");
  tvm_relax_var_obj* u = tvar_ndim(2);
  RT_EXPECT_SINFO(RT_CALL("relax.tile", r3, u), "R.Tensor(dtype=\"float32\", ndim=3)");
  /* repeat */
  void* rep = attr_int("repeats", 2);
  RT_EXPECT_SINFO(RT_CALL("relax.repeat", rep, x), "R.Tensor((12,), dtype=\"float32\")");
  TVMFFIAny keys[2] = {tvm_ffi_string("repeats"), tvm_ffi_string("axis")};
  TVMFFIAny vals[2] = {tvm_ffi_any_int(3), tvm_ffi_any_int(-1)};
  void* rep_ax = tvm_ffi_map_new(keys, vals, 2);
  RT_EXPECT_SINFO(RT_CALL("relax.repeat", rep_ax, x), "R.Tensor((2, 9), dtype=\"float32\")");
  tvm_relax_var_obj* xs = tvar_sym(1, g_n, NULL, NULL);
  RT_EXPECT_SINFO(RT_CALL("relax.repeat", rep_ax, xs),
               "R.Tensor((n * T.int64(3),), dtype=\"float32\")");
  void* rep_neg = attr_int("repeats", -2);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.repeat", rep_neg, x), "ValueError", "must not be negative");
  RT_EXPECT_SINFO(RT_CALL("relax.repeat", rep, u), "R.Tensor(dtype=\"float32\", ndim=1)");
  /* flip */
  void* f1 = attr_int("axis", -1);
  RT_EXPECT_SINFO(RT_CALL("relax.flip", f1, x), "R.Tensor((2, 3), dtype=\"float32\")");
  void* f5 = attr_int("axis", 5);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.flip", f5, x), "ValueError", "axis 5 is out of range");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.flip", NULL, x), "ValueError", "attribute 'axis' is required");
  for (int k = 0; k < 2; ++k) tvm_ffi_any_release(&keys[k]);
  release_all(f5, f1, rep_neg, xs, rep_ax, rep, u, rneg, r1, r3, x, NULL);
}

/* ---- layout_transform ------------------------------------------------------------------------ */
/* lambda i, j, k: (i, k // 4, j, k % 4), the NCHW -> NCHW4c style split. */
static tvm_tir_index_map_obj* split_map(void) {
  tvm_tir_var_obj *i = tvm_tir_var_new("i", I64), *j = tvm_tir_var_new("j", I64),
                  *k = tvm_tir_var_new("k", I64);
  tvm_tir_expr_obj* c4 = c64(4);
  tvm_tir_expr_obj* kd = tvm_tir_floordiv((tvm_tir_expr_obj*)k, c4);
  tvm_tir_expr_obj* km = tvm_tir_floormod((tvm_tir_expr_obj*)k, c4);
  void* init = rt_array(3, i, j, k);
  void* fin = rt_array(4, i, kd, j, km);
  tvm_tir_index_map_obj* m = tvm_tir_index_map_new(init, fin, NULL);
  release_all(init, fin, kd, km, c4, i, j, k, NULL);
  return m;
}

TEST(layout_transform) {
  tvm_tir_index_map_obj* m = split_map();
  void* a = attr_obj("index_map", m);
  tvm_relax_var_obj* x = tvar(3, 2, 3, 16, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", a, x),
               "R.Tensor((2, 4, 3, 4), dtype=\"float32\")");
  /* 10 along k pads to 3 blocks of 4. */
  tvm_relax_var_obj* x10 = tvar(3, 2, 3, 10, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", a, x10),
               "R.Tensor((2, 3, 3, 4), dtype=\"float32\")");
  /* 2 along k pads to one block of 4 (k % 4 is a split: upstream's padded layout). */
  tvm_relax_var_obj* x2k = tvar(3, 2, 3, 2, 0);
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", a, x2k),
               "R.Tensor((2, 1, 3, 4), dtype=\"float32\")");
  tvm_ffi_release(x2k);
  /* Symbolic k: ceil(n / 4) blocks. */
  tvm_tir_expr_obj *two = c64(2), *three = c64(3), *c4 = c64(4);
  tvm_relax_var_obj* xs = tvar_sym(3, two, three, g_n);
  tvm_relax_expr_obj* c = RT_CALL("relax.layout_transform", a, xs);
  CHECK(c != NULL);
  if (c) {
    TVMFFIAny key = tvm_ffi_any_obj(g_n), val = tvm_ffi_any_obj(c64(13));
    void* map = tvm_ffi_map_new(&key, &val, 1);
    tvm_ffi_any_release(&val);
    tvm_relax_sinfo_obj* at = tvm_relax_sinfo_substitute(tvm_relax_sinfo_of(c), map);
    CHECK_STR_EQ(rt_text(at), "R.Tensor((2, 4, 3, 4), dtype=\"float32\")");
    release_all(at, map, NULL);
  }
  /* A fused map over constant dims: lambda i, j, k: (i * 3 + j, k). */
  tvm_tir_var_obj *i = tvm_tir_var_new("i", I64), *j = tvm_tir_var_new("j", I64),
                  *k = tvm_tir_var_new("k", I64);
  tvm_tir_expr_obj* i3 = tvm_tir_mul((tvm_tir_expr_obj*)i, three);
  tvm_tir_expr_obj* fused = tvm_tir_add(i3, (tvm_tir_expr_obj*)j);
  void* init = rt_array(3, i, j, k);
  void* fin = rt_array(2, fused, k);
  tvm_tir_index_map_obj* fm = tvm_tir_index_map_new(init, fin, NULL);
  void* fa = attr_obj("index_map", fm);
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", fa, x), "R.Tensor((6, 16), dtype=\"float32\")");
  /* The same map over (2, 3, n), and over (n, 3, 4): i * 3 + j ranges over [0, 3 * n). */
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", fa, xs), "R.Tensor((6, n), dtype=\"float32\")");
  tvm_relax_var_obj* xn = tvar_sym(3, g_n, three, c4);
  tvm_relax_expr_obj* cn = RT_CALL("relax.layout_transform", fa, xn);
  CHECK_STR_EQ(text_at(cn, g_n, 5, NULL, 0), "R.Tensor((15, 4), dtype=\"float32\")");
  /* i * j is not interval arithmetic of a constant scale: the rank only. */
  tvm_tir_expr_obj* ij = tvm_tir_mul((tvm_tir_expr_obj*)i, (tvm_tir_expr_obj*)j);
  void* fin2 = rt_array(2, ij, k);
  tvm_tir_index_map_obj* pm = tvm_tir_index_map_new(init, fin2, NULL);
  void* pa2 = attr_obj("index_map", pm);
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", pa2, xs), "R.Tensor(dtype=\"float32\", ndim=2)");
  /* A start other than 0 (i + 1) is refused. */
  tvm_tir_expr_obj* one = c64(1);
  tvm_tir_expr_obj* i1 = tvm_tir_add((tvm_tir_expr_obj*)i, one);
  void* fin3 = rt_array(2, i1, k);
  tvm_tir_index_map_obj* sm = tvm_tir_index_map_new(init, fin3, NULL);
  void* sa = attr_obj("index_map", sm);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.layout_transform", sa, xn), "ValueError",
               "output index 0 of the index map starts at 1, not 0");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.layout_transform", sa, x), "ValueError",
               "output index 0 of the index map ranges over [1, 2], which does not start at 0");
  release_all(sa, sm, fin3, i1, one, pa2, pm, fin2, ij, cn, xn, c4, NULL);
  /* Errors: rank mismatch, not an index map, pad value of another dtype. */
  tvm_relax_var_obj* x2 = tvar(2, 2, 3, 0, 0);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.layout_transform", a, x2), "ValueError",
               "argument 'x' has ndim 2 but the index map takes 3 indices");
  void* bad = attr_int("index_map", 1);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.layout_transform", bad, x), "TypeError",
               "attribute 'index_map' must be a tir.IndexMap");
  tvm_relax_expr_obj* pad = tvm_relax_prim_value_int64(0);
  TVMFFIAny keys[2] = {tvm_ffi_string("index_map"), tvm_ffi_string("pad_value")};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(m), tvm_ffi_any_obj(pad)};
  void* pa = tvm_ffi_map_new(keys, vals, 2);
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.layout_transform", pa, x), "TypeError",
               "attribute 'pad_value' has dtype int64, not the input's float32");
  tvm_relax_var_obj* u = tvar_ndim(-1);
  RT_EXPECT_SINFO(RT_CALL("relax.layout_transform", a, u), "R.Tensor(dtype=\"float32\", ndim=4)");
  for (int q = 0; q < 2; ++q) tvm_ffi_any_release(&keys[q]);
  release_all(u, pa, pad, bad, x2, fa, fm, init, fin, fused, i3, i, j, k, c, xs, two, three, x10, x,
              a, m, NULL);
}

/* A schema default of kind INTS ("1, 1", as pooling strides have) is a value that owns its
 * array: it outlives the default's construction. */
TEST(attr_default_ints_are_owned) {
  static const tvm_relax_attr_field fields[] = {{"strides", TVM_RELAX_ATTR_INTS, "1, 2"},
                                                {NULL, 0, NULL}};
  tvm_relax_op_info info = *tvm_relax_op_info_get(TVM_RELAX_OP_tile);
  info.attrs = fields;
  info.num_attrs = 1;
  TVMFFIAny v = tvm_ffi_any_none();
  CHECK_OK(tvm_relax_op_attr_default(&info, 0, &v));
  CHECK_EQ_INT(v.type_index, kTVMFFIArray);
  if (v.type_index == kTVMFFIArray) {
    CHECK_EQ_INT(tvm_ffi_seq_size(v.v_obj), 2);
    int64_t b = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(v.v_obj, 1), &b);
    CHECK_EQ_INT(b, 2);
  }
  tvm_ffi_any_release(&v);
}

int main(void) {
  g_n = tvm_tir_var_new("n", I64);
  g_m = tvm_tir_var_new("m", I64);
  RUN(reshape);
  RUN(broadcast_to);
  RUN(permute_dims);
  RUN(expand_dims_squeeze_flatten);
  RUN(concat);
  RUN(stack);
  RUN(meshgrid);
  RUN(split);
  RUN(strided_slice);
  RUN(take);
  RUN(tile_repeat_flip);
  RUN(layout_transform);
  RUN(attr_default_ints_are_owned);
  tvm_ffi_release(g_n);
  tvm_ffi_release(g_m);
  return test_summary();
}
