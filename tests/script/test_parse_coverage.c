/*
 * test_parse_coverage.c: the TVMScript surface beyond the basics that real programs use, each
 * parsed and compared structurally with the IR libtir's C API builds, printed back in upstream's
 * form, and fed bad input: T.comm_reducer (lambdas as call arguments), T.target, T.index_map,
 * I.Range, I.vdevice, and the GPU / runtime builtins of ops.def (tvm_thread_allreduce, the warp
 * shuffles, T.vscale, ...), which the interpreter must refuse by name.
 */
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <tvm/tir/builder.h>
#include <tvm/tir/tir.h>

#include "test_util.h"

static void* ref(void* obj) { return tvm_tir_ref(obj); }

#define HEADER "from tvm.script import ir as I\nfrom tvm.script import tirx as T\n"

/* Parse src (a fragment or a program); on failure report the error and count a failed check. */
static void* parse_line(const char* src, int line) {
  void* r = tvm_script_parse(src, strlen(src), NULL);
  if (!r) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: parse failed: %s: %s\n", line, e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
  return r;
}
#define PARSE(src) parse_line((src), __LINE__)

/* Structurally equal (free variables not mapped: the bound Vars of a reducer or index map are
 * definitions, mapped by the comparison itself); consumes both. */
static void expect_equal(void* got, void* want, bool map_free_vars, int line) {
  if (!got || !want) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: missing %s: %s\n", line, got ? "expected IR" : "parsed IR",
            e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  } else {
    TVMFFIAny a = tvm_ffi_any_obj(got), b = tvm_ffi_any_obj(want);
    if (tvm_ffi_structural_equal(&a, &b, map_free_vars, NULL, NULL) != 1) {
      fprintf(stderr, "line %d: not structurally equal\n", line);
      g_test_failed_checks++;
    }
  }
  tvm_ffi_release(got);
  tvm_ffi_release(want);
}
#define EXPECT_EQUAL(got, want) expect_equal((got), (want), false, __LINE__)
/* For fragments that declare their free variables (`x = T.float16()`): those map. */
#define EXPECT_EQUAL_FREE(got, want) expect_equal((got), (want), true, __LINE__)

/* Parse must fail with `kind` and a message containing `part`. */
static void expect_error_line(const char* src, const char* kind, const char* part, int line) {
  void* r = tvm_script_parse(src, strlen(src), NULL);
  if (r) {
    fprintf(stderr, "line %d: parse unexpectedly succeeded\n", line);
    tvm_ffi_release(r);
    g_test_failed_checks++;
    return;
  }
  void* e = tvm_ffi_error_take();
  const char* msg = e ? tvm_ffi_error_message(e) : "";
  if (!e || strcmp(tvm_ffi_error_kind(e), kind) != 0 || !strstr(msg, part)) {
    fprintf(stderr, "line %d: expected %s containing \"%s\", got %s: %s\n", line, kind, part,
            e ? tvm_ffi_error_kind(e) : "nothing", msg);
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}
#define EXPECT_ERROR(src, kind, part) expect_error_line((src), (kind), (part), __LINE__)

/* The printed text of obj (borrowed) equals want. */
static void expect_print_line(const void* obj, const char* want, int line) {
  void* text = obj ? tvm_script_print_obj(obj, NULL) : NULL;
  if (!text) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "line %d: print failed: %s\n", line, e ? tvm_ffi_error_message(e) : "?");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    return;
  }
  /* A fragment's text may begin with declarations; the node is the last line. */
  const char* s = tvm_ffi_str_cstr(text);
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == '\n') --n;
  const char* last = s + n;
  while (last > s && last[-1] != '\n') --last;
  if (strlen(want) != (size_t)(s + n - last) || strncmp(last, want, (size_t)(s + n - last)) != 0) {
    fprintf(stderr, "line %d: printed\n%s\nexpected last line\n%s\n", line, s, want);
    g_test_failed_checks++;
  }
  tvm_ffi_release(text);
}
#define EXPECT_PRINT(obj, want) expect_print_line((obj), (want), __LINE__)

static bool is_kind(const void* obj, tvm_tir_kind k) { return obj && tvm_tir_kind_of(obj) == k; }

/* ---- T.comm_reducer -------------------------------------------------------------------------- */
static void* sum_reducer_ir(void) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_FLOAT32);
  void* lhs = tvm_tir_list_take(ref(x));
  void* rhs = tvm_tir_list_take(ref(y));
  void* result = tvm_tir_list_take(tvm_tir_add_take(x, y));
  void* identity = tvm_tir_list_take(tvm_tir_f32(0));
  tvm_tir_comm_reducer_obj* r = tvm_tir_comm_reducer_new(lhs, rhs, result, identity);
  tvm_ffi_release(lhs);
  tvm_ffi_release(rhs);
  tvm_ffi_release(result);
  tvm_ffi_release(identity);
  return r;
}

TEST(comm_reducer_of_a_lambda) {
  void* r = PARSE(HEADER "T.comm_reducer(lambda x, y: x + y, [T.float32(0)])\n");
  CHECK(is_kind(r, TVM_TIR_KIND_CommReducer));
  if (is_kind(r, TVM_TIR_KIND_CommReducer)) {
    /* The Vars are named after the parameters and typed by the identity. */
    const tvm_tir_comm_reducer_obj* c = r;
    const tvm_tir_var_obj* x = tvm_ffi_seq_obj_at(c->lhs, 0);
    CHECK_STR_EQ(tvm_tir_var_name(x), "x");
    CHECK(tvm_tir_dtype_equal(x->expr.dtype, TVM_TIR_FLOAT32));
    CHECK_STR_EQ(tvm_tir_var_name((const tvm_tir_var_obj*)tvm_ffi_seq_obj_at(c->rhs, 0)), "y");
    EXPECT_PRINT(r, "T.comm_reducer(lambda x, y: x + y, [T.float32(0.0)])");
  }
  EXPECT_EQUAL(r, sum_reducer_ir());
  /* The parameters shadow outer names only inside the body. */
  void* f = PARSE(HEADER
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((4,), \"float32\"), x: T.float32):\n"
                  "    with T.attr(T.comm_reducer(lambda x, y: x * y, [T.float32(1)]), "
                  "\"reduce_scope\", 0):\n"
                  "        A[0] = x\n");
  CHECK(f != NULL);
  tvm_ffi_release(f);
}

TEST(comm_reducer_of_two_values) {
  void* r = PARSE(HEADER
                  "T.comm_reducer(lambda v0, i0, v1, i1: (T.Select(v0 >= v1, v0, v1), "
                  "T.Select(v0 >= v1, i0, i1)), [T.float32(-1), -1])\n");
  tvm_tir_var_obj* v0 = tvm_tir_var("v0", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* i0 = tvm_tir_var("i0", TVM_TIR_INT32);
  tvm_tir_var_obj* v1 = tvm_tir_var("v1", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* i1 = tvm_tir_var("i1", TVM_TIR_INT32);
  void* lhs = tvm_tir_list_take(ref(v0), ref(i0));
  void* rhs = tvm_tir_list_take(ref(v1), ref(i1));
  void* result =
      tvm_tir_list_take(tvm_tir_select_take(tvm_tir_ge_take(ref(v0), ref(v1)), ref(v0), ref(v1)),
                        tvm_tir_select_take(tvm_tir_ge_take(v0, v1), i0, i1));
  void* identity = tvm_tir_list_take(tvm_tir_f32(-1), tvm_tir_int(-1));
  void* want = tvm_tir_comm_reducer_new(lhs, rhs, result, identity);
  EXPECT_EQUAL(r, want);
  tvm_ffi_release(lhs);
  tvm_ffi_release(rhs);
  tvm_ffi_release(result);
  tvm_ffi_release(identity);
}

TEST(comm_reducer_bad_input) {
  EXPECT_ERROR(HEADER "T.comm_reducer(lambda x: x, [T.float32(0)])\n", "TypeError",
               "must take 2 parameters");
  EXPECT_ERROR(HEADER "T.comm_reducer(lambda x, y: (x, y), [T.float32(0)])\n", "TypeError",
               "must return 1 value, got 2");
  EXPECT_ERROR(HEADER "T.comm_reducer(5, [T.float32(0)])\n", "TypeError",
               "argument 'combiner' of T.comm_reducer must be a lambda");
  EXPECT_ERROR(HEADER "T.comm_reducer(lambda: 0, [])\n", "TypeError", "at least one element");
  /* An error in the body is reported where it is, once. */
  EXPECT_ERROR(HEADER "T.comm_reducer(lambda x, y: x + zz, [T.float32(0)])\n", "NameError",
               "<string>:3:33: error: name 'zz' is not defined");
  /* A result of the wrong dtype is the node's TypeError. */
  EXPECT_ERROR(HEADER "T.comm_reducer(lambda x, y: T.int32(1), [T.float32(0)])\n", "TypeError",
               "result[0] has dtype int32");
  /* A lambda anywhere but as a call argument. */
  EXPECT_ERROR(HEADER
               "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
               "    g = lambda x: x\n",
               "NotImplementedError", "a lambda is only supported as an argument");
  /* A builtin that would keep the lambda in the IR (it must not outlive the parse). */
  EXPECT_ERROR(HEADER
               "@T.prim_func\ndef f(A: T.Buffer((4,), \"float32\")):\n"
               "    with T.attr(lambda x: x, \"k\", 0):\n"
               "        A[0] = T.float32(0)\n",
               "NotImplementedError", "T.attr() cannot keep a lambda");
  EXPECT_ERROR(HEADER "T.meta_var(lambda x: x)\n", "NotImplementedError",
               "T.meta_var() cannot keep a lambda");
}

TEST(comm_reducer_constructor_checks) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* fx = tvm_tir_list_take(ref(x));
  void* ik = tvm_tir_list_take(ref(k));
  void* zero = tvm_tir_list_take(tvm_tir_f32(0));
  void* two = tvm_tir_list_take(tvm_tir_f32(0), tvm_tir_f32(1));
  CHECK(tvm_tir_comm_reducer_new(fx, ik, fx, zero) == NULL);
  CHECK_RAISED("TypeError", "rhs[0] has dtype int32");
  CHECK(tvm_tir_comm_reducer_new(fx, fx, fx, two) == NULL);
  CHECK_RAISED("TypeError", "the same non-zero length");
  CHECK(tvm_tir_comm_reducer_new(zero, fx, fx, zero) == NULL);
  CHECK_RAISED("TypeError", "lhs[0] must be a Var");
  CHECK(tvm_tir_comm_reducer_new(NULL, fx, fx, zero) == NULL);
  CHECK_RAISED("TypeError", "lhs must be an array");
  tvm_ffi_release(fx);
  tvm_ffi_release(ik);
  tvm_ffi_release(zero);
  tvm_ffi_release(two);
  tvm_ffi_release(x);
  tvm_ffi_release(k);
}

/* ---- T.target -------------------------------------------------------------------------------- */
/* A Target of kind with string attributes (k, v pairs; v NULL = True). */
static void* target_ir(const char* kind, int n, const char* const* kv) {
  void* dict = tvm_ffi_dict_new();
  for (int i = 0; i < n; ++i) {
    TVMFFIAny k = tvm_ffi_string(kv[2 * i]);
    TVMFFIAny v = kv[2 * i + 1] ? tvm_ffi_string(kv[2 * i + 1]) : tvm_ffi_any_bool(true);
    tvm_ffi_dict_set(dict, &k, &v);
    tvm_ffi_any_release(&k);
    tvm_ffi_any_release(&v);
  }
  void* t = tvm_tir_target_new(kind, dict);
  tvm_ffi_release(dict);
  return t;
}

TEST(target_forms) {
  void* t = PARSE(HEADER "T.target(\"cuda\")\n");
  CHECK(is_kind(t, TVM_TIR_KIND_Target));
  EXPECT_PRINT(t, "T.target({\"kind\": \"cuda\"})");
  EXPECT_EQUAL(t, target_ir("cuda", 0, NULL));
  EXPECT_EQUAL(PARSE(HEADER "T.target(\"llvm -mcpu=skylake --fast-math\")\n"),
               target_ir("llvm", 2, (const char* const[]){"mcpu", "skylake", "fast-math", NULL}));
  /* The dict form (what the printer writes) and the printed text of it reparse the same. */
  t = PARSE(HEADER "T.target({\"kind\": \"llvm\", \"mtriple\": \"aarch64-linux-gnu\"})\n");
  EXPECT_PRINT(t, "T.target({\"kind\": \"llvm\", \"mtriple\": \"aarch64-linux-gnu\"})");
  EXPECT_EQUAL(t, target_ir("llvm", 1, (const char* const[]){"mtriple", "aarch64-linux-gnu"}));
  /* A host is the attribute "host", a Target itself. */
  t = PARSE(HEADER "T.target(\"cuda\", host=\"llvm\")\n");
  if (is_kind(t, TVM_TIR_KIND_Target)) {
    const tvm_tir_target_obj* tt = t;
    CHECK_STR_EQ(tvm_ffi_str_cstr(tt->kind), "cuda");
    const TVMFFIAny* host = tvm_ffi_map_get_str(tt->attrs, "host");
    CHECK(host && tvm_ffi_any_is_object(host) && is_kind(host->v_obj, TVM_TIR_KIND_Target));
  } else {
    CHECK(false);
  }
  tvm_ffi_release(t);
}

TEST(target_bad_input) {
  EXPECT_ERROR(HEADER "T.target(\"\")\n", "ValueError", "empty target string");
  EXPECT_ERROR(HEADER "T.target(\"llvm mcpu\")\n", "ValueError", "expected an option");
  EXPECT_ERROR(HEADER "T.target({\"mcpu\": \"x\"})\n", "ValueError", "needs a \"kind\"");
  EXPECT_ERROR(HEADER "T.target(3)\n", "TypeError", "must be a target string, dict or Target");
  EXPECT_ERROR(HEADER "T.target(\"cuda\", host=3)\n", "TypeError", "argument 'host'");
  CHECK(tvm_tir_target_new("", NULL) == NULL);
  CHECK_RAISED("ValueError", "non-empty");
  TVMFFIAny k = tvm_ffi_any_int(1), v = tvm_ffi_any_int(2);
  void* bad = tvm_ffi_map_new(&k, &v, 1);
  CHECK(tvm_tir_target_new("llvm", bad) == NULL);
  CHECK_RAISED("TypeError", "attribute names must be strings");
  tvm_ffi_release(bad);
}

/* ---- T.index_map ----------------------------------------------------------------------------- */
TEST(index_map_of_a_lambda) {
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT64);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT64);
  void* initial = tvm_tir_list_take(ref(i), ref(j));
  void* final = tvm_tir_list_take(ref(j), tvm_tir_floordiv_take(i, tvm_tir_i64(4)));
  void* want = tvm_tir_index_map_new(initial, final, NULL);
  tvm_ffi_release(initial);
  tvm_ffi_release(final);
  tvm_ffi_release(j);
  void* m = PARSE(HEADER "T.index_map(lambda i, j: (j, i // 4))\n");
  EXPECT_PRINT(m, "T.index_map(lambda i, j: (j, i // T.int64(4)))");
  EXPECT_EQUAL(m, want);
  /* int32 indices, one result, an inverse. */
  m = PARSE(HEADER
            "T.index_map(lambda a, b: a * 8 + b, inverse_index_map=lambda f: (f // 8, "
            "f % 8), index_dtype=\"int32\")\n");
  EXPECT_PRINT(m,
               "T.index_map(lambda a, b: (a * 8 + b,), inverse_index_map=lambda f: (f // 8, "
               "f % 8), index_dtype=\"int32\")");
  if (is_kind(m, TVM_TIR_KIND_IndexMap)) {
    const tvm_tir_index_map_obj* im = m;
    CHECK_EQ_INT(tvm_ffi_seq_size(im->final_indices), 1);
    CHECK(tvm_ffi_any_as_object(&im->inverse_index_map,
                                tvm_tir_type_index(TVM_TIR_KIND_IndexMap)) != NULL);
  } else {
    CHECK(false);
  }
  tvm_ffi_release(m);
  EXPECT_ERROR(HEADER "T.index_map((1, 2))\n", "TypeError",
               "argument 'mapping' of T.index_map must be a lambda");
  EXPECT_ERROR(HEADER "T.index_map(lambda i: i, index_dtype=\"notatype\")\n", "ValueError",
               "notatype");
  void* not_vars = tvm_tir_list_take(tvm_tir_i64(0));
  CHECK(tvm_tir_index_map_new(not_vars, not_vars, NULL) == NULL);
  CHECK_RAISED("TypeError", "initial_indices[0] must be a Var");
  tvm_ffi_release(not_vars);
}

/* ---- I.Range --------------------------------------------------------------------------------- */
TEST(ir_range) {
  EXPECT_EQUAL(PARSE(HEADER "I.Range(2, 10)\n"),
               tvm_tir_range_take(tvm_tir_int(2), tvm_tir_int(8)));
  EXPECT_EQUAL(PARSE(HEADER "I.Range(0, 16)\n"),
               tvm_tir_range_take(tvm_tir_int(0), tvm_tir_int(16)));
  /* A Python int takes the other bound's dtype. */
  EXPECT_EQUAL(PARSE(HEADER "I.Range(T.int64(2), 10)\n"),
               tvm_tir_range_take(tvm_tir_i64(2), tvm_tir_i64(8)));
  void* r = PARSE(HEADER "I.Range(T.int64(0), T.int64(4))\n");
  EXPECT_PRINT(r, "I.Range(T.int64(0), T.int64(4))");
  tvm_ffi_release(r);
  EXPECT_ERROR(HEADER "I.Range()\n", "TypeError", "I.Range() takes 1 or 2 positional arguments");
  EXPECT_ERROR(HEADER "I.Range(0, 4, 2)\n", "TypeError", "takes 1 or 2");
  EXPECT_ERROR(HEADER "I.Range(\"a\", 4)\n", "TypeError", "");
}

/* ---- I.vdevice and I.module_global_infos ---------------------------------------------------- */
TEST(vdevice_in_global_infos) {
  void* mod = PARSE(HEADER
                    "@I.ir_module\n"
                    "class M:\n"
                    "    I.module_global_infos({\"vdevice\": [I.vdevice(\"cuda\", 1, "
                    "\"global\")]})\n"
                    "    @T.prim_func\n"
                    "    def f(A: T.Buffer((4,), \"float32\")):\n"
                    "        A[0] = T.float32(0)\n");
  const TVMFFIAny* infos =
      mod ? tvm_ffi_map_get_str(((const tvm_tir_ir_module_obj*)mod)->attrs, "global_infos") : NULL;
  const TVMFFIAny* devs = infos ? tvm_ffi_map_get_str(infos->v_obj, "vdevice") : NULL;
  CHECK(devs && devs->type_index == kTVMFFIArray && tvm_ffi_seq_size(devs->v_obj) == 1);
  if (devs && devs->type_index == kTVMFFIArray && tvm_ffi_seq_size(devs->v_obj) == 1) {
    tvm_tir_target_obj* cuda = tvm_tir_target_new("cuda", NULL);
    void* want = tvm_tir_vdevice_new(cuda, 1, "global");
    tvm_ffi_release(cuda);
    void* got = tvm_ffi_seq_obj_at(devs->v_obj, 0);
    tvm_ffi_retain(got);
    EXPECT_PRINT(got, "I.vdevice({\"kind\": \"cuda\"}, 1, \"global\")");
    EXPECT_EQUAL(got, want);
  }
  tvm_ffi_release(mod);
  EXPECT_ERROR(HEADER "I.vdevice(\"cuda\", -1)\n", "ValueError", "vdevice_id must be in");
  EXPECT_ERROR(HEADER "I.vdevice(\"cuda\", 0, 5)\n", "TypeError", "argument 'memory_scope'");
  EXPECT_ERROR(HEADER "I.vdevice()\n", "TypeError", "missing required argument 'target'");
  EXPECT_ERROR(HEADER "I.vdevice(\"cuda\", bogus=1)\n", "TypeError", "unexpected keyword");
  CHECK(tvm_tir_vdevice_new(NULL, 0, NULL) == NULL);
  CHECK_RAISED("TypeError", "the target must be a Target");
}

/* A vdevice list may hold other values (here ints): "llvm:0" names the first llvm device among
 * the devices only, both when parsing and when printing (which once read the ints as objects). */
TEST(vdevice_list_with_other_values) {
  void* mod = PARSE(HEADER
                    "from tvm.script import relax as R\n"
                    "@I.ir_module\n"
                    "class M:\n"
                    "    I.module_global_infos({\"vdevice\": [-1, I.vdevice(\"llvm\"), 1]})\n"
                    "    @R.function\n"
                    "    def main(x: R.Tensor((2,), \"float32\", vdevice=\"llvm:0\")):\n"
                    "        return x\n");
  void* text = mod ? tvm_script_print_obj(mod, NULL) : NULL;
  CHECK(text && strstr(tvm_ffi_str_cstr(text), "vdevice=\"llvm:0\"") != NULL);
  void* again = text ? PARSE(tvm_ffi_str_cstr(text)) : NULL;
  if (again) EXPECT_EQUAL(again, mod);
  else tvm_ffi_release(mod);
  tvm_ffi_release(text);
}

/* I.dummy_global_info(): upstream's content-free global info (test placeholders); all equal, printed
 * back as the call. */
TEST(dummy_global_info) {
  void* mod = PARSE(HEADER
                    "@I.ir_module\n"
                    "class M:\n"
                    "    I.module_global_infos({\"dummy\": [I.dummy_global_info(), "
                    "I.dummy_global_info()]})\n"
                    "    @T.prim_func\n"
                    "    def f(A: T.Buffer((4,), \"float32\")):\n"
                    "        A[0] = T.float32(0)\n");
  const TVMFFIAny* infos =
      mod ? tvm_ffi_map_get_str(((const tvm_tir_ir_module_obj*)mod)->attrs, "global_infos") : NULL;
  const TVMFFIAny* dummies = infos ? tvm_ffi_map_get_str(infos->v_obj, "dummy") : NULL;
  CHECK(dummies && dummies->type_index == kTVMFFIArray && tvm_ffi_seq_size(dummies->v_obj) == 2);
  if (dummies && dummies->type_index == kTVMFFIArray && tvm_ffi_seq_size(dummies->v_obj) == 2) {
    void* a = tvm_ffi_seq_obj_at(dummies->v_obj, 0);
    CHECK(tvm_tir_is(a, TVM_TIR_KIND_DummyGlobalInfo));
    CHECK(a != tvm_ffi_seq_obj_at(dummies->v_obj, 1));
    tvm_ffi_retain(a);
    EXPECT_PRINT(a, "I.dummy_global_info()");
    void* b = tvm_ffi_seq_obj_at(dummies->v_obj, 1);
    tvm_ffi_retain(b);
    EXPECT_EQUAL(b, tvm_tir_dummy_global_info_new()); /* (consumes both) */
    tvm_ffi_release(a);
  }
  tvm_ffi_release(mod);
  EXPECT_ERROR(HEADER "I.dummy_global_info(1)\n", "TypeError", "takes no arguments (1 given)");
  EXPECT_ERROR(HEADER "I.dummy_global_info(x=1)\n", "TypeError", "takes no arguments");
}

/* meta_var marks a value for metaprogramming: the value itself here. An assignment
 * `k = T.meta_var(2)` binds k to the value (upstream's bind_assign_value), not a LetStmt as
 * `k = 2` makes. */
/* Upstream's other spellings of the same builders: T.buffer (T.Buffer), and the module s_tir
 * (`from tvm.script import s_tir as Ts`: Ts.prim_func, Ts.sblock, Ts.axis are T's). */
TEST(upstream_module_aliases) {
  void* f = PARSE("from tvm.script import tirx as T\n"
                  "from tvm.script import s_tir as Ts\n"
                  "@Ts.prim_func\n"
                  "def f(A: T.buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
                  "    for i in range(4):\n"
                  "        with Ts.sblock(\"b\"):\n"
                  "            vi = Ts.axis.spatial(4, i)\n"
                  "            B[vi] = A[vi]\n");
  void* g = PARSE(HEADER
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((4,), \"float32\"), B: T.Buffer((4,), \"float32\")):\n"
                  "    for i in range(4):\n"
                  "        with T.sblock(\"b\"):\n"
                  "            vi = T.axis.spatial(4, i)\n"
                  "            B[vi] = A[vi]\n");
  EXPECT_EQUAL(f, g);
  EXPECT_ERROR("from tvm.script import s_ti as Ts\n", "SyntaxError", "unknown TVMScript module");
}

TEST(meta_var) {
  void* f = PARSE(HEADER
                  "N = 16\n"
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((16,), \"float32\")):\n"
                  "    for i in range(I.meta_var(N)):\n"
                  "        A[i] = T.meta_var(T.float32(0))\n");
  CHECK(f != NULL);
  void* g = PARSE(HEADER
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((16,), \"float32\")):\n"
                  "    for i in range(16):\n"
                  "        A[i] = T.float32(0)\n");
  EXPECT_EQUAL(f, g);
  EXPECT_ERROR(HEADER "I.meta_var()\n", "TypeError", "missing required argument 'value'");
  f = PARSE(HEADER
            "@T.prim_func\n"
            "def f(A: T.Buffer((4,), \"int32\"), h: T.handle):\n"
            "    k = T.meta_var(2)\n"
            "    code = I.meta_var(5)\n"
            "    A[k] = k + T.tvm_struct_get(h, 0, code, dtype=\"int32\")\n");
  g = PARSE(HEADER
            "@T.prim_func\n"
            "def f(A: T.Buffer((4,), \"int32\"), h: T.handle):\n"
            "    A[2] = 2 + T.tvm_struct_get(h, 0, 5, dtype=\"int32\")\n");
  EXPECT_EQUAL(f, g);
}

/* ---- GPU and runtime builtins ---------------------------------------------------------------- */
TEST(gpu_builtins_build_calls) {
  /* tvm_thread_allreduce returns a handle; the warp shuffles their value's dtype; vscale int32. */
  void* f =
      PARSE(HEADER
            "@T.prim_func\n"
            "def f(A: T.Buffer((32,), \"float32\"), B: T.Buffer((1,), \"float32\")):\n"
            "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
            "        with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "
            "\"reduce_scope\", T.reinterpret(\"handle\", T.uint64(0))):\n"
            "            T.tvm_thread_allreduce(T.uint32(1), A[tx], T.bool(True), B[0], tx)\n");
  CHECK(f != NULL);
  tvm_ffi_release(f);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT16);
  void* want = tvm_tir_call_take(TVM_TIR_FLOAT16, "tir.tvm_warp_shuffle",
                                 tvm_tir_const(TVM_TIR_UINT32, 0xffffffff), ref(x), tvm_tir_int(0),
                                 tvm_tir_int(32), tvm_tir_int(32));
  EXPECT_EQUAL_FREE(PARSE(HEADER "x = T.float16()\n"
                                 "T.tvm_warp_shuffle(T.uint32(4294967295), x, 0, 32, 32)\n"),
                    want);
  tvm_ffi_release(x);
  void* vs = PARSE(HEADER "T.vscale()\n");
  EXPECT_PRINT(vs, "T.vscale()");
  EXPECT_EQUAL(vs, tvm_tir_call_takev(TVM_TIR_INT32, "tir.vscale", 0, NULL));
  EXPECT_ERROR(HEADER "T.vscale(4)\n", "TypeError", "");
  void* h = tvm_tir_var("h", TVM_TIR_HANDLE);
  EXPECT_EQUAL_FREE(
      PARSE(HEADER "h = T.handle()\nT.tvm_fill_fragment(h, 16, 16, 16, 0, T.float32(0))\n"),
      tvm_tir_call_take(TVM_TIR_HANDLE, "tir.tvm_fill_fragment", ref(h), tvm_tir_int(16),
                        tvm_tir_int(16), tvm_tir_int(16), tvm_tir_int(0), tvm_tir_f32(0)));
  tvm_ffi_release(h);
}

/* The interpreter refuses what it cannot execute, naming it. */
TEST(interpreter_refuses_gpu_builtins) {
  void* f = PARSE(HEADER
                  "@T.prim_func\n"
                  "def f(A: T.Buffer((1,), \"int32\")):\n"
                  "    A[0] = T.vscale() * 4\n");
  CHECK(f != NULL);
  if (!f) return;
  int32_t data[1] = {0};
  int64_t shape[1] = {1};
  DLTensor t = {data, {kDLCPU, 0}, 1, {kDLInt, 32, 1}, shape, NULL, 0};
  TVMFFIAny arg = {0};
  arg.type_index = kTVMFFIDLTensorPtr;
  arg.v_ptr = &t;
  TVMFFIAny ret = tvm_ffi_any_none();
  CHECK(tvm_tir_interp_run(f, NULL, &arg, 1, &ret) != 0);
  CHECK_RAISED("NotImplementedError", "tir.vscale");
  tvm_ffi_release(f);
}

int main(void) {
  RUN(comm_reducer_of_a_lambda);
  RUN(comm_reducer_of_two_values);
  RUN(comm_reducer_bad_input);
  RUN(comm_reducer_constructor_checks);
  RUN(target_forms);
  RUN(target_bad_input);
  RUN(index_map_of_a_lambda);
  RUN(ir_range);
  RUN(vdevice_in_global_infos);
  RUN(vdevice_list_with_other_values);
  RUN(dummy_global_info);
  RUN(upstream_module_aliases);
  RUN(meta_var);
  RUN(gpu_builtins_build_calls);
  RUN(interpreter_refuses_gpu_builtins);
  return test_summary();
}
