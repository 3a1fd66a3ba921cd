/*
 * test_struct_info.c: struct info constructors and relations (base check, LCA, erasure,
 * substitution), the node kind table, the operator table and attribute completion, and the
 * expression constructors' struct info and errors.
 */
#include "relax_testing.h"

static tvm_tir_var_obj* sym(const char* name) { return tvm_tir_var_new(name, I64); }

TEST(node_kinds_registered) {
  /* Every kind of nodes.def has its type key registered, with reflection and a creator. */
  for (int k = 0; k < TVM_RELAX_KIND_COUNT; ++k) {
    int32_t idx = tvm_relax_type_index((tvm_relax_kind)k);
    CHECK(idx >= 0);
    CHECK_STR_EQ(tvm_ffi_type_key(idx), tvm_relax_kind_type_key((tvm_relax_kind)k));
    CHECK(tvm_ffi_type_find(tvm_relax_kind_type_key((tvm_relax_kind)k)) == idx);
  }
  tvm_relax_sinfo_obj* s = rt_tensor(F32, 1, (int64_t)3);
  CHECK(tvm_relax_is_sinfo(s));
  CHECK(tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo);
  CHECK(!tvm_relax_is(s, TVM_RELAX_KIND_Var));
  tvm_relax_var_obj* v = tvm_relax_var_new("v", s, true);
  CHECK(tvm_relax_is_var(v));
  CHECK(tvm_relax_is_expr(v));
  CHECK(tvm_relax_kind_of(v) == TVM_RELAX_KIND_DataflowVar);
  tvm_ffi_release(v);
  tvm_ffi_release(s);
}

TEST(op_table_rows) {
  for (int i = 0; i < TVM_RELAX_OP_COUNT; ++i) {
    const tvm_relax_op_info* info = tvm_relax_op_info_get((tvm_relax_op_id)i);
    CHECK(info && (int)info->id == i);
    tvm_tir_op_obj* op = tvm_relax_op((tvm_relax_op_id)i);
    CHECK(op && strcmp(tvm_tir_op_name(op), info->name) == 0);
    CHECK(tvm_relax_op_info_of(op) == info);
    CHECK(tvm_tir_op_get(info->name) == op);
    tvm_ffi_release(tvm_tir_op_get(info->name));
    CHECK(tvm_relax_op_info_find(info->name, strlen(info->name)) == info);
    /* Every default parses. */
    for (int32_t a = 0; a < info->num_attrs; ++a) {
      TVMFFIAny v;
      if (info->attrs[a].default_text) {
        CHECK_OK(tvm_relax_op_attr_default(info, a, &v));
        tvm_ffi_any_release(&v);
      }
    }
  }
  const tvm_relax_op_info* add = tvm_relax_op_info_get(TVM_RELAX_OP_add);
  CHECK_EQ_INT(add->min_args, 2);
  CHECK_EQ_INT(add->max_args, 2);
  CHECK(add->pattern == TVM_RELAX_PATTERN_BROADCAST);
  CHECK(add->pure);
  CHECK(!tvm_relax_op_info_get(TVM_RELAX_OP_print)->pure);
  CHECK_EQ_INT(tvm_relax_op_info_get(TVM_RELAX_OP_call_pure_packed)->max_args, -1);
  CHECK(tvm_relax_op_info_of(tvm_tir_builtin_op(0)) == NULL);
}

TEST(attrs_completed_and_checked) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)2, (int64_t)3));
  void* attrs = rt_attrs(1, "dtype", tvm_ffi_any_raw_str("float16"));
  tvm_relax_expr_obj* c = RT_CALL("relax.astype", attrs, x);
  CHECK_STR_EQ(rt_sinfo_text(c), "R.Tensor((2, 3), dtype=\"float16\")");
  const TVMFFIAny* dt = tvm_relax_call_attr((tvm_relax_call_obj*)c, "dtype");
  CHECK(dt && dt->type_index == kTVMFFIDataType && dt->v_dtype.bits == 16);
  tvm_ffi_release(c);
  tvm_ffi_release(attrs);
  /* Missing required attribute, unknown attribute, wrong kind. */
  CHECK(RT_CALL("relax.astype", NULL, x) == NULL);
  CHECK_RAISED("ValueError", "relax.astype: attribute 'dtype' is required");
  attrs = rt_attrs(2, "dtype", tvm_ffi_any_raw_str("float16"), "foo", tvm_ffi_any_int(1));
  CHECK(RT_CALL("relax.astype", attrs, x) == NULL);
  CHECK_RAISED("TypeError", "unknown attribute 'foo'");
  tvm_ffi_release(attrs);
  attrs = rt_attrs(1, "dtype", tvm_ffi_any_int(3));
  CHECK(RT_CALL("relax.astype", attrs, x) == NULL);
  CHECK_RAISED("TypeError", "attribute 'dtype' must be a dtype");
  tvm_ffi_release(attrs);
  attrs = rt_attrs(1, "axis", tvm_ffi_any_int(0));
  CHECK(RT_CALL("relax.add", attrs, x, x) == NULL);
  CHECK_RAISED("TypeError", "the operator has none");
  tvm_ffi_release(attrs);
  /* Argument count. */
  CHECK(RT_CALL("relax.add", NULL, x) == NULL);
  CHECK_RAISED("TypeError", "relax.add takes 2 arguments (x1, x2), got 1");
  CHECK(tvm_relax_call_op("relax.nope", NULL, 0) == NULL);
  CHECK_RAISED("KeyError", "relax.nope");
  tvm_ffi_release(x);
}

/* Calls giving no attribute share the operator's completed defaults; given ones are converted
 * and the rest come from the defaults, in the schema's order. */
TEST(attrs_defaults_shared) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)2, (int64_t)3));
  tvm_relax_call_obj* c1 = (tvm_relax_call_obj*)RT_CALL("relax.sum", NULL, x);
  tvm_relax_call_obj* c2 = (tvm_relax_call_obj*)RT_CALL("relax.sum", NULL, x);
  CHECK(c1 && c2 && c1->attrs && c1->attrs == c2->attrs);
  CHECK_EQ_INT(tvm_ffi_map_size(c1->attrs), 2);
  const TVMFFIAny* keep = tvm_relax_call_attr(c1, "keepdims");
  CHECK(keep && keep->type_index == kTVMFFIBool && !keep->v_int64);
  CHECK(tvm_ffi_any_is_none(tvm_relax_call_attr(c1, "axis")));
  void* attrs = rt_attrs(1, "keepdims", tvm_ffi_any_int(1)); /* 1 converts to True */
  tvm_relax_call_obj* c3 = (tvm_relax_call_obj*)RT_CALL("relax.sum", attrs, x);
  CHECK(c3 && c3->attrs != c1->attrs);
  CHECK_STR_EQ(rt_sinfo_text(&c3->expr), "R.Tensor((1, 1), dtype=\"float32\")");
  keep = tvm_relax_call_attr(c3, "keepdims");
  CHECK(keep && keep->type_index == kTVMFFIBool && keep->v_int64);
  const TVMFFIAny *k, *v;
  int64_t pos = tvm_ffi_map_next(c3->attrs, 0, &k, &v);
  TVMFFIByteArray name = {NULL, 0};
  CHECK(pos >= 0 && tvm_ffi_any_as_bytes(k, &name) && name.size == 4 &&
        memcmp(name.data, "axis", 4) == 0 && tvm_ffi_any_is_none(v));
  tvm_ffi_release(attrs);
  /* A given name that is not in the schema, next to one that is. */
  attrs = rt_attrs(2, "keepdims", tvm_ffi_any_bool(true), "axes", tvm_ffi_any_int(0));
  CHECK(RT_CALL("relax.sum", attrs, x) == NULL);
  CHECK_RAISED("TypeError", "relax.sum: unknown attribute 'axes'");
  tvm_ffi_release(attrs);
  tvm_ffi_release(c1);
  tvm_ffi_release(c2);
  tvm_ffi_release(c3);
  tvm_ffi_release(x);
}

TEST(elementwise_inference) {
  tvm_tir_var_obj* n = sym("n");
  tvm_tir_var_obj* m = sym("m");
  tvm_tir_expr_obj* one = tvm_tir_const_int(I64, 1);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* d_n4[2] = {n, four};
  void* d_14[2] = {one, four};
  void* d_m4[2] = {m, four};
  tvm_relax_var_obj* a = rt_var_take("a", rt_tensor_sym(F32, 2, d_n4));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor_sym(F32, 2, d_14));
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor_sym(F32, 2, d_m4));
  tvm_relax_var_obj* s = rt_var_take("s", rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* i = rt_var_take("i", rt_tensor(tvm_tir_dtype_int(32), 1, (int64_t)4));
  tvm_relax_var_obj* u = rt_var_take("u", tvm_relax_tensor_sinfo_new(NULL, F32, 3, NULL));
  tvm_relax_var_obj* w = rt_var_take("w", rt_tensor(F32, 2, (int64_t)3, (int64_t)5));
  tvm_relax_expr_obj* e;
  e = RT_CALL("relax.add", NULL, a, b);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  /* A result with an operand's very dims, dtype and device is that operand's struct info. */
  CHECK(tvm_relax_sinfo_of(e) == tvm_relax_sinfo_of(a));
  tvm_ffi_release(e);
  e = RT_CALL("relax.multiply", NULL, s, a); /* rank broadcast */
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK(tvm_relax_sinfo_of(e) == tvm_relax_sinfo_of(a));
  tvm_ffi_release(e);
  e = RT_CALL("relax.add", NULL, b, b); /* b's (1, 4): its own */
  CHECK(tvm_relax_sinfo_of(e) == tvm_relax_sinfo_of(b));
  tvm_ffi_release(e);
  void* d_n1[2] = {n, one};
  tvm_relax_var_obj* col = rt_var_take("col", rt_tensor_sym(F32, 2, d_n1));
  e = RT_CALL("relax.add", NULL, col, b); /* (n, 1) + (1, 4): dims of both, a new struct info */
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  CHECK(tvm_relax_sinfo_of(e) != tvm_relax_sinfo_of(col) &&
        tvm_relax_sinfo_of(e) != tvm_relax_sinfo_of(b));
  tvm_ffi_release(e);
  tvm_ffi_release(col);
  e = RT_CALL("relax.add", NULL, a, c); /* n vs m: may differ, shape unknown of rank 2 */
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_ffi_release(e);
  e = RT_CALL("relax.add", NULL, a, u);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor(dtype=\"float32\", ndim=3)");
  tvm_ffi_release(e);
  e = RT_CALL("relax.less", NULL, a, s);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"bool\")");
  CHECK(tvm_relax_sinfo_of(e) != tvm_relax_sinfo_of(a)); /* (the dtype differs) */
  tvm_ffi_release(e);
  e = RT_CALL("relax.exp", NULL, a);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_ffi_release(e);
  /* Errors */
  CHECK(RT_CALL("relax.add", NULL, a, w) == NULL);
  CHECK_RAISED("ValueError", "relax.add: cannot broadcast");
  CHECK(RT_CALL("relax.add", NULL, s, i) == NULL);
  CHECK_RAISED("TypeError", "arguments 'x1' and 'x2' have different dtypes float32 and int32");
  CHECK(RT_CALL("relax.exp", NULL, i) == NULL);
  CHECK_RAISED("TypeError", "relax.exp: argument 'x' must be a float tensor");
  CHECK(RT_CALL("relax.logical_and", NULL, s, s) == NULL);
  CHECK_RAISED("TypeError", "must be bool tensors");
  CHECK(RT_CALL("relax.logical_xor", NULL, s, s) == NULL);
  CHECK_RAISED("TypeError", "must be bool tensors");
  e = RT_CALL("relax.bitwise_and", NULL, i, i);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"int32\")");
  tvm_ffi_release(e);
  CHECK(RT_CALL("relax.left_shift", NULL, s, s) == NULL);
  CHECK_RAISED("TypeError", "relax.left_shift: arguments must be integer or bool tensors, got "
               "dtype float32");
  CHECK(RT_CALL("relax.log_add_exp", NULL, i, i) == NULL);
  CHECK_RAISED("TypeError", "arguments must be float tensors, got dtype int32");
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints((int64_t[]){2}, 1);
  CHECK(RT_CALL("relax.exp", NULL, shape) == NULL);
  CHECK_RAISED("TypeError", "argument 'x' must be a tensor, got R.Shape([2])");
  /* where broadcasts all three */
  tvm_relax_var_obj* cond = rt_var_take("cond", rt_tensor(tvm_tir_dtype_bool(), 1, (int64_t)4));
  e = RT_CALL("relax.where", NULL, cond, a, s);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_ffi_release(e);
  CHECK(RT_CALL("relax.where", NULL, s, a, s) == NULL);
  CHECK_RAISED("TypeError", "argument 'condition' must be a bool tensor");
  tvm_ffi_release(cond);
  /* ewise_fma: three operands of one shape (no broadcasting), dtype and rank */
  tvm_relax_var_obj* a2 = rt_var_take("a2", rt_tensor_sym(F32, 2, d_n4));
  e = RT_CALL("relax.ewise_fma", NULL, a, a2, a);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.ewise_fma", NULL, a, u, a); /* a shape unknown: rank only */
  CHECK(e == NULL);
  CHECK_RAISED("ValueError", "relax.ewise_fma: the three arguments must have the same number of "
               "dimensions, got 2 and 3");
  tvm_relax_var_obj* u2 = rt_var_take("u2", tvm_relax_tensor_sinfo_new(NULL, F32, 2, NULL));
  e = RT_CALL("relax.ewise_fma", NULL, a, u2, a);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_ffi_release(e);
  CHECK(RT_CALL("relax.ewise_fma", NULL, a, c, a) == NULL); /* n vs m: not provably equal */
  CHECK_RAISED("ValueError", "the three arguments must have the same shape, and dim 0 differs");
  CHECK(RT_CALL("relax.ewise_fma", NULL, a, b, a) == NULL); /* (1, 4) does not broadcast */
  CHECK_RAISED("ValueError", "must have the same shape");
  CHECK(RT_CALL("relax.ewise_fma", NULL, s, s, i) == NULL);
  CHECK_RAISED("TypeError", "the three arguments must have the same dtype, got float32 and int32");
  CHECK(RT_CALL("relax.ewise_fma", NULL, s, shape, s) == NULL);
  CHECK_RAISED("TypeError", "must be a tensor");
  tvm_ffi_release(a2), tvm_ffi_release(u2);
  tvm_ffi_release(shape);
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(c), tvm_ffi_release(s);
  tvm_ffi_release(i), tvm_ffi_release(u), tvm_ffi_release(w);
  tvm_ffi_release(n), tvm_ffi_release(m), tvm_ffi_release(one), tvm_ffi_release(four);
}

/* The unary math operators after upstream's rules: float-only math keeps the dtype, trunc is
 * any number's (the identity on integers), isfinite gives bool of any dtype, bitwise_not takes integers and
 * bool only; a wrong dtype is a TypeError naming the operator and the argument. */
TEST(unary_math_inference) {
  static const char* const k_float_ops[] = {"relax.tan",  "relax.sinh",  "relax.cosh",
                                            "relax.asin", "relax.acos",  "relax.atan",
                                            "relax.asinh", "relax.acosh", "relax.atanh"};
  tvm_tir_var_obj* n = sym("n");
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* d_n4[2] = {n, four};
  tvm_relax_var_obj* f = rt_var_take("f", rt_tensor_sym(F32, 2, d_n4));
  tvm_relax_var_obj* h = rt_var_take("h", rt_tensor(tvm_tir_dtype_float(16), 1, (int64_t)3));
  tvm_relax_var_obj* i = rt_var_take("i", rt_tensor(tvm_tir_dtype_int(32), 1, (int64_t)4));
  tvm_relax_var_obj* u = rt_var_take("u", rt_tensor(tvm_tir_dtype_uint(8), 1, (int64_t)4));
  tvm_relax_var_obj* b = rt_var_take("b", rt_tensor(tvm_tir_dtype_bool(), 1, (int64_t)4));
  tvm_relax_var_obj* r = rt_var_take("r", tvm_relax_tensor_sinfo_new(NULL, F32, 3, NULL));
  tvm_relax_expr_obj* e;
  char want[128];
  for (size_t k = 0; k < sizeof(k_float_ops) / sizeof(k_float_ops[0]); ++k) {
    e = RT_CALL(k_float_ops[k], NULL, f);
    CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
    tvm_ffi_release(e);
    e = RT_CALL(k_float_ops[k], NULL, h);
    CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((3,), dtype=\"float16\")");
    tvm_ffi_release(e);
    e = RT_CALL(k_float_ops[k], NULL, r);
    CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor(dtype=\"float32\", ndim=3)");
    tvm_ffi_release(e);
    CHECK(RT_CALL(k_float_ops[k], NULL, i) == NULL);
    snprintf(want, sizeof(want), "%s: argument 'x' must be a float tensor, got dtype int32",
             k_float_ops[k]);
    CHECK_RAISED("TypeError", want);
    CHECK(RT_CALL(k_float_ops[k], NULL, b) == NULL);
    CHECK_RAISED("TypeError", "must be a float tensor, got dtype bool");
  }
  e = RT_CALL("relax.trunc", NULL, f);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.trunc", NULL, i);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"int32\")");
  tvm_ffi_release(e);
  CHECK(RT_CALL("relax.trunc", NULL, b) == NULL);
  CHECK_RAISED("TypeError", "relax.trunc: argument 'x' must be a numeric tensor, got dtype bool");
  e = RT_CALL("relax.isfinite", NULL, f);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((n, 4), dtype=\"bool\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.isfinite", NULL, r);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor(dtype=\"bool\", ndim=3)");
  tvm_ffi_release(e);
  e = RT_CALL("relax.isfinite", NULL, i); /* any dtype, as upstream's */
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"bool\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.isnan", NULL, b);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"bool\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.bitwise_not", NULL, i);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"int32\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.bitwise_not", NULL, u);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"uint8\")");
  tvm_ffi_release(e);
  e = RT_CALL("relax.bitwise_not", NULL, b);
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Tensor((4,), dtype=\"bool\")");
  tvm_ffi_release(e);
  CHECK(RT_CALL("relax.bitwise_not", NULL, f) == NULL);
  CHECK_RAISED("TypeError", "relax.bitwise_not: argument 'x' must be an integer or bool tensor, "
                            "got dtype float32");
  CHECK(RT_CALL("relax.bitwise_not", NULL, h) == NULL);
  CHECK_RAISED("TypeError", "must be an integer or bool tensor, got dtype float16");
  /* one argument, a tensor */
  CHECK(RT_CALL("relax.tan", NULL, f, f) == NULL);
  CHECK_RAISED("TypeError", "relax.tan takes 1 argument");
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_of_ints((int64_t[]){2}, 1);
  CHECK(RT_CALL("relax.bitwise_not", NULL, shape) == NULL);
  CHECK_RAISED("TypeError", "relax.bitwise_not: argument 'x' must be a tensor, got R.Shape([2])");
  tvm_ffi_release(shape);
  tvm_ffi_release(f), tvm_ffi_release(h), tvm_ffi_release(i), tvm_ffi_release(u);
  tvm_ffi_release(b), tvm_ffi_release(r), tvm_ffi_release(n), tvm_ffi_release(four);
}

TEST(base_check_and_lca) {
  tvm_tir_var_obj* n = sym("n");
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* d_n4[2] = {n, four};
  tvm_relax_sinfo_obj* t_n4 = rt_tensor_sym(F32, 2, d_n4);
  tvm_relax_sinfo_obj* t_34 = rt_tensor(F32, 2, (int64_t)3, (int64_t)4);
  tvm_relax_sinfo_obj* t_35 = rt_tensor(F32, 2, (int64_t)3, (int64_t)5);
  tvm_relax_sinfo_obj* t_2d = tvm_relax_tensor_sinfo_new(NULL, F32, 2, NULL);
  tvm_relax_sinfo_obj* t_any = tvm_relax_tensor_sinfo_new(NULL, TVM_RELAX_DTYPE_UNKNOWN, -1, NULL);
  tvm_relax_sinfo_obj* obj = tvm_relax_object_sinfo_new();
  tvm_relax_sinfo_obj* i34 = rt_tensor(tvm_tir_dtype_int(32), 2, (int64_t)3, (int64_t)4);
  CHECK(tvm_relax_sinfo_base_check(obj, t_34) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK(tvm_relax_sinfo_base_check(t_34, obj) == TVM_RELAX_BASE_CHECK_STATIC);
  CHECK(tvm_relax_sinfo_base_check(t_2d, t_34) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK(tvm_relax_sinfo_base_check(t_34, t_2d) == TVM_RELAX_BASE_CHECK_RUNTIME);
  CHECK(tvm_relax_sinfo_base_check(t_34, t_35) == TVM_RELAX_BASE_CHECK_FAIL);
  CHECK(tvm_relax_sinfo_base_check(t_34, i34) == TVM_RELAX_BASE_CHECK_FAIL);
  CHECK(tvm_relax_sinfo_base_check(t_n4, t_34) == TVM_RELAX_BASE_CHECK_RUNTIME);
  CHECK(tvm_relax_sinfo_base_check(t_any, t_n4) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK(tvm_relax_sinfo_base_check(t_n4, t_35) == TVM_RELAX_BASE_CHECK_FAIL);
  tvm_relax_sinfo_obj* l = tvm_relax_sinfo_lca(t_34, t_35);
  CHECK_STR_EQ(rt_text(l), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_ffi_release(l);
  l = tvm_relax_sinfo_lca(t_34, i34); /* same dims, dtypes differ: dtype unknown */
  CHECK_STR_EQ(rt_text(l), "R.Tensor((3, 4))");
  tvm_ffi_release(l);
  l = tvm_relax_sinfo_lca(t_34, t_34);
  CHECK(l == t_34);
  tvm_ffi_release(l);
  tvm_relax_sinfo_obj* shp = tvm_relax_shape_sinfo_new(NULL, 2);
  l = tvm_relax_sinfo_lca(t_34, shp);
  CHECK_STR_EQ(rt_text(l), "R.Object");
  tvm_ffi_release(l);
  /* Tuples field-wise. */
  void* f1 = rt_array(2, t_34, shp);
  void* f2 = rt_array(2, t_35, shp);
  tvm_relax_sinfo_obj* tu1 = tvm_relax_tuple_sinfo_new(f1);
  tvm_relax_sinfo_obj* tu2 = tvm_relax_tuple_sinfo_new(f2);
  l = tvm_relax_sinfo_lca(tu1, tu2);
  CHECK_STR_EQ(rt_text(l), "R.Tuple(R.Tensor(dtype=\"float32\", ndim=2), R.Shape(ndim=2))");
  CHECK(tvm_relax_sinfo_base_check(tu1, tu2) == TVM_RELAX_BASE_CHECK_FAIL);
  tvm_ffi_release(l);
  /* Functions: params contravariant, purity. */
  void* p_2d = rt_array(1, t_2d);
  void* p_34 = rt_array(1, t_34);
  tvm_relax_sinfo_obj* f_wide = tvm_relax_func_sinfo_new(p_2d, t_34, true);
  tvm_relax_sinfo_obj* f_narrow = tvm_relax_func_sinfo_new(p_34, t_34, true);
  tvm_relax_sinfo_obj* f_impure = tvm_relax_func_sinfo_new(p_2d, t_34, false);
  CHECK(tvm_relax_sinfo_base_check(f_narrow, f_wide) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK(tvm_relax_sinfo_base_check(f_wide, f_narrow) == TVM_RELAX_BASE_CHECK_RUNTIME);
  CHECK(tvm_relax_sinfo_base_check(f_wide, f_impure) == TVM_RELAX_BASE_CHECK_FAIL);
  CHECK_STR_EQ(rt_text(f_impure), "R.Callable((R.Tensor(dtype=\"float32\", ndim=2)), "
                                  "R.Tensor((3, 4), dtype=\"float32\"), purity=False)");
  /* Derivation rules: the rule is part of the type; the same rule on both sides joins. */
  tvm_relax_sinfo_obj* f_view = tvm_relax_func_sinfo_derived("tvm.relax.type.infer_view_ty", true);
  tvm_relax_sinfo_obj* f_old = tvm_relax_func_sinfo_derived("tvm.relax.struct_info.infer_view_sinfo",
                                                            true);
  tvm_relax_sinfo_obj* f_opaque = tvm_relax_func_sinfo_new(NULL, NULL, true);
  CHECK(tvm_relax_sinfo_base_check(f_view, f_view) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK(tvm_relax_sinfo_base_check(f_view, f_old) == TVM_RELAX_BASE_CHECK_FAIL);
  CHECK(tvm_relax_sinfo_base_check(f_view, f_opaque) == TVM_RELAX_BASE_CHECK_FAIL);
  CHECK(tvm_relax_sinfo_base_check(f_opaque, f_view) == TVM_RELAX_BASE_CHECK_PASS);
  CHECK_STR_EQ(rt_text(f_view), "R.Callable(derive_func=\"tvm.relax.type.infer_view_ty\")");
  l = tvm_relax_sinfo_lca(f_view, f_view);
  CHECK(l && ((tvm_relax_func_sinfo_obj*)l)->derive_func != NULL);
  tvm_ffi_release(l);
  l = tvm_relax_sinfo_lca(f_view, f_old);
  CHECK(l && ((tvm_relax_func_sinfo_obj*)l)->derive_func == NULL);
  tvm_ffi_release(l);
  CHECK(tvm_relax_func_sinfo_derived("tvm.relax.nope", true) == NULL);
  CHECK_RAISED("ValueError", "unknown derive_func \"tvm.relax.nope\"");
  tvm_ffi_release(f_view), tvm_ffi_release(f_old), tvm_ffi_release(f_opaque);
  tvm_ffi_release(f_wide), tvm_ffi_release(f_narrow), tvm_ffi_release(f_impure);
  tvm_ffi_release(p_2d), tvm_ffi_release(p_34);
  tvm_ffi_release(tu1), tvm_ffi_release(tu2), tvm_ffi_release(f1), tvm_ffi_release(f2);
  tvm_ffi_release(shp);
  tvm_ffi_release(t_n4), tvm_ffi_release(t_34), tvm_ffi_release(t_35), tvm_ffi_release(t_2d);
  tvm_ffi_release(t_any), tvm_ffi_release(obj), tvm_ffi_release(i34);
  tvm_ffi_release(four), tvm_ffi_release(n);
}

TEST(erase_and_substitute) {
  tvm_tir_var_obj* n = sym("n");
  tvm_tir_var_obj* m = sym("m");
  tvm_tir_expr_obj* two = tvm_tir_const_int(I64, 2);
  tvm_tir_expr_obj* n2 = tvm_tir_mul((tvm_tir_expr_obj*)n, two);
  void* dims[2] = {n2, m};
  tvm_relax_sinfo_obj* t = rt_tensor_sym(F32, 2, dims);
  CHECK_STR_EQ(rt_text(t), "R.Tensor((n * T.int64(2), m), dtype=\"float32\")");
  /* Nothing defined: the shape becomes unknown, the rank stays. */
  tvm_relax_sinfo_obj* e = tvm_relax_sinfo_erase(t, NULL, NULL);
  CHECK_STR_EQ(rt_text(e), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_ffi_release(e);
  TVMFFIAny kn = tvm_ffi_any_obj(n), km = tvm_ffi_any_obj(m), none = tvm_ffi_any_none();
  void* defined = tvm_ffi_dict_new();
  tvm_ffi_dict_set(defined, &kn, &none);
  e = tvm_relax_sinfo_erase(t, defined, NULL);
  CHECK_STR_EQ(rt_text(e), "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_ffi_release(e);
  tvm_ffi_dict_set(defined, &km, &none);
  e = tvm_relax_sinfo_erase(t, defined, NULL);
  CHECK(e == t);
  tvm_ffi_release(e);
  /* n := 3, m := m + 1 */
  tvm_tir_expr_obj* three = tvm_tir_const_int(I64, 3);
  tvm_tir_expr_obj* m1 = tvm_tir_add((tvm_tir_expr_obj*)m, tvm_tir_const_int(I64, 1));
  void* vmap = tvm_ffi_dict_new();
  TVMFFIAny v3 = tvm_ffi_any_obj(three), vm1 = tvm_ffi_any_obj(m1);
  tvm_ffi_dict_set(vmap, &kn, &v3);
  tvm_ffi_dict_set(vmap, &km, &vm1);
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_substitute(t, vmap);
  CHECK_STR_EQ(rt_text(s), "R.Tensor((6, m + T.int64(1)), dtype=\"float32\")");
  tvm_ffi_release(s);
  /* The TIR variables a struct info uses, and those a parameter of it defines. */
  void* list = tvm_ffi_list_new();
  CHECK_OK(tvm_relax_sinfo_tir_vars(t, false, list));
  CHECK_EQ_INT(tvm_ffi_seq_size(list), 2);
  tvm_ffi_list_clear(list);
  CHECK_OK(tvm_relax_sinfo_tir_vars(t, true, list));
  CHECK_EQ_INT(tvm_ffi_seq_size(list), 1); /* m only: n * 2 defines nothing */
  CHECK(tvm_ffi_seq_obj_at(list, 0) == (void*)m);
  tvm_ffi_release(list);
  tvm_ffi_release(vmap), tvm_ffi_release(m1), tvm_ffi_release(three);
  tvm_ffi_release(defined), tvm_ffi_release(t), tvm_ffi_release(n2), tvm_ffi_release(two);
  tvm_ffi_release(n), tvm_ffi_release(m);
}

TEST(constructor_errors) {
  CHECK(tvm_relax_shape_sinfo_new(NULL, -3) == NULL);
  CHECK_RAISED("ValueError", "ndim must be -1");
  void* bad = rt_array(1, tvm_tir_const_float(F32, 1.5));
  tvm_ffi_release(tvm_ffi_seq_obj_at(bad, 0));
  CHECK(tvm_relax_shape_expr_new(bad) == NULL);
  CHECK_RAISED("TypeError", "must be an integer");
  tvm_ffi_release(bad);
  CHECK(tvm_relax_var_new("x", NULL, false) == NULL);
  CHECK_RAISED("TypeError", "struct info annotation is required");
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  CHECK(tvm_relax_tuple_get_item_new((tvm_relax_expr_obj*)x, 0) == NULL);
  CHECK_RAISED("TypeError", "not a tuple");
  void* fields = rt_array(2, x, x);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(fields);
  CHECK(tvm_relax_tuple_get_item_new(tup, 2) == NULL);
  CHECK_RAISED("IndexError", "index 2 out of range for a tuple of 2 fields");
  tvm_relax_expr_obj* g1 = tvm_relax_tuple_get_item_new(tup, 1);
  CHECK_STR_EQ(rt_sinfo_text(g1), "R.Tensor((4,), dtype=\"float32\")");
  /* A binding whose annotation the value provably does not satisfy. */
  tvm_relax_var_obj* y = rt_var_take("y", rt_tensor(F32, 1, (int64_t)5));
  CHECK(tvm_relax_var_binding_new(y, (tvm_relax_expr_obj*)x) == NULL);
  CHECK_RAISED("TypeError", "binding of y");
  /* match_cast to something the value can never be. */
  tvm_relax_sinfo_obj* shp = tvm_relax_shape_sinfo_new(NULL, 1);
  tvm_relax_var_obj* z = rt_var_take("z", tvm_relax_shape_sinfo_new(NULL, 1));
  CHECK(tvm_relax_match_cast_new(z, (tvm_relax_expr_obj*)x, shp) == NULL);
  CHECK_RAISED("TypeError", "can never match");
  /* If needs a bool scalar. */
  CHECK(tvm_relax_if_new((tvm_relax_expr_obj*)x, (tvm_relax_expr_obj*)x, (tvm_relax_expr_obj*)x) == NULL);
  CHECK_RAISED("TypeError", "If: the condition must be a bool scalar");
  tvm_relax_var_obj* c = rt_var_take("c", rt_tensor(tvm_tir_dtype_bool(), 0));
  tvm_relax_expr_obj* f = tvm_relax_if_new((tvm_relax_expr_obj*)c, (tvm_relax_expr_obj*)x, tup);
  CHECK_STR_EQ(rt_sinfo_text(f), "R.Object");
  tvm_ffi_release(f);
  f = tvm_relax_if_new((tvm_relax_expr_obj*)c, (tvm_relax_expr_obj*)x, (tvm_relax_expr_obj*)y);
  CHECK_STR_EQ(rt_sinfo_text(f), "R.Tensor(dtype=\"float32\", ndim=1)");
  tvm_ffi_release(f);
  /* A function whose body contradicts its return annotation. */
  void* params = rt_array(1, x);
  tvm_relax_sinfo_obj* r5 = rt_tensor(F32, 1, (int64_t)5);
  CHECK(tvm_relax_function_new(params, (tvm_relax_expr_obj*)x, r5, true, NULL) == NULL);
  CHECK_RAISED("TypeError", "is not an instance of the return annotation");
  void* dparams = rt_array(1, tvm_relax_var_new("d", r5, true));
  tvm_ffi_release(tvm_ffi_seq_obj_at(dparams, 0));
  CHECK(tvm_relax_function_new(dparams, (tvm_relax_expr_obj*)x, NULL, true, NULL) == NULL);
  CHECK_RAISED("TypeError", "not a DataflowVar");
  tvm_ffi_release(dparams), tvm_ffi_release(r5), tvm_ffi_release(params);
  tvm_ffi_release(c), tvm_ffi_release(z), tvm_ffi_release(shp), tvm_ffi_release(y);
  tvm_ffi_release(g1), tvm_ffi_release(tup), tvm_ffi_release(fields), tvm_ffi_release(x);
}

TEST(match_cast_defines_and_seq_erases) {
  /* lv = match_cast(x, R.Tensor((k,))) ; body = lv : outside the SeqExpr k is unknown. */
  tvm_relax_var_obj* x = rt_var_take("x", tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL));
  tvm_tir_var_obj* k = sym("k");
  void* d_k[1] = {k};
  tvm_relax_sinfo_obj* tk = rt_tensor_sym(F32, 1, d_k);
  tvm_relax_var_obj* lv = tvm_relax_var_new("lv", tk, false);
  tvm_relax_binding_obj* mc = tvm_relax_match_cast_new(lv, (tvm_relax_expr_obj*)x, tk);
  CHECK(mc != NULL);
  void* bindings = rt_array(1, mc);
  tvm_relax_block_obj* blk = tvm_relax_block_new(bindings, false);
  void* blocks = rt_array(1, blk);
  tvm_relax_expr_obj* seq = tvm_relax_seq_expr_new(blocks, (tvm_relax_expr_obj*)lv);
  CHECK_STR_EQ(rt_sinfo_text(seq), "R.Tensor(dtype=\"float32\", ndim=1)");
  void* params = rt_array(1, x);
  tvm_relax_function_obj* f = tvm_relax_function_new(params, seq, NULL, true, NULL);
  CHECK_STR_EQ(rt_text(f->ret_struct_info), "R.Tensor(dtype=\"float32\", ndim=1)");
  tvm_ffi_release(f), tvm_ffi_release(params), tvm_ffi_release(seq), tvm_ffi_release(blocks);
  tvm_ffi_release(blk), tvm_ffi_release(bindings), tvm_ffi_release(mc), tvm_ffi_release(lv);
  tvm_ffi_release(tk), tvm_ffi_release(k), tvm_ffi_release(x);
}

/* A Var made through reflection without a name (as a JSON document may leave it) still reads in
 * messages. */
TEST(nameless_var_in_messages) {
  tvm_relax_var_obj* v = tvm_ffi_object_new(tvm_relax_type_index(TVM_RELAX_KIND_Var), sizeof(*v));
  v->expr.struct_info_ = rt_tensor(F32, 1, (int64_t)5);
  CHECK_STR_EQ(tvm_relax_var_name(v), "");
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  CHECK(tvm_relax_var_binding_new(v, (tvm_relax_expr_obj*)x) == NULL);
  CHECK_RAISED("TypeError", "binding of : the value's struct info");
  tvm_ffi_release(x);
  tvm_ffi_release(v);
}

int main(void) {
  RUN(node_kinds_registered);
  RUN(op_table_rows);
  RUN(attrs_completed_and_checked);
  RUN(attrs_defaults_shared);
  RUN(elementwise_inference);
  RUN(unary_math_inference);
  RUN(base_check_and_lca);
  RUN(erase_and_substitute);
  RUN(constructor_errors);
  RUN(match_cast_defines_and_seq_erases);
  RUN(nameless_var_in_messages);
  return test_summary();
}
