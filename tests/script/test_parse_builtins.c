/*
 * test_parse_builtins.c: the `T.*` expression builtins and the argument helpers of the
 * TVMScript parser, called directly with hand-filled tvm_script_call structs: each builtin's
 * node is compared with the one libtir's constructors build, and bad calls must raise a
 * TypeError / ValueError naming the builtin and argument (with error_arg pointing at it).
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <tvm/tir/builder.h>
#include <tvm/tir/tir.h>

#include "../../libscript/src/parse_internal.h"
#include "test_util.h"

/* ---- Calling builtins ---------------------------------------------------------------------- */
typedef struct {
  tvm_script_call call;
  char name[64];
} test_call;

/* A call of `T.<name>` with positional args and keyword args (names NULL-terminated list). */
static tvm_script_call* make_call(test_call* tc, const char* name, const TVMFFIAny* args,
                                  int32_t nargs, const char* const* kw_names,
                                  const TVMFFIAny* kwargs, int32_t nkw) {
  memset(tc, 0, sizeof(*tc));
  snprintf(tc->name, sizeof(tc->name), "T.%s", name);
  tc->call.name = tc->name;
  tc->call.ctx = TVM_SCRIPT_CTX_EXPR;
  tc->call.args = args;
  tc->call.num_args = nargs;
  tc->call.kw_names = kw_names;
  tc->call.kwargs = kwargs;
  tc->call.num_kwargs = nkw;
  tc->call.error_arg = -1;
  return &tc->call;
}

/* Run the builtin named `name` on the call; returns the result object (new reference) or NULL
 * with the error left raised. */
static void* run_call(tvm_script_call* call) {
  const char* name = strchr(call->name, '.') + 1;
  const tvm_script_builtin* b = tvm_script__tir_builtin_lookup(name, strlen(name));
  if (!b) {
    tvm_ffi_raise("NameError", "no builtin %s", name);
    return NULL;
  }
  TVMFFIAny out = tvm_ffi_any_none();
  if (b->fn(call, &out) != 0) return NULL;
  if (!tvm_ffi_any_is_object(&out)) {
    tvm_ffi_any_release(&out);
    tvm_ffi_raise("RuntimeError", "builtin %s returned a non-object", name);
    return NULL;
  }
  return out.v_obj;
}

static void* call_pos(const char* name, const TVMFFIAny* args, int32_t nargs) {
  test_call tc;
  return run_call(make_call(&tc, name, args, nargs, NULL, NULL, 0));
}

#define ARGS(...)                     \
  ((const TVMFFIAny[]){__VA_ARGS__}), \
      (int32_t)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny))
#define I(v) tvm_ffi_any_int(v)
#define F(v) tvm_ffi_any_float(v)
#define B(v) tvm_ffi_any_bool(v)
#define S(v) tvm_ffi_any_raw_str(v)
#define O(v) tvm_ffi_any_obj(v)

/* Structurally equal (free variables mapped); consumes both. */
static bool equal_take(void* got, void* expected) {
  bool eq = false;
  if (got && expected) {
    TVMFFIAny a = tvm_ffi_any_obj(got), b = tvm_ffi_any_obj(expected);
    eq = tvm_ffi_structural_equal(&a, &b, true, NULL, NULL) == 1;
  }
  if (!got || !expected) {
    void* e = tvm_ffi_error_take();
    if (e) fprintf(stderr, "  error: %s: %s\n", tvm_ffi_error_kind(e), tvm_ffi_error_message(e));
    tvm_ffi_release(e);
  }
  tvm_ffi_release(got);
  tvm_ffi_release(expected);
  return eq;
}

/* ---- Lookup -------------------------------------------------------------------------------- */
static int cmp_str(const void* a, const void* b) {
  return strcmp(*(const char* const*)a, *(const char* const*)b);
}

TEST(lookup_every_entry) {
  const tvm_script_builtin* tables[2] = {tvm_script__tir_expr_builtins,
                                         tvm_script__tir_stmt_builtins};
  int32_t counts[2] = {tvm_script__tir_expr_builtin_count, tvm_script__tir_stmt_builtin_count};
  CHECK(counts[0] > 50);
  for (int t = 0; t < 2; ++t) {
    for (int32_t i = 0; i < counts[t]; ++i) {
      const char* name = tables[t][i].name;
      const tvm_script_builtin* b = tvm_script__tir_builtin_lookup(name, strlen(name));
      CHECK(b != NULL);
      if (b) CHECK_STR_EQ(b->name, name);
      CHECK(tables[t][i].fn != NULL);
    }
  }
}

/* The first lookups race to build the sorted table; each must see it complete. */
static void* lookup_thread(void* arg) {
  intptr_t found = 0;
  for (int i = 0; i < 200; ++i) {
    found += tvm_script__tir_builtin_lookup("exp", 3) != NULL;
    found += tvm_script__tir_builtin_lookup("Select", 6) != NULL;
  }
  (void)arg;
  return (void*)found;
}

TEST(lookup_concurrent_first_use) {
  pthread_t threads[4];
  for (int i = 0; i < 4; ++i) CHECK(pthread_create(&threads[i], NULL, lookup_thread, NULL) == 0);
  for (int i = 0; i < 4; ++i) {
    void* found = NULL;
    pthread_join(threads[i], &found);
    CHECK_EQ_INT((intptr_t)found, 400);
  }
}

/* Every registered "tir.<op>" is callable as T.<op>. */
TEST(lookup_every_op) {
  void* names = tvm_tir_op_list_names();
  int64_t checked = 0;
  for (int64_t i = 0; names && i < tvm_ffi_seq_size(names); ++i) {
    TVMFFIByteArray name; /* short names are small strings, not objects */
    CHECK(tvm_ffi_any_as_bytes(tvm_ffi_seq_at(names, i), &name));
    if (name.size < 4 || strncmp(name.data, "tir.", 4) != 0) continue;
    const tvm_script_builtin* b = tvm_script__tir_builtin_lookup(name.data + 4, name.size - 4);
    if (!b) fprintf(stderr, "  no builtin for op %.*s\n", (int)name.size, name.data);
    CHECK(b != NULL);
    ++checked;
  }
  CHECK(checked >= 80);
  tvm_ffi_release(names);
}

TEST(lookup_no_duplicates) {
  int32_t n = tvm_script__tir_expr_builtin_count + tvm_script__tir_stmt_builtin_count;
  const char** names = malloc((size_t)n * sizeof(*names));
  int32_t k = 0;
  for (int32_t i = 0; i < tvm_script__tir_expr_builtin_count; ++i) {
    names[k++] = tvm_script__tir_expr_builtins[i].name;
  }
  for (int32_t i = 0; i < tvm_script__tir_stmt_builtin_count; ++i) {
    names[k++] = tvm_script__tir_stmt_builtins[i].name;
  }
  qsort(names, (size_t)n, sizeof(*names), cmp_str);
  for (int32_t i = 1; i < n; ++i) {
    if (strcmp(names[i - 1], names[i]) == 0) {
      fprintf(stderr, "  duplicate builtin name: %s\n", names[i]);
      CHECK(false);
    }
  }
  free(names);
}

TEST(lookup_names) {
  CHECK(tvm_script__tir_builtin_lookup("nonexistent", 11) == NULL);
  CHECK(tvm_script__tir_builtin_lookup("", 0) == NULL);
  CHECK(tvm_script__tir_builtin_lookup(NULL, 0) == NULL);
  /* Only name[0..len) counts: "maxXYZ" with len 3 is "max"; a prefix of a name is not it. */
  const tvm_script_builtin* b = tvm_script__tir_builtin_lookup("maxXYZ", 3);
  CHECK(b && strcmp(b->name, "max") == 0);
  CHECK(tvm_script__tir_builtin_lookup("max_val", 7) == NULL);
  b = tvm_script__tir_builtin_lookup("exp", 3);
  CHECK(b && strcmp(b->name, "exp") == 0);
  /* Dtype spellings are constructors without being listed. */
  const char* dtypes[] = {"float32", "int64",   "int8x4",        "bool",     "bfloat16",
                          "uint1",   "float16", "float8_e4m3fn", "float32x8"};
  for (size_t i = 0; i < sizeof(dtypes) / sizeof(dtypes[0]); ++i) {
    CHECK(tvm_script__tir_builtin_lookup(dtypes[i], strlen(dtypes[i])) ==
          &tvm_script__tir_dtype_builtin);
  }
  /* Not dtypes, and no error left behind by the attempt. */
  const char* not_dtypes[] = {"int3q", "floaty", "int32x", "boolean", "handles", "inty", "Int32"};
  for (size_t i = 0; i < sizeof(not_dtypes) / sizeof(not_dtypes[0]); ++i) {
    CHECK(tvm_script__tir_builtin_lookup(not_dtypes[i], strlen(not_dtypes[i])) == NULL);
  }
  CHECK(!tvm_ffi_error_pending());
}

TEST(dtype_names) {
  DLDataType t;
  CHECK(tvm_script__tir_dtype_name("float32x4", 9, &t));
  CHECK(tvm_tir_dtype_equal(t, tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4)));
  CHECK(tvm_script__tir_dtype_name("bool", 4, &t));
  CHECK(tvm_tir_dtype_equal(t, TVM_TIR_BOOL)); /* TIR's uint1, not DLPack's bool */
  CHECK(tvm_script__tir_dtype_name("handle", 6, &t));
  CHECK(tvm_tir_dtype_equal(t, TVM_TIR_HANDLE));
  CHECK(tvm_script__tir_dtype_name("int64abc", 5, &t)); /* "int64" */
  CHECK(tvm_tir_dtype_equal(t, TVM_TIR_INT64));
  CHECK(!tvm_script__tir_dtype_name("max", 3, &t));
  CHECK(!tvm_script__tir_dtype_name("int0", 4, &t));
  CHECK(!tvm_ffi_error_pending());
}

/* ---- Binding ------------------------------------------------------------------------------- */
TEST(bind_args_ok) {
  test_call tc;
  const char* kw[] = {"c"};
  TVMFFIAny kwv[] = {I(3)};
  tvm_script_call* c = make_call(&tc, "f", ARGS(I(1)), kw, kwv, 1);
  TVMFFIAny out[3];
  CHECK_OK(tvm_script__bind_args(c, "a, b=, *c=", out, 3));
  CHECK(tvm_script_arg_given(&out[0]) && out[0].v_int64 == 1);
  CHECK(!tvm_script_arg_given(&out[1]));
  CHECK(tvm_script_arg_given(&out[2]) && out[2].v_int64 == 3);
  CHECK_EQ_INT(tvm_script__arg_index(c, "a, b=, *c=", 0), 0);
  CHECK_EQ_INT(tvm_script__arg_index(c, "a, b=, *c=", 1), -1);
  CHECK_EQ_INT(tvm_script__arg_index(c, "a, b=, *c=", 2), 1);
  char buf[64];
  CHECK_STR_EQ(tvm_script__arg_what(c, "a, b=, *c=", 2, buf, sizeof(buf)), "argument 'c' of T.f");
  /* Keywords may name positional parameters; None is a given value. */
  const char* kw2[] = {"b", "a"};
  TVMFFIAny kwv2[] = {tvm_ffi_any_none(), I(7)};
  c = make_call(&tc, "f", NULL, 0, kw2, kwv2, 2);
  CHECK_OK(tvm_script__bind_args(c, "a, b=, *c=", out, 3));
  CHECK(out[0].v_int64 == 7 && tvm_script_arg_given(&out[1]) && tvm_ffi_any_is_none(&out[1]));
  CHECK_EQ_INT(tvm_script__arg_index(c, "a, b=, *c=", 0), 1);
}

TEST(bind_args_errors) {
  test_call tc;
  TVMFFIAny out[3];
  tvm_script_call* c = make_call(&tc, "axis.spatial", NULL, 0, NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "dom, binding, *dtype=", out, 3) != 0);
  CHECK_RAISED("TypeError", "T.axis.spatial() missing required argument 'dom'");
  CHECK_EQ_INT(c->error_arg, -1);

  c = make_call(&tc, "axis.spatial", ARGS(I(1), I(2), I(3)), NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "dom, binding, *dtype=", out, 3) != 0);
  CHECK_RAISED("TypeError", "T.axis.spatial() takes exactly 2 arguments (3 given)");
  CHECK_EQ_INT(c->error_arg, 2);

  c = make_call(&tc, "f", ARGS(I(1), I(2), I(3), I(4)), NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "a, b=, c=", out, 3) != 0);
  CHECK_RAISED("TypeError", "T.f() takes at most 3 arguments (4 given)");
  CHECK_EQ_INT(c->error_arg, 3);

  const char* kw[] = {"x"};
  TVMFFIAny kwv[] = {I(0)};
  c = make_call(&tc, "f", ARGS(I(1)), kw, kwv, 1);
  CHECK(tvm_script__bind_args(c, "a, b=, c=", out, 3) != 0);
  CHECK_RAISED("TypeError", "T.f() got an unexpected keyword argument 'x'");
  CHECK_EQ_INT(c->error_arg, 1);

  /* A keyword that is a prefix of a parameter's name, or extends one, names none. */
  const char* kwp[] = {"dtyp"};
  c = make_call(&tc, "f", ARGS(I(1)), kwp, kwv, 1);
  CHECK(tvm_script__bind_args(c, "a, dtype=", out, 2) != 0);
  CHECK_RAISED("TypeError", "T.f() got an unexpected keyword argument 'dtyp'");
  const char* kwl[] = {"dtypes"};
  c = make_call(&tc, "f", ARGS(I(1)), kwl, kwv, 1);
  CHECK(tvm_script__bind_args(c, "a, dtype=", out, 2) != 0);
  CHECK_RAISED("TypeError", "T.f() got an unexpected keyword argument 'dtypes'");

  const char* kwa[] = {"b", "a"};
  TVMFFIAny kwva[] = {I(0), I(0)};
  c = make_call(&tc, "f", ARGS(I(1)), kwa, kwva, 2);
  CHECK(tvm_script__bind_args(c, "a, b=, c=", out, 3) != 0);
  CHECK_RAISED("TypeError", "T.f() got multiple values for argument 'a'");
  CHECK_EQ_INT(c->error_arg, 2);

  c = make_call(&tc, "f", ARGS(I(1), I(2)), NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "a, *k=", out, 2) != 0);
  CHECK_RAISED("TypeError", "T.f() takes exactly 1 argument (2 given)");

  c = make_call(&tc, "f", NULL, 0, NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "a, *k", out, 2) != 0);
  CHECK_RAISED("TypeError", "missing required argument 'a'");
  c = make_call(&tc, "f", ARGS(I(1)), NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "a, *k", out, 2) != 0);
  CHECK_RAISED("TypeError", "missing required keyword-only argument 'k'");

  c = make_call(&tc, "f", ARGS(I(1)), NULL, NULL, 0);
  CHECK(tvm_script__bind_args(c, "", out, 0) != 0);
  CHECK_RAISED("TypeError", "T.f() takes no positional arguments (1 given)");
  /* A spec that does not match n_out is a programming error, reported, not a crash. */
  CHECK(tvm_script__bind_args(c, "a, b", out, 3) != 0);
  CHECK_RAISED("RuntimeError", "bad argument spec");
}

/* ---- Conversions --------------------------------------------------------------------------- */
TEST(value_to_expr) {
  TVMFFIAny v = I(5);
  CHECK(equal_take(tvm_script__value_to_expr_slow(&v, "x"), tvm_tir_int(5)));
  v = I(1LL << 40);
  CHECK(equal_take(tvm_script__value_to_expr_slow(&v, "x"), tvm_tir_i64(1LL << 40)));
  v = I(INT32_MIN);
  CHECK(equal_take(tvm_script__value_to_expr_slow(&v, "x"), tvm_tir_int(INT32_MIN)));
  v = F(1.5);
  CHECK(equal_take(tvm_script__value_to_expr_slow(&v, "x"), tvm_tir_f32(1.5)));
  v = B(true);
  CHECK(equal_take(tvm_script__value_to_expr_slow(&v, "x"), tvm_tir_bool(true)));
  TVMFFIAny s = tvm_ffi_string("a longer string value");
  CHECK(equal_take(tvm_script__value_to_expr_slow(&s, "x"), tvm_tir_str("a longer string value")));
  tvm_ffi_any_release(&s);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT64);
  v = O(x);
  tvm_tir_expr_obj* e = tvm_script__value_to_expr_slow(&v, "x");
  CHECK(e == &x->expr);
  tvm_ffi_release(e);
  tvm_ffi_release(x);

  v = tvm_ffi_any_none();
  CHECK(tvm_script__value_to_expr_slow(&v, "argument 'extent' of T.serial") == NULL);
  CHECK_RAISED("TypeError", "argument 'extent' of T.serial must be a PrimExpr, got None");
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  v = O(A);
  CHECK(tvm_script__value_to_expr_slow(&v, "value") == NULL);
  CHECK_RAISED("TypeError", "value must be a PrimExpr, got tir.Buffer");
  tvm_ffi_release(A);
}

TEST(value_to_dtype_int_cstr) {
  DLDataType t;
  TVMFFIAny v = S("float16x2");
  CHECK_OK(tvm_script__value_to_dtype(&v, "dtype", &t));
  CHECK(tvm_tir_dtype_equal(t, tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT16, 2)));
  v = tvm_ffi_string("bool");
  CHECK_OK(tvm_script__value_to_dtype(&v, "dtype", &t));
  CHECK(tvm_tir_dtype_equal(t, TVM_TIR_BOOL));
  v = tvm_ffi_any_dtype(TVM_TIR_INT8);
  CHECK_OK(tvm_script__value_to_dtype(&v, "dtype", &t));
  CHECK(tvm_tir_dtype_equal(t, TVM_TIR_INT8));
  tvm_tir_prim_type_obj* pt = tvm_tir_prim_type_new(TVM_TIR_UINT16);
  v = O(pt);
  CHECK_OK(tvm_script__value_to_dtype(&v, "dtype", &t));
  CHECK(tvm_tir_dtype_equal(t, TVM_TIR_UINT16));
  tvm_ffi_release(pt);
  v = S("floaty");
  CHECK(tvm_script__value_to_dtype(&v, "argument 'dtype' of T.Cast", &t) != 0);
  CHECK_RAISED("ValueError", "argument 'dtype' of T.Cast: unknown dtype \"floaty\"");
  v = I(3);
  CHECK(tvm_script__value_to_dtype(&v, "argument 'dtype' of T.Cast", &t) != 0);
  CHECK_RAISED("TypeError", "argument 'dtype' of T.Cast must be a dtype, got int");

  int64_t i = 0;
  v = I(-9);
  CHECK_OK(tvm_script__value_to_int(&v, "n", &i));
  CHECK_EQ_INT(i, -9);
  tvm_tir_expr_obj* imm = tvm_tir_i64(1LL << 35);
  v = O(imm);
  CHECK_OK(tvm_script__value_to_int(&v, "n", &i));
  CHECK_EQ_INT(i, 1LL << 35);
  tvm_ffi_release(imm);
  v = F(1.0);
  CHECK(tvm_script__value_to_int(&v, "argument 'lanes' of T.Ramp", &i) != 0);
  CHECK_RAISED("TypeError", "argument 'lanes' of T.Ramp must be an int, got float");

  v = tvm_ffi_string("short");
  CHECK_STR_EQ(tvm_script__value_to_cstr(&v, "s"), "short");
  v = tvm_ffi_string("a much longer string");
  CHECK_STR_EQ(tvm_script__value_to_cstr(&v, "s"), "a much longer string");
  tvm_ffi_any_release(&v);
  v = S("raw");
  CHECK_STR_EQ(tvm_script__value_to_cstr(&v, "s"), "raw");
  v = I(1);
  CHECK(tvm_script__value_to_cstr(&v, "argument 'scope' of T.handle") == NULL);
  CHECK_RAISED("TypeError", "argument 'scope' of T.handle must be a string, got int");
}

/* A dtype named by a short (inline) string is what tvm_tir_dtype_parse makes of it, for the
 * names tvm_script__value_to_dtype takes without parsing and for the others; a prefix or an
 * extension of one such name is parsed (or rejected) as before. */
TEST(value_to_dtype_small_strings) {
  static const char* const names[] = {"float32", "int32", "float16", "int64", "int8",  "uint8",
                                      "float64", "bool",  "int16",   "uint32", "handle", "int1",
                                      "float8",  "int",   "float",   "boolx4", "int32x4", "uint1"};
  for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); ++i) {
    TVMFFIAny v = tvm_ffi_string(names[i]);
    CHECK(v.type_index == kTVMFFISmallStr);
    DLDataType want = {0, 0, 0}, got = {0, 0, 0};
    int want_rc = tvm_tir_dtype_parse(names[i], strlen(names[i]), &want);
    tvm_ffi_error_clear();
    int got_rc = tvm_script__value_to_dtype(&v, "dtype", &got);
    tvm_ffi_error_clear();
    CHECK_EQ_INT(got_rc, want_rc);
    if (want_rc == 0) {
      CHECK(got.code == want.code && got.bits == want.bits && got.lanes == want.lanes);
    }
  }
}

TEST(value_to_expr_array) {
  TVMFFIAny items[] = {I(4), I(1LL << 33)};
  void* arr = tvm_ffi_array_new(items, 2);
  TVMFFIAny v = O(arr);
  void* got = tvm_script__value_to_expr_array(&v, "shape");
  CHECK(equal_take(got, tvm_tir_list_take(tvm_tir_int(4), tvm_tir_i64(1LL << 33))));
  tvm_ffi_release(arr);
  v = I(16);
  CHECK(
      equal_take(tvm_script__value_to_expr_array(&v, "shape"), tvm_tir_list_take(tvm_tir_int(16))));
  /* A bad element: the error names it, nothing leaks. */
  void* list = tvm_ffi_list_new();
  TVMFFIAny bad[] = {I(1), tvm_ffi_any_none()};
  tvm_ffi_list_push(list, &bad[0]);
  tvm_ffi_list_push(list, &bad[1]);
  v = O(list);
  CHECK(tvm_script__value_to_expr_array(&v, "argument 'shape' of T.Buffer") == NULL);
  CHECK_RAISED("TypeError", "argument 'shape' of T.Buffer must be a PrimExpr, got None");
  tvm_ffi_release(list);
}

TEST(value_to_region) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  /* A[i, 3] -> A[i:i+1, 3:4] */
  void* load = tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i), tvm_tir_int(3));
  TVMFFIAny v = O(load);
  void* expected =
      tvm_tir_region_take(tvm_tir_ref(A), tvm_tir_range_take(tvm_tir_ref(i), tvm_tir_int(1)),
                          tvm_tir_range_take(tvm_tir_int(3), tvm_tir_int(1)));
  CHECK(equal_take(tvm_script__value_to_region(&v, "r"), expected));
  tvm_ffi_release(load);
  /* A[i, Ramp(0, 2, 4)] covers 0..6: extent 7. */
  load = tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i),
                           tvm_tir_ramp_take(tvm_tir_int(0), tvm_tir_int(2), 4));
  v = O(load);
  expected = tvm_tir_region_take(tvm_tir_ref(A), tvm_tir_range_take(tvm_tir_ref(i), tvm_tir_int(1)),
                                 tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(7)));
  CHECK(equal_take(tvm_script__value_to_region(&v, "r"), expected));
  tvm_ffi_release(load);
  /* A whole buffer, and a region as it is. */
  v = O(A);
  tvm_tir_buffer_region_obj* full = tvm_script__value_to_region(&v, "r");
  CHECK(equal_take(full, tvm_tir_buffer_region_full(A)));
  v = I(1);
  CHECK(tvm_script__value_to_region(&v, "argument 'regions' of T.reads") == NULL);
  CHECK_RAISED("TypeError", "argument 'regions' of T.reads must be a buffer region, got int");
  tvm_ffi_release(i);
  tvm_ffi_release(A);
}

/* ---- Dtype constructors -------------------------------------------------------------------- */
TEST(dtype_literals) {
  CHECK(equal_take(call_pos("int32", ARGS(I(5))), tvm_tir_int(5)));
  CHECK(equal_take(call_pos("int64", ARGS(I(128))), tvm_tir_i64(128)));
  CHECK(equal_take(call_pos("uint8", ARGS(I(255))), tvm_tir_const(TVM_TIR_UINT8, 255)));
  CHECK(equal_take(call_pos("float32", ARGS(F(1.5))), tvm_tir_f32(1.5)));
  CHECK(equal_take(call_pos("float32", ARGS(F(0.1))), tvm_tir_f32(0.1)));
  CHECK(equal_take(call_pos("float64", ARGS(I(2))), tvm_tir_f64(2)));
  CHECK(equal_take(call_pos("bool", ARGS(B(true))), tvm_tir_bool(true)));
  CHECK(equal_take(call_pos("bool", ARGS(B(false))), tvm_tir_bool(false)));
  CHECK(
      equal_take(call_pos("float32x4", ARGS(F(1.0))), tvm_tir_broadcast_take(tvm_tir_f32(1.0), 4)));
  /* float16 / bfloat16 literals are values of the type (the printer's shortest text). */
  CHECK(equal_take(call_pos("float16", ARGS(F(0.1))),
                   tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 0.0999755859375)));
  CHECK(equal_take(call_pos("bfloat16", ARGS(F(3.14))),
                   tvm_tir_float_imm_new(TVM_TIR_BFLOAT16, 3.140625)));
  CHECK(equal_take(call_pos("float16", ARGS(F(65504.0))),
                   tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 65504.0)));

  tvm_tir_float_imm_obj* f = call_pos("float32", ARGS(S("inf")));
  CHECK(f && isinf(f->value) && f->value > 0 &&
        tvm_tir_dtype_equal(f->expr.dtype, TVM_TIR_FLOAT32));
  tvm_ffi_release(f);
  f = call_pos("float16", ARGS(S("-inf")));
  CHECK(f && isinf(f->value) && f->value < 0 &&
        tvm_tir_dtype_equal(f->expr.dtype, TVM_TIR_FLOAT16));
  tvm_ffi_release(f);
  f = call_pos("float64", ARGS(tvm_ffi_string("nan")));
  CHECK(f && isnan(f->value));
  tvm_ffi_release(f);
  TVMFFIAny long_text = tvm_ffi_string("0.30000000000000004"); /* an ffi.String object */
  CHECK(equal_take(call_pos("float64", ARGS(long_text)), tvm_tir_f64(0.30000000000000004)));
  tvm_ffi_any_release(&long_text);
}

TEST(dtype_casts_and_vars) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT64);
  CHECK(
      equal_take(call_pos("int32", ARGS(O(x))), tvm_tir_cast_take(TVM_TIR_INT32, tvm_tir_ref(x))));
  /* Already of the dtype: the value itself. */
  void* same = call_pos("int64", ARGS(O(x)));
  CHECK(same == (void*)x);
  tvm_ffi_release(same);
  tvm_ffi_release(x);

  /* `n = T.int32()`: a Var named by the assignment target. */
  test_call tc;
  const char* targets[] = {"n"};
  tvm_script_call* c = make_call(&tc, "int32", NULL, 0, NULL, NULL, 0);
  c->ctx = TVM_SCRIPT_CTX_ASSIGN;
  c->num_targets = 1;
  c->targets = targets;
  tvm_tir_var_obj* n = run_call(c);
  CHECK(n && tvm_tir_kind_of(n) == TVM_TIR_KIND_Var);
  if (n) {
    CHECK_STR_EQ(tvm_tir_var_name(n), "n");
    CHECK(tvm_tir_dtype_equal(n->expr.dtype, TVM_TIR_INT32));
  }
  CHECK(equal_take(n, tvm_tir_var("n", TVM_TIR_INT32)));
  const char* kw[] = {"is_size_var"};
  TVMFFIAny kwv[] = {B(true)};
  c = make_call(&tc, "int64", NULL, 0, kw, kwv, 1);
  c->ctx = TVM_SCRIPT_CTX_ASSIGN;
  c->num_targets = 1;
  c->targets = targets;
  tvm_tir_var_obj* sv = run_call(c);
  CHECK(sv && tvm_tir_kind_of(sv) == TVM_TIR_KIND_SizeVar);
  CHECK(equal_take(sv, tvm_tir_size_var_new("n", TVM_TIR_INT64)));

  /* Handles: T.handle() and a pointer variable. */
  c = make_call(&tc, "handle", NULL, 0, NULL, NULL, 0);
  c->ctx = TVM_SCRIPT_CTX_ASSIGN;
  c->num_targets = 1;
  c->targets = targets;
  CHECK(equal_take(run_call(c), tvm_tir_var("n", TVM_TIR_HANDLE)));
  CHECK(equal_take(call_pos("handle", ARGS(S("float16"), S("shared"))),
                   tvm_tir_ptr_var("p", TVM_TIR_FLOAT16, "shared")));
  CHECK(equal_take(call_pos("handle", ARGS(S("float32"), S("global"))),
                   tvm_tir_ptr_var("p", TVM_TIR_FLOAT32, NULL)));
  /* T.ptr: T.handle's pointer variable, its dtype required */
  CHECK(equal_take(call_pos("ptr", ARGS(S("float16"), S("shared"))),
                   tvm_tir_ptr_var("p", TVM_TIR_FLOAT16, "shared")));
  CHECK(equal_take(call_pos("ptr", ARGS(S("int8"))), tvm_tir_ptr_var("p", TVM_TIR_INT8, NULL)));
  c = make_call(&tc, "ptr", NULL, 0, NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "dtype");
}

TEST(handle_errors) {
  test_call tc;
  const char* kw[] = {"is_size_var"};
  TVMFFIAny kwv[] = {B(true)};
  tvm_script_call* c = make_call(&tc, "handle", ARGS(S("float32")), kw, kwv, 1);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.handle(): a pointer variable cannot be a size var");
  CHECK_EQ_INT(c->error_arg, 1);
  c = make_call(&tc, "handle", ARGS(S("float32"), I(0)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'storage_scope' of T.handle must be a string, got int");
  CHECK_EQ_INT(c->error_arg, 1);
  c = make_call(&tc, "handle", ARGS(S("float99x")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "argument 'dtype' of T.handle: unknown dtype \"float99x\"");
  CHECK_EQ_INT(c->error_arg, 0);
}

TEST(dtype_errors) {
  CHECK(call_pos("int8", ARGS(I(300))) == NULL);
  CHECK_RAISED("TypeError", "T-INTIMM"); /* libtir's rule, unchanged */
  CHECK(call_pos("float16", ARGS(F(1e6))) == NULL);
  CHECK_RAISED("TypeError", "T-FLOATIMM");
  test_call tc;
  tvm_script_call* c = make_call(&tc, "int32", ARGS(S("abc")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "T.int32(): cannot convert the string \"abc\" to int32");
  CHECK_EQ_INT(c->error_arg, 0);
  c = make_call(&tc, "float32", ARGS(S("1.5x")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "cannot convert the string");
  c = make_call(&tc, "int32", ARGS(I(1), I(2)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.int32() takes at most 1 argument (2 given)");
  CHECK_EQ_INT(c->error_arg, 1);
  const char* kw[] = {"is_size_var"};
  TVMFFIAny kwv[] = {I(1)};
  c = make_call(&tc, "int32", NULL, 0, kw, kwv, 1);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'is_size_var' of T.int32 must be a bool, got int");
  CHECK_EQ_INT(c->error_arg, 0);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4);
  c = make_call(&tc, "float32", ARGS(O(A)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'expr' of T.float32 must be a PrimExpr, got tir.Buffer");
  CHECK_EQ_INT(c->error_arg, 0);
  tvm_ffi_release(A);
  CHECK(call_pos("max_value", ARGS(S("handle"))) == NULL);
  CHECK_RAISED("TypeError", "no limit value for dtype handle");
}

TEST(limits) {
  CHECK(equal_take(call_pos("max_value", ARGS(S("int8"))), tvm_tir_const(TVM_TIR_INT8, 127)));
  CHECK(equal_take(call_pos("min_value", ARGS(S("int64"))), tvm_tir_i64(INT64_MIN)));
  CHECK(equal_take(call_pos("max_value", ARGS(S("float16"))),
                   tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 65504.0)));
  CHECK(equal_take(call_pos("min_value", ARGS(S("float32"))),
                   tvm_tir_f32(-3.40282346638528859811704183484516925440e38)));
}

/* ---- Nodes --------------------------------------------------------------------------------- */
TEST(node_builtins) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT64);
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_BOOL);

  CHECK(equal_take(call_pos("Cast", ARGS(S("float32"), O(x))),
                   tvm_tir_cast_new(TVM_TIR_FLOAT32, &x->expr)));
  CHECK(equal_take(call_pos("cast", ARGS(O(x), S("int64"))),
                   tvm_tir_cast_new(TVM_TIR_INT64, &x->expr)));
  /* T.Cast builds the node even to the same dtype (the printer printed one). */
  CHECK(equal_take(call_pos("Cast", ARGS(S("int32"), O(x))),
                   tvm_tir_cast_new(TVM_TIR_INT32, &x->expr)));
  /* Two constants: the node, not the folded value. */
  tvm_tir_expr_obj* one = tvm_tir_int(1);
  tvm_tir_expr_obj* two = tvm_tir_int(2);
  CHECK(equal_take(call_pos("Add", ARGS(I(1), I(2))),
                   tvm_tir_binary_new(TVM_TIR_KIND_Add, one, two)));
  CHECK(equal_take(call_pos("min", ARGS(I(1), I(2))),
                   tvm_tir_binary_new(TVM_TIR_KIND_Min, one, two)));
  CHECK(equal_take(call_pos("truncmod", ARGS(O(x), I(2))),
                   tvm_tir_binary_new(TVM_TIR_KIND_Mod, &x->expr, two)));
  CHECK(equal_take(call_pos("Div", ARGS(O(x), I(2))),
                   tvm_tir_binary_new(TVM_TIR_KIND_Div, &x->expr, two)));
  CHECK(equal_take(call_pos("FloorMod", ARGS(O(x), O(x))),
                   tvm_tir_binary_new(TVM_TIR_KIND_FloorMod, &x->expr, &x->expr)));
  CHECK(
      equal_take(call_pos("LT", ARGS(I(1), I(2))), tvm_tir_binary_new(TVM_TIR_KIND_LT, one, two)));
  CHECK(equal_take(call_pos("And", ARGS(O(c), B(true))),
                   tvm_tir_and_take(tvm_tir_ref(c), tvm_tir_bool(true))));
  CHECK(equal_take(call_pos("Not", ARGS(O(c))), tvm_tir_not_new(&c->expr)));
  /* A literal operand takes the other operand's dtype. */
  CHECK(equal_take(call_pos("max", ARGS(O(y), I(0))),
                   tvm_tir_max_take(tvm_tir_ref(y), tvm_tir_i64(0))));
  CHECK(equal_take(call_pos("Mul", ARGS(F(2.0), O(f))),
                   tvm_tir_mul_take(tvm_tir_f32(2.0), tvm_tir_ref(f))));
  /* ... as a value of that type: rounded for float16, broadcast for a vector. */
  tvm_tir_var_obj* h = tvm_tir_var("h", TVM_TIR_FLOAT16);
  CHECK(equal_take(call_pos("Mul", ARGS(O(h), F(0.1))),
                   tvm_tir_binary_take(TVM_TIR_KIND_Mul, tvm_tir_ref(h),
                                       tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 0.0999755859375))));
  tvm_ffi_release(h);
  tvm_tir_var_obj* v4 = tvm_tir_var("v4", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  CHECK(equal_take(call_pos("Add", ARGS(O(v4), I(1))),
                   tvm_tir_binary_take(TVM_TIR_KIND_Add, tvm_tir_ref(v4),
                                       tvm_tir_broadcast_take(tvm_tir_f32(1), 4))));
  tvm_ffi_release(v4);
  /* ceildiv(x, 4) = (x + 3) // 4 */
  CHECK(equal_take(
      call_pos("ceildiv", ARGS(O(x), I(4))),
      tvm_tir_floordiv_take(tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_int(3)), tvm_tir_int(4))));
  CHECK(equal_take(call_pos("Select", ARGS(O(c), O(f), F(0.0))),
                   tvm_tir_select_take(tvm_tir_ref(c), tvm_tir_ref(f), tvm_tir_f32(0.0))));
  CHECK(equal_take(call_pos("Ramp", ARGS(O(x), I(1), I(4))),
                   tvm_tir_ramp_take(tvm_tir_ref(x), tvm_tir_int(1), 4)));
  CHECK(equal_take(call_pos("Broadcast", ARGS(O(f), I(8))),
                   tvm_tir_broadcast_take(tvm_tir_ref(f), 8)));
  void* ramp = tvm_tir_ramp_take(tvm_tir_ref(x), tvm_tir_int(1), 4);
  TVMFFIAny vecs_items[] = {O(ramp)};
  void* vecs = tvm_ffi_array_new(vecs_items, 1);
  TVMFFIAny idx_items[] = {I(3), I(2), I(1), I(0)};
  void* idx = tvm_ffi_array_new(idx_items, 4);
  void* idx_expr =
      tvm_tir_list_take(tvm_tir_int(3), tvm_tir_int(2), tvm_tir_int(1), tvm_tir_int(0));
  CHECK(
      equal_take(call_pos("Shuffle", ARGS(O(vecs), O(idx))), tvm_tir_shuffle_new(vecs, idx_expr)));
  tvm_ffi_release(idx_expr);
  tvm_ffi_release(idx);
  tvm_ffi_release(vecs);
  tvm_ffi_release(ramp);

  /* T.Let(v + 1, where={v: 5}) */
  tvm_tir_var_obj* v = tvm_tir_var("v", TVM_TIR_INT32);
  void* body = tvm_tir_add_take(tvm_tir_ref(v), tvm_tir_int(1));
  TVMFFIAny key = O(v), val = I(5);
  void* where = tvm_ffi_map_new(&key, &val, 1);
  test_call tc;
  const char* kw[] = {"where"};
  TVMFFIAny kwv[] = {O(where)};
  tvm_script_call* call = make_call(&tc, "Let", ARGS(O(body)), kw, kwv, 1);
  CHECK(equal_take(run_call(call),
                   tvm_tir_let_take(tvm_tir_ref(v), tvm_tir_int(5), tvm_tir_ref(body))));
  tvm_ffi_release(where);
  tvm_ffi_release(body);
  tvm_ffi_release(v);

  tvm_ffi_release(one);
  tvm_ffi_release(two);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  tvm_ffi_release(f);
  tvm_ffi_release(c);
}

TEST(node_errors) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT64);
  /* Two PrimExprs of different dtypes: the constructor's rule, unchanged. */
  CHECK(call_pos("Add", ARGS(O(x), O(y))) == NULL);
  CHECK_RAISED("TypeError", "T-BINOP");
  /* A literal that does not fit the other operand's type. */
  tvm_tir_var_obj* u = tvm_tir_var("u", TVM_TIR_UINT8);
  CHECK(call_pos("max", ARGS(O(u), I(300))) == NULL);
  CHECK_RAISED("TypeError", "T-INTIMM");
  CHECK(call_pos("Add", ARGS(O(u), F(0.5))) == NULL);
  CHECK_RAISED("TypeError", "not an integer value of uint8");
  tvm_ffi_release(u);
  test_call tc;
  tvm_script_call* c = make_call(&tc, "Ramp", ARGS(O(x), I(1), I(0)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "T.Ramp(): lanes must be in [1, 65535], got 0");
  CHECK_EQ_INT(c->error_arg, 2);
  c = make_call(&tc, "Broadcast", ARGS(O(x), S("4")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'lanes' of T.Broadcast must be an int, got ffi.String");
  CHECK_EQ_INT(c->error_arg, 1);
  c = make_call(&tc, "Cast", ARGS(S("f32"), O(x)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "argument 'dtype' of T.Cast: unknown dtype \"f32\"");
  CHECK_EQ_INT(c->error_arg, 0);
  c = make_call(&tc, "Select", ARGS(O(x)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.Select() missing required argument 'true_value'");
  c = make_call(&tc, "Let", ARGS(O(x)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "missing required argument 'where'");
  const char* kw[] = {"where"};
  TVMFFIAny kwv[] = {I(1)};
  c = make_call(&tc, "Let", ARGS(O(x)), kw, kwv, 1);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'where' of T.Let must be a dict of one Var to its value");
  CHECK_EQ_INT(c->error_arg, 1);
  tvm_ffi_release(x);
  tvm_ffi_release(y);
}

/* Upstream's literal classes: T.IntImm / T.FloatImm(dtype, value), T.StringImm(value), and
 * tvm.tir.const (T.const). */
TEST(imm_classes) {
  CHECK(equal_take(call_pos("IntImm", ARGS(S("int8"), I(-3))), tvm_tir_const(TVM_TIR_INT8, -3)));
  CHECK(equal_take(call_pos("IntImm", ARGS(S("bool"), B(true))), tvm_tir_bool(true)));
  CHECK(equal_take(call_pos("FloatImm", ARGS(S("float32"), F(0.1))), tvm_tir_f32(0.1)));
  CHECK(equal_take(call_pos("FloatImm", ARGS(S("float64"), I(2))), tvm_tir_f64(2.0)));
  CHECK(equal_take(call_pos("StringImm", ARGS(S("hi"))), tvm_tir_str("hi")));
  /* const(value, dtype=None), upstream's tvm.tir.const: the value's dtype by default */
  CHECK(equal_take(call_pos("const", ARGS(B(true))), tvm_tir_bool(true)));
  CHECK(equal_take(call_pos("const", ARGS(I(3))), tvm_tir_int(3)));
  CHECK(equal_take(call_pos("const", ARGS(I(1LL << 40))), tvm_tir_i64(1LL << 40)));
  CHECK(equal_take(call_pos("const", ARGS(F(0.5))), tvm_tir_f32(0.5)));
  CHECK(equal_take(call_pos("const", ARGS(I(3), S("float16"))),
                   tvm_tir_float_imm_new(TVM_TIR_FLOAT16, 3.0)));
  test_call tc;
  struct {
    const char* name;
    TVMFFIAny a0, a1;
    int32_t nargs, error_arg;
    const char *kind, *message;
  } bad[] = {
      {"IntImm", S("float32"), I(1), 2, 0, "TypeError",
       "T.IntImm(): the dtype must be a scalar integer type, got float32"},
      {"IntImm", S("int32x4"), I(1), 2, 0, "TypeError", "scalar integer type, got int32x4"},
      {"IntImm", S("int32"), F(1.5), 2, 1, "TypeError",
       "T.IntImm(): the value must be an integer, got float"},
      {"IntImm", S("int8"), I(1000), 2, -1, "TypeError", "value 1000 is out of the range"},
      {"FloatImm", S("int32"), F(1.5), 2, 0, "TypeError", "scalar float type, got int32"},
      {"FloatImm", S("float32"), S("x"), 2, 1, "TypeError", "the value must be a number"},
      {"StringImm", I(3), I(0), 1, 0, "TypeError", "T.StringImm(): the value must be a str"},
      {"const", S("x"), I(0), 1, 0, "TypeError", "T.const(): the value must be a number"},
      {"const", I(1000), S("int8"), 2, -1, "TypeError", "value 1000 is out of the range"},
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    TVMFFIAny args[2] = {bad[i].a0, bad[i].a1};
    tvm_script_call* c = make_call(&tc, bad[i].name, args, bad[i].nargs, NULL, NULL, 0);
    CHECK(run_call(c) == NULL);
    CHECK_RAISED(bad[i].kind, bad[i].message);
    CHECK_EQ_INT(c->error_arg, bad[i].error_arg);
  }
}

/* T.Call(dtype, op, args): the node as given, op by name or an Op. */
TEST(call_class) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  void* list = tvm_ffi_list_new();
  TVMFFIAny items[2] = {S("f"), O(x)};
  for (int i = 0; i < 2; ++i) CHECK(tvm_ffi_list_push(list, &items[i]) == 0);
  CHECK(equal_take(call_pos("Call", ARGS(S("bool"), S("tir.tvm_call_packed"), O(list))),
                   tvm_tir_call_take(TVM_TIR_BOOL, "tir.tvm_call_packed", tvm_tir_str("f"),
                                     tvm_tir_ref(x))));
  tvm_tir_op_obj* op = tvm_tir_op_get("tir.tvm_call_packed");
  CHECK(equal_take(call_pos("Call", ARGS(S("int32"), O(op), O(list))),
                   tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_call_packed", tvm_tir_str("f"),
                                     tvm_tir_ref(x))));
  test_call tc;
  tvm_script_call* c = make_call(&tc, "Call", ARGS(S("bool"), S("tir.nope"), O(list)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("KeyError", "tir.nope");
  CHECK_EQ_INT(c->error_arg, 1);
  c = make_call(&tc, "Call", ARGS(S("bool"), I(3), O(list)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.Call(): op must be an op's name or an Op, got int");
  CHECK_EQ_INT(c->error_arg, 1);
  c = make_call(&tc, "Call", ARGS(S("bool"), O(op), I(3)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.Call(): args must be a list or tuple, got int");
  CHECK_EQ_INT(c->error_arg, 2);
  tvm_ffi_release(op), tvm_ffi_release(list), tvm_ffi_release(x);
}

TEST(iter_var_and_tuple) {
  tvm_tir_var_obj* t = tvm_tir_var("tx", TVM_TIR_INT32);
  tvm_tir_range_obj* dom = tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(32));
  CHECK(equal_take(call_pos("iter_var", ARGS(O(t), O(dom), S("ThreadIndex"), S("threadIdx.x"))),
                   tvm_tir_iter_var_new(dom, t, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x")));
  /* An extent for dom, and none. */
  CHECK(equal_take(call_pos("iter_var", ARGS(O(t), I(32), S("ThreadIndex"), S("threadIdx.x"))),
                   tvm_tir_iter_var_new(dom, t, TVM_TIR_ITER_THREAD_INDEX, "threadIdx.x")));
  CHECK(equal_take(call_pos("iter_var", ARGS(O(t), tvm_ffi_any_none(), S("DataPar"))),
                   tvm_tir_iter_var_new(NULL, t, TVM_TIR_ITER_DATA_PAR, NULL)));
  test_call tc;
  tvm_script_call* c =
      make_call(&tc, "iter_var", ARGS(O(t), O(dom), S("Sideways"), S("")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "T.iter_var(): unknown iter_type \"Sideways\"");
  CHECK_EQ_INT(c->error_arg, 2);
  c = make_call(&tc, "iter_var", ARGS(I(1), O(dom), S("DataPar"), S("")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'var' of T.iter_var must be a Var, got int");
  CHECK_EQ_INT(c->error_arg, 0);
  tvm_ffi_release(dom);
  tvm_ffi_release(t);

  tvm_tir_prim_type_obj* f32 = tvm_tir_prim_type_new(TVM_TIR_FLOAT32);
  tvm_tir_prim_type_obj* i8 = tvm_tir_prim_type_new(TVM_TIR_INT8);
  void* fields = tvm_tir_list_take(tvm_tir_ref(f32), tvm_tir_ref(i8));
  CHECK(equal_take(call_pos("Tuple", ARGS(O(f32), tvm_ffi_any_dtype(TVM_TIR_INT8))),
                   tvm_tir_tuple_type_new(fields)));
  tvm_ffi_release(fields);
  c = make_call(&tc, "Tuple", ARGS(O(f32), I(3)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 2 of T.Tuple must be a type, got int");
  CHECK_EQ_INT(c->error_arg, 1);
  tvm_ffi_release(f32);
  tvm_ffi_release(i8);
}

/* ---- Op calls ------------------------------------------------------------------------------ */
TEST(op_calls) {
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* h = tvm_tir_var("h", TVM_TIR_FLOAT16);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_BOOL);
  tvm_tir_var_obj* p = tvm_tir_var("p", TVM_TIR_HANDLE);

  CHECK(equal_take(call_pos("exp", ARGS(O(f))),
                   tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", tvm_tir_ref(f))));
  CHECK(equal_take(call_pos("sqrt", ARGS(O(h))),
                   tvm_tir_call_take(TVM_TIR_FLOAT16, "tir.sqrt", tvm_tir_ref(h))));
  CHECK(equal_take(call_pos("isnan", ARGS(O(f))),
                   tvm_tir_call_take(TVM_TIR_BOOL, "tir.isnan", tvm_tir_ref(f))));
  CHECK(equal_take(call_pos("likely", ARGS(O(c))),
                   tvm_tir_call_take(TVM_TIR_BOOL, "tir.likely", tvm_tir_ref(c))));
  CHECK(equal_take(
      call_pos("shift_left", ARGS(O(x), I(2))),
      tvm_tir_call_take(TVM_TIR_INT32, "tir.shift_left", tvm_tir_ref(x), tvm_tir_int(2))));
  CHECK(
      equal_take(call_pos("pow", ARGS(O(f), F(2.0))),
                 tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.pow", tvm_tir_ref(f), tvm_tir_f32(2.0))));
  /* A literal operand of an int64 bitwise op is int64. */
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT64);
  CHECK(equal_take(
      call_pos("bitwise_and", ARGS(O(y), I(255))),
      tvm_tir_call_take(TVM_TIR_INT64, "tir.bitwise_and", tvm_tir_ref(y), tvm_tir_i64(255))));
  tvm_ffi_release(y);
  /* if_then_else keeps a constant condition (no folding) and types a literal branch. */
  CHECK(equal_take(call_pos("if_then_else", ARGS(B(true), O(f), F(0.0))),
                   tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.if_then_else", tvm_tir_bool(true),
                                     tvm_tir_ref(f), tvm_tir_f32(0.0))));
  CHECK(equal_take(call_pos("isnullptr", ARGS(O(p))),
                   tvm_tir_call_take(TVM_TIR_BOOL, "tir.isnullptr", tvm_tir_ref(p))));
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  void* load = tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_int(0));
  CHECK(equal_take(call_pos("address_of", ARGS(O(load))),
                   tvm_tir_call_take(TVM_TIR_HANDLE, "tir.address_of", tvm_tir_ref(load))));
  tvm_ffi_release(load);
  tvm_ffi_release(A);
  CHECK(equal_take(call_pos("assume", ARGS(O(c))),
                   tvm_tir_call_take(TVM_TIR_BOOL, "tir.assume", tvm_tir_ref(c))));
  CHECK(equal_take(call_pos("undef", NULL, 0),
                   tvm_tir_call_takev(TVM_TIR_INT32, "tir.undef", 0, NULL)));
  CHECK(equal_take(call_pos("q_multiply_shift", ARGS(O(x), I(3), I(31), I(1))),
                   tvm_tir_call_take(TVM_TIR_INT32, "tir.q_multiply_shift", tvm_tir_ref(x),
                                     tvm_tir_int(3), tvm_tir_int(31), tvm_tir_int(1))));

  /* The printed dtype: first for extern calls and reinterpret, last for tvm_struct_get. */
  CHECK(equal_take(call_pos("call_extern", ARGS(S("float32"), S("myfunc"), O(f), I(1))),
                   tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.call_extern", tvm_tir_str("myfunc"),
                                     tvm_tir_ref(f), tvm_tir_int(1))));
  CHECK(
      equal_take(call_pos("call_llvm_pure_intrin", ARGS(S("float32"), S("llvm.fabs"), I(1), O(f))),
                 tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.call_llvm_pure_intrin",
                                   tvm_tir_str("llvm.fabs"), tvm_tir_int(1), tvm_tir_ref(f))));
  CHECK(equal_take(call_pos("reinterpret", ARGS(S("int32"), O(f))),
                   tvm_tir_call_take(TVM_TIR_INT32, "tir.reinterpret", tvm_tir_ref(f))));
  CHECK(equal_take(call_pos("tvm_struct_get", ARGS(O(p), I(0), I(4), S("int64"))),
                   tvm_tir_call_take(TVM_TIR_INT64, "tir.tvm_struct_get", tvm_tir_ref(p),
                                     tvm_tir_int(0), tvm_tir_int(4))));
  CHECK(equal_take(call_pos("tvm_struct_set", ARGS(O(p), I(0), I(4), O(x))),
                   tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_struct_set", tvm_tir_ref(p),
                                     tvm_tir_int(0), tvm_tir_int(4), tvm_tir_ref(x))));
  CHECK(equal_take(
      call_pos("call_packed", ARGS(S("fn"), O(x))),
      tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_call_packed", tvm_tir_str("fn"), tvm_tir_ref(x))));
  CHECK(equal_take(
      call_pos("tvm_call_packed", ARGS(S("fn"), O(x))),
      tvm_tir_call_take(TVM_TIR_INT32, "tir.tvm_call_packed", tvm_tir_str("fn"), tvm_tir_ref(x))));
  /* dtype= overrides the rule. */
  test_call tc;
  const char* kw[] = {"dtype"};
  TVMFFIAny kwv[] = {S("float16")};
  tvm_script_call* call = make_call(&tc, "exp", ARGS(O(f)), kw, kwv, 1);
  CHECK(run_call(call) == NULL); /* tir.exp computes in its operand's dtype (rule T-CALL) */
  CHECK_RAISED("TypeError", "the operands of tir.exp must have the call's dtype float16");
  kwv[0] = S("float32");
  call = make_call(&tc, "exp", ARGS(O(f)), kw, kwv, 1);
  CHECK(equal_take(run_call(call), tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", tvm_tir_ref(f))));
  kwv[0] = S("float16");
  call = make_call(&tc, "call_extern", ARGS(S("g"), O(f)), kw, kwv, 1);
  CHECK(equal_take(run_call(call), tvm_tir_call_take(TVM_TIR_FLOAT16, "tir.call_extern",
                                                     tvm_tir_str("g"), tvm_tir_ref(f))));

  tvm_ffi_release(f);
  tvm_ffi_release(h);
  tvm_ffi_release(x);
  tvm_ffi_release(c);
  tvm_ffi_release(p);
}

TEST(op_call_errors) {
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  test_call tc;
  tvm_script_call* c = make_call(&tc, "exp", NULL, 0, NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.exp(): cannot infer the result dtype without arguments");
  /* Arity: the T-CALL rule of the constructor. */
  CHECK(call_pos("exp", ARGS(O(f), O(f))) == NULL);
  CHECK_RAISED("TypeError", "T-CALL");
  c = make_call(&tc, "call_extern", NULL, 0, NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.call_extern() missing required argument 'dtype'");
  c = make_call(&tc, "call_extern", ARGS(S("nodtype"), S("f")), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("ValueError", "argument 'dtype' of T.call_extern: unknown dtype \"nodtype\"");
  CHECK_EQ_INT(c->error_arg, 0);
  c = make_call(&tc, "tvm_struct_get", ARGS(O(f), I(0), I(1), I(2)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 'dtype' of T.tvm_struct_get must be a dtype, got int");
  CHECK_EQ_INT(c->error_arg, 3);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  c = make_call(&tc, "sqrt", ARGS(O(A)), NULL, NULL, 0);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "argument 1 of T.sqrt must be a PrimExpr, got tir.Buffer");
  CHECK_EQ_INT(c->error_arg, 0);
  tvm_ffi_release(A);
  const char* kw[] = {"fast"};
  TVMFFIAny kwv[] = {B(true)};
  c = make_call(&tc, "exp", ARGS(O(f)), kw, kwv, 1);
  CHECK(run_call(c) == NULL);
  CHECK_RAISED("TypeError", "T.exp() got an unexpected keyword argument 'fast'");
  CHECK_EQ_INT(c->error_arg, 1);
  tvm_ffi_release(f);
}

int main(void) {
  RUN(lookup_concurrent_first_use);
  RUN(lookup_every_entry);
  RUN(lookup_every_op);
  RUN(lookup_no_duplicates);
  RUN(lookup_names);
  RUN(dtype_names);
  RUN(bind_args_ok);
  RUN(bind_args_errors);
  RUN(value_to_expr);
  RUN(value_to_dtype_int_cstr);
  RUN(value_to_dtype_small_strings);
  RUN(value_to_expr_array);
  RUN(value_to_region);
  RUN(dtype_literals);
  RUN(dtype_casts_and_vars);
  RUN(dtype_errors);
  RUN(handle_errors);
  RUN(limits);
  RUN(node_builtins);
  RUN(node_errors);
  RUN(imm_classes);
  RUN(call_class);
  RUN(iter_var_and_tuple);
  RUN(op_calls);
  RUN(op_call_errors);
  return test_summary();
}
