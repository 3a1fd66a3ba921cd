/*
 * test_wellformed.c: Relax's well-formedness checker (tvm_relax_verify_well_formed). Well-formed
 * programs (an MLP-shaped chain with a symbolic batch from the BlockBuilder, a match_cast
 * defining a symbolic variable, an If, nested and recursive local functions, a module with a
 * PrimFunc) pass; for each rule a program that breaks it fails with a ValueError whose message
 * starts with the access path of the offending node. Programs the constructors refuse are made
 * with direct constructors (blocks reusing variables) or edited through reflection afterwards.
 */
#include <time.h>

#include "relax_testing.h"

/* ---- Keeping the test's objects: released together at the end of each test ------------------- */
static void* g_kept[4096];
static int g_num_kept;

static void* keep(void* obj) {
  if (!obj) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "building the program failed: %s: %s\n", e ? tvm_ffi_error_kind(e) : "?",
            e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    g_test_failed_checks++;
    return NULL;
  }
  if (g_num_kept < (int)(sizeof(g_kept) / sizeof(g_kept[0]))) g_kept[g_num_kept++] = obj;
  return obj;
}

static void drop_all(void) {
  while (g_num_kept > 0) tvm_ffi_release(g_kept[--g_num_kept]);
}

/* ---- Program pieces -------------------------------------------------------------------------- */
#define BOOL tvm_tir_dtype_bool()

static tvm_relax_sinfo_obj* t4(void) { return keep(rt_tensor(F32, 1, (int64_t)4)); }
static tvm_relax_sinfo_obj* t5(void) { return keep(rt_tensor(F32, 1, (int64_t)5)); }
/* R.Tensor((d,), "float32") for a PrimExpr d. */
static tvm_relax_sinfo_obj* t_sym(void* d) {
  void* dims[1] = {d};
  return keep(rt_tensor_sym(F32, 1, dims));
}
static tvm_tir_var_obj* sym(const char* name) { return keep(tvm_tir_var_new(name, I64)); }
static tvm_relax_var_obj* var(const char* name, tvm_relax_sinfo_obj* s) {
  return keep(tvm_relax_var_new(name, s, false));
}
static tvm_relax_var_obj* dfvar(const char* name, tvm_relax_sinfo_obj* s) {
  return keep(tvm_relax_var_new(name, s, true));
}
#define ARR(...) keep(rt_array(RT_NARGS(__VA_ARGS__), __VA_ARGS__))
static void* empty(void) { return keep(tvm_ffi_array_of_objects(NULL, 0)); }
static void* call1(const char* op, void* x) { return keep(RT_CALL(op, NULL, x)); }
static void* call2(const char* op, void* x, void* y) { return keep(RT_CALL(op, NULL, x, y)); }
static void* bind(void* v, void* value) { return keep(tvm_relax_var_binding_new(v, value)); }
static void* block(bool dataflow, void* bindings) {
  return keep(tvm_relax_block_new(bindings, dataflow));
}
static void* seq(void* blocks, void* body) { return keep(tvm_relax_seq_expr_new(blocks, body)); }
static void* func(void* params, void* body, bool pure) {
  return keep(tvm_relax_function_new(params, body, NULL, pure, NULL));
}
/* A function of params whose body is one block of bindings, returning ret. */
static void* func1(void* params, bool dataflow, void* bindings, void* ret, bool pure) {
  return func(params, seq(ARR(block(dataflow, bindings)), ret), pure);
}
/* An IRModule of n (name, function) pairs; GlobalVars made with the functions' struct info. */
static void* module(int n, const char* const* names, void* const* funcs) {
  TVMFFIAny keys[8], vals[8];
  for (int i = 0; i < n; ++i) {
    tvm_relax_sinfo_obj* s = keep(tvm_relax_expr_sinfo(funcs[i]));
    keys[i] = tvm_ffi_any_obj(keep(tvm_relax_global_var_new(names[i], s)));
    vals[i] = tvm_ffi_any_obj(funcs[i]);
  }
  void* map = keep(tvm_ffi_map_new(keys, vals, n));
  return keep(tvm_tir_ir_module_new(map, NULL));
}
/* Set field `name` of obj (an object just built by this test) through reflection. */
static void set_field(void* obj, const char* name, TVMFFIAny value) {
  const TVMFFIFieldInfo* f = tvm_ffi_type_find_field(tvm_ffi_type_index(obj), name);
  CHECK(f != NULL);
  if (f) CHECK_OK(tvm_ffi_field_set(obj, f, &value));
}
/* ---- Expectations ---------------------------------------------------------------------------- */
static void expect_ok_(int line, const void* obj) {
  if (!obj) return; /* keep() reported it */
  if (tvm_relax_verify_well_formed(obj) != 0) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "%s:%d: expected well-formed: %s: %s\n", __FILE__, line,
            e ? tvm_ffi_error_kind(e) : "?", e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    g_test_failed_checks++;
  }
}
#define EXPECT_OK(obj) expect_ok_(__LINE__, (obj))

/* The check fails with a ValueError "<path>: ...<part>...". */
static void expect_error_(int line, const void* obj, const char* path, const char* part) {
  if (!obj) return;
  int rc = tvm_relax_verify_well_formed(obj);
  void* e = tvm_ffi_error_take();
  const char* msg = e ? tvm_ffi_error_message(e) : "";
  size_t n = strlen(path);
  bool ok = rc != 0 && e && strcmp(tvm_ffi_error_kind(e), "ValueError") == 0 &&
            strncmp(msg, path, n) == 0 && strncmp(msg + n, ": ", 2) == 0 && strstr(msg, part);
  if (!ok) {
    fprintf(stderr, "%s:%d: expected ValueError \"%s: ...%s...\", got rc %d %s: %s\n", __FILE__,
            line, path, part, rc, e ? tvm_ffi_error_kind(e) : "(none)", msg);
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}
#define EXPECT_ERROR(obj, path, part) expect_error_(__LINE__, (obj), (path), (part))

/* ---- Well-formed programs -------------------------------------------------------------------- */
/* main(x: (n, 4), w: (4,), b: (4,)): an MLP-shaped dataflow chain (elementwise layers) built with
 * the BlockBuilder, and caller(y: (8, 4)) calling it through its GlobalVar. */
TEST(mlp_with_symbolic_batch_passes) {
  tvm_tir_var_obj* n = sym("n");
  tvm_tir_expr_obj* four = keep(tvm_tir_const_int(I64, 4));
  void* dims[2] = {n, four};
  tvm_relax_var_obj* x = var("x", keep(rt_tensor_sym(F32, 2, dims)));
  tvm_relax_var_obj* w = var("w", t4());
  tvm_relax_var_obj* b = var("b", t4());
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", ARR(x, w, b), NULL, true));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  /* Nested calls: the builder puts them in A-normal form. */
  void* h = call1("relax.nn.relu", call2("relax.add", call2("relax.multiply", x, w), b));
  tvm_relax_var_obj* lv = keep(tvm_relax_bb_emit(bb, h, NULL));
  tvm_relax_var_obj* lv2 = keep(tvm_relax_bb_emit(bb, call2("relax.multiply", lv, w), NULL));
  tvm_relax_var_obj* gv = keep(tvm_relax_bb_emit_output(bb, call1("relax.sigmoid", lv2), NULL));
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* main_gv = keep(tvm_relax_bb_function_end(bb, (void*)gv, NULL));
  tvm_relax_var_obj* y = var("y", keep(rt_tensor(F32, 2, (int64_t)8, (int64_t)4)));
  tvm_relax_var_obj* w2 = var("w2", t4());
  tvm_relax_var_obj* b2 = var("b2", t4());
  CHECK_OK(tvm_relax_bb_function_begin(bb, "caller", ARR(y, w2, b2), NULL, true));
  void* c = keep(tvm_relax_call_new(main_gv, ARR(y, w2, b2), NULL, NULL, NULL));
  tvm_relax_var_obj* r = keep(tvm_relax_bb_emit(bb, c, NULL));
  keep(tvm_relax_bb_function_end(bb, (void*)r, NULL));
  tvm_tir_ir_module_obj* mod = keep(tvm_relax_bb_module(bb));
  tvm_relax_bb_free(bb);
  EXPECT_OK(mod);
  /* The functions alone too. */
  void* main_fn = keep(tvm_tir_ir_module_lookup(mod, "main"));
  EXPECT_OK(main_fn);
  /* A JSON round trip keeps it well-formed (the check reads every field of loaded nodes). */
  TVMFFIAny m = tvm_ffi_any_obj(mod);
  tvm_ffi_strbuf json = {0};
  CHECK_OK(tvm_ffi_json_save(&m, &json));
  TVMFFIAny back = tvm_ffi_any_none();
  CHECK_OK(tvm_ffi_json_load(tvm_ffi_strbuf_cstr(&json), json.size, &back));
  if (tvm_ffi_any_is_object(&back)) EXPECT_OK(back.v_obj);
  tvm_ffi_any_release(&back);
  tvm_ffi_strbuf_free(&json);
  drop_all();
}

/* f(x: R.Tensor(ndim=2)) { lv = match_cast(x, (m, k)); y = add(lv, lv); s = (m * 2, k);
 * p = R.prim_value(m); return y } */
TEST(match_cast_defines_symbolic_vars) {
  tvm_relax_var_obj* x = var("x", keep(tvm_relax_tensor_sinfo_new(NULL, F32, 2, NULL)));
  tvm_tir_var_obj* m = sym("m");
  tvm_tir_var_obj* k = sym("k");
  void* dims[2] = {m, k};
  tvm_relax_sinfo_obj* mk = keep(rt_tensor_sym(F32, 2, dims));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "f", ARR(x), NULL, true));
  tvm_relax_var_obj* lv = keep(tvm_relax_bb_match_cast(bb, (void*)x, mk, "lv"));
  tvm_relax_var_obj* y = keep(tvm_relax_bb_emit(bb, call2("relax.add", lv, lv), "y"));
  tvm_tir_expr_obj* m2 = keep(tvm_tir_mul((void*)m, keep(tvm_tir_const_int(I64, 2))));
  keep(tvm_relax_bb_emit(bb, keep(tvm_relax_shape_expr_new(ARR(m2, k))), "s"));
  keep(tvm_relax_bb_emit(bb, keep(tvm_relax_prim_value_new((void*)m)), "p"));
  tvm_tir_global_var_obj* g = keep(tvm_relax_bb_function_end(bb, (void*)y, NULL));
  (void)g;
  tvm_tir_ir_module_obj* mod = keep(tvm_relax_bb_module(bb));
  tvm_relax_bb_free(bb);
  EXPECT_OK(mod);
  drop_all();
}

/* f(c: R.Prim("bool"), x: (4,)) { r = if c { a = exp(x); a } else { a2 = negative(x); a2 };
 * return r } */
static void* if_program(void* cond_var, void* x, void** out_if) {
  tvm_relax_var_obj* a = var("a", t4());
  tvm_relax_var_obj* a2 = var("a2", t4());
  void* t = seq(ARR(block(false, ARR(bind(a, call1("relax.exp", x))))), a);
  void* f = seq(ARR(block(false, ARR(bind(a2, call1("relax.negative", x))))), a2);
  void* e = keep(tvm_relax_if_new(cond_var, t, f));
  if (out_if) *out_if = e;
  tvm_relax_var_obj* r = var("r", t4());
  return func1(ARR(cond_var, x), false, ARR(bind(r, e)), r, true);
}

TEST(if_with_both_branches_passes) {
  tvm_relax_var_obj* c = var("c", keep(tvm_relax_prim_sinfo_new(BOOL, NULL)));
  tvm_relax_var_obj* x = var("x", t4());
  EXPECT_OK(if_program(c, x, NULL));
  drop_all();
}

/* f(x: (4,)) { g = fn(y: (4,)) { z = add(x, y); z }; r = g(x); return r }, and a local function
 * calling itself through its variable. */
TEST(nested_and_recursive_functions_pass) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* z = var("z", t4());
  void* inner = func1(ARR(y), false, ARR(bind(z, call2("relax.add", x, y))), z, true);
  tvm_relax_var_obj* g = var("g", keep(tvm_relax_expr_sinfo(inner)));
  tvm_relax_var_obj* r = var("r", t4());
  void* call = keep(tvm_relax_call_new(g, ARR(x), NULL, NULL, NULL));
  void* f = func1(ARR(x), false, ARR(bind(g, inner), bind(r, call)), r, true);
  EXPECT_OK(f);

  /* h = fn(u) { v = h(u); v } */
  tvm_relax_sinfo_obj* hs = keep(tvm_relax_func_sinfo_new(ARR(t4()), t4(), true));
  tvm_relax_var_obj* h = var("h", hs);
  tvm_relax_var_obj* u = var("u", t4());
  tvm_relax_var_obj* v = var("v", t4());
  void* rec_call = keep(tvm_relax_call_new(h, ARR(u), NULL, NULL, NULL));
  void* rec = keep(tvm_relax_function_new(ARR(u), seq(ARR(block(false, ARR(bind(v, rec_call)))), v),
                                          t4(), true, NULL));
  tvm_relax_var_obj* x2 = var("x2", t4());
  tvm_relax_var_obj* out = var("out", t4());
  void* f2 =
      func1(ARR(x2), false,
            ARR(bind(h, rec), bind(out, keep(tvm_relax_call_new(h, ARR(x2), NULL, NULL, NULL)))),
            out, true);
  EXPECT_OK(f2);
  drop_all();
}

/* ---- Variables: defined before use, once ----------------------------------------------------- */
TEST(var_used_before_definition) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* a = var("a", t4());
  tvm_relax_var_obj* b = var("b", t4());
  void* f = func1(ARR(x), false,
                  ARR(bind(a, call1("relax.exp", b)), bind(b, call1("relax.exp", x))), a, true);
  EXPECT_ERROR(f, "<root>.body.blocks[0].bindings[0].value.args[0]",
               "Var b is used before its definition");
  /* The function's result, never bound. */
  tvm_relax_var_obj* ghost = var("ghost", t4());
  EXPECT_ERROR(func1(ARR(x), false, ARR(bind(b, call1("relax.exp", x))), ghost, true),
               "<root>.body.body", "Var ghost is used before its definition");
  drop_all();
}

TEST(var_bound_twice) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* a = var("a", t4());
  void* f = func1(ARR(x), false,
                  ARR(bind(a, call1("relax.exp", x)), bind(a, call1("relax.exp", x))), a, true);
  EXPECT_ERROR(f, "<root>.body.blocks[0].bindings[1].var", "Var a is bound more than once");
  /* A parameter bound again. */
  EXPECT_ERROR(func1(ARR(x), false, ARR(bind(x, call1("relax.exp", x))), x, true),
               "<root>.body.blocks[0].bindings[0].var", "Var x is bound more than once");
  /* Twice in one parameter list. */
  EXPECT_ERROR(func(ARR(x, x), x, true), "<root>.params[1]", "Var x is bound more than once");
  /* In both branches of an If. */
  tvm_relax_var_obj* c = var("c", keep(tvm_relax_prim_sinfo_new(BOOL, NULL)));
  void* t = seq(ARR(block(false, ARR(bind(a, call1("relax.exp", x))))), a);
  void* e = keep(tvm_relax_if_new((void*)c, t, t));
  tvm_relax_var_obj* r = var("r", t4());
  EXPECT_ERROR(func1(ARR(c, x), false, ARR(bind(r, e)), r, true),
               "<root>.body.blocks[0].bindings[0].value.false_branch.blocks[0].bindings[0].var",
               "Var a is bound more than once");
  drop_all();
}

TEST(var_used_outside_its_scope) {
  /* a is bound in the If's true branch, used after the If. */
  tvm_relax_var_obj* c = var("c", keep(tvm_relax_prim_sinfo_new(BOOL, NULL)));
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* a = var("a", t4());
  tvm_relax_var_obj* a2 = var("a2", t4());
  void* t = seq(ARR(block(false, ARR(bind(a, call1("relax.exp", x))))), a);
  void* f = seq(ARR(block(false, ARR(bind(a2, call1("relax.exp", x))))), a2);
  void* e = keep(tvm_relax_if_new((void*)c, t, f));
  tvm_relax_var_obj* r = var("r", t4());
  tvm_relax_var_obj* s = var("s", t4());
  void* fn = func1(ARR(c, x), false, ARR(bind(r, e), bind(s, call2("relax.add", r, a))), s, true);
  EXPECT_ERROR(fn, "<root>.body.blocks[0].bindings[1].value.args[1]",
               "Var a is used outside its scope");
  /* A nested function's variable used after it. */
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* z = var("z", t4());
  void* inner = func1(ARR(y), false, ARR(bind(z, call1("relax.exp", y))), z, true);
  tvm_relax_var_obj* g = var("g", keep(tvm_relax_expr_sinfo(inner)));
  tvm_relax_var_obj* x3 = var("x3", t4());
  EXPECT_ERROR(func1(ARR(x3), false, ARR(bind(g, inner)), z, true), "<root>.body.body",
               "Var z is used outside its scope");
  drop_all();
}

TEST(vars_of_one_function_not_in_another) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* a = var("a", t4());
  tvm_relax_var_obj* b = var("b", t4());
  void* f = func1(ARR(x), false, ARR(bind(a, call1("relax.exp", x))), a, true);
  void* g = func1(ARR(y), false, ARR(bind(b, call2("relax.add", y, x))), b, true);
  const char* names[2] = {"f", "g"};
  void* fns[2] = {f, g};
  EXPECT_ERROR(module(2, names, fns), "<root>[\"g\"].body.blocks[0].bindings[0].value.args[1]",
               "Var x of function f is used in function g");
  /* A parameter shared by two functions. */
  tvm_relax_var_obj* b2 = var("b2", t4());
  void* g2 = func1(ARR(x), false, ARR(bind(b2, call1("relax.exp", x))), b2, true);
  void* fns2[2] = {f, g2};
  EXPECT_ERROR(module(2, names, fns2), "<root>[\"g\"].params[0]",
               "Var x is bound in both function f and function g");
  drop_all();
}

/* ---- Dataflow blocks ------------------------------------------------------------------------- */
TEST(dataflow_var_used_outside_its_block) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* lv = dfvar("lv", t4());
  tvm_relax_var_obj* gv = var("gv", t4());
  void* df = block(true, ARR(bind(lv, call1("relax.exp", x))));
  /* In a later ordinary block. */
  void* f =
      func(ARR(x), seq(ARR(df, block(false, ARR(bind(gv, call1("relax.exp", lv))))), gv), true);
  EXPECT_ERROR(f, "<root>.body.blocks[1].bindings[0].value.args[0]",
               "DataflowVar lv used outside its dataflow block");
  /* In a later dataflow block. */
  tvm_relax_var_obj* gv2 = var("gv2", t4());
  f = func(ARR(x), seq(ARR(df, block(true, ARR(bind(gv2, call1("relax.exp", lv))))), gv2), true);
  EXPECT_ERROR(f, "<root>.body.blocks[1].bindings[0].value.args[0]",
               "DataflowVar lv used outside its dataflow block");
  /* As the function's result. */
  f = func(ARR(x), seq(ARR(df), lv), true);
  EXPECT_ERROR(f, "<root>.body.body", "DataflowVar lv used outside its dataflow block");
  /* Captured by a local function. */
  tvm_relax_var_obj* lv3 = dfvar("lv3", t4());
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* z = var("z", t4());
  void* inner = func1(ARR(y), false, ARR(bind(z, call2("relax.add", y, lv3))), z, true);
  tvm_relax_var_obj* g = var("g", keep(tvm_relax_expr_sinfo(inner)));
  tvm_relax_var_obj* o = var("o", t4());
  void* df3 = block(true, ARR(bind(lv3, call1("relax.exp", x)), bind(g, inner),
                              bind(o, call1("relax.exp", lv3))));
  EXPECT_ERROR(func(ARR(x), seq(ARR(df3), o), true),
               "<root>.body.blocks[0].bindings[1].value.body.blocks[0].bindings[0].value.args[1]",
               "DataflowVar lv3 used outside its dataflow block");
  drop_all();
}

TEST(dataflow_var_bound_outside_a_dataflow_block) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* lv = dfvar("lv", t4());
  tvm_relax_var_obj* gv = var("gv", t4());
  void* f = func1(ARR(x), false,
                  ARR(bind(lv, call1("relax.exp", x)), bind(gv, call1("relax.exp", x))), gv, true);
  EXPECT_ERROR(f, "<root>.body.blocks[0].bindings[0].var",
               "DataflowVar lv is bound outside a dataflow block");
  /* A DataflowVar parameter (the constructor refuses one: set through reflection). */
  void* g = func1(ARR(x), false, ARR(bind(gv, call1("relax.exp", x))), gv, true);
  set_field(g, "params", tvm_ffi_any_obj(ARR(lv)));
  EXPECT_ERROR(g, "<root>.params[0]", "DataflowVar lv cannot be a function parameter");
  drop_all();
}

TEST(if_and_seq_expr_placement) {
  tvm_relax_var_obj* c = var("c", keep(tvm_relax_prim_sinfo_new(BOOL, NULL)));
  tvm_relax_var_obj* x = var("x", t4());
  void* e = NULL;
  void* f = if_program(c, x, &e);
  /* The same If inside a dataflow block. */
  tvm_relax_var_obj* lv = dfvar("lv", t4());
  tvm_relax_var_obj* gv = var("gv", t4());
  void* g =
      func(ARR(c, x), seq(ARR(block(true, ARR(bind(lv, e), bind(gv, call1("relax.exp", lv))))), gv),
           true);
  EXPECT_ERROR(g, "<root>.body.blocks[0].bindings[0].value",
               "an If may not appear in a dataflow block");
  /* A SeqExpr as a binding's value. */
  tvm_relax_var_obj* s = var("s", t4());
  void* inner = seq(NULL, x);
  EXPECT_ERROR(func1(ARR(x), false, ARR(bind(s, inner)), s, true),
               "<root>.body.blocks[0].bindings[0].value",
               "a SeqExpr may only be a function's body or a branch of an If");
  /* A function body that is not a SeqExpr. */
  void* h = func(ARR(x), x, true);
  set_field(h, "body", tvm_ffi_any_obj(x));
  EXPECT_ERROR(h, "<root>.body", "must be a SeqExpr, got x");
  /* An If branch that is not a SeqExpr. */
  set_field(e, "true_branch", tvm_ffi_any_obj(x));
  EXPECT_ERROR(f, "<root>.body.blocks[0].bindings[0].value.true_branch",
               "must be a SeqExpr, got x");
  drop_all();
}

TEST(if_condition_must_be_bool) {
  tvm_relax_var_obj* c = var("c", keep(tvm_relax_prim_sinfo_new(BOOL, NULL)));
  tvm_relax_var_obj* x = var("x", t4());
  void* e = NULL;
  void* f = if_program(c, x, &e);
  EXPECT_OK(f);
  set_field(e, "cond", tvm_ffi_any_obj(x));
  EXPECT_ERROR(
      f, "<root>.body.blocks[0].bindings[0].value.cond",
      "the condition of an If must be a bool scalar, got R.Tensor((4,), dtype=\"float32\")");
  drop_all();
}

/* ---- Symbolic variables ---------------------------------------------------------------------- */
TEST(symbolic_var_defined_before_use) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_tir_var_obj* n = sym("n");
  /* In a binding variable's annotation ((n,) vs (4,) needs a runtime check, which the
   * constructor accepts). */
  tvm_relax_var_obj* a = var("a", t_sym(n));
  EXPECT_ERROR(
      func1(ARR(x), false, ARR(bind(a, call1("relax.exp", x))), x, true),
      "<root>.body.blocks[0].bindings[0].var.struct_info_.shape.values[0]",
      "symbolic variable n is used before a parameter's struct info or a match_cast defines it");
  /* Inside a composite dim, n * 2 + 1 (located at the dim); with n defined by a parameter the
   * same annotation passes. */
  void* d =
      keep(tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(n), tvm_tir_i64(2)), tvm_tir_i64(1)));
  tvm_relax_var_obj* b = var("b", t_sym(d));
  EXPECT_ERROR(
      func1(ARR(x), false, ARR(bind(b, call1("relax.exp", x))), x, true),
      "<root>.body.blocks[0].bindings[0].var.struct_info_.shape.values[0]",
      "symbolic variable n is used before a parameter's struct info or a match_cast defines it");
  tvm_relax_var_obj* x_n = var("x_n", t_sym(n));
  tvm_relax_var_obj* b2 = var("b2", t_sym(d));
  EXPECT_OK(func1(ARR(x_n), false, ARR(bind(b2, call1("relax.exp", x_n))), x_n, true));
  /* In a PrimValue. */
  void* pv = keep(tvm_relax_prim_value_new((void*)n));
  tvm_relax_var_obj* p = var("p", keep(tvm_relax_prim_sinfo_new(I64, (void*)n)));
  EXPECT_ERROR(func1(ARR(x), false, ARR(bind(p, pv)), x, true),
               "<root>.body.blocks[0].bindings[0].value.value",
               "symbolic variable n is used before");
  /* In a ShapeExpr, before the match_cast that defines it. */
  tvm_tir_expr_obj* n2 = keep(tvm_tir_mul((void*)n, keep(tvm_tir_const_int(I64, 2))));
  void* shape = keep(tvm_relax_shape_expr_new(ARR(n2)));
  tvm_relax_var_obj* s = var("s", keep(tvm_relax_expr_sinfo(shape)));
  tvm_relax_var_obj* xn = var("xn", t_sym(n));
  tvm_relax_var_obj* x1 = var("x1", keep(tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL)));
  void* mc = keep(tvm_relax_match_cast_new(xn, (void*)x1, t_sym(n)));
  EXPECT_ERROR(func1(ARR(x1), false, ARR(bind(s, shape), mc), xn, true),
               "<root>.body.blocks[0].bindings[0].value.values[0]",
               "symbolic variable n is used before");
  /* After it: fine. */
  tvm_relax_var_obj* s2 = var("s2", keep(tvm_relax_expr_sinfo(shape)));
  EXPECT_OK(func1(ARR(x1), false, ARR(mc, bind(s2, shape)), xn, true));
  /* Defined by a parameter: fine, also when an earlier parameter uses it. */
  tvm_relax_var_obj* u = var("u", keep(tvm_relax_tensor_sinfo_of_dims(ARR(n2), F32)));
  tvm_relax_var_obj* v = var("v", t_sym(n));
  EXPECT_OK(func(ARR(u, v), u, true));
  drop_all();
}

/* A tensor whose shape is given by a Relax Var of shape struct info: the Var must be in scope. */
TEST(shape_var_in_struct_info) {
  tvm_relax_var_obj* s = var("s", keep(tvm_relax_shape_sinfo_new(NULL, 2)));
  tvm_relax_var_obj* x = var("x", keep(tvm_relax_tensor_sinfo_new(s, F32, 2, NULL)));
  EXPECT_OK(func(ARR(s, x), x, true));
  EXPECT_ERROR(func(ARR(x, s), x, true), "<root>.params[0].struct_info_.shape",
               "Var s is used before its definition");
  drop_all();
}

/* IR nested deeper than the walk allows is an error, not a stack overflow. */
TEST(deep_nesting) {
  tvm_relax_var_obj* x = var("x", t4());
  void* t = x;
  tvm_ffi_retain(t);
  for (int i = 0; i < 6000 && t; ++i) {
    void* one = rt_array(1, t);
    void* next = tvm_relax_tuple_new(one);
    tvm_ffi_release(one);
    tvm_ffi_release(t);
    t = next;
  }
  CHECK(t != NULL);
  keep(t);
  tvm_relax_var_obj* v = var("v", keep(tvm_relax_expr_sinfo(t)));
  /* The message gives the path's first steps only. */
  CHECK(tvm_relax_verify_well_formed(func1(ARR(x), false, ARR(bind(v, t)), x, true)) != 0);
  CHECK_RAISED("ValueError",
               "<root>.body.blocks[0].bindings[0].value.fields[0]...: IR nested deeper than");
  drop_all();
}

TEST(symbolic_vars_stay_in_their_function) {
  tvm_tir_var_obj* n = sym("n");
  tvm_relax_var_obj* x = var("x", t_sym(n));
  tvm_relax_var_obj* y = var("y", t_sym(n));
  void* f = func(ARR(x), x, true);
  void* g = func(ARR(y), y, true);
  const char* names[2] = {"f", "g"};
  void* fns[2] = {f, g};
  EXPECT_ERROR(module(2, names, fns), "<root>[\"g\"].params[0]",
               "symbolic variable n is used in both function f and function g");
  /* A local function capturing x: n is not defined in it (as upstream: symbolic variables do
   * not cross function boundaries). */
  tvm_relax_var_obj* gv = var(
      "inner", keep(tvm_relax_func_sinfo_new(empty(), keep(tvm_relax_object_sinfo_new()), true)));
  void* inner = func(empty(), x, true);
  void* outer = func1(ARR(x), false, ARR(bind(gv, inner)), x, true);
  EXPECT_ERROR(outer,
               "<root>.body.blocks[0].bindings[0].value.body.body.struct_info_.shape.values[0]",
               "symbolic variable n is used before");
  drop_all();
}

/* A function's attrs may use the symbolic variables its parameters define (upstream's
 * relax.rewrite_cuda_graph.capture_symbolic_vars), no other; a module's attrs none. */
static void* attrs1(const char* key, void* value) {
  TVMFFIAny k = tvm_ffi_string(key), v = tvm_ffi_any_obj(value);
  void* map = keep(tvm_ffi_map_new(&k, &v, 1));
  tvm_ffi_any_release(&k);
  return map;
}

TEST(attrs_use_defined_symbolic_vars) {
  tvm_tir_var_obj* n = sym("n");
  tvm_tir_var_obj* m = sym("m");
  tvm_relax_var_obj* x = var("x", t_sym(n));
  const char* key = "relax.rewrite_cuda_graph.capture_symbolic_vars";
  EXPECT_OK(keep(tvm_relax_function_new(ARR(x), (void*)x, NULL, true, attrs1(key, ARR(n)))));
  EXPECT_ERROR(keep(tvm_relax_function_new(ARR(x), (void*)x, NULL, true, attrs1(key, ARR(n, m)))),
               "<root>.attrs[\"relax.rewrite_cuda_graph.capture_symbolic_vars\"]",
               "symbolic variable m is used before a parameter's struct info");
  /* A variable of the body (a match_cast's) is not in the attrs' scope. */
  tvm_relax_var_obj* x1 = var("x1", keep(tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL)));
  tvm_relax_var_obj* xm = var("xm", t_sym(m));
  void* body = seq(ARR(block(false, ARR(keep(tvm_relax_match_cast_new(xm, (void*)x1, t_sym(m)))))),
                   xm);
  EXPECT_ERROR(keep(tvm_relax_function_new(ARR(x1), body, NULL, true, attrs1("k", m))),
               "<root>.attrs[\"k\"]", "symbolic variable m is used before");
  /* Module attrs: no variable. */
  void* f = func(ARR(x), x, true);
  const char* names[1] = {"f"};
  void* mod = module(1, names, (void* const[]){f});
  void* with_attrs = keep(tvm_tir_ir_module_new(((tvm_tir_ir_module_obj*)mod)->functions,
                                                attrs1("k", ARR(n))));
  CHECK_EQ_INT(tvm_relax_verify_well_formed(with_attrs), -1);
  CHECK_RAISED("ValueError", "in the module's attrs: well-formedness: variable `n` is bound nowhere");
  EXPECT_OK(keep(tvm_tir_ir_module_new(((tvm_tir_ir_module_obj*)mod)->functions,
                                       attrs1("k", keep(tvm_ffi_str_obj("a long enough string value", 26))))));
  drop_all();
}

/* ---- Struct info ----------------------------------------------------------------------------- */
static bool vouch_for(void* ctx, const void* call) { return call == ctx; }

TEST(struct_info_present_and_consistent) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* a = var("a", t4());
  void* c = call1("relax.exp", x);
  void* f = func1(ARR(x), false, ARR(bind(a, c)), a, true);
  EXPECT_OK(f);
  /* The call's struct info contradicts what its operator infers. */
  set_field(c, "struct_info_", tvm_ffi_any_obj(t5()));
  EXPECT_ERROR(f, "<root>.body.blocks[0].bindings[0].value",
               "the call's struct info R.Tensor((5,), dtype=\"float32\") contradicts the inferred "
               "R.Tensor((4,), dtype=\"float32\")");
  /* A caller that vouches for the Call (tvm_relax_wf_options.call_inferred) is taken at its word
   * for that Call only: the other rules are checked, and other Calls are inferred again. */
  tvm_relax_wf_options wo = {vouch_for, c};
  CHECK_EQ_INT(tvm_relax_verify_well_formed_ex(f, &wo), -1); /* (its binding's Var still differs) */
  CHECK_RAISED("ValueError", "is not an instance of the annotation R.Tensor((4,)");
  tvm_relax_wf_options other = {vouch_for, x};
  CHECK_EQ_INT(tvm_relax_verify_well_formed_ex(f, &other), -1);
  CHECK_RAISED("ValueError", "contradicts the inferred");
  /* None at all. */
  set_field(c, "struct_info_", tvm_ffi_any_none());
  EXPECT_ERROR(f, "<root>.body.blocks[0].bindings[0].value", "R.exp(...) has no struct info");
  /* A binding's annotation that its value's struct info contradicts. */
  tvm_relax_var_obj* b = var("b", t4());
  void* g = func1(ARR(x), false, ARR(bind(b, call1("relax.exp", x))), x, true);
  set_field(b, "struct_info_", tvm_ffi_any_obj(t5()));
  EXPECT_ERROR(
      g, "<root>.body.blocks[0].bindings[0]",
      "the value's struct info R.Tensor((4,), dtype=\"float32\") is not an instance of the "
      "annotation R.Tensor((5,), dtype=\"float32\") of b");
  /* A match_cast whose struct info its value can never have, and its variable's annotation
   * against the cast. */
  tvm_relax_var_obj* m = var("m", t4());
  void* mc = keep(tvm_relax_match_cast_new(m, (void*)x, t4()));
  void* k = func1(ARR(x), false, ARR(mc), m, true);
  EXPECT_OK(k);
  set_field(m, "struct_info_", tvm_ffi_any_obj(t5()));
  EXPECT_ERROR(
      k, "<root>.body.blocks[0].bindings[0]",
      "the match_cast's struct info R.Tensor((4,), dtype=\"float32\") is not an instance of "
      "the annotation R.Tensor((5,), dtype=\"float32\") of m");
  set_field(mc, "struct_info", tvm_ffi_any_obj(t5()));
  EXPECT_ERROR(k, "<root>.body.blocks[0].bindings[0].struct_info",
               "the value's struct info R.Tensor((4,), dtype=\"float32\") can never match "
               "R.Tensor((5,), dtype=\"float32\")");
  /* The body against the return annotation. */
  tvm_relax_var_obj* d = var("d", t4());
  void* h = keep(tvm_relax_function_new(ARR(d), (void*)d, t4(), true, NULL));
  set_field(h, "ret_struct_info", tvm_ffi_any_obj(t5()));
  EXPECT_ERROR(h, "<root>.body", "is not an instance of the return annotation R.Tensor((5,)");
  drop_all();
}

TEST(a_normal_form) {
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* a = var("a", t4());
  void* nested = call2("relax.add", call1("relax.exp", x), x);
  EXPECT_ERROR(func1(ARR(x), false, ARR(bind(a, nested)), a, true),
               "<root>.body.blocks[0].bindings[0].value.args[0]",
               "not in A-normal form: R.exp(...) must be bound to a variable first");
  /* A function body's result must be a leaf too. */
  EXPECT_ERROR(func(ARR(x), call1("relax.exp", x), true), "<root>.body.body",
               "not in A-normal form");
  drop_all();
}

/* ---- Purity ---------------------------------------------------------------------------------- */
/* lv = ext(x) (an opaque ExternFunc: impure) in a block of the given kind. */
static void* extern_call_program(bool dataflow, bool pure, bool force_pure) {
  tvm_relax_var_obj* x = var("x", t4());
  void* ext = keep(tvm_relax_extern_func_new("ext", NULL));
  void* c = keep(tvm_relax_call_new(ext, ARR(x), NULL, ARR(t4()), NULL));
  tvm_relax_var_obj* lv = dataflow ? dfvar("lv", t4()) : var("lv", t4());
  tvm_relax_var_obj* gv = var("gv", t4());
  void* f = func1(ARR(x), dataflow, ARR(bind(lv, c), bind(gv, call1("relax.exp", lv))), gv, pure);
  if (force_pure) {
    TVMFFIAny t = tvm_ffi_any_bool(true);
    f = keep(tvm_relax_function_with_attr(f, "relax.force_pure", &t));
  }
  return f;
}

TEST(impure_calls) {
  EXPECT_ERROR(extern_call_program(true, false, false), "<root>.body.blocks[0].bindings[0].value",
               "impure call to ExternFunc inside a dataflow block");
  EXPECT_ERROR(extern_call_program(false, true, false), "<root>.body.blocks[0].bindings[0].value",
               "impure call to ExternFunc in a pure function");
  EXPECT_OK(extern_call_program(false, false, false)); /* an impure function */
  EXPECT_OK(extern_call_program(false, true, true));   /* forced pure */
  /* ... but never inside a dataflow block. */
  EXPECT_ERROR(extern_call_program(true, true, true), "<root>.body.blocks[0].bindings[0].value",
               "inside a dataflow block");
  /* force_pure on an impure function. */
  void* f = extern_call_program(false, false, false);
  TVMFFIAny t = tvm_ffi_any_bool(true);
  EXPECT_ERROR(keep(tvm_relax_function_with_attr(f, "relax.force_pure", &t)), "<root>",
               "relax.force_pure but is_pure false");
  /* An impure operator (relax.print; its call made from exp's through reflection). */
  tvm_relax_var_obj* x = var("x", t4());
  tvm_relax_var_obj* lv = dfvar("lv", t4());
  tvm_relax_var_obj* gv = var("gv", t4());
  void* c = call1("relax.exp", x);
  void* g = func1(ARR(x), true, ARR(bind(lv, c), bind(gv, call1("relax.exp", lv))), gv, true);
  set_field(c, "op", tvm_ffi_any_obj(tvm_relax_op(TVM_RELAX_OP_print)));
  EXPECT_ERROR(g, "<root>.body.blocks[0].bindings[0].value",
               "impure call to relax.print inside a dataflow block");
  drop_all();
}

TEST(impure_module_function_called_from_pure_one) {
  /* log_it(x) is impure; main(y) is pure and calls it. */
  tvm_relax_var_obj* x = var("x", t4());
  void* log_it = func(ARR(x), x, false);
  tvm_relax_sinfo_obj* ls = keep(tvm_relax_expr_sinfo(log_it));
  tvm_tir_global_var_obj* lg = keep(tvm_relax_global_var_new("log_it", ls));
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* r = var("r", t4());
  void* c = keep(tvm_relax_call_new(lg, ARR(y), NULL, NULL, NULL));
  void* main_fn = func1(ARR(y), false, ARR(bind(r, c)), r, true);
  TVMFFIAny keys[2] = {
      tvm_ffi_any_obj(lg),
      tvm_ffi_any_obj(keep(tvm_relax_global_var_new("main", keep(tvm_relax_expr_sinfo(main_fn)))))};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(log_it), tvm_ffi_any_obj(main_fn)};
  void* mod = keep(tvm_tir_ir_module_new(keep(tvm_ffi_map_new(keys, vals, 2)), NULL));
  EXPECT_ERROR(mod, "<root>[\"main\"].body.blocks[0].bindings[0].value",
               "impure call to @log_it in a pure function");
  drop_all();
}

/* ---- Modules --------------------------------------------------------------------------------- */
TEST(global_vars_refer_to_module_functions) {
  tvm_relax_var_obj* x = var("x", t4());
  void* callee = func(ARR(x), x, true);
  tvm_relax_sinfo_obj* cs = keep(tvm_relax_expr_sinfo(callee));
  tvm_tir_global_var_obj* ghost = keep(tvm_relax_global_var_new("ghost", cs));
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* r = var("r", t4());
  void* main_fn =
      func1(ARR(y), false, ARR(bind(r, keep(tvm_relax_call_new(ghost, ARR(y), NULL, NULL, NULL)))),
            r, true);
  const char* names[2] = {"main", "callee"};
  void* fns[2] = {main_fn, callee};
  /* @ghost is not in the module; a GlobalVar named "callee" but another object would be the same.
   */
  EXPECT_ERROR(module(2, names, fns), "<root>[\"main\"].body.blocks[0].bindings[0].value.op",
               "GlobalVar @ghost is not a function of this module");
  /* Checked alone, a function's GlobalVars are not looked up. */
  EXPECT_OK(main_fn);
  /* global_symbol must be the function's name. */
  TVMFFIAny sym_name = tvm_ffi_string("other");
  void* named = keep(tvm_relax_function_with_attr(callee, "global_symbol", &sym_name));
  tvm_ffi_any_release(&sym_name);
  const char* names1[1] = {"callee"};
  EXPECT_ERROR(module(1, names1, &named), "<root>[\"callee\"]",
               "the function's global_symbol \"other\" differs from its name");
  /* A GlobalVar whose struct info is not a function's. */
  tvm_tir_global_var_obj* odd =
      keep(tvm_relax_global_var_new("odd", keep(tvm_relax_object_sinfo_new())));
  tvm_relax_var_obj* y2 = var("y2", t4());
  tvm_relax_var_obj* r2 = var("r2", keep(tvm_relax_object_sinfo_new()));
  void* uses_odd = func1(ARR(y2), false, ARR(bind(r2, odd)), y2, true);
  EXPECT_ERROR(uses_odd, "<root>.body.blocks[0].bindings[0].value",
               "GlobalVar @odd must have a FuncStructInfo");
  drop_all();
}

TEST(prim_funcs_checked_by_libtir) {
  tvm_relax_var_obj* x = var("x", t4());
  void* main_fn = func(ARR(x), x, true);
  /* A PrimFunc using a TIR variable nothing defines. */
  tvm_tir_var_obj* k = sym("k");
  void* body = keep(tvm_tir_evaluate_new((void*)k));
  void* bad = keep(tvm_tir_prim_func_new(empty(), body, NULL, NULL, NULL));
  void* good = keep(tvm_tir_prim_func_new(ARR(k), body, NULL, NULL, NULL));
  const char* names[2] = {"main", "prim"};
  void* fns_good[2] = {main_fn, good};
  EXPECT_OK(module(2, names, fns_good));
  void* fns_bad[2] = {main_fn, bad};
  void* bad_mod = module(2, names, fns_bad);
  EXPECT_ERROR(bad_mod, "<root>[\"prim\"]", "well-formedness");
  /* A caller that has checked a PrimFunc itself (tvm_relax_wf_options.prim_func_checked) is
   * taken at its word for that PrimFunc only. */
  tvm_relax_wf_options vouched = {NULL, bad, vouch_for};
  CHECK_EQ_INT(tvm_relax_verify_well_formed_ex(bad_mod, &vouched), 0);
  tvm_relax_wf_options other = {NULL, good, vouch_for};
  CHECK_EQ_INT(tvm_relax_verify_well_formed_ex(bad_mod, &other), -1);
  CHECK_RAISED("ValueError", "<root>[\"prim\"]");
  /* A direct call to a PrimFunc of the module: pure when its body is (tvm_tir_prim_func_is_pure,
   * as upstream's PrimFunc struct info), whatever its GlobalVar says; an impure one (an extern
   * call) only in an impure function. */
  void* ext = keep(tvm_tir_evaluate_take(
      tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("f"))));
  void* impure_prim = keep(tvm_tir_prim_func_new(empty(), ext, NULL, NULL, NULL));
  tvm_tir_global_var_obj* pg = keep(tvm_tir_global_var_new("prim"));
  tvm_tir_global_var_obj* declared = keep(tvm_relax_global_var_new(
      "prim", keep(tvm_relax_prim_func_type_sinfo(NULL)))); /* (the parser's, impure) */
  tvm_relax_var_obj* y = var("y", t4());
  tvm_relax_var_obj* r = var("r", t4());
  for (int impure_callee = 0; impure_callee < 2; ++impure_callee) {
    for (int as_declared = 0; as_declared < 2; ++as_declared) {
      tvm_tir_global_var_obj* g = as_declared ? declared : pg;
      void* c = keep(tvm_relax_call_new(g, ARR(y), NULL, ARR(t4()), NULL));
      for (int pure = 0; pure < 2; ++pure) {
        void* caller = func1(ARR(y), false, ARR(bind(r, c)), r, pure);
        TVMFFIAny keys[2] = {tvm_ffi_any_obj(g),
                             tvm_ffi_any_obj(keep(tvm_relax_global_var_new(
                                 "caller", keep(tvm_relax_expr_sinfo(caller)))))};
        TVMFFIAny vals[2] = {tvm_ffi_any_obj(impure_callee ? impure_prim : good),
                             tvm_ffi_any_obj(caller)};
        void* mod = keep(tvm_tir_ir_module_new(keep(tvm_ffi_map_new(keys, vals, 2)), NULL));
        if (pure && impure_callee) {
          EXPECT_ERROR(mod, "<root>[\"caller\"].body.blocks[0].bindings[0].value",
                       "impure call to @prim in a pure function");
        } else {
          EXPECT_OK(mod);
        }
      }
    }
  }
  drop_all();
}

TEST(bad_arguments) {
  CHECK(tvm_relax_verify_well_formed(NULL) != 0);
  CHECK_RAISED("TypeError", "expected a Relax Function or an IRModule");
  tvm_relax_var_obj* x = var("x", t4());
  CHECK(tvm_relax_verify_well_formed(x) != 0);
  CHECK_RAISED("TypeError", "got relax.expr.Var");
  drop_all();
}

/* ---- Deserialized IR ------------------------------------------------------------------------- */
/* A place in the IR: an object field holding an object. */
typedef struct {
  void* obj;
  const TVMFFIFieldInfo* field;
} site;

/* Append the sites of obj and of everything below it (arrays' and maps' elements too). */
static void collect_sites(void* obj, site* out, int* n, int cap, int depth) {
  if (!obj || depth > 64) return;
  int32_t ti = tvm_ffi_type_index(obj);
  if (ti == kTVMFFIArray) {
    for (int64_t i = 0; i < tvm_ffi_seq_size(obj); ++i) {
      const TVMFFIAny* a = tvm_ffi_seq_at(obj, i);
      if (tvm_ffi_any_is_object(a)) collect_sites(a->v_obj, out, n, cap, depth + 1);
    }
    return;
  }
  if (ti == kTVMFFIMap) {
    const TVMFFIAny *k, *v;
    for (int64_t pos = 0; (pos = tvm_ffi_map_next(obj, pos, &k, &v)) >= 0;) {
      if (tvm_ffi_any_is_object(k)) collect_sites(k->v_obj, out, n, cap, depth + 1);
      if (tvm_ffi_any_is_object(v)) collect_sites(v->v_obj, out, n, cap, depth + 1);
    }
    return;
  }
  const TVMFFIFieldInfo* const* fields = NULL;
  int32_t nf = tvm_ffi_type_all_fields(ti, &fields);
  for (int32_t i = 0; i < nf; ++i) {
    TVMFFIAny val = tvm_ffi_any_none();
    if (tvm_ffi_field_get(obj, fields[i], &val) != 0) {
      tvm_ffi_error_clear();
      continue;
    }
    if (tvm_ffi_any_is_object(&val)) {
      if (*n < cap) out[(*n)++] = (site){obj, fields[i]};
      collect_sites(val.v_obj, out, n, cap, depth + 1);
    }
    tvm_ffi_any_release(&val);
  }
}

/* Loaded from JSON, a program may have any field missing or holding another node of an allowed
 * type: each such edit of a well-formed module gives a pass or an error, never a crash (ASan
 * watches). */
TEST(edited_deserialized_ir_is_no_crash) {
  tvm_relax_var_obj* c = var("c", keep(tvm_relax_prim_sinfo_new(BOOL, NULL)));
  tvm_relax_var_obj* x = var("x", t4());
  void* f_if = if_program(c, x, NULL);
  tvm_tir_var_obj* n = sym("n");
  tvm_relax_var_obj* x1 = var("x1", keep(tvm_relax_tensor_sinfo_new(NULL, F32, 1, NULL)));
  tvm_relax_var_obj* xn = var("xn", t_sym(n));
  tvm_relax_var_obj* lv = dfvar("lv", t_sym(n));
  tvm_relax_var_obj* gv = var("gv", t_sym(n));
  void* mc = keep(tvm_relax_match_cast_new(xn, (void*)x1, t_sym(n)));
  void* sh = keep(tvm_relax_shape_expr_new(ARR(n)));
  tvm_relax_var_obj* s = var("s", keep(tvm_relax_expr_sinfo(sh)));
  void* tup = keep(tvm_relax_tuple_new(ARR(xn, s)));
  tvm_relax_var_obj* t = var("t", keep(tvm_relax_expr_sinfo(tup)));
  void* item = keep(tvm_relax_tuple_get_item_new((void*)t, 0));
  tvm_relax_var_obj* i0 = var("i0", t_sym(n));
  void* f_mc = func(
      ARR(x1),
      seq(ARR(block(false, ARR(mc, bind(s, sh), bind(t, tup), bind(i0, item))),
              block(true, ARR(bind(lv, call1("relax.exp", i0)), bind(gv, call1("relax.exp", lv))))),
          gv),
      true);
  const char* names[2] = {"f_if", "f_mc"};
  void* fns[2] = {f_if, f_mc};
  void* mod = module(2, names, fns);
  EXPECT_OK(mod);
  TVMFFIAny m = tvm_ffi_any_obj(mod);
  tvm_ffi_strbuf json = {0};
  CHECK_OK(tvm_ffi_json_save(&m, &json));
  static site sites[4096];
  int num_sites = 0, passed = 0, failed = 0;
  for (int k = 0;; ++k) {
    for (int replace = 0; replace < 2; ++replace) {
      TVMFFIAny copy = tvm_ffi_any_none();
      CHECK_OK(tvm_ffi_json_load(tvm_ffi_strbuf_cstr(&json), json.size, &copy));
      if (!tvm_ffi_any_is_object(&copy)) return;
      num_sites = 0;
      collect_sites(copy.v_obj, sites, &num_sites, 4096, 0);
      if (k < num_sites) {
        /* None, or the first parameter of f_if (a Var: an expression of another kind for most
         * fields; the type check refuses it for the others). */
        TVMFFIAny v = replace ? tvm_ffi_any_obj(x) : tvm_ffi_any_none();
        if (tvm_ffi_field_set(sites[k].obj, sites[k].field, &v) == 0) {
          if (tvm_relax_verify_well_formed(copy.v_obj) == 0) {
            passed++;
          } else {
            void* e = tvm_ffi_error_take();
            CHECK(e != NULL);
            failed++;
            tvm_ffi_release(e);
          }
        } else {
          tvm_ffi_error_clear();
        }
      }
      tvm_ffi_any_release(&copy);
    }
    if (k >= num_sites) break;
  }
  CHECK(num_sites > 100);
  CHECK(failed > 100);
  printf("edited programs: %d sites, %d rejected, %d still well-formed\n", num_sites, failed,
         passed);
  tvm_ffi_strbuf_free(&json);
  drop_all();
}

/* ---- Size ------------------------------------------------------------------------------------ */
/* A function of 50,000 bindings (a chain of adds in one dataflow block) checks; the time is printed. */
TEST(large_function) {
  enum { N = 50000 };
  tvm_tir_var_obj* n = sym("n");
  tvm_relax_var_obj* x = var("x", t_sym(n));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  CHECK_OK(tvm_relax_bb_function_begin(bb, "main", ARR(x), NULL, true));
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  tvm_relax_var_obj* cur = x;
  for (int i = 0; i < N - 1; ++i) {
    tvm_relax_expr_obj* c = RT_CALL("relax.add", NULL, cur, x);
    tvm_relax_var_obj* next = tvm_relax_bb_emit(bb, c, NULL);
    tvm_ffi_release(c);
    if (cur != x) tvm_ffi_release(cur);
    cur = next;
    if (!cur) break;
  }
  tvm_relax_var_obj* out = cur ? tvm_relax_bb_emit_output(bb, (void*)cur, NULL) : NULL;
  if (cur != x) tvm_ffi_release(cur);
  CHECK_EQ_INT(tvm_relax_bb_num_bindings(bb), N);
  CHECK_OK(tvm_relax_bb_block_end(bb));
  keep(out);
  keep(tvm_relax_bb_function_end(bb, (void*)out, NULL));
  tvm_tir_ir_module_obj* mod = keep(tvm_relax_bb_module(bb));
  tvm_relax_bb_free(bb);
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  EXPECT_OK(mod);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
  printf("well-formedness check of %d bindings: %.3f s\n", N, s);
  drop_all();
}

int main(void) {
  RUN(mlp_with_symbolic_batch_passes);
  RUN(match_cast_defines_symbolic_vars);
  RUN(if_with_both_branches_passes);
  RUN(nested_and_recursive_functions_pass);
  RUN(var_used_before_definition);
  RUN(var_bound_twice);
  RUN(var_used_outside_its_scope);
  RUN(vars_of_one_function_not_in_another);
  RUN(dataflow_var_used_outside_its_block);
  RUN(dataflow_var_bound_outside_a_dataflow_block);
  RUN(if_and_seq_expr_placement);
  RUN(if_condition_must_be_bool);
  RUN(symbolic_var_defined_before_use);
  RUN(shape_var_in_struct_info);
  RUN(deep_nesting);
  RUN(symbolic_vars_stay_in_their_function);
  RUN(attrs_use_defined_symbolic_vars);
  RUN(struct_info_present_and_consistent);
  RUN(a_normal_form);
  RUN(impure_calls);
  RUN(impure_module_function_called_from_pure_one);
  RUN(global_vars_refer_to_module_functions);
  RUN(prim_funcs_checked_by_libtir);
  RUN(bad_arguments);
  RUN(edited_deserialized_ir_is_no_crash);
  RUN(large_function);
  return test_summary();
}
