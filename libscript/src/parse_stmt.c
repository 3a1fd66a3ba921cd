/*
 * parse_stmt.c: the statement handlers of the TIR dialect (token "tirx"), driving the IR builder.
 *
 * Frames: a handler that evaluates a frame-opening builtin (`for ... in T.grid(...)`,
 * `with T.sblock(...)`) records the builder depth first, runs the body in a new variable scope
 * and then closes frames until the depth is back (tvm_script__exit_to), which also closes the
 * rest-of-body frames (LetStmt, AssertStmt, DeclBuffer, ...) opened inside the body.
 *
 * Assignments follow upstream's parser: a Var no name refers to yet (`n = T.int32()`,
 * `p = A.data`) or a Buffer (`A = T.match_buffer(...)`) is bound to the name; any other PrimExpr or
 * Python number inside a function (or a fragment) becomes a LetStmt over the rest of the body;
 * other values (tuples, strings, IterVars, ...) are bound as they are.
 */
#include <string.h>

#include "parse_eval.h"

/* ---- Targets ------------------------------------------------------------------------------- */
/* Targets up to this many are kept on the stack; more (a block's merged `T.axis.remap` of many
 * iter vars, as the printer writes it) go to the heap: Python has no limit on them. */
enum { INLINE_TARGETS = 64 };

/* The names of an assignment / for / with target (an IdDoc or a tuple/list of them). */
typedef struct {
  const char** names; /* inline_names, or from tvm_ffi_malloc */
  int32_t n;
  const char* inline_names[INLINE_TARGETS];
} target_list;

static void target_list_free(target_list* t) {
  if (t->names != t->inline_names) tvm_ffi_free((void*)t->names);
  t->names = t->inline_names;
}

/* Room for m names on the heap (rare: out of line). */
static __attribute__((noinline)) int targets_on_heap(script_parser* p, const script_doc* lhs,
                                                     target_list* t, int64_t m) {
  if (m > INT32_MAX / (int64_t)sizeof(char*) ||
      !(t->names = tvm_ffi_malloc((size_t)m * sizeof(char*)))) {
    t->names = t->inline_names;
    return tvm_script__error_at(p, lhs, "MemoryError", "too many targets (%lld)", (long long)m);
  }
  return 0;
}

/* The names bound by lhs (their text, in the Doc tree) into t (free it with target_list_free,
 * also after a failure). The builder is told their String objects, so that Vars named after
 * them share them (tvm_script__var). */
static int target_names(script_parser* p, const script_doc* lhs, target_list* t) {
  t->names = t->inline_names;
  t->n = 0;
  p->b->num_name_strs = 0;
  if (script__is_kind(lhs, TVM_SCRIPT_DOC_IdDoc)) {
    const void* s = ((const tvm_script_id_doc_obj*)lhs)->name;
    t->names[t->n++] = tvm_ffi_str_cstr(s);
    p->b->name_strs[p->b->num_name_strs++] = s;
    return 0;
  }
  if (script__is_kind(lhs, TVM_SCRIPT_DOC_TupleDoc) ||
      script__is_kind(lhs, TVM_SCRIPT_DOC_ListDoc)) {
    const void* el = ((const tvm_script_seq_doc_obj*)lhs)->elements;
    int64_t m = tvm_ffi_seq_size(el);
    if (m > INLINE_TARGETS && targets_on_heap(p, lhs, t, m) != 0) return -1;
    for (int64_t i = 0; i < m; ++i) {
      const script_doc* e = tvm_ffi_seq_obj_at(el, i);
      if (!script__is_kind(e, TVM_SCRIPT_DOC_IdDoc)) {
        return tvm_script__error_at(p, e, "SyntaxError", "only names can be bound here");
      }
      const void* s = ((const tvm_script_id_doc_obj*)e)->name;
      t->names[t->n++] = tvm_ffi_str_cstr(s);
      if (p->b->num_name_strs < TVM_SCRIPT_NAME_STRS) p->b->name_strs[p->b->num_name_strs++] = s;
    }
    return 0;
  }
  return tvm_script__error_at(p, lhs, "SyntaxError", "cannot assign to this expression");
}

static int bind_name(script_parser* p, const script_doc* id, TVMFFIAny* value) {
  uint32_t n;
  const char* s = script__id_name(id, &n);
  if (tvm_script__vt_bind(&p->vt, s, n, value) != 0) {
    tvm_ffi_any_release(value);
    return tvm_script__relocate(p, id);
  }
  return 0;
}

/* Bind lhs (a name or a tuple of names) to value (moved). */
static int bind_targets(script_parser* p, const script_doc* lhs, TVMFFIAny* value) {
  if (script__is_kind(lhs, TVM_SCRIPT_DOC_IdDoc)) return bind_name(p, lhs, value);
  const void* el = ((const tvm_script_seq_doc_obj*)lhs)->elements;
  int64_t m = tvm_ffi_seq_size(el);
  bool seq = value->type_index == kTVMFFIArray || value->type_index == kTVMFFIList;
  if (!seq || tvm_ffi_seq_size(value->v_obj) != m) {
    int rc = tvm_script__error_at(p, lhs, "ValueError", "cannot unpack %s into %lld names",
                              seq ? "a sequence of another length" : tvm_ffi_any_type_name(value),
                              (long long)m);
    tvm_ffi_any_release(value);
    return rc;
  }
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < m; ++i) {
    TVMFFIAny e = tvm_ffi_any_copy(tvm_ffi_seq_at(value->v_obj, i));
    rc = bind_name(p, tvm_ffi_seq_obj_at(el, i), &e);
  }
  tvm_ffi_any_release(value);
  return rc;
}

static bool is_tir(const TVMFFIAny* v, tvm_tir_kind k) {
  return tvm_ffi_any_is_object(v) && tvm_tir_is(v->v_obj, k);
}

/* ---- Assignments ------------------------------------------------------------------------- */
/* `name = value` inside a function / fragment as a LetStmt over the rest of the body; binds
 * name to the new Var. type: the annotated type (NULL = the value's). */
static int let_binding(script_parser* p, const script_doc* stmt, const script_doc* id,
                       const TVMFFIAny* value, const DLDataType* dtype) {
  tvm_tir_expr_obj* e = script__to_expr(value, dtype);
  if (!e) return tvm_script__relocate(p, stmt);
  tvm_tir_prim_type_obj* type = dtype ? tvm_tir_prim_type_new(*dtype) : NULL;
  const char* name = tvm_ffi_str_cstr(((const tvm_script_id_doc_obj*)id)->name);
  tvm_tir_var_obj* var = !dtype || type ? tvm_script_tir_let_enter(p->b, name, e, type, true) : NULL;
  tvm_ffi_release(type);
  tvm_ffi_release(e);
  if (!var) return tvm_script__relocate(p, stmt);
  TVMFFIAny v = tvm_ffi_any_obj(var);
  return bind_name(p, id, &v);
}

/* x: T.let = v / x: T.int32 = v / x: T.int32 */
static int annotated_assign(script_parser* p, const tvm_script_assign_doc_obj* a) {
  const script_doc* d = (const void*)a;
  if (!script__is_kind(a->lhs, TVM_SCRIPT_DOC_IdDoc)) {
    return tvm_script__error_at(p, a->lhs, "SyntaxError", "only a name can be annotated");
  }
  bool is_let = tvm_script__is_let_annotation(p, a->annotation);
  DLDataType t;
  bool typed = false;
  if (!is_let) {
    TVMFFIAny ann;
    if (tvm_script__eval(p, a->annotation, &ann) != 0) return -1;
    typed = tvm_script__as_dtype(&ann, &t);
    tvm_ffi_any_release(&ann);
    if (!typed) {
      return tvm_script__error_at(p, a->annotation, "TypeError",
                              "a variable annotation must be T.let or a dtype such as T.int32");
    }
  }
  if (!a->rhs) { /* a declaration: a fresh Var */
    if (is_let) return tvm_script__error_at(p, d, "SyntaxError", "T.let needs a value");
    tvm_tir_var_obj* var =
        tvm_tir_var_new(tvm_ffi_str_cstr(((const tvm_script_id_doc_obj*)a->lhs)->name), t);
    if (!var) return tvm_script__relocate(p, d);
    TVMFFIAny v = tvm_ffi_any_obj(var);
    return bind_name(p, a->lhs, &v);
  }
  TVMFFIAny value;
  if (tvm_script__eval(p, a->rhs, &value) != 0) return -1;
  int rc = let_binding(p, d, a->lhs, &value, typed ? &t : NULL);
  tvm_ffi_any_release(&value);
  return rc;
}

/* The right side of an assignment: a call gets ctx ASSIGN and the target names; a tuple of
 * calls unpacked into as many names (`n, m = T.int32(), T.int32()`) gives each call its own
 * name, as upstream names each new variable after its target. */
static int eval_assigned(script_parser* p, const script_doc* lhs, const script_doc* rhs,
                         const char* const* names, int32_t n, TVMFFIAny* out) {
  if (script__is_kind(rhs, TVM_SCRIPT_DOC_CallDoc)) {
    return tvm_script__eval_call(p, rhs, TVM_SCRIPT_CTX_ASSIGN, names, n, out);
  }
  bool unpack = (script__is_kind(rhs, TVM_SCRIPT_DOC_TupleDoc) ||
                 script__is_kind(rhs, TVM_SCRIPT_DOC_ListDoc)) &&
                !script__is_kind(lhs, TVM_SCRIPT_DOC_IdDoc) &&
                tvm_ffi_seq_size(((const tvm_script_seq_doc_obj*)rhs)->elements) == n;
  if (!unpack) return tvm_script__eval(p, rhs, out);
  const void* el = ((const tvm_script_seq_doc_obj*)rhs)->elements;
  TVMFFIAny inline_items[INLINE_TARGETS];
  TVMFFIAny* items = n <= INLINE_TARGETS ? inline_items : tvm_ffi_malloc((size_t)n * sizeof(*items));
  if (!items) return tvm_script__relocate(p, rhs);
  int32_t k = 0;
  int rc = 0;
  for (; rc == 0 && k < n; ++k) {
    const script_doc* e = tvm_ffi_seq_obj_at(el, k);
    rc = script__is_kind(e, TVM_SCRIPT_DOC_CallDoc)
             ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_ASSIGN, &names[k], 1, &items[k])
             : tvm_script__eval(p, e, &items[k]);
  }
  if (rc != 0) --k; /* items[k] was not set */
  void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
  for (int32_t i = 0; i < k; ++i) tvm_ffi_any_release(&items[i]);
  if (items != inline_items) tvm_ffi_free(items);
  if (rc == 0 && !arr) return tvm_script__relocate(p, rhs);
  if (arr) *out = tvm_ffi_any_obj(arr);
  return rc;
}

static int tir_assign(script_parser* p, const script_doc* d) {
  const tvm_script_assign_doc_obj* a = (const void*)d;
  if (a->annotation) return annotated_assign(p, a);
  if (!a->rhs) return tvm_script__error_at(p, d, "SyntaxError", "an assignment needs a value");
  TVMFFIAny value = tvm_ffi_any_none();
  if (script__is_kind(a->lhs, TVM_SCRIPT_DOC_IndexDoc)) {
    if (tvm_script__eval(p, a->rhs, &value) != 0) return -1;
    int rc = tvm_script__store(p, (const void*)a->lhs, &value, d);
    tvm_ffi_any_release(&value);
    return rc;
  }
  target_list t;
  int rc = target_names(p, a->lhs, &t) == 0 ? eval_assigned(p, a->lhs, a->rhs, t.names, t.n, &value)
                                            : -1;
  target_list_free(&t);
  if (rc != 0) return -1;
  /* As upstream: a Var no name refers to yet (`n = T.int32()`, `ptr = A.data`) is bound;
   * `y = x` of a bound Var is a LetStmt like any other PrimExpr. */
  bool in_body = p->func_depth > 0 || p->fragment;
  bool fresh_var = is_tir(&value, TVM_TIR_KIND_Var) && !tvm_script__vt_holds(&p->vt, value.v_obj);
  bool let = in_body && script__is_kind(a->lhs, TVM_SCRIPT_DOC_IdDoc) && !fresh_var &&
             (is_tir(&value, TVM_TIR_KIND_PrimExpr) || value.type_index == kTVMFFIInt ||
              value.type_index == kTVMFFIFloat || value.type_index == kTVMFFIBool);
  if (let) {
    rc = let_binding(p, d, a->lhs, &value, NULL);
    tvm_ffi_any_release(&value);
    return rc;
  }
  return bind_targets(p, a->lhs, &value);
}

/* Module-level constants (`N = 128` before the definitions, class-level assignments): plain
 * Python bindings. */
static int constant_assign(script_parser* p, const script_doc* d) {
  const tvm_script_assign_doc_obj* a = (const void*)d;
  if (!a->rhs) return tvm_script__error_at(p, d, "SyntaxError", "an assignment needs a value");
  if (script__is_kind(a->lhs, TVM_SCRIPT_DOC_IndexDoc)) {
    return tvm_script__error_at(p, a->lhs, "SyntaxError", "a store is only valid inside a function");
  }
  target_list t;
  TVMFFIAny value;
  int rc = target_names(p, a->lhs, &t) == 0 ? eval_assigned(p, a->lhs, a->rhs, t.names, t.n, &value)
                                            : -1;
  target_list_free(&t);
  if (rc != 0) return -1;
  return bind_targets(p, a->lhs, &value);
}

/* ---- Expression statements ------------------------------------------------------------------ */
static int tir_expr_stmt(script_parser* p, const script_doc* d) {
  const script_doc* e = ((const tvm_script_expr_stmt_doc_obj*)d)->expr;
  TVMFFIAny v;
  int rc = script__is_kind(e, TVM_SCRIPT_DOC_CallDoc)
               ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_STMT, NULL, 0, &v)
               : tvm_script__eval(p, e, &v);
  if (rc != 0) return -1;
  if (is_tir(&v, TVM_TIR_KIND_PrimExpr) && tvm_script_tir_evaluate(p->b, v.v_obj) != 0) {
    rc = tvm_script__relocate(p, d);
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* ---- Scoped bodies ------------------------------------------------------------------------- */
/* Run a body in a new variable scope. */
static int scoped_body(script_parser* p, const void* body) {
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_ffi_raise("MemoryError", "out of memory");
  int rc = tvm_script__run_body(p, body);
  tvm_script__vt_pop_scope(&p->vt);
  return rc;
}

/* for i in range(a[, b]) */
static int range_loop(script_parser* p, const script_doc* d, const tvm_script_call_doc_obj* c,
                      const char* name) {
  int64_t n = c->args ? tvm_ffi_seq_size(c->args) : 0;
  if (n < 1 || n > 3 || tvm_ffi_seq_size(c->kwargs_keys) != 0) {
    return tvm_script__error_at(p, c, "TypeError", "range() takes 1 to 3 positional arguments");
  }
  TVMFFIAny v[3] = {tvm_ffi_any_none(), tvm_ffi_any_none(), tvm_ffi_any_none()};
  int rc = 0;
  for (int64_t i = 0; rc == 0 && i < n; ++i)
    rc = tvm_script__eval(p, tvm_ffi_seq_obj_at(c->args, i), &v[i]);
  if (rc == 0 && n == 3) {
    int64_t step;
    if (tvm_script__value_to_int(&v[2], "the step of range()", &step) != 0 || step != 1) {
      tvm_ffi_error_clear();
      rc = tvm_script__error_at(p, tvm_ffi_seq_obj_at(c->args, 2), "ValueError",
                            "a TIR loop over range() must have step 1");
    }
  }
  tvm_tir_expr_obj *lo = NULL, *hi = NULL, *ext = NULL;
  if (rc == 0) {
    if (n == 1) {
      ext = script__to_expr(&v[0], NULL);
    } else {
      bool e0 = tvm_ffi_any_is_object(&v[0]) && tvm_script__is_expr(v[0].v_obj);
      bool e1 = tvm_ffi_any_is_object(&v[1]) && tvm_script__is_expr(v[1].v_obj);
      lo = script__to_expr(&v[0], e1 ? &((tvm_tir_expr_obj*)(void*)v[1].v_obj)->dtype : NULL);
      hi = lo ? script__to_expr(&v[1], e0 ? &((tvm_tir_expr_obj*)(void*)v[0].v_obj)->dtype : NULL)
              : NULL;
      ext = hi ? tvm_script__range_extent(lo, hi) : NULL;
    }
    if (!ext) rc = tvm_script__relocate(p, c);
  }
  tvm_tir_var_obj* var = NULL;
  if (rc == 0) {
    var = tvm_script_tir_for_enter(p->b, name, TVM_TIR_FOR_SERIAL, lo, ext, NULL, NULL);
    if (!var) rc = tvm_script__relocate(p, c);
  }
  for (int i = 0; i < 3; ++i) tvm_ffi_any_release(&v[i]);
  tvm_ffi_release(lo);
  tvm_ffi_release(hi);
  tvm_ffi_release(ext);
  if (rc != 0) return -1;
  TVMFFIAny va = tvm_ffi_any_obj(var);
  if (tvm_script__vt_push_scope(&p->vt) != 0) {
    tvm_ffi_release(var);
    return tvm_script__relocate(p, d);
  }
  rc = bind_name(p, ((const tvm_script_for_doc_obj*)d)->lhs, &va);
  if (rc == 0) rc = tvm_script__run_body(p, ((const tvm_script_for_doc_obj*)d)->body);
  tvm_script__vt_pop_scope(&p->vt);
  return rc;
}

/* tir_for with the names its target binds. */
static int tir_for_named(script_parser* p, const script_doc* d, const char* const* names,
                         int32_t n) {
  const tvm_script_for_doc_obj* f = (const void*)d;
  if (!script__is_kind(f->rhs, TVM_SCRIPT_DOC_CallDoc)) {
    return tvm_script__error_at(p, f->rhs, "SyntaxError",
                            "a TIR for loop iterates over T.serial/T.grid/range(...)");
  }
  const tvm_script_call_doc_obj* c = (const void*)f->rhs;
  int depth = tvm_script_builder_depth(p->b);
  if (script__is_kind(c->callee, TVM_SCRIPT_DOC_IdDoc)) {
    TVMFFIAny callee;
    if (tvm_script__eval(p, c->callee, &callee) != 0) return -1;
    const script_special* sp = tvm_script__special_of(&callee);
    tvm_ffi_any_release(&callee);
    if (sp && sp->kind == SCRIPT_SPECIAL_RANGE) {
      if (!script__is_kind(f->lhs, TVM_SCRIPT_DOC_IdDoc)) {
        return tvm_script__error_at(p, f->lhs, "ValueError", "range() binds one loop variable");
      }
      if (range_loop(p, d, c, names[0]) != 0) return -1;
      return tvm_script__exit_to(p, depth, d);
    }
  }
  TVMFFIAny value;
  if (tvm_script__eval_call(p, f->rhs, TVM_SCRIPT_CTX_FOR, names, n, &value) != 0) return -1;
  if (tvm_script__vt_push_scope(&p->vt) != 0) {
    tvm_ffi_any_release(&value);
    return tvm_script__relocate(p, d);
  }
  /* One loop variable may come back as a one-element array. */
  if (n == 1 && script__is_kind(f->lhs, TVM_SCRIPT_DOC_IdDoc) &&
      (value.type_index == kTVMFFIArray) && tvm_ffi_seq_size(value.v_obj) == 1) {
    TVMFFIAny one = tvm_ffi_any_copy(tvm_ffi_seq_at(value.v_obj, 0));
    tvm_ffi_any_release(&value);
    value = one;
  }
  int rc = bind_targets(p, f->lhs, &value);
  if (rc == 0) rc = tvm_script__run_body(p, f->body);
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0) return -1;
  return tvm_script__exit_to(p, depth, d);
}

static int tir_for(script_parser* p, const script_doc* d) {
  target_list t;
  int rc = target_names(p, ((const tvm_script_for_doc_obj*)d)->lhs, &t) == 0
               ? tir_for_named(p, d, t.names, t.n)
               : -1;
  target_list_free(&t);
  return rc;
}

static int tir_while(script_parser* p, const script_doc* d) {
  const tvm_script_while_doc_obj* w = (const void*)d;
  tvm_tir_expr_obj* cond = tvm_script__eval_expr(p, w->predicate);
  if (!cond) return -1;
  int depth = tvm_script_builder_depth(p->b);
  int rc = tvm_script_tir_while_enter(p->b, cond);
  tvm_ffi_release(cond);
  if (rc != 0) return tvm_script__relocate(p, w->predicate);
  if (scoped_body(p, w->body) != 0) return -1;
  return tvm_script__exit_to(p, depth, d);
}

static int tir_if(script_parser* p, const script_doc* d) {
  const tvm_script_if_doc_obj* s = (const void*)d;
  TVMFFIAny c;
  if (tvm_script__eval(p, s->predicate, &c) != 0) return -1;
  if (!is_tir(&c, TVM_TIR_KIND_PrimExpr)) { /* a Python condition selects a branch statically */
    if (c.type_index != kTVMFFIBool && c.type_index != kTVMFFIInt) { /* as upstream: no `if B:` */
      int rc = tvm_script__error_at(p, s->predicate, "TypeError",
                                "the condition of an if must be a PrimExpr or a bool, got %s",
                                tvm_ffi_any_type_name(&c));
      tvm_ffi_any_release(&c);
      return rc;
    }
    bool t = tvm_script__truthy(&c);
    tvm_ffi_any_release(&c);
    const void* body = t ? s->then_branch : s->else_branch;
    return body ? scoped_body(p, body) : 0;
  }
  int depth = tvm_script_builder_depth(p->b);
  int rc = tvm_script_tir_if_enter(p->b, c.v_obj);
  tvm_ffi_any_release(&c);
  if (rc != 0) return tvm_script__relocate(p, s->predicate);
  int inner = tvm_script_builder_depth(p->b);
  if (tvm_script_tir_then_enter(p->b) != 0) return tvm_script__relocate(p, d);
  if (scoped_body(p, s->then_branch) != 0 || tvm_script__exit_to(p, inner, d) != 0) return -1;
  if (s->else_branch && tvm_ffi_seq_size(s->else_branch) > 0) {
    if (tvm_script_tir_else_enter(p->b) != 0) return tvm_script__relocate(p, d);
    if (scoped_body(p, s->else_branch) != 0 || tvm_script__exit_to(p, inner, d) != 0) return -1;
  }
  return tvm_script__exit_to(p, depth, d);
}

/* with <call> [as x]: body */
static int tir_with(script_parser* p, const script_doc* d) {
  const tvm_script_scope_doc_obj* s = (const void*)d;
  if (!script__is_kind(s->rhs, TVM_SCRIPT_DOC_CallDoc)) {
    return tvm_script__error_at(p, s->rhs, "SyntaxError", "a TIR with statement needs a T.* call");
  }
  target_list t;
  t.names = t.inline_names; /* (no target: none) */
  t.n = 0;
  int depth = tvm_script_builder_depth(p->b);
  TVMFFIAny value;
  int rc = s->lhs && target_names(p, s->lhs, &t) != 0
               ? -1
               : tvm_script__eval_call(p, s->rhs, TVM_SCRIPT_CTX_WITH, t.names, t.n, &value);
  target_list_free(&t);
  if (rc != 0) return -1;
  if (tvm_script_builder_depth(p->b) == depth) { /* `with T.abs(x):` would drop the with */
    rc = tvm_script__error_at(p, s->rhs, "TypeError",
                              "a TIR with statement needs a frame such as T.sblock(...), "
                              "T.init() or T.attr(...); this call gives %s",
                              tvm_ffi_any_type_name(&value));
    tvm_ffi_any_release(&value);
    return rc;
  }
  if (tvm_script__vt_push_scope(&p->vt) != 0) {
    tvm_ffi_any_release(&value);
    return tvm_script__relocate(p, d);
  }
  rc = s->lhs ? bind_targets(p, s->lhs, &value) : (tvm_ffi_any_release(&value), 0);
  if (rc == 0) rc = tvm_script__run_body(p, s->body);
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0) return -1;
  return tvm_script__exit_to(p, depth, d);
}

/* assert cond[, msg]: an AssertStmt over the rest of the body. */
static int tir_assert(script_parser* p, const script_doc* d) {
  const tvm_script_assert_doc_obj* a = (const void*)d;
  tvm_tir_expr_obj* cond = tvm_script__eval_expr(p, a->test);
  if (!cond) return -1;
  tvm_tir_expr_obj* msg = NULL;
  TVMFFIAny m = tvm_ffi_any_none();
  TVMFFIByteArray text;
  int rc = a->msg ? tvm_script__eval(p, a->msg, &m) : 0;
  if (rc == 0) {
    if (tvm_ffi_any_is_none(&m)) {
      msg = tvm_tir_string_imm_new("");
    } else if (tvm_ffi_any_as_bytes(&m, &text)) {
      char* s = tvm_ffi_strndup(text.data, text.size);
      msg = s ? tvm_tir_string_imm_new(s) : NULL;
      tvm_ffi_free(s);
    } else {
      msg = script__to_expr(&m, NULL);
    }
    if (!msg) rc = tvm_script__relocate(p, a->msg ? a->msg : d);
  }
  if (rc == 0 && tvm_script_tir_assert_enter(p->b, cond, msg, true) != 0)
    rc = tvm_script__relocate(p, d);
  tvm_ffi_any_release(&m);
  tvm_ffi_release(cond);
  tvm_ffi_release(msg);
  return rc;
}

/* return v: T.evaluate(T.ret(v)). */
static int tir_return(script_parser* p, const script_doc* d) {
  const tvm_script_return_doc_obj* r = (const void*)d;
  if (!r->value) return tvm_script__error_at(p, d, "SyntaxError", "a TIR return needs a value");
  tvm_tir_expr_obj* v = tvm_script__eval_expr(p, r->value);
  if (!v) return -1;
  tvm_tir_expr_obj* call = tvm_tir_call_builtin(v->dtype, TVM_TIR_BUILTIN_ret, &v, 1);
  int rc = call && tvm_script_tir_evaluate(p->b, call) == 0 ? 0 : tvm_script__relocate(p, d);
  tvm_ffi_release(call);
  tvm_ffi_release(v);
  return rc;
}

static int tir_nested_def(script_parser* p, const script_doc* d) {
  return tvm_script__error_at(p, d, "SyntaxError", "nested %s are not supported in TIR",
                          script__is_kind(d, TVM_SCRIPT_DOC_ClassDoc) ? "classes" : "functions");
}

static int ignore_stmt(script_parser* p, const script_doc* d) {
  (void)p;
  (void)d;
  return 0;
}

static int stmt_block(script_parser* p, const script_doc* d) {
  return tvm_script__run_body(p, ((const tvm_script_stmt_block_doc_obj*)d)->stmts);
}

void tvm_script__register_tir_handlers(void) {
  static const struct {
    tvm_script_doc_kind kind;
    script_stmt_handler fn;
  } kTir[] = {
      {TVM_SCRIPT_DOC_AssignDoc, tir_assign},
      {TVM_SCRIPT_DOC_ExprStmtDoc, tir_expr_stmt},
      {TVM_SCRIPT_DOC_ForDoc, tir_for},
      {TVM_SCRIPT_DOC_WhileDoc, tir_while},
      {TVM_SCRIPT_DOC_IfDoc, tir_if},
      {TVM_SCRIPT_DOC_ScopeDoc, tir_with},
      {TVM_SCRIPT_DOC_AssertDoc, tir_assert},
      {TVM_SCRIPT_DOC_ReturnDoc, tir_return},
      {TVM_SCRIPT_DOC_FunctionDoc, tir_nested_def},
      {TVM_SCRIPT_DOC_ClassDoc, tir_nested_def},
  };
  for (size_t i = 0; i < sizeof(kTir) / sizeof(kTir[0]); ++i) {
    tvm_script__register_handler(SCRIPT_TOKEN_TIRX, kTir[i].kind, kTir[i].fn);
  }
  /* Every dialect: comments, docstrings, nested statement blocks, module-level constants. */
  tvm_script__register_handler(SCRIPT_TOKEN_DEFAULT, TVM_SCRIPT_DOC_DocStringDoc, ignore_stmt);
  tvm_script__register_handler(SCRIPT_TOKEN_DEFAULT, TVM_SCRIPT_DOC_CommentDoc, ignore_stmt);
  tvm_script__register_handler(SCRIPT_TOKEN_DEFAULT, TVM_SCRIPT_DOC_StmtBlockDoc, stmt_block);
  tvm_script__register_handler(SCRIPT_TOKEN_DEFAULT, TVM_SCRIPT_DOC_AssignDoc, constant_assign);
}
