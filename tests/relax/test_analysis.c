/*
 * test_analysis.c: the post-order visitor, the mutator (rewrites, reuse of unchanged nodes,
 * new Vars for bindings whose struct info changed and the redirection of their uses, explicit
 * remaps), the variable analyses (free / bound / all vars of nested functions, GlobalVars, free
 * symbolic vars), the visitor's depth limit and the mutator's lack of one, and walks of a 100,000-binding function.
 */
#define _POSIX_C_SOURCE 199309L
#include <time.h>
#include <tvm/relax/analysis.h>

#include "../../librelax/src/internal.h"
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

static tvm_relax_var_obj* var(const char* name, tvm_relax_sinfo_obj* sinfo, bool dataflow) {
  return K(tvm_relax_var_new(name, sinfo, dataflow));
}
static void* arr(int n, ...) {
  void* objs[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) objs[i] = va_arg(ap, void*);
  va_end(ap);
  return K(tvm_ffi_array_of_objects(objs, n));
}
static tvm_relax_binding_obj* bind(tvm_relax_var_obj* v, tvm_relax_expr_obj* value) {
  return K(tvm_relax_var_binding_new(v, value));
}
static tvm_relax_expr_obj* op2(const char* name, void* a, void* b) {
  return K(tvm_relax_call_op(name, NULL, 2, a, b));
}
static tvm_relax_expr_obj* op1(const char* name, void* a) {
  return K(tvm_relax_call_op(name, NULL, 1, a));
}
static tvm_relax_function_obj* func(void* params, void* blocks, void* body) {
  tvm_relax_expr_obj* seq = K(tvm_relax_seq_expr_new(blocks, body));
  return K(tvm_relax_function_new(params, seq, NULL, true, NULL));
}
static tvm_relax_binding_obj* binding_at(const tvm_relax_function_obj* f, int blk, int i) {
  tvm_relax_seq_expr_obj* seq = (tvm_relax_seq_expr_obj*)f->body;
  tvm_relax_block_obj* b = tvm_ffi_seq_obj_at(seq->blocks, blk);
  return tvm_ffi_seq_obj_at(b->bindings, i);
}
static const char* var_names(void* vars) {
  static char buf[256];
  buf[0] = 0;
  if (!vars) return "(null)";
  for (int64_t i = 0; i < tvm_ffi_seq_size(vars); ++i) {
    const void* v = tvm_ffi_seq_obj_at(vars, i);
    const char* name = tvm_relax_is_var(v) ? tvm_relax_var_name(v)
                       : tvm_tir_is(v, TVM_TIR_KIND_GlobalVar)
                           ? tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)v)->name_hint)
                           : tvm_ffi_str_cstr(((const tvm_tir_var_obj*)v)->name_hint);
    snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s%s", i ? " " : "", name);
  }
  return buf;
}
#define CHECK_VARS(call, want)        \
  do {                                \
    void* v_ = (call);                \
    CHECK_STR_EQ(var_names(v_), want); \
    tvm_ffi_release(v_);              \
  } while (0)

/* f(x: (2, 3), y: (2, 3)) { dataflow { lv0 = add(x, y); lv1 = exp(x); gv = add(lv0, lv1) } gv } */
typedef struct {
  tvm_relax_var_obj *x, *y, *lv0, *lv1, *gv;
  tvm_relax_function_obj* f;
} small_fn;

static small_fn make_small(void) {
  small_fn s;
  tvm_relax_sinfo_obj* t = K(rt_tensor(F32, 2, (int64_t)2, (int64_t)3));
  s.x = var("x", t, false);
  s.y = var("y", t, false);
  s.lv0 = var("lv0", t, true);
  s.lv1 = var("lv1", t, true);
  s.gv = var("gv", t, false);
  void* b = arr(3, bind(s.lv0, op2("relax.add", s.x, s.y)), bind(s.lv1, op1("relax.exp", s.x)),
                bind(s.gv, op2("relax.add", s.lv0, s.lv1)));
  void* blocks = arr(1, K(tvm_relax_block_new(b, true)));
  s.f = func(arr(2, s.x, s.y), blocks, s.gv);
  return s;
}

/* ---- Walk shapes ----------------------------------------------------------------------------- */
/* Every kind of nodes.def has a walk shape (a kind without one fails to compile); struct info and
 * the abstract Binding are not walked, every other kind is. */
TEST(every_kind_has_a_walk_shape) {
  for (int k = 0; k < TVM_RELAX_KIND_COUNT; ++k) {
    const char* name = tvm_relax_kind_name((tvm_relax_kind)k);
    size_t len = strlen(name);
    bool sinfo = len >= 10 && strcmp(name + len - 10, "StructInfo") == 0;
    /* (DeviceMesh: a module global info and attribute value, not part of expressions) */
    bool skipped = sinfo || strcmp(name, "Binding") == 0 || strcmp(name, "DeviceMesh") == 0;
    if ((tvm_relax__walk_shapes[k] == TVM_RELAX__SHAPE_NOT_WALKED) != skipped) {
      fprintf(stderr, "  kind %s has walk shape %d\n", name, (int)tvm_relax__walk_shapes[k]);
      g_test_failed_checks++;
    }
  }
  CHECK(tvm_relax__walk_shapes[TVM_RELAX_KIND_DataflowVar] == TVM_RELAX__SHAPE_VAR);
  CHECK(tvm_relax__walk_shapes[TVM_RELAX_KIND_MatchCast] == TVM_RELAX__SHAPE_BINDING);
  CHECK(tvm_relax__walk_shapes[TVM_RELAX_KIND_DataflowBlock] == TVM_RELAX__SHAPE_BLOCK);
  CHECK(tvm_relax__walk_shapes[TVM_RELAX_KIND_ExternFunc] == TVM_RELAX__SHAPE_LEAF);
}

/* ---- Post-order visit ------------------------------------------------------------------------ */
static int record(const void* node, void* ctx) {
  char* out = ctx;
  const char* what;
  char tmp[64];
  if (tvm_relax_is_var(node)) {
    what = tvm_relax_var_name(node);
  } else if (tvm_tir_is(node, TVM_TIR_KIND_Op)) {
    what = tvm_tir_op_name(node) + 6;
  } else if (tvm_tir_is(node, TVM_TIR_KIND_GlobalVar)) {
    snprintf(tmp, sizeof(tmp), "@%s", tvm_ffi_str_cstr(((const tvm_tir_global_var_obj*)node)->name_hint));
    what = tmp;
  } else {
    what = tvm_relax_kind_name(tvm_relax_kind_of(node));
  }
  snprintf(out + strlen(out), 1024 - strlen(out), "%s%s", *out ? " " : "", what);
  return 0;
}

TEST(post_order_visit) {
  small_fn s = make_small();
  char buf[1024] = "";
  CHECK_OK(tvm_relax_post_order_visit(s.f, record, buf));
  /* Children first; x and y (params, then uses) and the add Op are visited once. */
  CHECK_STR_EQ(buf, "x y add Call lv0 VarBinding exp Call lv1 VarBinding Call gv VarBinding "
                    "DataflowBlock SeqExpr Function");
  /* A binding alone, a block alone */
  buf[0] = 0;
  CHECK_OK(tvm_relax_post_order_visit(binding_at(s.f, 0, 2), record, buf));
  CHECK_STR_EQ(buf, "add lv0 lv1 Call gv VarBinding");
  pool_release();
}

static int stop_at_call(const void* node, void* ctx) {
  ++*(int*)ctx;
  return tvm_relax_kind_of(node) == TVM_RELAX_KIND_Call ? 7 : 0;
}

TEST(post_order_visit_stops_and_errors) {
  small_fn s = make_small();
  int n = 0;
  CHECK_EQ_INT(tvm_relax_post_order_visit(s.f, stop_at_call, &n), 7);
  CHECK_EQ_INT(n, 4); /* x, y, add, the first Call */
  tvm_tir_var_obj* tv = K(tvm_tir_var_new("i", I64));
  CHECK_EQ_INT(tvm_relax_post_order_visit(tv, record, (char[1024]){0}), -1);
  CHECK_RAISED("TypeError", "is not a Relax expression, binding or block");
  CHECK_EQ_INT(tvm_relax_post_order_visit(NULL, record, (char[1024]){0}), -1);
  CHECK_RAISED("TypeError", "NULL");
  pool_release();
}

TEST(post_order_visit_module_in_name_order) {
  small_fn s = make_small();
  tvm_relax_var_obj* z = var("z", K(tvm_relax_object_sinfo_new()), false);
  tvm_relax_function_obj* a = func(arr(1, z), NULL, z);
  tvm_tir_global_var_obj* gb = K(tvm_tir_global_var_new("b_main"));
  tvm_tir_global_var_obj* ga = K(tvm_tir_global_var_new("a_helper"));
  TVMFFIAny keys[2] = {tvm_ffi_any_obj(gb), tvm_ffi_any_obj(ga)};
  TVMFFIAny vals[2] = {tvm_ffi_any_obj(s.f), tvm_ffi_any_obj(a)};
  void* funcs = K(tvm_ffi_map_new(keys, vals, 2));
  tvm_tir_ir_module_obj* mod = K(tvm_tir_ir_module_new(funcs, NULL));
  CHECK(mod != NULL);
  char buf[1024] = "";
  CHECK_OK(tvm_relax_post_order_visit(mod, record, buf));
  CHECK_STR_EQ(buf, "z SeqExpr Function x y add Call lv0 VarBinding exp Call lv1 VarBinding "
                    "Call gv VarBinding DataflowBlock SeqExpr Function");
  pool_release();
}

/* ---- Mutator --------------------------------------------------------------------------------- */
static void* add_to_multiply(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_call_obj* c = node;
  if (!tvm_relax_is_call_to(c, TVM_RELAX_OP_add)) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  return tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_multiply), c->args, NULL, NULL, NULL);
}

static int count_op(const void* node, void* ctx) {
  int* counts = ctx;
  if (tvm_relax_is_call_to(node, TVM_RELAX_OP_add)) counts[0]++;
  if (tvm_relax_is_call_to(node, TVM_RELAX_OP_multiply)) counts[1]++;
  return 0;
}

TEST(mutator_add_to_multiply) {
  small_fn s = make_small();
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_Call] = add_to_multiply;
  tvm_relax_function_obj* g = K(tvm_relax_mutate(&m, s.f));
  tvm_relax_mutator_free(&m);
  CHECK(g != NULL && g != s.f);
  if (!g) {
    pool_release();
    return;
  }
  int counts[2] = {0, 0};
  CHECK_OK(tvm_relax_post_order_visit(g, count_op, counts));
  CHECK_EQ_INT(counts[0], 0);
  CHECK_EQ_INT(counts[1], 2);
  /* Structure: same params, one dataflow block of three bindings, the body is gv. */
  CHECK(tvm_ffi_seq_obj_at(g->params, 0) == s.x && tvm_ffi_seq_obj_at(g->params, 1) == s.y);
  tvm_relax_seq_expr_obj* seq = (tvm_relax_seq_expr_obj*)g->body;
  CHECK(tvm_relax_kind_of(tvm_ffi_seq_obj_at(seq->blocks, 0)) == TVM_RELAX_KIND_DataflowBlock);
  CHECK((void*)seq->body == s.gv);
  tvm_relax_binding_obj* b0 = binding_at(g, 0, 0);
  tvm_relax_binding_obj* b1 = binding_at(g, 0, 1);
  tvm_relax_binding_obj* b2 = binding_at(g, 0, 2);
  CHECK(tvm_relax_is_call_to(tvm_relax_binding_value(b0), TVM_RELAX_OP_multiply));
  /* The struct info is unchanged, so the variables are kept... */
  CHECK(b0->var == s.lv0 && b2->var == s.gv);
  tvm_relax_call_obj* c2 = (tvm_relax_call_obj*)tvm_relax_binding_value(b2);
  CHECK(tvm_ffi_seq_obj_at(c2->args, 0) == s.lv0 && tvm_ffi_seq_obj_at(c2->args, 1) == s.lv1);
  CHECK_STR_EQ(rt_sinfo_text(c2), "R.Tensor((2, 3), dtype=\"float32\")");
  /* ...and the unchanged binding is the same object. */
  CHECK(b1 == binding_at(s.f, 0, 1));
  CHECK(b0 != binding_at(s.f, 0, 0));
  /* A function with nothing to rewrite comes back as itself. */
  tvm_relax_mutator m2 = {{0}};
  m2.post[TVM_RELAX_KIND_Call] = add_to_multiply;
  void* same = tvm_relax_mutate(&m2, g);
  CHECK(same == g);
  tvm_ffi_release(same);
  tvm_relax_mutator_free(&m2);
  pool_release();
}

TEST(mutator_shared_subexpression_rewritten_once) {
  tvm_relax_sinfo_obj* t = K(rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* x = var("x", t, false);
  tvm_relax_expr_obj* add = op2("relax.add", x, x);
  tvm_relax_expr_obj* tup = K(tvm_relax_tuple_new(arr(2, add, add)));
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_Call] = add_to_multiply;
  tvm_relax_tuple_obj* out = K(tvm_relax_mutate(&m, tup));
  tvm_relax_mutator_free(&m);
  CHECK(out != NULL);
  if (out) {
    void* f0 = tvm_ffi_seq_obj_at(out->fields, 0);
    CHECK(tvm_relax_is_call_to(f0, TVM_RELAX_OP_multiply));
    CHECK(f0 == tvm_ffi_seq_obj_at(out->fields, 1));
  }
  pool_release();
}

/* exp(v) -> astype(v, "float16"): the binding's struct info changes. */
static void* exp_to_f16(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_call_obj* c = node;
  if (!tvm_relax_is_call_to(c, TVM_RELAX_OP_exp)) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  void* attrs = rt_attrs(1, "dtype", tvm_ffi_any_dtype(tvm_tir_dtype_float(16)));
  void* out = tvm_relax_call_new(tvm_relax_op(TVM_RELAX_OP_astype), c->args, attrs, NULL, NULL);
  tvm_ffi_release(attrs);
  return out;
}

TEST(mutator_struct_info_change_redirects_uses) {
  /* f(x: (2, 3)) { dataflow { lv0 = exp(x); lv1 = astype(lv0, "float32"); gv = add(lv1, x) } gv } */
  tvm_relax_sinfo_obj* t = K(rt_tensor(F32, 2, (int64_t)2, (int64_t)3));
  tvm_relax_var_obj* x = var("x", t, false);
  tvm_relax_var_obj* lv0 = var("lv0", t, true);
  tvm_relax_var_obj* lv1 = var("lv1", t, true);
  tvm_relax_var_obj* gv = var("gv", t, false);
  void* f32attr = K(rt_attrs(1, "dtype", tvm_ffi_any_dtype(F32)));
  tvm_relax_expr_obj* cast = K(tvm_relax_call_op("relax.astype", f32attr, 1, lv0));
  void* b = arr(3, bind(lv0, op1("relax.exp", x)), bind(lv1, cast), bind(gv, op2("relax.add", lv1, x)));
  tvm_relax_function_obj* f = func(arr(1, x), arr(1, K(tvm_relax_block_new(b, true))), gv);
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_Call] = exp_to_f16;
  tvm_relax_function_obj* g = K(tvm_relax_mutate(&m, f));
  CHECK(g != NULL);
  if (g) {
    tvm_relax_binding_obj* b0 = binding_at(g, 0, 0);
    tvm_relax_binding_obj* b1 = binding_at(g, 0, 1);
    /* a new lv0: same name, the new struct info, still a DataflowVar */
    CHECK(b0->var != lv0);
    CHECK_STR_EQ(tvm_relax_var_name(b0->var), "lv0");
    CHECK(tvm_relax_kind_of(b0->var) == TVM_RELAX_KIND_DataflowVar);
    CHECK_STR_EQ(rt_sinfo_text(b0->var), "R.Tensor((2, 3), dtype=\"float16\")");
    /* the later use is redirected; lv1 keeps its struct info and so its Var */
    tvm_relax_call_obj* c1 = (tvm_relax_call_obj*)tvm_relax_binding_value(b1);
    CHECK(tvm_ffi_seq_obj_at(c1->args, 0) == b0->var);
    CHECK(b1->var == lv1);
    CHECK(binding_at(g, 0, 2) == binding_at(f, 0, 2)); /* untouched */
    /* the walk's map says where lv0 went */
    TVMFFIAny key = tvm_ffi_any_obj(lv0);
    const TVMFFIAny* to = tvm_ffi_map_get(m.var_map, &key);
    CHECK(to && to->v_obj == (void*)b0->var);
    CHECK_VARS(tvm_relax_free_vars(g), "");
  }
  tvm_relax_mutator_free(&m);
  CHECK(m.var_map == NULL && m.memo == NULL);
  /* A rewrite that makes the body no instance of the declared result is the constructor's
   * TypeError (the return struct info is kept, as upstream does). */
  tvm_relax_var_obj* r = var("r", t, false);
  void* b2 = arr(1, bind(r, op1("relax.exp", x)));
  tvm_relax_expr_obj* seq = K(tvm_relax_seq_expr_new(arr(1, K(tvm_relax_block_new(b2, false))), (tvm_relax_expr_obj*)r));
  tvm_relax_function_obj* h = K(tvm_relax_function_new(arr(1, x), seq, t, true, NULL));
  tvm_relax_mutator m2 = {{0}};
  m2.post[TVM_RELAX_KIND_Call] = exp_to_f16;
  CHECK(tvm_relax_mutate(&m2, h) == NULL);
  CHECK_RAISED("TypeError", "is not an instance of the return annotation");
  tvm_relax_mutator_free(&m2);
  pool_release();
}

TEST(mutator_explicit_remap) {
  small_fn s = make_small();
  tvm_relax_var_obj* x2 = var("x2", tvm_relax_sinfo_of(s.x), false);
  tvm_relax_mutator m = {{0}};
  CHECK_OK(tvm_relax_mutator_remap(&m, s.x, x2));
  tvm_relax_function_obj* g = K(tvm_relax_mutate(&m, s.f));
  CHECK(g != NULL);
  if (g) {
    CHECK(tvm_ffi_seq_obj_at(g->params, 0) == x2);
    CHECK_VARS(tvm_relax_all_vars(g), "x2 y lv0 lv1 gv");
    CHECK_VARS(tvm_relax_free_vars(g), "");
  }
  /* a remap after x was met as a use empties the memo: the rewrite follows the new remap */
  tvm_relax_var_obj* x3 = var("x3", tvm_relax_sinfo_of(s.x), false);
  CHECK_OK(tvm_relax_mutator_remap(&m, s.x, x3));
  tvm_relax_function_obj* g3 = K(tvm_relax_mutate(&m, s.f));
  CHECK(g3 != NULL && g3 != g);
  if (g3) CHECK_VARS(tvm_relax_all_vars(g3), "x3 y lv0 lv1 gv");
  CHECK_EQ_INT(tvm_relax_mutator_remap(&m, s.x, NULL), -1);
  CHECK_RAISED("TypeError", "must be Relax Vars");
  CHECK(tvm_relax_mutate(&m, K(tvm_tir_var_new("i", I64))) == NULL);
  CHECK_RAISED("TypeError", "is not a Relax expression");
  tvm_relax_mutator_free(&m);
  pool_release();
}

/* post[VarBinding]: bind lv1 to a new Var "renamed"; later uses must follow. */
static void* rename_lv1(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_binding_obj* b = node;
  if (strcmp(tvm_relax_var_name(b->var), "lv1") != 0) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  tvm_relax_var_obj* v = tvm_relax_var_new("renamed", tvm_relax_sinfo_of(b->var), true);
  void* out = v ? tvm_relax_var_binding_new(v, tvm_relax_binding_value(b)) : NULL;
  tvm_ffi_release(v);
  return out;
}

TEST(mutator_binding_callback_redirects_uses) {
  small_fn s = make_small();
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_VarBinding] = rename_lv1;
  tvm_relax_function_obj* g = K(tvm_relax_mutate(&m, s.f));
  tvm_relax_mutator_free(&m);
  CHECK(g != NULL);
  if (g) {
    tvm_relax_binding_obj* b1 = binding_at(g, 0, 1);
    CHECK_STR_EQ(tvm_relax_var_name(b1->var), "renamed");
    tvm_relax_call_obj* c2 = (tvm_relax_call_obj*)tvm_relax_binding_value(binding_at(g, 0, 2));
    CHECK(tvm_ffi_seq_obj_at(c2->args, 1) == b1->var);
    CHECK(binding_at(g, 0, 0) == binding_at(s.f, 0, 0));
    CHECK_VARS(tvm_relax_all_vars(g), "x y lv0 renamed gv");
  }
  pool_release();
}

static void* return_null(tvm_relax_mutator* m, const void* node) {
  (void)m;
  (void)node;
  return NULL;
}
static void* return_block(tvm_relax_mutator* m, const void* node) {
  (void)m;
  (void)node;
  return tvm_relax_block_new(NULL, false);
}

TEST(mutator_callback_errors) {
  small_fn s = make_small();
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_Call] = return_null;
  CHECK(tvm_relax_mutate(&m, s.f) == NULL);
  CHECK_RAISED("RuntimeError", "the Call callback returned NULL without an error");
  tvm_relax_mutator_free(&m);
  tvm_relax_mutator m2 = {{0}};
  m2.post[TVM_RELAX_KIND_Call] = return_block;
  CHECK(tvm_relax_mutate(&m2, s.f) == NULL);
  CHECK_RAISED("TypeError", "the Call callback must return a Relax expression");
  tvm_relax_mutator_free(&m2);
  pool_release();
}

/* ---- Variables ------------------------------------------------------------------------------- */
TEST(free_vars_of_nested_functions) {
  /* outer(x) { lv = add(x, x); inner = fn(y) { add(y, lv) }; c = make_closure(@lifted, (lv,));
   *            r = inner(x); @helper(r) } */
  tvm_relax_sinfo_obj* t = K(rt_tensor(F32, 1, (int64_t)4));
  tvm_relax_var_obj* x = var("x", t, false);
  tvm_relax_var_obj* lv = var("lv", t, false);
  tvm_relax_var_obj* y = var("y", t, false);
  tvm_relax_function_obj* inner_fn = func(arr(1, y), NULL, op2("relax.add", y, lv));
  tvm_relax_var_obj* inner = var("inner", tvm_relax_sinfo_of(inner_fn), false);
  tvm_tir_global_var_obj* lifted = K(tvm_tir_global_var_new("lifted"));
  tvm_tir_global_var_obj* helper = K(tvm_relax_global_var_new(
      "helper", K(tvm_relax_func_sinfo_new(arr(1, t), t, true))));
  tvm_relax_var_obj* c = var("c", K(tvm_relax_object_sinfo_new()), false);
  tvm_relax_var_obj* r = var("r", t, false);
  tvm_relax_expr_obj* mk = K(tvm_relax_call_op("relax.make_closure", NULL, 2, lifted,
                                              K(tvm_relax_tuple_new(arr(1, lv)))));
  tvm_relax_expr_obj* call_inner = K(tvm_relax_call_new(inner, arr(1, x), NULL, NULL, NULL));
  tvm_relax_expr_obj* call_helper = K(tvm_relax_call_new(helper, arr(1, r), NULL, NULL, NULL));
  CHECK(mk && call_inner && call_helper);
  void* b = arr(4, bind(lv, op2("relax.add", x, x)), bind(inner, (tvm_relax_expr_obj*)inner_fn),
                bind(c, mk), bind(r, call_inner));
  tvm_relax_function_obj* outer = func(arr(1, x), arr(1, K(tvm_relax_block_new(b, false))), call_helper);
  CHECK_VARS(tvm_relax_free_vars(inner_fn), "lv");
  CHECK_VARS(tvm_relax_bound_vars(inner_fn), "y");
  CHECK_VARS(tvm_relax_all_vars(inner_fn), "y lv");
  CHECK_VARS(tvm_relax_free_vars(outer), "");
  CHECK_VARS(tvm_relax_bound_vars(outer), "x lv y inner c r");
  CHECK_VARS(tvm_relax_all_vars(outer), "x lv y inner c r");
  CHECK_VARS(tvm_relax_used_vars(outer), "x y lv inner r"); /* c is bound, never used */
  CHECK_VARS(tvm_relax_used_vars(inner_fn), "y lv");
  CHECK_VARS(tvm_relax_free_vars(call_inner), "inner x");
  CHECK_VARS(tvm_relax_free_vars(binding_at(outer, 0, 3)), "inner x");
  CHECK_VARS(tvm_relax_bound_vars(binding_at(outer, 0, 3)), "r");
  CHECK_VARS(tvm_relax_all_global_vars(outer), "lifted helper");
  CHECK_VARS(tvm_relax_all_global_vars(inner_fn), "");
  CHECK(tvm_relax_free_vars(K(tvm_tir_var_new("i", I64))) == NULL);
  CHECK_RAISED("TypeError", "is not a Relax expression");
  pool_release();
}

TEST(free_symbolic_vars) {
  tvm_tir_var_obj* n = K(tvm_tir_var_new("n", I64));
  tvm_tir_var_obj* m = K(tvm_tir_var_new("m", I64));
  tvm_tir_var_obj* k = K(tvm_tir_var_new("k", I64));
  tvm_tir_expr_obj* four = K(tvm_tir_const_int(I64, 4));
  void* dn[2] = {n, four};
  void* dm[2] = {m, four};
  tvm_relax_sinfo_obj* tn = K(rt_tensor_sym(F32, 2, dn));
  tvm_relax_sinfo_obj* tm = K(rt_tensor_sym(F32, 2, dm));
  tvm_relax_var_obj* x = var("x", tn, false);
  tvm_relax_expr_obj* add = op2("relax.add", x, x);
  CHECK_VARS(tvm_relax_free_symbolic_vars(add), "n");
  /* f(x: (n, 4)) { y = match_cast(x, (m, 4)); z = add(y, y); (z, k) }: n by the parameter, m by
   * the match_cast, k free */
  tvm_relax_var_obj* y = var("y", tm, false);
  tvm_relax_var_obj* z = var("z", tm, false);
  tvm_relax_binding_obj* mc = K(tvm_relax_match_cast_new(y, (tvm_relax_expr_obj*)x, tm));
  tvm_relax_expr_obj* pk = K(tvm_relax_prim_value_new((tvm_tir_expr_obj*)k));
  tvm_relax_expr_obj* body = K(tvm_relax_tuple_new(arr(2, z, pk)));
  void* b = arr(2, mc, bind(z, op2("relax.add", y, y)));
  tvm_relax_function_obj* f = func(arr(1, x), arr(1, K(tvm_relax_block_new(b, false))), body);
  CHECK_VARS(tvm_relax_free_symbolic_vars(f), "k");
  CHECK_VARS(tvm_relax_free_symbolic_vars(mc), "n");
  /* a ShapeExpr's dims */
  tvm_relax_expr_obj* se = K(tvm_relax_shape_expr_new(arr(2, k, n)));
  CHECK_VARS(tvm_relax_free_symbolic_vars(se), "k n");
  pool_release();
}

/* ---- Depth and size -------------------------------------------------------------------------- */
static int nothing(const void* node, void* ctx) {
  (void)node;
  (void)ctx;
  return 0;
}

/* exp(exp(...exp(x)...)) nested `depth` times (new reference). */
static tvm_relax_expr_obj* nested_exp(tvm_relax_var_obj* x, int depth) {
  tvm_relax_expr_obj* e = (tvm_relax_expr_obj*)x;
  tvm_ffi_retain(e);
  for (int i = 0; i < depth && e; ++i) {
    tvm_relax_expr_obj* next = tvm_relax_call_op("relax.exp", NULL, 1, e);
    tvm_ffi_release(e);
    e = next;
  }
  return e;
}

TEST(depth_limit) {
  tvm_relax_var_obj* x = var("x", K(rt_tensor(F32, 1, (int64_t)4)), false);
  tvm_relax_expr_obj* ok = K(nested_exp(x, 2000));
  CHECK_OK(tvm_relax_post_order_visit(ok, nothing, NULL));
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_Call] = add_to_multiply;
  void* same = tvm_relax_mutate(&m, ok);
  CHECK(same == ok);
  tvm_ffi_release(same);
  tvm_relax_mutator_free(&m);
  tvm_relax_expr_obj* deep = K(nested_exp(x, TVM_FFI_STRUCTURAL_MAX_DEPTH + 5));
  CHECK(deep != NULL);
  CHECK_EQ_INT(tvm_relax_post_order_visit(deep, nothing, NULL), -1);
  CHECK_RAISED("RuntimeError", "nested deeper than");
  CHECK(tvm_relax_free_vars(deep) == NULL);
  CHECK_RAISED("RuntimeError", "nested deeper than");
  /* The mutator is iterative: it has no depth limit and rewrites every level. */
  tvm_relax_mutator m2 = {{0}};
  m2.post[TVM_RELAX_KIND_Call] = exp_to_f16;
  tvm_relax_call_obj* out = K(tvm_relax_mutate(&m2, deep));
  tvm_relax_mutator_free(&m2);
  CHECK(out != NULL);
  int levels = 0;
  for (const tvm_relax_call_obj* c = out; tvm_relax_kind_of(c) == TVM_RELAX_KIND_Call;
       c = tvm_ffi_seq_obj_at(c->args, 0)) {
    if (!tvm_relax_is_call_to(c, TVM_RELAX_OP_astype)) break;
    ++levels;
  }
  CHECK_EQ_INT(levels, TVM_FFI_STRUCTURAL_MAX_DEPTH + 5);
  if (out) CHECK_STR_EQ(rt_sinfo_text(out), "R.Tensor((4,), dtype=\"float16\")");
  pool_release();
}

/* CPU time of this process (other processes on the machine do not count). */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* f(x: (4,)) { lv0 = add(x, x); lv_i = add(lv_{i-1}, x) ... } with n bindings (new reference). */
static tvm_relax_function_obj* chain(int n) {
  tvm_relax_sinfo_obj* t = rt_tensor(F32, 1, (int64_t)4);
  tvm_relax_var_obj* x = tvm_relax_var_new("x", t, false);
  void* list = tvm_ffi_list_new();
  tvm_relax_var_obj* prev = x;
  tvm_ffi_retain(prev);
  for (int i = 0; i < n; ++i) {
    char name[32];
    snprintf(name, sizeof(name), "lv%d", i);
    tvm_relax_var_obj* v = tvm_relax_var_new(name, t, false);
    tvm_relax_expr_obj* c = tvm_relax_call_op("relax.add", NULL, 2, prev, x);
    tvm_relax_binding_obj* b = tvm_relax_var_binding_new(v, c);
    TVMFFIAny item = tvm_ffi_any_obj(b);
    tvm_ffi_list_push(list, &item);
    tvm_ffi_release(b);
    tvm_ffi_release(c);
    tvm_ffi_release(prev);
    prev = v;
  }
  void* bindings = tvm_ffi_list_to_array(list);
  tvm_relax_block_obj* blk = tvm_relax_block_new(bindings, false);
  void* blocks = tvm_ffi_array_of_objects((void**)&blk, 1);
  tvm_relax_expr_obj* seq = tvm_relax_seq_expr_new(blocks, (tvm_relax_expr_obj*)prev);
  void* params = tvm_ffi_array_of_objects((void**)&x, 1);
  tvm_relax_function_obj* f = tvm_relax_function_new(params, seq, NULL, true, NULL);
  tvm_ffi_release(params);
  tvm_ffi_release(seq);
  tvm_ffi_release(blocks);
  tvm_ffi_release(blk);
  tvm_ffi_release(bindings);
  tvm_ffi_release(list);
  tvm_ffi_release(prev);
  tvm_ffi_release(x);
  tvm_ffi_release(t);
  return f;
}

/* CPU seconds to visit, to mutate (add -> multiply) and to take the free vars of a chain of n
 * bindings, in t[0..3); returns their sum. */
static double walk_chain(int n, double* t) {
  tvm_relax_function_obj* f = chain(n);
  CHECK(f != NULL);
  if (!f) return 0;
  double t0 = now_s();
  CHECK_OK(tvm_relax_post_order_visit(f, nothing, NULL));
  double t1 = now_s();
  tvm_relax_mutator m = {{0}};
  m.post[TVM_RELAX_KIND_Call] = add_to_multiply;
  tvm_relax_function_obj* g = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  CHECK(g != NULL);
  double t2 = now_s();
  void* fv = g ? tvm_relax_free_vars(g) : NULL;
  CHECK(fv && tvm_ffi_seq_size(fv) == 0);
  double t3 = now_s();
  if (g) {
    int counts[2] = {0, 0};
    CHECK_OK(tvm_relax_post_order_visit(g, count_op, counts));
    CHECK_EQ_INT(counts[0], 0);
    CHECK_EQ_INT(counts[1], n);
  }
  tvm_ffi_release(fv);
  tvm_ffi_release(g);
  tvm_ffi_release(f);
  t[0] = t1 - t0;
  t[1] = t2 - t1;
  t[2] = t3 - t2;
  return t3 - t0;
}

/* A 100,000-binding function is visited, rewritten and analysed without deep recursion and
 * with the right results (bench/relax_bench times these walks against a smaller model). */
TEST(large_function_walks) {
  double b[3];
  walk_chain(100000, b);
  printf("  100,000 bindings: visit %.3f s, mutate %.3f s, free_vars %.3f s (CPU)\n", b[0], b[1],
         b[2]);
}

int main(void) {
  tvm_relax_init();
  RUN(every_kind_has_a_walk_shape);
  RUN(post_order_visit);
  RUN(post_order_visit_stops_and_errors);
  RUN(post_order_visit_module_in_name_order);
  RUN(mutator_add_to_multiply);
  RUN(mutator_shared_subexpression_rewritten_once);
  RUN(mutator_struct_info_change_redirects_uses);
  RUN(mutator_explicit_remap);
  RUN(mutator_binding_callback_redirects_uses);
  RUN(mutator_callback_errors);
  RUN(free_vars_of_nested_functions);
  RUN(free_symbolic_vars);
  RUN(depth_limit);
  RUN(large_function_walks);
  return test_summary();
}
