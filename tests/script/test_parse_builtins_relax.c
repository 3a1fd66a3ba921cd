/*
 * test_parse_builtins_relax.c: the `R.*` builtins of the TVMScript parser, called directly with
 * hand-filled tvm_script_call structs as the evaluator calls them: every operator row is
 * reachable as R.<name>; each call's Call is structurally equal to the one librelax's
 * constructors build; struct info annotations and values print back as the text a user writes;
 * bad calls (arity, unknown keyword, wrong attribute type, inference errors) raise the right
 * kind with a message naming the argument and error_arg pointing at it.
 */
#include "relax_script_testing.h"

static tvm_relax_var_obj* tvar(const char* name, int ndim, const int64_t* dims, DLDataType t) {
  return rt_var_take(name, tvm_relax_tensor_sinfo_of_ints(dims, ndim, t));
}

/* attrs of n (key, value) pairs */
static void* attrs_of(const char* const* keys, const TVMFFIAny* vals, int n) {
  TVMFFIAny k[8];
  for (int i = 0; i < n; ++i) k[i] = tvm_ffi_string(keys[i]);
  void* m = tvm_ffi_map_new(k, vals, n);
  for (int i = 0; i < n; ++i) tvm_ffi_any_release(&k[i]);
  return m;
}

static bool equal_release(void* got, void* expected) {
  bool eq = requal(got, expected);
  tvm_ffi_release(got);
  tvm_ffi_release(expected);
  return eq;
}

/* ---- Lookup ---------------------------------------------------------------------------------- */
TEST(every_operator_is_a_builtin) {
  for (int id = 0; id < TVM_RELAX_OP_COUNT; ++id) {
    const tvm_relax_op_info* info = tvm_relax_op_info_get((tvm_relax_op_id)id);
    const char* name = info->name + strlen("relax.");
    const tvm_script_builtin* b = tvm_script__relax_builtin_lookup(name, strlen(name));
    CHECK(b != NULL);
    if (!b) fprintf(stderr, "  no builtin R.%s\n", name);
  }
  static const char* const others[] = {"call_packed", "const", "prim_value", "str", "dtype",
                                       "shape", "tuple", "ExternFunc", "match_cast", "Tensor",
                                       "Tuple", "Shape", "Prim", "Object", "Any", "Callable",
                                       "dataflow", "output", "func_attr"};
  for (size_t i = 0; i < sizeof(others) / sizeof(others[0]); ++i) {
    const tvm_script_builtin* b = tvm_script__relax_builtin_lookup(others[i], strlen(others[i]));
    CHECK(b != NULL && strcmp(b->name, others[i]) == 0);
  }
  /* the sorted index's edges and near misses: names before the first row and after the last,
   * prefixes and extensions of rows, a name given by length inside a longer string */
  static const char* const absent[] = {"A",        "Aaa",         "zzz",  "Tens",   "Tensor2",
                                       "call_tir_", "call_tir_in", "dist", "dist.",  "shape_",
                                       "Tuple_",    "~",           "_",    "output1"};
  for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); ++i) {
    CHECK(tvm_script__relax_builtin_lookup(absent[i], strlen(absent[i])) == NULL);
  }
  const tvm_script_builtin* cut = tvm_script__relax_builtin_lookup("call_tir_inplace", 8);
  CHECK(cut != NULL && strcmp(cut->name, "call_tir") == 0);
  const tvm_script_builtin* dist = tvm_script__relax_builtin_lookup("dist.call_tir", 13);
  CHECK(dist != NULL && strcmp(dist->name, "dist.call_tir") == 0);
  CHECK(tvm_script__relax_builtin_lookup("", 0) == NULL);
  /* every row binds its signature: an unknown keyword is refused at the keyword, a missing
   * argument named */
  for (int id = 0; id < TVM_RELAX_OP_COUNT; ++id) {
    const tvm_relax_op_info* info = tvm_relax_op_info_get((tvm_relax_op_id)id);
    const char* name = info->name + strlen("relax.");
    CHECK(rcall(NULL, name, NOARGS, RKW("no_such_kw"), RARGS(AI(1))) == NULL);
    void* e = tvm_ffi_error_take();
    CHECK(e && strcmp(tvm_ffi_error_kind(e), "TypeError") == 0);
    if (e) CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "unexpected keyword argument 'no_such_kw'");
    CHECK_EQ_INT(g_error_arg, 0);
    tvm_ffi_release(e);
    if (info->min_args > 0) {
      CHECK(rcall(NULL, name, NOARGS, NOKW) == NULL);
      CHECK_RAISED("TypeError", "missing required argument");
    }
  }
  CHECK(tvm_script__relax_builtin_lookup("nn.nothing", 10) == NULL);
  CHECK(tvm_script__relax_builtin_lookup("nn", 2) == NULL);
  CHECK(!tvm_ffi_error_pending());
}

/* ---- Operators ------------------------------------------------------------------------------- */
TEST(binary_and_unary_operators) {
  int64_t d23[2] = {2, 3}, d3[1] = {3};
  tvm_relax_var_obj* x = tvar("x", 2, d23, F32);
  tvm_relax_var_obj* y = tvar("y", 1, d3, F32);
  CHECK(equal_release(rcall(NULL, "add", RARGS(AO(x), AO(y)), NOKW), RT_CALL("relax.add", NULL, x, y)));
  /* keywords by the row's argument names */
  CHECK(equal_release(rcall(NULL, "multiply", RARGS(AO(x)), RKW("x2"), RARGS(AO(y))),
                      RT_CALL("relax.multiply", NULL, x, y)));
  CHECK(equal_release(rcall(NULL, "nn.relu", RARGS(AO(x)), NOKW), RT_CALL("relax.nn.relu", NULL, x)));
  CHECK_STR_EQ(rprint_take(rcall(NULL, "exp", RARGS(AO(x)), NOKW)), "R.exp(x)");
  /* arity and keywords */
  CHECK(rcall(NULL, "add", RARGS(AO(x)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "R.add() missing required argument 'x2'");
  CHECK(rcall(NULL, "add", RARGS(AO(x), AO(y), AO(y)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "R.add() takes exactly 2 arguments (3 given)");
  CHECK_EQ_INT(g_error_arg, 2);
  CHECK(rcall(NULL, "add", RARGS(AO(x), AO(y)), RKW("axis"), RARGS(AI(1))) == NULL);
  CHECK_RAISED("TypeError", "R.add() got an unexpected keyword argument 'axis'");
  CHECK_EQ_INT(g_error_arg, 2);
  /* an inference error, located at the argument it names */
  int64_t d4[1] = {4};
  tvm_relax_var_obj* z = tvar("z", 1, d4, F32);
  CHECK(rcall(NULL, "add", RARGS(AO(x), AO(z)), NOKW) == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e != NULL);
  if (e) {
    CHECK_STR_CONTAINS(tvm_ffi_error_message(e), "R.add");
    CHECK(strstr(tvm_ffi_error_message(e), "relax.add") == NULL);
    tvm_ffi_release(e);
  }
  /* upstream's unary math: R.tan & co build their rows; bitwise_not refuses a float at x */
  CHECK(equal_release(rcall(NULL, "tan", RARGS(AO(x)), NOKW), RT_CALL("relax.tan", NULL, x)));
  CHECK_STR_EQ(rprint_take(rcall(NULL, "atanh", RARGS(AO(x)), NOKW)), "R.atanh(x)");
  CHECK_STR_EQ(rprint_take(rcall(NULL, "isfinite", RARGS(AO(x)), NOKW)), "R.isfinite(x)");
  CHECK(rcall(NULL, "bitwise_not", RARGS(AO(x)), NOKW) == NULL);
  CHECK_RAISED("TypeError",
               "R.bitwise_not: argument 'x' must be an integer or bool tensor, got dtype float32");
  CHECK_EQ_INT(g_error_arg, 0); /* at x */
  /* a value that is not an expression */
  TVMFFIAny d = tvm_ffi_any_obj(tvm_relax_object_sinfo_new());
  CHECK(rcall(NULL, "exp", RARGS(d), NOKW) == NULL);
  CHECK_RAISED("TypeError", "argument 'x' of R.exp must be a Relax expression");
  CHECK_EQ_INT(g_error_arg, 0);
  tvm_ffi_any_release(&d);
  tvm_ffi_release(z), tvm_ffi_release(x), tvm_ffi_release(y);
}

TEST(attributes_positional_keyword_defaults) {
  int64_t dx[4] = {1, 3, 8, 8}, dw[4] = {4, 3, 3, 3}, d23[2] = {2, 3};
  tvm_relax_var_obj* x = tvar("x", 4, dx, F32);
  tvm_relax_var_obj* w = tvar("w", 4, dw, F32);
  tvm_relax_var_obj* m = tvar("m", 2, d23, F32);
  void* s22 = RTUPLE(AI(2), AI(2));
  void* p1 = RTUPLE(AI(1), AI(1), AI(1), AI(1));
  void* attrs = attrs_of(RKW("strides", "padding"), RARGS(AO(s22), AO(p1)));
  void* conv = rcall(NULL, "nn.conv2d", RARGS(AO(x), AO(w)), RKW("strides", "padding"), RARGS(AO(s22), AO(p1)));
  CHECK(equal_release(conv, RT_CALL("relax.nn.conv2d", attrs, x, w)));
  /* positionally, in upstream's order: strides, padding */
  conv = rcall(NULL, "nn.conv2d", RARGS(AO(x), AO(w), AO(s22), AO(p1)), NOKW);
  CHECK_STR_EQ(rprint(conv),
               "R.nn.conv2d(x, w, strides=[2, 2], padding=[1, 1, 1, 1])");
  CHECK_STR_EQ(rt_sinfo_text(conv), "R.Tensor((1, 4, 4, 4), dtype=\"float32\")");
  tvm_ffi_release(conv);
  /* a wrong attribute type, at the keyword */
  CHECK(rcall(NULL, "nn.conv2d", RARGS(AO(x), AO(w)), RKW("data_layout", "strides"), RARGS(AS("NCHW"), AS("two"))) == NULL);
  CHECK_RAISED("TypeError", "R.nn.conv2d: attribute 'strides' must be a list of ints, got");
  CHECK_EQ_INT(g_error_arg, 3);
  /* R.sum(x, axis, keepdims) */
  void* ax = RTUPLE(AI(1));
  void* sattrs = attrs_of(RKW("axis", "keepdims"), RARGS(AO(ax), AB(true)));
  CHECK(equal_release(rcall(NULL, "sum", RARGS(AO(m), AO(ax), AB(true)), NOKW),
                      RT_CALL("relax.sum", sattrs, m)));
  /* max_pool2d in upstream's order: pool_size, strides, padding, dilation */
  void* pool = rcall(NULL, "nn.max_pool2d", RARGS(AO(x), AO(s22), AO(s22), AO(p1)), NOKW);
  CHECK_STR_EQ(rprint(pool), "R.nn.max_pool2d(x, pool_size=[2, 2], strides=[2, 2], padding=[1, 1, 1, 1])");
  tvm_ffi_release(pool);
  /* astype(x, dtype) and dtype=None as the schema's unspecified */
  CHECK_STR_EQ(rprint_take(rcall(NULL, "astype", RARGS(AO(m), AS("float16")), NOKW)),
               "R.astype(m, dtype=\"float16\")");
  tvm_ffi_release(rcall(NULL, "matmul", RARGS(AO(m), AO(m)), RKW("out_dtype"), RARGS(ANONE)));
  CHECK_RAISED("ValueError", "R.matmul");
  /* a required attribute missing */
  CHECK(rcall(NULL, "astype", RARGS(AO(m)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "missing required argument 'dtype'");
  /* tril's k defaults to 0 as upstream's wrapper */
  CHECK_STR_EQ(rprint_take(rcall(NULL, "tril", RARGS(AO(m)), NOKW)), "R.tril(m, R.prim_value(0))");
  /* nn.pad in upstream's order: pad_width, pad_mode, pad_value */
  void* pw = RTUPLE(AI(0), AI(0), AI(1), AI(1));
  CHECK_STR_EQ(rprint_take(rcall(NULL, "nn.pad", RARGS(AO(m), AO(pw), AS("edge")), NOKW)),
               "R.nn.pad(m, pad_width=[0, 0, 1, 1], pad_mode=\"edge\")");
  /* resize2d's size as one dim and roi as one number, repeated as upstream's wrapper does */
  CHECK_STR_EQ(rprint_take(rcall(NULL, "image.resize2d", RARGS(AO(x), AI(6)), RKW("roi"),
                                 RARGS(AF(0.5)))),
               "R.image.resize2d(x, R.shape([6, 6]), roi=[0.5, 0.5, 0.5, 0.5])");
  CHECK(rcall(NULL, "image.resize2d", RARGS(AO(x), AS("6")), NOKW) == NULL);
  CHECK_RAISED("TypeError", "argument 'size' must be a shape of 2 dims");
  tvm_ffi_release(pw), tvm_ffi_release(sattrs), tvm_ffi_release(ax), tvm_ffi_release(attrs);
  tvm_ffi_release(p1), tvm_ffi_release(s22), tvm_ffi_release(m), tvm_ffi_release(w), tvm_ffi_release(x);
}

TEST(shape_and_dtype_arguments) {
  int64_t d23[2] = {2, 3};
  tvm_relax_var_obj* m = tvar("m", 2, d23, F32);
  /* a tuple where a shape is expected is a ShapeExpr */
  void* sh = RTUPLE(AI(3), AI(-1));
  void* r = rcall(NULL, "reshape", RARGS(AO(m), AO(sh)), NOKW);
  CHECK_STR_EQ(rprint(r), "R.reshape(m, R.shape([3, -1]))");
  CHECK_STR_EQ(rt_sinfo_text(r), "R.Tensor((3, 2), dtype=\"float32\")");
  tvm_ffi_release(r);
  void* s2 = RTUPLE(AI(2), AI(5));
  void* z = rcall(NULL, "zeros", RARGS(AO(s2), AS("int32")), NOKW);
  CHECK_STR_EQ(rprint(z), "R.zeros(R.shape([2, 5]), dtype=\"int32\")");
  tvm_ffi_release(z);
  /* memory.alloc_storage(size, virtual_device_index, storage_scope, dtype) with Python values */
  void* sz = RTUPLE(AI(64));
  void* st = rcall(NULL, "memory.alloc_storage", RARGS(AO(sz), AI(0), AS("global"), AS("uint8")), NOKW);
  CHECK_STR_EQ(rprint(st), "R.memory.alloc_storage(R.shape([64]), R.prim_value(0), R.str(\"global\"), R.dtype(\"uint8\"))");
  tvm_ffi_release(st);
  void* at = rcall(NULL, "builtin.alloc_tensor", RARGS(AO(s2), AS("float32"), AI(0)), NOKW);
  CHECK_STR_EQ(rt_sinfo_text(at), "R.Tensor((2, 5), dtype=\"float32\")");
  tvm_ffi_release(at);
  tvm_ffi_release(sz), tvm_ffi_release(s2), tvm_ffi_release(sh), tvm_ffi_release(m);
}

TEST(variadic_operators) {
  int64_t d2[1] = {2};
  tvm_relax_var_obj* x = tvar("x", 1, d2, F32);
  tvm_relax_var_obj* c = tvar("c", 0, d2, tvm_tir_dtype_bool());
  void* p = rcall(NULL, "print", RARGS(AO(x), AO(x)), RKW("format"), RARGS(AS("{} {}")));
  CHECK_STR_EQ(rprint(p), "R.print(x, x, format=\"{} {}\")");
  CHECK_STR_EQ(rt_sinfo_text(p), "R.Tuple()");
  tvm_ffi_release(p);
  /* assert_op(condition, *format_args, format=): extra positionals, or a list by keyword */
  void* a1 = rcall(NULL, "assert_op", RARGS(AO(c), AO(x)), RKW("format"), RARGS(AS("x={}")));
  void* fa = RTUPLE(AO(x));
  void* a2 = rcall(NULL, "assert_op", RARGS(AO(c)), RKW("format", "format_args"), RARGS(AS("x={}"), AO(fa)));
  CHECK(equal_release(a1, a2));
  CHECK(rcall(NULL, "assert_op", RARGS(AO(c), AO(x)), RKW("format_args"), RARGS(AO(fa))) == NULL);
  CHECK_RAISED("TypeError", "multiple values for argument 'format_args'");
  /* a string attribute given as a StringImm (upstream prints R.print(format=R.str("..."))),
   * a dtype one as a DataTypeImm: the same call as with the plain values */
  void* fs = tvm_relax_string_imm_new("{} {}", 5);
  CHECK(equal_release(rcall(NULL, "print", RARGS(AO(x), AO(x)), RKW("format"), RARGS(AO(fs))),
                      rcall(NULL, "print", RARGS(AO(x), AO(x)), RKW("format"), RARGS(AS("{} {}")))));
  void* f16 = tvm_relax_dtype_imm_new(TVM_TIR_FLOAT16);
  CHECK(equal_release(rcall(NULL, "astype", RARGS(AO(x), AO(f16)), NOKW),
                      rcall(NULL, "astype", RARGS(AO(x), AS("float16")), NOKW)));
  /* other expressions are no strings or dtypes */
  CHECK(rcall(NULL, "print", RARGS(AO(x)), RKW("format"), RARGS(AO(f16))) == NULL);
  CHECK_RAISED("TypeError", "attribute 'format' must be a string");
  CHECK(rcall(NULL, "astype", RARGS(AO(x), AO(fs)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "attribute 'dtype' must be");
  tvm_ffi_release(fs), tvm_ffi_release(f16);
  CHECK(rcall(NULL, "print", RARGS(AO(x)), RKW("fmt"), RARGS(AS("{}"))) == NULL);
  CHECK_RAISED("TypeError", "unexpected keyword argument 'fmt'");
  CHECK_EQ_INT(g_error_arg, 1);
  /* concat of a tuple of tensors */
  void* t = RTUPLE(AO(x), AO(x));
  void* cat = rcall(NULL, "concat", RARGS(AO(t)), RKW("axis"), RARGS(AI(0)));
  CHECK_STR_EQ(rt_sinfo_text(cat), "R.Tensor((4,), dtype=\"float32\")");
  tvm_ffi_release(cat), tvm_ffi_release(t), tvm_ffi_release(fa), tvm_ffi_release(c), tvm_ffi_release(x);
}

/* ---- Call forms ------------------------------------------------------------------------------ */
TEST(call_tir_and_packed_calls) {
  int64_t d4[1] = {4};
  tvm_relax_var_obj* x = tvar("x", 1, d4, F32);
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("add_one");
  tvm_relax_sinfo_obj* out_t = rt_tensor(F32, 1, (int64_t)4);
  void* args = RTUPLE(AO(x));
  void* c1 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_sinfo"), RARGS(AO(out_t)));
  CHECK_STR_EQ(rprint(c1), "R.call_tir(add_one, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))");
  /* out_ty= (TVMSCRIPT.md's spelling), positional out_sinfo, a lone argument for args */
  void* c2 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_ty"), RARGS(AO(out_t)));
  void* c3 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(x), AO(out_t)), NOKW);
  CHECK(requal(c1, c2));
  CHECK(requal(c1, c3));
  tvm_ffi_release(c2), tvm_ffi_release(c3);
  /* a list of struct info: a tuple result */
  void* outs = RTUPLE(AO(out_t), AO(out_t));
  void* c4 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_sinfo"), RARGS(AO(outs)));
  CHECK_STR_EQ(rt_sinfo_text(c4), "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"))");
  CHECK_STR_EQ(rprint(c4), "R.call_tir(add_one, (x,), out_sinfo=[R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\")])");
  tvm_ffi_release(c4);
  /* tir_vars: by keyword, or third positionally as the printer writes it */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  void* tv = RTUPLE(AO(n));
  void* c5 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_sinfo", "tir_vars"), RARGS(AO(out_t), AO(tv)));
  void* shape_n = rcall(NULL, "shape", RARGS(AO(tv)), NOKW);
  void* c6 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args), AO(shape_n)), RKW("out_sinfo"), RARGS(AO(out_t)));
  CHECK(requal(c5, c6));
  CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_relax_call_obj*)c6)->args), 3);
  tvm_ffi_release(c5), tvm_ffi_release(c6), tvm_ffi_release(shape_n), tvm_ffi_release(tv);
  /* a list of one struct info is that one, as upstream's MakeCallTIR reads it; a tuple of one
   * is given (and printed) as R.Tuple(...) */
  void* one = RTUPLE(AO(out_t));
  void* c7 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_sinfo"), RARGS(AO(one)));
  CHECK(requal(c1, c7));
  void* fields1 = rt_array(1, out_t);
  tvm_relax_sinfo_obj* tuple1 = tvm_relax_tuple_sinfo_new(fields1);
  tvm_ffi_release(fields1);
  void* c8 = rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_ty"), RARGS(AO(tuple1)));
  CHECK_STR_EQ(rt_sinfo_text(c8), "R.Tuple(R.Tensor((4,), dtype=\"float32\"))");
  CHECK_STR_EQ(rprint(c8), "R.call_tir(add_one, (x,), out_sinfo=R.Tuple(R.Tensor((4,), dtype=\"float32\")))");
  tvm_ffi_release(c7), tvm_ffi_release(c8), tvm_ffi_release(tuple1), tvm_ffi_release(one);
  /* errors */
  CHECK(rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), NOKW) == NULL);
  CHECK_RAISED("ValueError", "R.call_tir() needs out_sinfo");
  CHECK(rcall(NULL, "call_tir", RARGS(AO(gv), AO(args), AO(out_t)), RKW("out_ty"), RARGS(AO(out_t))) == NULL);
  CHECK_RAISED("TypeError", "got both out_sinfo and out_ty");
  CHECK(rcall(NULL, "call_tir", RARGS(AO(gv), AO(args)), RKW("out_sinfo"), RARGS(AI(3))) == NULL);
  CHECK_RAISED("TypeError", "argument 'out_sinfo' of R.call_tir must be a struct info");
  CHECK_EQ_INT(g_error_arg, 2);
  CHECK(rcall(NULL, "call_tir", RARGS(AI(1), AO(args)), RKW("out_sinfo"), RARGS(AO(out_t))) == NULL);
  CHECK_RAISED("TypeError", "argument 'func' of R.call_tir");
  CHECK_EQ_INT(g_error_arg, 0);
  /* call_tir_inplace(gvar, args, inplace_indices, out_sinfo) */
  void* ci = rcall(NULL, "call_tir_inplace", RARGS(AO(gv), AO(args), AI(0), AO(out_t)), NOKW);
  CHECK_STR_EQ(rprint(ci), "R.call_tir_inplace(add_one, (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"), inplace_indices=[0])");
  tvm_ffi_release(ci);
  CHECK(rcall(NULL, "call_tir_inplace", RARGS(AO(gv), AO(args)), RKW("out_sinfo"), RARGS(AO(out_t))) == NULL);
  CHECK_RAISED("TypeError", "missing required argument 'inplace_indices'");
  CHECK(rcall(NULL, "call_tir_inplace", RARGS(AO(gv), AO(args), AI(3), AO(out_t)), NOKW) == NULL);
  CHECK_RAISED("ValueError", "R.call_tir_inplace");
  /* call_dps_packed by name; call_packed; call_pure_packed; ExternFunc */
  void* cd = rcall(NULL, "call_dps_packed", RARGS(AS("my_kernel"), AO(args), AO(out_t)), NOKW);
  CHECK_STR_EQ(rprint(cd), "R.call_dps_packed(\"my_kernel\", (x,), out_sinfo=R.Tensor((4,), dtype=\"float32\"))");
  tvm_ffi_release(cd);
  void* cp = rcall(NULL, "call_packed", RARGS(AS("vm.builtin.print"), AO(x)), RKW("sinfo_args"), RARGS(AO(out_t)));
  CHECK_STR_EQ(rprint(cp), "R.call_packed(\"vm.builtin.print\", x, sinfo_args=(R.Tensor((4,), dtype=\"float32\"),))");
  CHECK_STR_EQ(rt_sinfo_text(cp), "R.Tensor((4,), dtype=\"float32\")");
  tvm_ffi_release(cp);
  CHECK(rcall(NULL, "call_packed", RARGS(AS("f"), AO(x)), RKW("sinfo_arg"), RARGS(AO(out_t))) == NULL);
  CHECK_RAISED("TypeError", "unexpected keyword argument 'sinfo_arg'");
  CHECK_EQ_INT(g_error_arg, 2);
  /* other keywords of literal values are the call's DictAttrs (upstream's call_packed) */
  void* ca = rcall(NULL, "call_packed", RARGS(AS("f"), AO(x)), RKW("level", "sinfo_args"),
                   RARGS(AI(2), AO(out_t)));
  CHECK(ca && tvm_ffi_map_size(((tvm_relax_call_obj*)ca)->attrs) == 1);
  CHECK_STR_EQ(rprint(ca), "R.call_packed(\"f\", x, attrs_type_key=\"DictAttrs\", level=2, "
                           "sinfo_args=(R.Tensor((4,), dtype=\"float32\"),))");
  tvm_ffi_release(ca);
  void* ef = rcall(NULL, "ExternFunc", RARGS(AS("f")), NOKW);
  void* cpp = rcall(NULL, "call_pure_packed", RARGS(AO(ef), AO(x)), RKW("sinfo_args"), RARGS(AO(outs)));
  CHECK_STR_EQ(rprint(cpp), "R.call_pure_packed(\"f\", x, sinfo_args=(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\")))");
  CHECK_STR_EQ(rt_sinfo_text(cpp), "R.Tuple(R.Tensor((4,), dtype=\"float32\"), R.Tensor((4,), dtype=\"float32\"))");
  tvm_ffi_release(cpp), tvm_ffi_release(ef);
  /* call_builtin_with_ctx: sinfo_args= or ty_args= (newer upstream's name), not both */
  void* cb1 = rcall(NULL, "call_builtin_with_ctx", RARGS(AS("vm.builtin.f"), AO(args)),
                    RKW("sinfo_args"), RARGS(AO(out_t)));
  void* cb2 = rcall(NULL, "call_builtin_with_ctx", RARGS(AS("vm.builtin.f"), AO(args)),
                    RKW("ty_args"), RARGS(AO(out_t)));
  CHECK_STR_EQ(rt_sinfo_text(cb2), "R.Tensor((4,), dtype=\"float32\")");
  CHECK(requal(cb1, cb2));
  tvm_ffi_release(cb1), tvm_ffi_release(cb2);
  CHECK(rcall(NULL, "call_builtin_with_ctx", RARGS(AS("vm.builtin.f"), AO(args)),
              RKW("sinfo_args", "ty_args"), RARGS(AO(out_t), AO(out_t))) == NULL);
  CHECK_RAISED("TypeError", "R.call_builtin_with_ctx() got both sinfo_args and ty_args");
  CHECK_EQ_INT(g_error_arg, 3);
  tvm_ffi_release(outs), tvm_ffi_release(c1), tvm_ffi_release(args), tvm_ffi_release(n);
  tvm_ffi_release(out_t), tvm_ffi_release(gv), tvm_ffi_release(x);
}

TEST(calls_of_values_and_items) {
  int64_t d4[1] = {4};
  tvm_relax_var_obj* y = tvar("y", 1, d4, F32);
  void* params = rt_array(1, y);
  tvm_relax_expr_obj* ex = RT_CALL("relax.exp", NULL, y);
  tvm_relax_function_obj* f = tvm_relax_function_new(params, ex, NULL, true, NULL);
  tvm_tir_global_var_obj* gv = tvm_relax_global_var_new("f", tvm_relax_sinfo_of(f));
  tvm_relax_var_obj* x = tvar("x", 1, d4, F32);
  TVMFFIAny a[1] = {AO(x)};
  tvm_relax_expr_obj* c = tvm_script__relax_call_value(gv, a, 1, NULL, NULL);
  CHECK_STR_EQ(rt_sinfo_text(c), "R.Tensor((4,), dtype=\"float32\")");
  CHECK(tvm_script__relax_call_value(tvm_relax_op(TVM_RELAX_OP_add), a, 1, NULL, NULL) == NULL);
  CHECK_RAISED("TypeError", "a Relax call needs a function");
  void* t = RTUPLE(AO(x), AO(c));
  TVMFFIAny tv = AO(t);
  tvm_relax_expr_obj* g = tvm_script__relax_getitem(&tv, -1);
  CHECK(g && ((tvm_relax_tuple_get_item_obj*)g)->index == 1);
  CHECK(tvm_script__relax_getitem(&tv, 2) == NULL);
  CHECK_RAISED("IndexError", "");
  tvm_ffi_release(g), tvm_ffi_release(t), tvm_ffi_release(c), tvm_ffi_release(x);
  tvm_ffi_release(gv), tvm_ffi_release(f), tvm_ffi_release(ex), tvm_ffi_release(params), tvm_ffi_release(y);
}

/* ---- Values ---------------------------------------------------------------------------------- */
TEST(constants) {
  /* scalars: numpy's dtypes narrowed as upstream (int -> int32, float -> float32) */
  CHECK_STR_EQ(rprint_take(rcall(NULL, "const", RARGS(AF(1.5)), NOKW)), "R.const(1.5, \"float32\")");
  CHECK_STR_EQ(rprint_take(rcall(NULL, "const", RARGS(AI(7)), NOKW)), "R.const(7, \"int32\")");
  CHECK_STR_EQ(rprint_take(rcall(NULL, "const", RARGS(AB(true)), NOKW)), "R.const(True, \"bool\")");
  /* nested lists; a float among ints makes float32; an explicit dtype */
  void* r0 = RTUPLE(AI(1), AI(2)), *r1 = RTUPLE(AI(3), AF(4.5));
  void* rows = RTUPLE(AO(r0), AO(r1));
  void* c = rcall(NULL, "const", RARGS(AO(rows)), NOKW);
  CHECK_STR_EQ(rprint(c), "R.const([[1.0, 2.0], [3.0, 4.5]], \"float32\")");
  CHECK_STR_EQ(rt_sinfo_text(c), "R.Tensor((2, 2), dtype=\"float32\")");
  const DLTensor* t = tvm_ffi_tensor_dl(((tvm_relax_constant_obj*)c)->data);
  CHECK(((float*)t->data)[3] == 4.5f && ((float*)t->data)[1] == 2.0f);
  tvm_ffi_release(c);
  void* ints = RTUPLE(AO(r0), AO(r0));
  c = rcall(NULL, "const", RARGS(AO(ints), AS("int64")), NOKW);
  CHECK_STR_EQ(rprint(c), "R.const([[1, 2], [1, 2]], \"int64\")");
  t = tvm_ffi_tensor_dl(((tvm_relax_constant_obj*)c)->data);
  CHECK(((int64_t*)t->data)[1] == 2 && ((int64_t*)t->data)[2] == 1);
  tvm_ffi_release(c);
  /* float16 rounds to the nearest half */
  c = rcall(NULL, "const", RARGS(AF(0.1)), RKW("dtype"), RARGS(AS("float16")));
  CHECK(c && *(uint16_t*)tvm_ffi_tensor_dl(((tvm_relax_constant_obj*)c)->data)->data == 0x2e66);
  tvm_ffi_release(c);
  /* errors */
  void* ragged = RTUPLE(AO(r0), AI(3));
  CHECK(rcall(NULL, "const", RARGS(AO(ragged)), NOKW) == NULL);
  CHECK_RAISED("ValueError", "not rectangular");
  CHECK_EQ_INT(g_error_arg, 0);
  CHECK(rcall(NULL, "const", RARGS(AI(300), AS("int8")), NOKW) == NULL);
  CHECK_RAISED("ValueError", "300 does not fit in int8");
  CHECK(rcall(NULL, "const", RARGS(AS("a")), NOKW) == NULL);
  CHECK_RAISED("TypeError", "an element must be a number");
  CHECK(rcall(NULL, "const", RARGS(AI(1), AS("floaty")), NOKW) == NULL);
  CHECK_RAISED("ValueError", "unknown dtype");
  CHECK_EQ_INT(g_error_arg, 1);
  CHECK(rcall(NULL, "const", RARGS(AI(1), AS("int4")), NOKW) == NULL);
  CHECK_RAISED("TypeError", "R.const: dtype int4 is not supported");
  tvm_ffi_release(ragged), tvm_ffi_release(ints), tvm_ffi_release(rows), tvm_ffi_release(r0), tvm_ffi_release(r1);
}

TEST(small_values) {
  CHECK_STR_EQ(rprint_take(rcall(NULL, "prim_value", RARGS(AI(3)), NOKW)), "R.prim_value(3)");
  tvm_tir_expr_obj* f = tvm_tir_const_float(F32, 0.5);
  CHECK_STR_EQ(rprint_take(rcall(NULL, "prim_value", RARGS(AO(f)), NOKW)), "R.prim_value(T.float32(0.5))");
  tvm_ffi_release(f);
  CHECK(rcall(NULL, "prim_value", RARGS(AS("x")), NOKW) == NULL);
  CHECK_RAISED("TypeError", "argument 'value' of R.prim_value");
  CHECK_STR_EQ(rprint_take(rcall(NULL, "str", RARGS(AS("hello")), NOKW)), "R.str(\"hello\")");
  CHECK(rcall(NULL, "str", RARGS(AI(1)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "must be a string");
  CHECK_STR_EQ(rprint_take(rcall(NULL, "dtype", RARGS(AS("float16")), NOKW)), "R.dtype(\"float16\")");
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  void* dims = RTUPLE(AI(2), AO(n));
  void* sh = rcall(NULL, "shape", RARGS(AO(dims)), NOKW);
  CHECK(sh && tvm_relax_kind_of(sh) == TVM_RELAX_KIND_ShapeExpr);
  CHECK_STR_EQ(rt_sinfo_text(sh), "R.Shape([2, n])");
  tvm_ffi_release(sh);
  int64_t d2[1] = {2};
  tvm_relax_var_obj* x = tvar("x", 1, d2, F32);
  void* tup = rcall(NULL, "tuple", RARGS(AO(x), AI(1)), NOKW);
  CHECK_STR_EQ(rprint(tup), "(x, R.prim_value(1))");
  tvm_ffi_release(tup);
  tvm_relax_sinfo_obj* s = rt_tensor(F32, 1, (int64_t)2);
  void* pair = rcall(NULL, "match_cast", RARGS(AO(x), AO(s)), NOKW);
  TVMFFIAny pv = AO(pair);
  const tvm_script_match_cast_pair* p = tvm_script__relax_match_cast_pair(&pv);
  CHECK(p && p->value == (void*)x && p->struct_info == s);
  tvm_ffi_release(pair);
  CHECK(rcall(NULL, "match_cast", RARGS(AO(x), AO(x)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "argument 'struct_info' of R.match_cast must be a struct info");
  CHECK_EQ_INT(g_error_arg, 1);
  /* convert_to_expr */
  TVMFFIAny v = AF(2.0);
  tvm_relax_expr_obj* e = tvm_script__relax_expr_of(&v, "v");
  CHECK_STR_EQ(rt_sinfo_text(e), "R.Prim(value=T.float32(2))");
  tvm_ffi_release(e);
  tvm_ffi_release(s), tvm_ffi_release(x), tvm_ffi_release(dims), tvm_ffi_release(n);
}

/* ---- Struct info ----------------------------------------------------------------------------- */
/* The text `R.<name>(...)` prints as. */
static void check_sinfo(tvm_script_builder* b, const char* name, const TVMFFIAny* args, int32_t n,
                        const char* const* kw, const TVMFFIAny* kwargs, int32_t nkw,
                        const char* text) {
  void* s = rcall(b, name, args, n, kw, kwargs, nkw);
  CHECK(s && tvm_relax_is_sinfo(s));
  CHECK_STR_EQ(rprint(s), text);
  tvm_ffi_release(s);
}

TEST(struct_info_annotations) {
  tvm_script_builder* b = tvm_script_builder_new();
  void* d23 = RTUPLE(AI(2), AI(3));
  check_sinfo(b, "Tensor", RARGS(AO(d23), AS("float32")), NOKW, "R.Tensor((2, 3), dtype=\"float32\")");
  check_sinfo(b, "Tensor", RARGS(AO(d23)), RKW("dtype"), RARGS(AS("int8")), "R.Tensor((2, 3), dtype=\"int8\")");
  check_sinfo(b, "Tensor", RARGS(AS("float32")), RKW("ndim"), RARGS(AI(2)), "R.Tensor(dtype=\"float32\", ndim=2)");
  check_sinfo(b, "Tensor", NOARGS, RKW("ndim"), RARGS(AI(3)), "R.Tensor(ndim=3)");
  check_sinfo(b, "Tensor", NOARGS, NOKW, "R.Tensor");
  check_sinfo(b, "Tensor", RARGS(ANONE, AS("bool")), NOKW, "R.Tensor(dtype=\"bool\")");
  /* symbolic dims: "n" is one Var in both annotations (the builder's loose table here) */
  void* dn = RTUPLE(AS("n"), AI(4));
  void* s1 = rcall(b, "Tensor", RARGS(AO(dn), AS("float32")), NOKW);
  void* s2 = rcall(b, "Tensor", RARGS(AO(dn)), NOKW);
  void* d1 = tvm_relax_tensor_sinfo_dims(s1);
  void* d2 = tvm_relax_tensor_sinfo_dims(s2);
  CHECK(d1 && d2 && tvm_ffi_seq_obj_at(d1, 0) == tvm_ffi_seq_obj_at(d2, 0));
  CHECK_STR_EQ(rt_text(s1), "R.Tensor((n, 4), dtype=\"float32\")");
  tvm_tir_var_obj* n = tvm_script_relax_sym_var(b, "n");
  CHECK(d1 && (void*)n == tvm_ffi_seq_obj_at(d1, 0));
  /* a Var as a dim, and a composite dim */
  tvm_tir_expr_obj* n2 = tvm_tir_mul(&n->expr, tvm_tir_const_int(I64, 2));
  void* dv = RTUPLE(AO(n), AO(n2));
  check_sinfo(b, "Tensor", RARGS(AO(dv), AS("float32")), NOKW, "n = T.int64()\nR.Tensor((n, n * 2), dtype=\"float32\")");
  tvm_script_relax_syms_reset(b);
  tvm_tir_var_obj* n_new = tvm_script_relax_sym_var(b, "n");
  CHECK(n_new != n);
  /* errors */
  void* bad = RTUPLE(AI(2), AF(3.5));
  CHECK(rcall(b, "Tensor", RARGS(AO(bad), AS("float32")), NOKW) == NULL);
  CHECK_RAISED("TypeError", "argument 'shape' of R.Tensor: a dim must be");
  CHECK_EQ_INT(g_error_arg, 0);
  void* expr_dim = RTUPLE(AS("n + 1"));
  CHECK(rcall(b, "Tensor", RARGS(AO(expr_dim)), NOKW) == NULL);
  CHECK_RAISED("ValueError", "must be a name");
  CHECK(rcall(b, "Tensor", RARGS(AO(d23), AS("flot32")), NOKW) == NULL);
  CHECK_RAISED("ValueError", "unknown dtype \"flot32\"");
  CHECK_EQ_INT(g_error_arg, 1);
  CHECK(rcall(b, "Tensor", RARGS(AO(d23)), RKW("ndim"), RARGS(AI(3))) == NULL);
  CHECK(tvm_ffi_error_pending());
  tvm_ffi_error_clear();
  CHECK(rcall(b, "Tensor", RARGS(AO(d23)), RKW("shape"), RARGS(AO(d23))) == NULL);
  CHECK_RAISED("TypeError", "multiple values for argument 'shape'");
  /* a device by name needs the module's I.module_global_infos (none here) */
  CHECK(rcall(b, "Tensor", RARGS(AO(d23)), RKW("vdevice"), RARGS(AS("cuda"))) == NULL);
  CHECK_RAISED("ValueError", "the virtual devices are not defined");
  CHECK(rcall(b, "Tensor", RARGS(AO(d23)), RKW("vdevice"), RARGS(AS(":1"))) == NULL);
  CHECK_RAISED("ValueError", "expected \"<target kind>\" or");
  CHECK_EQ_INT(g_error_arg, 1);
  /* a shape value as the shape */
  tvm_relax_var_obj* sv = rt_var_take("s", tvm_relax_shape_sinfo_new(NULL, 2));
  check_sinfo(b, "Tensor", RARGS(AO(sv), AS("float32")), NOKW, "s: R.Shape(ndim=2)\nR.Tensor(s, dtype=\"float32\")");
  /* the other kinds */
  void* t23 = rcall(b, "Tensor", RARGS(AO(d23), AS("float32")), NOKW);
  void* tp = rcall(b, "Prim", RARGS(AS("int64")), NOKW);
  check_sinfo(b, "Tuple", RARGS(AO(t23), AO(tp)), NOKW, "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Prim(\"int64\"))");
  void* lst = RTUPLE(AO(t23), AO(tp));
  check_sinfo(b, "Tuple", RARGS(AO(lst)), NOKW, "R.Tuple(R.Tensor((2, 3), dtype=\"float32\"), R.Prim(\"int64\"))");
  check_sinfo(b, "Tuple", NOARGS, NOKW, "R.Tuple");
  CHECK(rcall(b, "Tuple", RARGS(AO(t23), AI(1)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "field 1 of R.Tuple must be a struct info");
  CHECK_EQ_INT(g_error_arg, 1);
  void* sd = RTUPLE(AI(2), AS("m"));
  check_sinfo(b, "Shape", RARGS(AO(sd)), NOKW, "m = T.int64()\nR.Shape([2, m])");
  check_sinfo(b, "Shape", NOARGS, RKW("ndim"), RARGS(AI(2)), "R.Shape(ndim=2)");
  check_sinfo(b, "Shape", NOARGS, NOKW, "R.Shape");
  check_sinfo(b, "Prim", RARGS(AS("float16")), NOKW, "R.Prim(\"float16\")");
  check_sinfo(b, "Prim", NOARGS, RKW("value"), RARGS(AS("m")), "m = T.int64()\nR.Prim(value=m)");
  check_sinfo(b, "Prim", NOARGS, RKW("value"), RARGS(AI(3)), "R.Prim(value=3)");
  check_sinfo(b, "Prim", NOARGS, NOKW, "R.Prim()"); /* unknown dtype, as printed */
  check_sinfo(b, "Object", NOARGS, NOKW, "R.Object");
  check_sinfo(b, "Any", NOARGS, NOKW, "R.Object");
  void* ps = RTUPLE(AO(t23));
  check_sinfo(b, "Callable", RARGS(AO(ps), AO(tp)), RKW("purity"), RARGS(AB(false)),
              "R.Callable((R.Tensor((2, 3), dtype=\"float32\"),), R.Prim(\"int64\"), False)");
  check_sinfo(b, "Callable", RARGS(ANONE, AO(tp)), NOKW, "R.Callable(ret=R.Prim(\"int64\"))");
  CHECK(rcall(b, "Callable", RARGS(AO(t23), AO(tp)), NOKW) == NULL);
  CHECK_RAISED("TypeError", "argument 'params' of R.Callable must be a list");
  /* derive_func: a registered rule's name types an opaque function's calls */
  check_sinfo(b, "Callable", NOARGS, RKW("derive_func", "purity"),
              RARGS(AS("tvm.relax.struct_info.infer_view_sinfo"), AB(true)),
              "R.Callable(derive_func=\"tvm.relax.struct_info.infer_view_sinfo\", purity=True)");
  CHECK(rcall(b, "Callable", NOARGS, RKW("derive_func"), RARGS(AS("my.rule"))) == NULL);
  CHECK_RAISED("ValueError", "unknown derive_func \"my.rule\"");
  CHECK(rcall(b, "Callable", RARGS(ANONE, AO(tp)), RKW("derive_func"),
              RARGS(AS("tvm.relax.type.infer_view_ty"))) == NULL);
  CHECK_RAISED("ValueError", "it takes no params and no ret");
  CHECK(rcall(b, "Callable", NOARGS, RKW("derive_func"), RARGS(AI(1))) == NULL);
  CHECK_RAISED("TypeError", "argument 'derive_func' of R.Callable must be the name");
  /* the bare names */
  static const char* const bare[] = {"Object", "Any", "Tensor", "Shape", "Tuple"};
  static const char* const bare_text[] = {"R.Object", "R.Object", "R.Tensor", "R.Shape", "R.Tuple"};
  for (int i = 0; i < 5; ++i) {
    TVMFFIAny v;
    CHECK_EQ_INT(tvm_script__relax_value_lookup(bare[i], strlen(bare[i]), &v), 1);
    CHECK_STR_EQ(rprint(v.v_obj), bare_text[i]);
    tvm_ffi_any_release(&v);
  }
  TVMFFIAny none;
  CHECK_EQ_INT(tvm_script__relax_value_lookup("add", 3, &none), 0);
  tvm_ffi_release(ps), tvm_ffi_release(sd), tvm_ffi_release(lst), tvm_ffi_release(tp);
  tvm_ffi_release(t23), tvm_ffi_release(sv), tvm_ffi_release(expr_dim), tvm_ffi_release(bad);
  tvm_ffi_release(n_new), tvm_ffi_release(dv), tvm_ffi_release(n2), tvm_ffi_release(n);
  tvm_ffi_release(s1), tvm_ffi_release(s2), tvm_ffi_release(dn), tvm_ffi_release(d23);
  tvm_script_builder_free(b);
}

TEST(frame_builtins_outside_frames) {
  tvm_script_builder* b = tvm_script_builder_new();
  TVMFFIAny out;
  CHECK(rcall_any(NULL, TVM_SCRIPT_CTX_WITH, "dataflow", NOARGS, NOKW, &out) != 0);
  CHECK_RAISED("ValueError", "R.dataflow() is only valid inside an R.function");
  CHECK(rcall_any(b, TVM_SCRIPT_CTX_STMT, "dataflow", NOARGS, NOKW, &out) != 0);
  CHECK_RAISED("ValueError", "only valid as `with R.dataflow():`");
  CHECK(rcall_any(b, TVM_SCRIPT_CTX_WITH, "dataflow", NOARGS, NOKW, &out) != 0);
  CHECK_RAISED("ValueError", "R.dataflow is only valid inside an R.function");
  CHECK(rcall_any(b, TVM_SCRIPT_CTX_STMT, "output", RARGS(AI(1)), NOKW, &out) != 0);
  CHECK_RAISED("TypeError", "R.output: argument 1 must be a variable");
  void* attrs = attrs_of(RKW("k"), RARGS(AI(1)));
  CHECK(rcall_any(b, TVM_SCRIPT_CTX_STMT, "func_attr", RARGS(AO(attrs)), NOKW, &out) != 0);
  CHECK_RAISED("ValueError", "R.func_attr is only valid inside a R.function");
  tvm_ffi_release(attrs);
  tvm_script_builder_free(b);
}

int main(void) {
  RUN(every_operator_is_a_builtin);
  RUN(binary_and_unary_operators);
  RUN(attributes_positional_keyword_defaults);
  RUN(shape_and_dtype_arguments);
  RUN(variadic_operators);
  RUN(call_tir_and_packed_calls);
  RUN(calls_of_values_and_items);
  RUN(constants);
  RUN(small_values);
  RUN(struct_info_annotations);
  RUN(frame_builtins_outside_frames);
  return test_summary();
}
