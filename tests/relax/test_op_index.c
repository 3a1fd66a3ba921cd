/*
 * test_op_index.c: struct info inference of the gather / scatter, one_hot, sorting, einsum and
 * data-dependent operators (op_index.c) on symbolic and unknown shapes and ranks, with the
 * defaults of their attributes (tests/codegen/test_relax_index_ops.c covers static shapes, the
 * kernels and the located errors), and the rules of gather_nd and index_tensor on every kind of
 * shape with their errors (their kernels: tests/codegen/test_relax_more_ops.c and
 * test_relax_index_ops.c), and unique's rule with its errors (its kernels:
 * tests/codegen/test_relax_unique.c).
 */
#include <tvm/tir/builder.h>

#include "op_infer_testing.h"

static tvm_tir_var_obj* g_n;

static tvm_relax_var_obj* sym(const char* name, DLDataType t, int ndim, void* d0, void* d1) {
  void* d[2] = {d0, d1};
  return rt_var_take(name, rt_tensor_sym(t, ndim, d));
}
static tvm_relax_var_obj* unknown(const char* name, DLDataType t, int ndim) {
  return rt_var_take(name, tvm_relax_tensor_sinfo_new(NULL, t, ndim, NULL));
}

TEST(symbolic_and_unknown) {
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  tvm_relax_var_obj* x = sym("x", F32, 2, g_n, four);         /* (n, 4) float32 */
  tvm_relax_var_obj* i = sym("i", I64, 2, g_n, four);         /* (n, 4) int64 */
  tvm_relax_var_obj* xu = unknown("xu", F32, -1);             /* unknown rank */
  tvm_relax_var_obj* iu = unknown("iu", I64, 2);              /* rank 2, unknown dims */
  /* gather_elements: the indices' shape, data's dtype */
  RT_EXPECT_SINFO(RT_CALL("relax.gather_elements", NULL, x, iu), "R.Tensor(dtype=\"float32\", ndim=2)");
  RT_EXPECT_SINFO(RT_CALL("relax.gather_elements", NULL, x, i), "R.Tensor((n, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.gather_elements", NULL, xu, i), "R.Tensor(dtype=\"float32\")");
  /* the scatters keep data's struct info */
  RT_EXPECT_SINFO(RT_CALL("relax.scatter_elements", NULL, x, iu, x), "R.Tensor((n, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.scatter_elements", NULL, xu, i, x), "R.Tensor(dtype=\"float32\")");
  /* argsort: int32 by default; topk: (n, 1) values and int32 indices by default */
  RT_EXPECT_SINFO(RT_CALL("relax.argsort", NULL, x), "R.Tensor((n, 4), dtype=\"int32\")");
  /* sort: x's struct info, symbolic or of unknown rank */
  RT_EXPECT_SINFO(RT_CALL("relax.sort", NULL, x), "R.Tensor((n, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.sort", NULL, xu), "R.Tensor(dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.topk", NULL, x),
                  "R.Tuple(R.Tensor((n, 1), dtype=\"float32\"), R.Tensor((n, 1), dtype=\"int32\"))");
  void* k9 = rt_attrs(2, "k", tvm_ffi_any_int(9), "axis", tvm_ffi_any_int(0));
  RT_EXPECT_SINFO(RT_CALL("relax.topk", k9, x),
                  "R.Tuple(R.Tensor((9, 4), dtype=\"float32\"), R.Tensor((9, 4), dtype=\"int32\"))");
  void* k9l = rt_attrs(1, "k", tvm_ffi_any_int(9)); /* k beyond the constant 4: the dim stays */
  TVMFFIAny vals = tvm_ffi_string("values");
  void* kv = rt_attrs(2, "k", tvm_ffi_any_int(9), "ret_type", vals);
  RT_EXPECT_SINFO(RT_CALL("relax.topk", kv, x), "R.Tensor((n, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.topk", k9l, xu),
                  "R.Tuple(R.Tensor(dtype=\"float32\"), R.Tensor(dtype=\"int32\"))");
  /* one_hot: the depth inserted at axis (-1 appends), the on value's dtype */
  tvm_tir_expr_obj *f1 = tvm_tir_f32(1), *f0 = tvm_tir_f32(0);
  tvm_relax_expr_obj* on = tvm_relax_prim_value_new(f1);
  tvm_relax_expr_obj* off = tvm_relax_prim_value_new(f0);
  void* d3 = rt_attrs(1, "depth", tvm_ffi_any_int(3));
  void* d3a = rt_attrs(2, "depth", tvm_ffi_any_int(3), "axis", tvm_ffi_any_int(0));
  RT_EXPECT_SINFO(RT_CALL("relax.one_hot", d3, i, on, off), "R.Tensor((n, 4, 3), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.one_hot", d3a, i, on, off), "R.Tensor((3, n, 4), dtype=\"float32\")");
  RT_EXPECT_SINFO(RT_CALL("relax.one_hot", d3, iu, on, off), "R.Tensor(dtype=\"float32\", ndim=3)");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.one_hot", NULL, i, on, off), "ValueError",
                       "relax.one_hot: attribute 'depth' is required");
  /* einsum on a symbolic dim */
  void* ops = rt_array(2, x, x);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(ops);
  TVMFFIAny sub = tvm_ffi_string("ij,kj->ik");
  void* es = rt_attrs(1, "subscripts", sub);
  RT_EXPECT_SINFO(RT_CALL("relax.einsum", es, tup), "R.Tensor((n, n), dtype=\"float32\")");
  /* data-dependent: the rank only */
  RT_EXPECT_SINFO(RT_CALL("relax.nonzero", NULL, x), "R.Tensor(dtype=\"int64\", ndim=2)");
  tvm_tir_expr_obj* two = tvm_tir_const_int(I64, 2);
  tvm_relax_var_obj* b = sym("b", I64, 1, two, NULL);
  RT_EXPECT_SINFO(RT_CALL("relax.dynamic_strided_slice", NULL, x, b, b, b),
                  "R.Tensor(dtype=\"float32\", ndim=2)");
  RT_EXPECT_CALL_ERROR(RT_CALL("relax.dynamic_strided_slice", NULL, x, x, b, b), "TypeError",
                       "argument 'begin' must have an integer dtype, got float32");
  tvm_ffi_any_release(&vals), tvm_ffi_any_release(&sub);
  void* objs[] = {f1, f0, two, four, x, i, xu, iu, k9, k9l, kv, on, off, d3, d3a, ops, tup, es, b};
  for (size_t j = 0; j < sizeof(objs) / sizeof(objs[0]); ++j) tvm_ffi_release(objs[j]);
}

/* gather_nd: indices.shape[:-1] + data.shape[batch_dims + l:], data's dtype. */
TEST(gather_nd) {
  CHECK_INFER("R.Tensor((2, 5), dtype=\"float32\")", "relax.gather_nd", NULL, 2,
              T("3, 4, 5", F32), T("2, 2", I64));
  CHECK_INFER("R.Tensor((2, 7), dtype=\"float32\")", "relax.gather_nd", NULL, 2,
              T("3, 4, 5", F32), T("2, 7, 3", I64));
  CHECK_INFER("R.Tensor((2, 4), dtype=\"int32\")", "relax.gather_nd",
              oi_attrs(1, "batch_dims", AI(1)), 2, T("2, 3, 4", I32), T("2, 1", I64));
  /* symbolic dims are carried over; l = 0 gathers whole slices */
  CHECK_INFER("R.Tensor((k, m), dtype=\"float32\")", "relax.gather_nd", NULL, 2,
              T("n, m", F32), T("k, 1", I64));
  CHECK_INFER("R.Tensor((k, n, m), dtype=\"float32\")", "relax.gather_nd", NULL, 2,
              T("n, m", F32), T("k, 0", I64));
  /* data of unknown shape: the rank; unknown ranks or a symbolic l: unknown rank */
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", "relax.gather_nd", NULL, 2,
              T("?3", F32), T("2, 2", I64));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.gather_nd", NULL, 2, T("?3", F32),
              T("2, l", I64));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.gather_nd", NULL, 2, T("3, 4", F32),
              T("?2", I64));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.gather_nd", NULL, 2, T("*", F32),
              T("2, 1", I64));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", "relax.gather_nd", NULL, 2, T("3, 4", F32),
              T("*", I64));
  /* an unknown indices dtype is accepted */
  CHECK_INFER("R.Tensor((2,), dtype=\"float32\")", "relax.gather_nd", NULL, 2, T("3, 4", F32),
              T("2, 2", UNK));
  /* errors */
  CHECK_INFER_FAILS("TypeError", "relax.gather_nd: argument 'indices' must have dtype int64, got "
                    "int32", "relax.gather_nd", NULL, 2, T("3, 4", F32), T("2, 2", I32));
  CHECK_INFER_FAILS("TypeError", "relax.gather_nd: argument 'data' must be a tensor",
                    "relax.gather_nd", NULL, 2, SH("3"), T("2, 2", I64));
  CHECK_INFER_FAILS("TypeError", "relax.gather_nd: argument 'indices' must be a tensor",
                    "relax.gather_nd", NULL, 2, T("3, 4", F32), SH("2"));
  CHECK_INFER_FAILS("ValueError", "relax.gather_nd: attribute 'batch_dims' must be non-negative, "
                    "got -1", "relax.gather_nd", oi_attrs(1, "batch_dims", AI(-1)), 2,
                    T("3, 4", F32), T("2, 2", I64));
  CHECK_INFER_FAILS("ValueError", "attribute 'batch_dims' must be in [0, 2] (the ndim of 'data'), "
                    "got 3", "relax.gather_nd", oi_attrs(1, "batch_dims", AI(3)), 2,
                    T("3, 4", F32), T("3, 4, 5, 1", I64));
  CHECK_INFER_FAILS("ValueError", "attribute 'batch_dims' must be at most the ndim of 'indices' "
                    "minus 1 (1), got 2", "relax.gather_nd", oi_attrs(1, "batch_dims", AI(2)), 2,
                    T("3, 4, 5", F32), T("3, 1", I64));
  CHECK_INFER_FAILS("ValueError", "relax.gather_nd: argument 'indices' must have a last dim in "
                    "[0, 1] (the ndim of 'data' minus batch_dims), got 2", "relax.gather_nd",
                    oi_attrs(1, "batch_dims", AI(1)), 2, T("3, 4", F32), T("3, 2", I64));
  /* beyond upstream: also with data's shape unknown, and the batch dims compared */
  CHECK_INFER_FAILS("ValueError", "argument 'indices' must have a last dim in [0, 2]",
                    "relax.gather_nd", NULL, 2, T("?2", F32), T("1, 3", I64));
  CHECK_INFER_FAILS("ValueError", "relax.gather_nd: argument 'indices' must have the batch dims "
                    "of 'data' (batch_dims 1): R.Tensor((3, 1), dtype=\"int64\") against "
                    "R.Tensor((2, 4), dtype=\"float32\")", "relax.gather_nd",
                    oi_attrs(1, "batch_dims", AI(1)), 2, T("2, 4", F32), T("3, 1", I64));
  CHECK_INFER_FAILS("TypeError", "attribute 'batch_dims' must be an int", "relax.gather_nd",
                    oi_attrs(1, "batch_dims", AS("x")), 2, T("3, 4", F32), T("2, 2", I64));
}

/* index_tensor (numpy's data[i0, i1, ...]): broadcast(indices) + data.shape[len(indices):] in
 * data's dtype; the rank alone, or an unknown rank, when shapes or ranks are unknown. */
TEST(index_tensor) {
  const char* op = "relax.index_tensor";
  /* static shapes: one index per leading dim, the rest of data's dims after */
  CHECK_INFER("R.Tensor((2, 3), dtype=\"float32\")", op, NULL, 2, T("5, 4, 3", F32),
              TUP(2, T("2", I64), T("2", I64)));
  CHECK_INFER("R.Tensor((2, 3, 4), dtype=\"float32\")", op, NULL, 2, T("5, 4", F32),
              TUP(1, T("2, 3", I64)));
  CHECK_INFER("R.Tensor((7,), dtype=\"int32\")", op, NULL, 2, T("5, 4", I32),
              TUP(2, T("7", I32), T("7", I64)));
  /* (2, 1) broadcast with (3,): (2, 3); then data's last dim */
  CHECK_INFER("R.Tensor((2, 3, 3), dtype=\"float32\")", op, NULL, 2, T("5, 4, 3", F32),
              TUP(2, T("2, 1", I64), T("3", I64)));
  CHECK_INFER("R.Tensor((2, 3), dtype=\"float32\")", op, NULL, 2, T("5, 4, 3", F32),
              TUP(3, T("1, 3", I64), T("2, 1", I64), T("3", I32)));
  /* a 0-d index picks one slice; an unknown index dtype is accepted */
  CHECK_INFER("R.Tensor((4,), dtype=\"float32\")", op, NULL, 2, T("5, 4", F32),
              TUP(1, T("", I64)));
  CHECK_INFER("R.Tensor((2, 4), dtype=\"float32\")", op, NULL, 2, T("5, 4", F32),
              TUP(1, T("2", UNK)));
  /* symbolic dims: carried over, a constant 1 takes the other dim, equal ones stay */
  CHECK_INFER("R.Tensor((k, m), dtype=\"float32\")", op, NULL, 2, T("n, m", F32),
              TUP(1, T("k", I64)));
  CHECK_INFER("R.Tensor((k, 3, 6), dtype=\"float32\")", op, NULL, 2, T("n, m, 6", F32),
              TUP(2, T("k, 1", I64), T("3", I64)));
  CHECK_INFER("R.Tensor((k,), dtype=\"float32\")", op, NULL, 2, T("n, m", F32),
              TUP(2, T("k", I64), T("k", I64)));
  CHECK_INFER("R.Tensor((k, l, 6), dtype=\"float32\")", op, NULL, 2, T("n, m, 6", F32),
              TUP(2, T("k, 1", I64), T("l", I64)));
  /* dims not provably equal: the rank only */
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", op, NULL, 2, T("n, m, 6", F32),
              TUP(2, T("k", I64), T("l", I64)));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", op, NULL, 2, T("n, m, 6", F32),
              TUP(2, T("k, 3", I64), T("2, l", I64)));
  /* unknown shapes: the rank (the longest index rank + data's untouched dims) */
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", op, NULL, 2, T("5, 4, 3", F32),
              TUP(2, T("?2", I64), T("3", I64)));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=4)", op, NULL, 2, T("?3", F32),
              TUP(1, T("2, 3", I64)));
  /* unknown ranks: an unknown rank */
  CHECK_INFER("R.Tensor(dtype=\"float32\")", op, NULL, 2, T("*", F32), TUP(1, T("2", I64)));
  CHECK_INFER("R.Tensor(dtype=\"float32\")", op, NULL, 2, T("5, 4", F32),
              TUP(2, T("*", I64), T("2", I64)));
  /* errors */
  CHECK_INFER_FAILS("TypeError", "relax.index_tensor: argument 'data' must be a tensor", op,
                    NULL, 2, SH("3"), TUP(1, T("2", I64)));
  CHECK_INFER_FAILS("TypeError", "relax.index_tensor: argument 'indices' must be a tuple of "
                    "tensors, got R.Tensor((2,), dtype=\"int64\")", op, NULL, 2, T("5, 4", F32),
                    T("2", I64));
  CHECK_INFER_FAILS("ValueError", "relax.index_tensor: argument 'indices' must hold at least one "
                    "tensor", op, NULL, 2, T("5, 4", F32), TUP(0));
  CHECK_INFER_FAILS("TypeError", "relax.index_tensor: argument 'indices' must hold signed "
                    "integer tensors, field 1 is R.Tensor((2,), dtype=\"float32\")", op, NULL, 2,
                    T("5, 4", F32), TUP(2, T("2", I64), T("2", F32)));
  CHECK_INFER_FAILS("TypeError", "must hold signed integer tensors, field 0 is "
                    "R.Tensor((2,), dtype=\"uint8\")", op, NULL, 2, T("5, 4", F32),
                    TUP(1, T("2", tvm_tir_dtype_uint(8))));
  CHECK_INFER_FAILS("TypeError", "must hold signed integer tensors, field 0 is R.Shape([2])", op,
                    NULL, 2, T("5, 4", F32), TUP(1, SH("2")));
  CHECK_INFER_FAILS("ValueError", "relax.index_tensor: argument 'indices' holds 3 index tensors, "
                    "more than the rank of 'data' (2)", op, NULL, 2, T("5, 4", F32),
                    TUP(3, T("2", I64), T("2", I64), T("2", I64)));
  CHECK_INFER_FAILS("ValueError", "more than the rank of 'data' (1)", op, NULL, 2, T("?1", F32),
                    TUP(2, T("?1", I64), T("*", I64)));
  CHECK_INFER_FAILS("ValueError", "relax.index_tensor: cannot broadcast", op, NULL, 2,
                    T("5, 4", F32), TUP(2, T("2", I64), T("3", I64)));
  CHECK_INFER_FAILS("ValueError", "dim 1 is 3 against 4", op, NULL, 2, T("5, 4, 3", F32),
                    TUP(3, T("2, 1", I64), T("3", I64), T("4", I64)));
}

/* A flag or axis of unique: an R.Prim of dtype t, of value v (none: unknown). */
static tvm_relax_sinfo_obj* PV(DLDataType t, int64_t v, bool known) {
  tvm_tir_expr_obj* c = known ? tvm_tir_const_int(t, v) : NULL;
  tvm_relax_sinfo_obj* s = tvm_relax_prim_sinfo_new(t, c);
  tvm_ffi_release(c);
  return s;
}
#define FLAG(v) PV(I64, v, true)

/* unique (upstream test_op_set.py's cases): the values 1-d, or of x's rank along an axis, then
 * an int64 1-d tensor per return_* flag set; a 0-d x gives (1,) results. */
TEST(unique) {
  const char* op = "relax.unique";
  const char* v1 = "R.Tensor(dtype=\"float32\", ndim=1)";
  const char* i1 = "R.Tensor(dtype=\"int64\", ndim=1)";
  char want[512];
  CHECK_INFER(v1, op, NULL, 5, T("2, 3, 4", F32), FLAG(1), FLAG(0), FLAG(0), FLAG(0));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=3)", op, NULL, 6, T("2, 3, 4", F32), FLAG(1),
              FLAG(0), FLAG(0), FLAG(0), FLAG(1));
  snprintf(want, sizeof(want), "R.Tuple(%s, %s)", v1, i1);
  CHECK_INFER(want, op, NULL, 5, T("n, 4", F32), FLAG(0), FLAG(0), FLAG(0), FLAG(1));
  CHECK_INFER(want, op, NULL, 5, T("*", F32), FLAG(1), FLAG(0), FLAG(1), FLAG(0));
  snprintf(want, sizeof(want), "R.Tuple(R.Tensor(dtype=\"int8\", ndim=3), %s, %s, %s)", i1, i1,
           i1);
  CHECK_INFER(want, op, NULL, 6, T("2, 3, 4", tvm_tir_dtype_int(8)), FLAG(1), FLAG(1), FLAG(1),
              FLAG(1), FLAG(-2));
  /* unknown rank along an axis; a sorted flag known at run time only; bool flags */
  snprintf(want, sizeof(want), "R.Tuple(R.Tensor(dtype=\"float32\"), %s)", i1);
  CHECK_INFER(want, op, NULL, 6, T("*", F32), PV(tvm_tir_dtype_bool(), 0, false),
              PV(tvm_tir_dtype_bool(), 1, true), FLAG(0), FLAG(0), FLAG(1));
  CHECK_INFER("R.Tensor(dtype=\"float32\", ndim=2)", op, NULL, 6, T("?2", F32), FLAG(1),
              FLAG(0), FLAG(0), FLAG(0), PV(I64, 0, false));
  /* a 0-d x: one value */
  CHECK_INFER("R.Tuple(R.Tensor((1,), dtype=\"float32\"), R.Tensor((1,), dtype=\"int64\"), "
              "R.Tensor((1,), dtype=\"int64\"))",
              op, NULL, 5, T("", F32), FLAG(1), FLAG(1), FLAG(1), FLAG(0));
  CHECK_INFER("R.Tensor((1,), dtype=\"float32\")", op, NULL, 5, T("?0", F32), FLAG(0), FLAG(0),
              FLAG(0), FLAG(0));
  /* errors */
  CHECK_INFER_FAILS("TypeError", "relax.unique: argument 'x' must be a tensor", op, NULL, 5,
                    SH("2, 3"), FLAG(1), FLAG(0), FLAG(0), FLAG(0));
  CHECK_INFER_FAILS("ValueError", "axis 3 is out of range for a tensor of ndim 3", op, NULL, 6,
                    T("2, 3, 4", F32), FLAG(1), FLAG(0), FLAG(0), FLAG(0), FLAG(3));
  CHECK_INFER_FAILS("ValueError", "axis -4 is out of range", op, NULL, 6, T("2, 3, 4", F32),
                    FLAG(1), FLAG(0), FLAG(0), FLAG(0), FLAG(-4));
  CHECK_INFER_FAILS("ValueError", "axis 0 is out of range for a tensor of ndim 0", op, NULL, 6,
                    T("", F32), FLAG(1), FLAG(0), FLAG(0), FLAG(0), FLAG(0));
  CHECK_INFER_FAILS("ValueError", "argument 'return_inverse' must be a constant", op, NULL, 5,
                    T("4", F32), FLAG(1), FLAG(0), PV(I64, 0, false), FLAG(0));
  CHECK_INFER_FAILS("TypeError", "argument 'return_counts' must be a bool, got dtype float32", op,
                    NULL, 5, T("4", F32), FLAG(1), FLAG(0), FLAG(0),
                    tvm_relax_prim_sinfo_new(F32, NULL));
  CHECK_INFER_FAILS("ValueError", "argument 'sorted' must be True or False (0 or 1), got 2", op,
                    NULL, 5, T("4", F32), FLAG(2), FLAG(0), FLAG(0), FLAG(0));
  CHECK_INFER_FAILS("TypeError", "argument 'return_index' must be a bool (R.Prim), got", op,
                    NULL, 5, T("4", F32), FLAG(1), T("4", F32), FLAG(0), FLAG(0));
  CHECK_INFER_FAILS("TypeError", "argument 'axis' must be an integer, got dtype float32", op, NULL,
                    6, T("4", F32), FLAG(1), FLAG(0), FLAG(0), FLAG(0),
                    tvm_relax_prim_sinfo_new(F32, NULL));
  CHECK_INFER_FAILS("TypeError", "relax.unique", op, NULL, 4, T("4", F32), FLAG(1), FLAG(0),
                    FLAG(0));
}

int main(void) {
  g_n = tvm_tir_var_new("n", I64);
  RUN(symbolic_and_unknown);
  RUN(gather_nd);
  RUN(index_tensor);
  RUN(unique);
  oi_free_vars();
  tvm_ffi_release(g_n);
  return test_summary();
}
