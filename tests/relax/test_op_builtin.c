/*
 * test_op_builtin.c: struct-info inference of the structural and runtime operators (call_tir,
 * call_tir_inplace, call_dps_packed, call_pure_packed, shape conversions, null_value, print,
 * assert_op, memory allocation, closures) on good inputs and their errors on bad ones.
 */
#include "relax_testing.h"

/* Every object a test makes is kept here and released at the end of the test (K). */
static void* g_pool[256];
static int g_pool_n;
static void* K(void* obj) {
  if (obj && g_pool_n < 256) g_pool[g_pool_n++] = obj;
  return obj;
}
static void pool_release(void) {
  while (g_pool_n > 0) tvm_ffi_release(g_pool[--g_pool_n]);
}

/* A call of operator id with args (borrowed), attrs and sinfo_args (borrowed, may be NULL). */
static tvm_relax_expr_obj* call(tvm_relax_op_id id, void* attrs, void* sinfo_args, int n, ...) {
  void* objs[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) objs[i] = va_arg(ap, void*);
  va_end(ap);
  void* args = tvm_ffi_array_of_objects(objs, n);
  tvm_relax_expr_obj* c = tvm_relax_call_new(tvm_relax_op(id), args, attrs, sinfo_args, NULL);
  tvm_ffi_release(args);
  return c;
}

#define CHECK_SINFO(expr, want)                                                       \
  do {                                                                                \
    tvm_relax_expr_obj* e_ = (expr);                                                  \
    if (!e_) {                                                                        \
      void* err_ = tvm_ffi_error_take();                                              \
      fprintf(stderr, "%s:%d: unexpected error: %s: %s\n", __FILE__, __LINE__,        \
              err_ ? tvm_ffi_error_kind(err_) : "?", err_ ? tvm_ffi_error_message(err_) : ""); \
      tvm_ffi_release(err_);                                                          \
      g_test_failed_checks++;                                                         \
    } else {                                                                          \
      CHECK_STR_EQ(rt_sinfo_text(e_), want);                                          \
      tvm_ffi_release(e_);                                                            \
    }                                                                                 \
  } while (0)

#define CHECK_FAILS(expr, kind, part)   \
  do {                                  \
    tvm_relax_expr_obj* e_ = (expr);    \
    CHECK(e_ == NULL);                  \
    tvm_ffi_release(e_);                \
    CHECK_RAISED(kind, part);           \
  } while (0)

/* A Var of sinfo (borrowed). */
static tvm_relax_var_obj* var(const char* name, tvm_relax_sinfo_obj* sinfo) {
  return K(tvm_relax_var_new(name, sinfo, false));
}
static void* arr(int n, void* a, void* b, void* c) {
  void* objs[3] = {a, b, c};
  return K(tvm_ffi_array_of_objects(objs, n));
}
static tvm_relax_expr_obj* tuple2(void* a, void* b) { return K(tvm_relax_tuple_new(arr(2, a, b, NULL))); }
static tvm_relax_expr_obj* tuple1(void* a) { return K(tvm_relax_tuple_new(arr(1, a, NULL, NULL))); }
static tvm_relax_sinfo_obj* f32(int ndim, int64_t d0, int64_t d1) {
  return K(ndim == 1 ? rt_tensor(F32, 1, d0) : rt_tensor(F32, 2, d0, d1));
}
static void* ints_attr(const char* name, int n, const int64_t* v) {
  TVMFFIAny items[4];
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(v[i]);
  void* a = tvm_ffi_array_new(items, n);
  void* m = rt_attrs(1, name, tvm_ffi_any_obj(a));
  tvm_ffi_release(a);
  return K(m);
}

TEST(call_tir) {
  tvm_tir_var_obj* n = K(tvm_tir_var_new("n", I64));
  tvm_tir_expr_obj* four = K(tvm_tir_const_int(I64, 4));
  void* dims[2] = {n, four};
  tvm_relax_var_obj* x = var("x", f32(2, 2, 3));
  tvm_relax_var_obj* y = var("y", K(rt_tensor_sym(F32, 2, dims)));
  void* gv = K(tvm_tir_global_var_new("add_kernel"));
  void* ext = K(tvm_relax_extern_func_new("my_ext", NULL));
  tvm_relax_expr_obj* args = tuple2(x, y);
  tvm_relax_sinfo_obj* out_sym = K(rt_tensor_sym(F32, 2, dims));
  CHECK_SINFO(call(TVM_RELAX_OP_call_tir, NULL, arr(1, out_sym, NULL, NULL), 2, gv, args),
              "R.Tensor((n, 4), dtype=\"float32\")");
  /* an ExternFunc callee, a tuple of outputs, packed ints */
  tvm_relax_sinfo_obj* two = K(tvm_relax_tuple_sinfo_new(arr(2, f32(2, 2, 3), out_sym, NULL)));
  tvm_relax_expr_obj* packed = K(tvm_relax_shape_expr_new(arr(1, n, NULL, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_call_tir, NULL, arr(1, two, NULL, NULL), 3, ext, args, packed),
              "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Tensor((n, 4), dtype=\"float32\"))");
  /* args given as a tuple-typed variable */
  tvm_relax_var_obj* tv = var("t", tvm_relax_sinfo_of(args));
  CHECK_SINFO(call(TVM_RELAX_OP_call_tir, NULL, arr(1, f32(1, 5, 0), NULL, NULL), 2, gv, tv),
              "R.Tensor((5,), dtype=\"float32\")");
  /* errors */
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, NULL, 2, gv, args), "ValueError",
              "relax.call_tir: sinfo_args must hold exactly one output struct info, got 0");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(2, out_sym, out_sym, NULL), 2, gv, args),
              "ValueError", "got 2");
  tvm_relax_sinfo_obj* obj = K(tvm_relax_object_sinfo_new());
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(1, obj, NULL, NULL), 2, gv, args),
              "TypeError", "must be a tensor or a tuple of tensors, got R.Object");
  tvm_relax_sinfo_obj* nested = K(tvm_relax_tuple_sinfo_new(arr(2, out_sym, obj, NULL)));
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(1, nested, NULL, NULL), 2, gv, args),
              "TypeError", "a tuple of tensors");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(1, out_sym, NULL, NULL), 2, x, args),
              "TypeError", "argument 'func' must be a GlobalVar of a PrimFunc or an ExternFunc");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(1, out_sym, NULL, NULL), 2, gv, x),
              "TypeError", "argument 'args' must be a tuple");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(1, out_sym, NULL, NULL), 3, gv, args, x),
              "TypeError", "argument 'packed_ints' must be a shape");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir, NULL, arr(1, out_sym, NULL, NULL), 1, gv), "TypeError",
              "relax.call_tir takes 2 to 3 arguments");
  pool_release();
}

TEST(call_tir_inplace) {
  tvm_tir_var_obj* n = K(tvm_tir_var_new("n", I64));
  tvm_tir_expr_obj* four = K(tvm_tir_const_int(I64, 4));
  void* dims[2] = {n, four};
  tvm_relax_var_obj* x = var("x", f32(2, 2, 3));
  tvm_relax_var_obj* y = var("y", K(rt_tensor_sym(F32, 2, dims)));
  tvm_relax_var_obj* s = var("s", K(tvm_relax_prim_sinfo_new(I64, NULL)));
  void* gv = K(tvm_tir_global_var_new("inplace_kernel"));
  tvm_relax_expr_obj* args = K(tvm_relax_tuple_new(arr(3, x, y, s)));
  tvm_relax_sinfo_obj* ysym = K(rt_tensor_sym(F32, 2, dims));
  int64_t one[1] = {1}, zero[1] = {0}, pair[2] = {-1, 1}, dup[2] = {1, 1}, none2[2] = {-1, -1};
  int64_t bad[1] = {3}, sidx[1] = {2};
  CHECK_SINFO(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 1, one),
                   arr(1, ysym, NULL, NULL), 2, gv, args),
              "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_relax_sinfo_obj* two = K(tvm_relax_tuple_sinfo_new(arr(2, f32(1, 7, 0), ysym, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 2, pair),
                   arr(1, two, NULL, NULL), 2, gv, args),
              "R.Tuple(R.Tensor((7,), dtype=\"float32\"), R.Tensor((n, 4), dtype=\"float32\"))");
  /* errors */
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, NULL, arr(1, ysym, NULL, NULL), 2, gv, args),
              "ValueError", "inplace_indices");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 2, pair),
                   arr(1, ysym, NULL, NULL), 2, gv, args),
              "ValueError", "one index per output: 1 outputs, 2 indices");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 1, bad),
                   arr(1, ysym, NULL, NULL), 2, gv, args),
              "ValueError", "'inplace_indices' gives 3 for output 0, out of range");
  tvm_relax_sinfo_obj* twoy = K(tvm_relax_tuple_sinfo_new(arr(2, ysym, ysym, NULL)));
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 2, dup),
                   arr(1, twoy, NULL, NULL), 2, gv, args),
              "ValueError", "input 1 appears more than once");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 2, none2),
                   arr(1, twoy, NULL, NULL), 2, gv, args),
              "ValueError", "at least one of 'inplace_indices' must be other than -1");
  /* output 0 in place of x (2, 3) but declared (n, 4): another shape */
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 1, zero),
                   arr(1, ysym, NULL, NULL), 2, gv, args),
              "ValueError", "computes output 0 (R.Tensor((n, 4), dtype=\"float32\")) in place of "
                            "input 0, which has another shape: R.Tensor((2, 3)");
  tvm_relax_sinfo_obj* xi = K(rt_tensor(I64, 2, (int64_t)2, (int64_t)3));
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 1, zero),
                   arr(1, xi, NULL, NULL), 2, gv, args),
              "ValueError", "which has another dtype");
  CHECK_FAILS(call(TVM_RELAX_OP_call_tir_inplace, ints_attr("inplace_indices", 1, sidx),
                   arr(1, xi, NULL, NULL), 2, gv, args),
              "ValueError", "which is not a tensor");
  pool_release();
}

TEST(call_dps_and_pure_packed) {
  tvm_relax_var_obj* x = var("x", f32(2, 2, 3));
  void* ext = K(tvm_relax_extern_func_new("my_dps", NULL));
  void* gv = K(tvm_tir_global_var_new("f"));
  tvm_relax_expr_obj* args = tuple1(x);
  tvm_relax_sinfo_obj* out = f32(1, 6, 0);
  CHECK_SINFO(call(TVM_RELAX_OP_call_dps_packed, NULL, arr(1, out, NULL, NULL), 2, ext, args),
              "R.Tensor((6,), dtype=\"float32\")");
  CHECK_FAILS(call(TVM_RELAX_OP_call_dps_packed, NULL, arr(1, out, NULL, NULL), 2, gv, args),
              "TypeError", "argument 'func' must be an ExternFunc");
  CHECK_FAILS(call(TVM_RELAX_OP_call_dps_packed, NULL, NULL, 2, ext, args), "ValueError",
              "exactly one output struct info");
  /* a function value (a variable bound to an ExternFunc: R.Callable; or an R.Object) */
  tvm_relax_var_obj* fv = var("func", K(tvm_relax_func_sinfo_new(NULL, K(tvm_relax_object_sinfo_new()), false)));
  CHECK_SINFO(call(TVM_RELAX_OP_call_dps_packed, NULL, arr(1, out, NULL, NULL), 2, fv, args),
              "R.Tensor((6,), dtype=\"float32\")");
  tvm_relax_var_obj* ov = var("obj", K(tvm_relax_object_sinfo_new()));
  CHECK_SINFO(call(TVM_RELAX_OP_call_dps_packed, NULL, arr(1, out, NULL, NULL), 2, ov, args),
              "R.Tensor((6,), dtype=\"float32\")");
  CHECK_FAILS(call(TVM_RELAX_OP_call_dps_packed, NULL, arr(1, out, NULL, NULL), 2, x, args),
              "TypeError", "argument 'func' must be an ExternFunc or a function value (R.Callable), "
              "got R.Tensor");
  /* call_pure_packed: the result from sinfo_args; none -> the callee's result (an object) */
  CHECK_SINFO(call(TVM_RELAX_OP_call_pure_packed, NULL, arr(1, out, NULL, NULL), 2, ext, x),
              "R.Tensor((6,), dtype=\"float32\")");
  CHECK_SINFO(call(TVM_RELAX_OP_call_pure_packed, NULL, arr(2, out, out, NULL), 1, ext),
              "R.Tuple(R.Tensor((6,), dtype=\"float32\"), R.Tensor((6,), dtype=\"float32\"))");
  CHECK_SINFO(call(TVM_RELAX_OP_call_pure_packed, NULL, NULL, 2, ext, x), "R.Object");
  tvm_relax_expr_obj* name = K(tvm_relax_string_imm_new("vm.builtin.f", 12));
  CHECK_SINFO(call(TVM_RELAX_OP_call_pure_packed, NULL, arr(1, out, NULL, NULL), 1, name),
              "R.Tensor((6,), dtype=\"float32\")");
  /* an opaque function value works; a tensor or a function with a signature does not */
  tvm_relax_sinfo_obj* shape_ret = K(tvm_relax_shape_sinfo_new(NULL, 2));
  tvm_relax_var_obj* opaque = var("pf", K(tvm_relax_func_sinfo_new(NULL, shape_ret, true)));
  CHECK_SINFO(call(TVM_RELAX_OP_call_pure_packed, NULL, NULL, 1, opaque), "R.Shape(ndim=2)");
  CHECK_FAILS(call(TVM_RELAX_OP_call_pure_packed, NULL, NULL, 2, x, x), "TypeError",
              "argument 'func' must be an ExternFunc, a function name (StringImm) or an opaque "
              "function, got R.Tensor((2, 3)");
  tvm_relax_var_obj* typed =
      var("g", K(tvm_relax_func_sinfo_new(arr(1, out, NULL, NULL), out, true)));
  CHECK_FAILS(call(TVM_RELAX_OP_call_pure_packed, NULL, NULL, 2, typed, x), "TypeError",
              "an opaque function");
  CHECK_FAILS(call(TVM_RELAX_OP_call_pure_packed, NULL, NULL, 0), "TypeError",
              "takes at least 1 arguments");
  pool_release();
}

TEST(shape_conversions) {
  tvm_tir_var_obj* n = K(tvm_tir_var_new("n", I64));
  tvm_tir_expr_obj* four = K(tvm_tir_const_int(I64, 4));
  void* dims[2] = {n, four};
  tvm_relax_var_obj* y = var("y", K(rt_tensor_sym(F32, 2, dims)));
  CHECK_SINFO(call(TVM_RELAX_OP_shape_of, NULL, NULL, 1, y), "R.Shape([n, 4])");
  tvm_relax_var_obj* u = var("u", K(tvm_relax_tensor_sinfo_new(NULL, F32, 3, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_shape_of, NULL, NULL, 1, u), "R.Shape(ndim=3)");
  tvm_relax_var_obj* a = var("a", K(tvm_relax_tensor_sinfo_new(NULL, F32, -1, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_shape_of, NULL, NULL, 1, a), "R.Shape()");
  /* a tensor whose shape is a Relax Var of R.Shape: ndim only, as upstream */
  tvm_relax_var_obj* sv = var("sv", K(tvm_relax_shape_sinfo_new(NULL, 2)));
  tvm_relax_var_obj* t = var("t", K(tvm_relax_tensor_sinfo_new(sv, F32, -1, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_shape_of, NULL, NULL, 1, t), "R.Shape(ndim=2)");
  CHECK_FAILS(call(TVM_RELAX_OP_shape_of, NULL, NULL, 1, sv), "TypeError",
              "relax.shape_of: argument 'expr' must be a tensor, got R.Shape(ndim=2)");

  tvm_relax_var_obj* v3 = var("v3", K(rt_tensor(I64, 1, (int64_t)3)));
  CHECK_SINFO(call(TVM_RELAX_OP_tensor_to_shape, NULL, NULL, 1, v3), "R.Shape(ndim=3)");
  void* ndims[1] = {n};
  tvm_relax_var_obj* vn = var("vn", K(rt_tensor_sym(I64, 1, ndims)));
  CHECK_SINFO(call(TVM_RELAX_OP_tensor_to_shape, NULL, NULL, 1, vn), "R.Shape()");
  tvm_relax_var_obj* vu = var("vu", K(tvm_relax_tensor_sinfo_new(NULL, TVM_RELAX_DTYPE_UNKNOWN, -1, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_tensor_to_shape, NULL, NULL, 1, vu), "R.Shape()");
  CHECK_FAILS(call(TVM_RELAX_OP_tensor_to_shape, NULL, NULL, 1, y), "ValueError",
              "argument 'expr' must be a 1-d tensor, got R.Tensor((n, 4)");
  tvm_relax_var_obj* vf = var("vf", f32(1, 3, 0));
  CHECK_FAILS(call(TVM_RELAX_OP_tensor_to_shape, NULL, NULL, 1, vf), "TypeError",
              "must be an int64 tensor");

  tvm_relax_expr_obj* se = K(tvm_relax_shape_expr_new(arr(2, n, four, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_shape_to_tensor, NULL, NULL, 1, se),
              "R.Tensor((2,), dtype=\"int64\")");
  tvm_relax_var_obj* su = var("su", K(tvm_relax_shape_sinfo_new(NULL, -1)));
  CHECK_SINFO(call(TVM_RELAX_OP_shape_to_tensor, NULL, NULL, 1, su),
              "R.Tensor(dtype=\"int64\", ndim=1)");
  CHECK_FAILS(call(TVM_RELAX_OP_shape_to_tensor, NULL, NULL, 1, y), "TypeError",
              "argument 'expr' must be a shape (R.shape), got R.Tensor");
  pool_release();
}

/* A string attribute of a call, in a static buffer ("(none)" when absent or not a string). */
static const char* str_attr(const void* call, const char* name) {
  static char buf[128];
  const TVMFFIAny* a = tvm_relax_call_attr(call, name);
  TVMFFIByteArray b;
  if (!a || !tvm_ffi_any_as_bytes(a, &b)) return "(none)";
  snprintf(buf, sizeof(buf), "%.*s", (int)b.size, b.data);
  return buf;
}

TEST(values_print_assert) {
  CHECK_SINFO(call(TVM_RELAX_OP_null_value, NULL, NULL, 0), "R.Object");
  tvm_relax_var_obj* x = var("x", f32(2, 2, 3));
  void* fmt = K(rt_attrs(1, "format", tvm_ffi_string("x = {}")));
  tvm_relax_expr_obj* p = call(TVM_RELAX_OP_print, fmt, NULL, 1, x);
  CHECK(p != NULL);
  if (p) {
    CHECK_STR_EQ(rt_sinfo_text(p), "R.Tuple()");
    CHECK_STR_EQ(str_attr(p, "format"), "x = {}");
    tvm_ffi_release(p);
  }
  CHECK(!tvm_relax_op_info_get(TVM_RELAX_OP_print)->pure);
  /* the default format is "" */
  p = call(TVM_RELAX_OP_print, NULL, NULL, 0);
  CHECK(p != NULL);
  if (p) {
    CHECK_STR_EQ(str_attr(p, "format"), "");
    tvm_ffi_release(p);
  }
  tvm_relax_var_obj* c = var("c", K(tvm_relax_tensor_sinfo_of_ints(NULL, 0, tvm_tir_dtype_bool())));
  CHECK_SINFO(call(TVM_RELAX_OP_assert_op, fmt, NULL, 2, c, x), "R.Tuple()");
  tvm_relax_var_obj* cp = var("cp", K(tvm_relax_prim_sinfo_new(tvm_tir_dtype_bool(), NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_assert_op, NULL, NULL, 1, cp), "R.Tuple()");
  tvm_relax_var_obj* cu = var("cu", K(tvm_relax_tensor_sinfo_new(NULL, TVM_RELAX_DTYPE_UNKNOWN, -1, NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_assert_op, NULL, NULL, 1, cu), "R.Tuple()");
  CHECK_FAILS(call(TVM_RELAX_OP_assert_op, NULL, NULL, 1, x), "TypeError",
              "relax.assert_op: argument 'condition' must be a bool scalar");
  tvm_relax_var_obj* b1 = var("b1", K(rt_tensor(tvm_tir_dtype_bool(), 1, (int64_t)1)));
  CHECK_FAILS(call(TVM_RELAX_OP_assert_op, NULL, NULL, 1, b1), "TypeError", "a bool scalar");
  tvm_relax_var_obj* ip = var("ip", K(tvm_relax_prim_sinfo_new(I64, NULL)));
  CHECK_FAILS(call(TVM_RELAX_OP_assert_op, NULL, NULL, 1, ip), "TypeError",
              "got R.Prim(\"int64\")");
  void* badfmt = K(rt_attrs(1, "format", tvm_ffi_any_int(3)));
  CHECK_FAILS(call(TVM_RELAX_OP_assert_op, badfmt, NULL, 1, cp), "TypeError", "format");
  pool_release();
}

TEST(memory) {
  tvm_tir_var_obj* n = K(tvm_tir_var_new("n", I64));
  tvm_relax_expr_obj* size = K(tvm_relax_shape_expr_of_ints((int64_t[]){96}, 1));
  tvm_relax_expr_obj* dev = K(tvm_relax_prim_value_int64(0));
  tvm_relax_expr_obj* scope = K(tvm_relax_string_imm_new("global", 6));
  tvm_relax_expr_obj* dt = K(tvm_relax_dtype_imm_new(F32));
  tvm_relax_expr_obj* st = call(TVM_RELAX_OP_memory_alloc_storage, NULL, NULL, 4, size, dev, scope, dt);
  CHECK(st != NULL);
  K(st);
  CHECK_STR_EQ(rt_sinfo_text(st), "R.Object");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_storage, NULL, NULL, 4, dev, dev, scope, dt),
              "TypeError", "argument 'size' must be a shape");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_storage, NULL, NULL, 4, size, scope, scope, dt),
              "TypeError", "argument 'virtual_device_index' must be an integer R.prim_value");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_storage, NULL, NULL, 4, size, dev, dt, dt),
              "TypeError", "argument 'storage_scope' must be a StringImm");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_storage, NULL, NULL, 4, size, dev, scope, scope),
              "TypeError", "argument 'dtype' must be a DataTypeImm");

  tvm_relax_expr_obj* shape = K(tvm_relax_shape_expr_new(arr(2, n, K(tvm_tir_const_int(I64, 3)), NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 4, st, dev, shape, dt),
              "R.Tensor((n, 3), dtype=\"float32\")");
  tvm_relax_var_obj* sv = var("sv", K(tvm_relax_shape_sinfo_new(NULL, 2)));
  CHECK_SINFO(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 4, st, dev, sv, dt),
              "R.Tensor(sv, dtype=\"float32\", ndim=2)");
  /* a shape computed by a call: its struct info's values */
  tvm_relax_var_obj* x = var("x", f32(2, 2, 5));
  tvm_relax_expr_obj* so = K(call(TVM_RELAX_OP_shape_of, NULL, NULL, 1, x));
  CHECK_SINFO(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 4, st, dev, so, dt),
              "R.Tensor((2, 5), dtype=\"float32\")");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 4, x, dev, shape, dt),
              "TypeError", "argument 'storage' must be a storage object (R.Object)");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 4, st, dev, x, dt),
              "TypeError", "argument 'shape' must be a shape");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 4, st, dev, shape, dev),
              "TypeError", "argument 'dtype' must be a DataTypeImm, got R.Prim(value=T.int64(0))");
  /* upstream's newer form: a fifth argument, the runtime device index */
  CHECK_SINFO(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 5, st, dev, shape, dt, dev),
              "R.Tensor((n, 3), dtype=\"float32\")");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_alloc_tensor, NULL, NULL, 5, st, dev, shape, dt, dt),
              "TypeError", "argument 'runtime_device_index' must be an integer R.prim_value");

  CHECK_SINFO(call(TVM_RELAX_OP_memory_kill_storage, NULL, NULL, 1, st), "R.Tuple()");
  CHECK_SINFO(call(TVM_RELAX_OP_memory_kill_tensor, NULL, NULL, 1, x), "R.Tuple()");
  CHECK_FAILS(call(TVM_RELAX_OP_memory_kill_tensor, NULL, NULL, 1, st), "TypeError",
              "argument 'tensor' must be a tensor, got R.Object");

  CHECK_SINFO(call(TVM_RELAX_OP_builtin_alloc_tensor, NULL, NULL, 3, shape, dt, dev),
              "R.Tensor((n, 3), dtype=\"float32\")");
  CHECK_SINFO(call(TVM_RELAX_OP_builtin_alloc_tensor, NULL, NULL, 4, shape, dt, dev, scope),
              "R.Tensor((n, 3), dtype=\"float32\")");
  CHECK_FAILS(call(TVM_RELAX_OP_builtin_alloc_tensor, NULL, NULL, 4, shape, dt, dev, dev),
              "TypeError", "argument 'storage_scope' must be a StringImm");
  CHECK_FAILS(call(TVM_RELAX_OP_builtin_alloc_tensor, NULL, NULL, 3, shape, dev, dev),
              "TypeError", "argument 'dtype' must be a DataTypeImm");
  CHECK_FAILS(call(TVM_RELAX_OP_builtin_alloc_tensor, NULL, NULL, 3, x, dt, dev), "TypeError",
              "argument 'shape' must be a shape");
  pool_release();
}

/* The VM's own allocation operators (relax.vm.*): upstream's struct info and purity. */
TEST(vm_memory) {
  tvm_tir_var_obj* n = K(tvm_tir_var_new("n", I64));
  tvm_relax_expr_obj* size = K(tvm_relax_shape_expr_of_ints((int64_t[]){24}, 1));
  tvm_relax_expr_obj* dev = K(tvm_relax_prim_value_int64(0));
  tvm_relax_expr_obj* scope = K(tvm_relax_string_imm_new("global", 6));
  tvm_relax_expr_obj* dt = K(tvm_relax_dtype_imm_new(F32));
  tvm_relax_expr_obj* st = call(TVM_RELAX_OP_vm_alloc_storage, NULL, NULL, 4, size, dev, dt, scope);
  CHECK(st != NULL);
  K(st);
  CHECK_STR_EQ(rt_sinfo_text(st), "R.Object");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_storage, NULL, NULL, 4, dev, dev, dt, scope),
              "TypeError", "argument 'shape' must be a shape");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_storage, NULL, NULL, 4, size, scope, dt, scope),
              "TypeError", "argument 'runtime_device_index' must be an integer R.prim_value");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_storage, NULL, NULL, 4, size, dev, scope, scope),
              "TypeError", "argument 'dtype' must be a DataTypeImm");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_storage, NULL, NULL, 4, size, dev, dt, dt),
              "TypeError", "argument 'storage_scope' must be a StringImm");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_storage, NULL, NULL, 3, size, dev, dt), "TypeError", "");

  /* the tensor: a ShapeExpr as it is; a shape value's known values (a new ShapeExpr) or ndim */
  tvm_relax_expr_obj* shape = K(tvm_relax_shape_expr_new(arr(2, n, K(tvm_tir_const_int(I64, 3)), NULL)));
  CHECK_SINFO(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, st, dev, shape, dt),
              "R.Tensor((n, 3), dtype=\"float32\")");
  tvm_relax_var_obj* sv = var("sv", K(tvm_relax_shape_sinfo_new(NULL, 2)));
  CHECK_SINFO(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, st, dev, sv, dt),
              "R.Tensor(dtype=\"float32\", ndim=2)");
  tvm_relax_var_obj* svk = var("svk", K(tvm_relax_shape_sinfo_new(arr(2, n, n, NULL), 2)));
  CHECK_SINFO(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, st, dev, svk, dt),
              "R.Tensor((n, n), dtype=\"float32\")");
  tvm_relax_var_obj* x = var("x", f32(2, 2, 5));
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, x, dev, shape, dt),
              "TypeError", "argument 'storage' must be a storage object (R.Object)");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, st, scope, shape, dt),
              "TypeError", "argument 'offset' must be an integer R.prim_value");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, st, dev, x, dt),
              "TypeError", "argument 'shape' must be a shape");
  CHECK_FAILS(call(TVM_RELAX_OP_vm_alloc_tensor, NULL, NULL, 4, st, dev, shape, scope),
              "TypeError", "argument 'dtype' must be a DataTypeImm");

  CHECK_SINFO(call(TVM_RELAX_OP_vm_kill_object, NULL, NULL, 1, st), "R.Tuple()");
  CHECK_SINFO(call(TVM_RELAX_OP_vm_kill_object, NULL, NULL, 1, x), "R.Tuple()");
  CHECK(tvm_relax_op_info_get(TVM_RELAX_OP_vm_alloc_storage)->pure);
  CHECK(tvm_relax_op_info_get(TVM_RELAX_OP_vm_alloc_tensor)->pure);
  CHECK(!tvm_relax_op_info_get(TVM_RELAX_OP_vm_kill_object)->pure);
  pool_release();
}

TEST(closures) {
  tvm_relax_var_obj* x = var("x", f32(2, 2, 3));
  void* gv = K(tvm_tir_global_var_new("lifted"));
  tvm_relax_expr_obj* captured = tuple1(x);
  tvm_relax_expr_obj* clo = K(call(TVM_RELAX_OP_make_closure, NULL, NULL, 2, gv, captured));
  CHECK(clo != NULL);
  CHECK_STR_EQ(rt_sinfo_text(clo), "R.Object");
  CHECK_FAILS(call(TVM_RELAX_OP_make_closure, NULL, NULL, 2, x, captured), "TypeError",
              "argument 'func' must be a GlobalVar");
  CHECK_FAILS(call(TVM_RELAX_OP_make_closure, NULL, NULL, 2, gv, x), "TypeError",
              "argument 'args' must be a tuple");
  tvm_relax_var_obj* cv = var("clo", K(tvm_relax_object_sinfo_new()));
  tvm_relax_sinfo_obj* out = f32(1, 3, 0);
  CHECK_SINFO(call(TVM_RELAX_OP_invoke_closure, NULL, arr(1, out, NULL, NULL), 2, cv, captured),
              "R.Tensor((3,), dtype=\"float32\")");
  CHECK_SINFO(call(TVM_RELAX_OP_invoke_closure, NULL, NULL, 2, cv, captured), "R.Object");
  CHECK_SINFO(call(TVM_RELAX_OP_invoke_closure, NULL, arr(2, out, out, NULL), 2, cv, captured),
              "R.Tuple(R.Tensor((3,), dtype=\"float32\"), R.Tensor((3,), dtype=\"float32\"))");
  CHECK_FAILS(call(TVM_RELAX_OP_invoke_closure, NULL, NULL, 2, x, captured), "TypeError",
              "argument 'closure' must be a closure");
  CHECK(!tvm_relax_op_info_get(TVM_RELAX_OP_invoke_closure)->pure);
  pool_release();
}

/* tvm_relax_op_info_find: every row by its full name, nothing for a prefix, an extension or an
 * unknown name. */
TEST(op_info_find) {
  for (int i = 0; i < TVM_RELAX_OP_COUNT; ++i) {
    const tvm_relax_op_info* info = tvm_relax_op_info_get((tvm_relax_op_id)i);
    size_t len = strlen(info->name);
    CHECK(tvm_relax_op_info_find(info->name, len) == info);
    CHECK(tvm_relax_op_info_find(info->name, len - 1) != info);
  }
  CHECK(tvm_relax_op_info_find("relax.add", 9) == tvm_relax_op_info_get(TVM_RELAX_OP_add));
  CHECK(tvm_relax_op_info_find("relax.addx", 10) == NULL);
  CHECK(tvm_relax_op_info_find("relax.ad", 8) == NULL);
  CHECK(tvm_relax_op_info_find("add", 3) == NULL);
  CHECK(tvm_relax_op_info_find("", 0) == NULL);
}

int main(void) {
  tvm_relax_init();
  RUN(op_info_find);
  RUN(call_tir);
  RUN(call_tir_inplace);
  RUN(call_dps_and_pure_packed);
  RUN(shape_conversions);
  RUN(values_print_assert);
  RUN(memory);
  RUN(vm_memory);
  RUN(closures);
  return test_summary();
}
