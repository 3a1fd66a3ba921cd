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
#include <stdio.h>
#include <string.h>

#include "parse_eval.h"

/* ---- Targets ------------------------------------------------------------------------------- */
/* Targets up to this many are kept on the stack; more (a block's merged `T.axis.remap` of many
 * iter vars, as the printer writes it) go to the heap: Python has no limit on them. */
enum { INLINE_TARGETS = 64 };

/* The names of an assignment / for / with target (a NAME or a tuple/list of them). */
typedef struct {
  const char** names; /* inline_names, or from tvm_ffi_malloc */
  int32_t n;
  const char* inline_names[INLINE_TARGETS];
} target_list;

static void target_list_free(target_list* t) {
  if (t->names != t->inline_names) tvm_ffi_free((void*)t->names);
  t->names = t->inline_names;
}

/* Appends name's text to t (the text of its ffi.String, which the builder is told, so that Vars
 * named after it share it: tvm_script__var). */
static int add_target(script_parser* p, const ast_expr* id, target_list* t) {
  void* s = tvm_script__name_string(id->u.name);
  if (!s) return tvm_script__relocate(p, &id->span);
  t->names[t->n++] = tvm_ffi_str_cstr(s);
  if (p->b->num_name_strs < TVM_SCRIPT_NAME_STRS) p->b->name_strs[p->b->num_name_strs++] = s;
  return 0;
}

/* The names bound by lhs into t (free it with target_list_free, also after a failure). */
static int target_names(script_parser* p, const ast_expr* lhs, target_list* t) {
  t->names = t->inline_names;
  t->n = 0;
  p->b->num_name_strs = 0;
  if (lhs->kind == AST_NAME) return add_target(p, lhs, t);
  if (lhs->kind == AST_TUPLE || lhs->kind == AST_LIST) {
    int32_t m = lhs->u.elts.n;
    if (m > INLINE_TARGETS && !(t->names = tvm_ffi_malloc((size_t)m * sizeof(char*)))) {
      t->names = t->inline_names;
      return tvm_script__relocate(p, &lhs->span);
    }
    for (int32_t i = 0; i < m; ++i) {
      const ast_expr* e = lhs->u.elts.items[i];
      if (e->kind != AST_NAME) {
        return tvm_script__error_at(p, &e->span, "SyntaxError", "only names can be bound here");
      }
      if (add_target(p, e, t) != 0) return -1;
    }
    return 0;
  }
  return tvm_script__error_at(p, &lhs->span, "SyntaxError", "cannot assign to this expression");
}

static int bind_name(script_parser* p, const ast_expr* id, TVMFFIAny* value) {
  if (tvm_script__vt_bind(&p->vt, id->u.name, value) != 0) {
    tvm_ffi_any_release(value);
    return tvm_script__relocate(p, &id->span);
  }
  return 0;
}

/* Bind lhs (a name or a tuple of names) to value (moved). */
static int bind_targets(script_parser* p, const ast_expr* lhs, TVMFFIAny* value) {
  if (lhs->kind == AST_NAME) return bind_name(p, lhs, value);
  int32_t m = lhs->u.elts.n;
  bool seq = value->type_index == kTVMFFIArray || value->type_index == kTVMFFIList;
  if (!seq || tvm_ffi_seq_size(value->v_obj) != m) {
    int rc = tvm_script__error_at(
        p, &lhs->span, "ValueError", "cannot unpack %s into %lld names",
        seq ? "a sequence of another length" : tvm_ffi_any_type_name(value), (long long)m);
    tvm_ffi_any_release(value);
    return rc;
  }
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < m; ++i) {
    TVMFFIAny e = tvm_ffi_any_copy(tvm_ffi_seq_at(value->v_obj, i));
    rc = bind_name(p, lhs->u.elts.items[i], &e);
  }
  tvm_ffi_any_release(value);
  return rc;
}

static bool is_tir(const TVMFFIAny* v, tvm_tir_kind k) {
  return tvm_ffi_any_is_object(v) && tvm_tir_is(v->v_obj, k);
}

/* ---- Assignments ------------------------------------------------------------------------- */
/* `name = value` inside a function / fragment as a LetStmt over the rest of the body; binds
 * name to the new Var. type: the annotated type (a PrimType or PointerType; NULL = the value's
 * dtype), dtype its dtype (how a Python number value is typed). */
static int let_binding(script_parser* p, const ast_stmt* stmt, const ast_expr* id,
                       const TVMFFIAny* value, const void* type, const DLDataType* dtype) {
  void* name = tvm_script__name_string(id->u.name); /* (its text: the Var shares the String) */
  tvm_tir_expr_obj* e = name ? script__to_expr(value, dtype) : NULL;
  if (!e) return tvm_script__relocate(p, &stmt->span);
  tvm_tir_var_obj* var = tvm_script_tir_let_enter(p->b, tvm_ffi_str_cstr(name), e, type, true);
  tvm_ffi_release(e);
  if (!var) return tvm_script__relocate(p, &stmt->span);
  TVMFFIAny v = tvm_ffi_any_obj(var);
  return bind_name(p, id, &v);
}

/* The type an annotation (or T.let's subscript) names: a dtype (`T.int32`, "float32"), made a
 * PrimType, or the type of a typed variable (`T.handle("float32")`, `T.int32()`): *type (new
 * reference) and its dtype *t; -1 with a located TypeError otherwise. */
static int annotation_type(script_parser* p, const ast_expr* ann, void** type, DLDataType* t,
                           bool* is_dtype) {
  TVMFFIAny v;
  /* T.Ptr[<dtype>]: upstream's spelling of a pointer annotation (T.handle("<dtype>")). */
  if (ann->kind == AST_SUBSCRIPT && tvm_script__is_tir_attr(p, ann->u.subscript.value, "Ptr")) {
    if (ann->u.subscript.indices.n != 1 || ann->u.subscript.indices.items[0]->kind == AST_SLICE) {
      return tvm_script__error_at(p, &ann->span, "TypeError",
                                  "T.Ptr[...] takes one element type, such as T.Ptr[T.float32]");
    }
    const ast_expr* elem = ann->u.subscript.indices.items[0];
    if (tvm_script__eval(p, elem, &v) != 0) return -1;
    DLDataType et;
    bool ok = tvm_script__as_dtype(&v, &et);
    tvm_ffi_any_release(&v);
    if (!ok) {
      return tvm_script__error_at(p, &elem->span, "TypeError",
                                  "T.Ptr[...] takes a dtype, such as T.Ptr[T.float32]");
    }
    *is_dtype = false;
    *t = TVM_TIR_HANDLE;
    tvm_tir_type_obj* prim = (tvm_tir_type_obj*)tvm_tir_prim_type_new(et);
    *type = prim ? tvm_tir_pointer_type_new(prim, "") : NULL;
    tvm_ffi_release(prim);
    return *type ? 0 : tvm_script__relocate(p, &ann->span);
  }
  if (tvm_script__eval(p, ann, &v) != 0) return -1;
  *type = NULL;
  *is_dtype = tvm_script__as_dtype(&v, t);
  if (*is_dtype) {
    *type = tvm_tir_prim_type_new(*t);
  } else if (tvm_ffi_any_is_object(&v) && tvm_tir_is_var(v.v_obj)) {
    const tvm_tir_var_obj* var = (const void*)v.v_obj;
    *t = var->expr.dtype;
    *type = var->type_annotation;
    tvm_ffi_retain(*type);
  } else {
    tvm_ffi_any_release(&v);
    return tvm_script__error_at(p, &ann->span, "TypeError",
                                "a variable annotation must be T.let, T.let[<type>] or a type "
                                "such as T.int32 or T.handle(\"float32\")");
  }
  tvm_ffi_any_release(&v);
  return *type ? 0 : tvm_script__relocate(p, &ann->span);
}

/* x: T.let = v / x: T.let[T.int32] = v / x: T.int32 = v / x: T.int32 */
static int annotated_assign(script_parser* p, const ast_stmt* st) {
  const ast_expr* target = st->u.assign.target;
  const ast_expr* ann = st->u.assign.annotation;
  if (target->kind != AST_NAME) {
    return tvm_script__error_at(p, &target->span, "SyntaxError", "only a name can be annotated");
  }
  bool is_let = tvm_script__is_let_annotation(p, ann);
  /* T.let[<type>]: a let of that type (one type only). */
  const ast_expr* typed_ann = is_let ? NULL : ann;
  if (!is_let && ann->kind == AST_SUBSCRIPT &&
      tvm_script__is_let_annotation(p, ann->u.subscript.value)) {
    is_let = true;
    if (ann->u.subscript.indices.n != 1 || ann->u.subscript.indices.items[0]->kind == AST_SLICE ||
        ann->u.subscript.indices.items[0]->kind == AST_TUPLE) {
      return tvm_script__error_at(p, &ann->span, "TypeError",
                                  "T.let[...] takes one type, such as T.let[T.int32]");
    }
    typed_ann = ann->u.subscript.indices.items[0];
  }
  DLDataType t;
  void* type = NULL;
  bool is_dtype = false;
  if (typed_ann && annotation_type(p, typed_ann, &type, &t, &is_dtype) != 0) return -1;
  if (!st->u.assign.value) { /* a declaration: a fresh Var */
    if (is_let) {
      tvm_ffi_release(type);
      return tvm_script__error_at(p, &st->span, "SyntaxError", "T.let needs a value");
    }
    tvm_tir_var_obj* var = is_dtype ? tvm_tir_var_new(target->u.name->text, t)
                                    : tvm_tir_var_new_typed(target->u.name->text, type);
    tvm_ffi_release(type);
    if (!var) return tvm_script__relocate(p, &st->span);
    TVMFFIAny v = tvm_ffi_any_obj(var);
    return bind_name(p, target, &v);
  }
  TVMFFIAny value;
  int rc = tvm_script__eval(p, st->u.assign.value, &value);
  if (rc == 0) {
    rc = let_binding(p, st, target, &value, type, type ? &t : NULL);
    tvm_ffi_any_release(&value);
  }
  tvm_ffi_release(type);
  return rc;
}

/* The right side of an assignment: a call gets ctx ASSIGN and the target names; a tuple of
 * calls unpacked into as many names (`n, m = T.int32(), T.int32()`) gives each call its own
 * name, as upstream names each new variable after its target. */
static int eval_assigned(script_parser* p, const ast_expr* lhs, const ast_expr* rhs,
                         const char* const* names, int32_t n, TVMFFIAny* out) {
  if (rhs->kind == AST_CALL) return tvm_script__eval_call(p, rhs, TVM_SCRIPT_CTX_ASSIGN, names, n, out);
  bool unpack = (rhs->kind == AST_TUPLE || rhs->kind == AST_LIST) && lhs->kind != AST_NAME &&
                rhs->u.elts.n == n;
  if (!unpack) return tvm_script__eval(p, rhs, out);
  tvm_script_items items;
  if (!tvm_script_items_init(&items, n)) return tvm_script__relocate(p, &rhs->span);
  int rc = 0;
  for (int32_t k = 0; rc == 0 && k < n; ++k) {
    const ast_expr* e = rhs->u.elts.items[k];
    rc = e->kind == AST_CALL
             ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_ASSIGN, &names[k], 1, &items.items[k])
             : tvm_script__eval(p, e, &items.items[k]);
    if (rc == 0) items.n = k + 1;
  }
  void* arr = rc == 0 ? tvm_script_items_to_array(&items) : NULL;
  tvm_script_items_free(&items);
  if (rc == 0 && !arr) return tvm_script__relocate(p, &rhs->span);
  if (arr) *out = tvm_ffi_any_obj(arr);
  return rc;
}

/* The value of `targets = value` (st), evaluated with the names its targets bind. */
static int assigned_value(script_parser* p, const ast_stmt* st, TVMFFIAny* out) {
  target_list t;
  int rc = target_names(p, st->u.assign.target, &t) == 0
               ? eval_assigned(p, st->u.assign.target, st->u.assign.value, t.names, t.n, out)
               : -1;
  target_list_free(&t);
  return rc;
}

/* Whether e is `T.meta_var(v)` / `I.meta_var(v)`: its value is bound to the name as the value
 * it is (a Python value for metaprogramming), never a LetStmt (upstream's bind_assign_value). */
static bool is_meta_var(script_parser* p, const ast_expr* e) {
  if (e->kind != AST_CALL) return false;
  char name[16];
  size_t len;
  const script_special* mod = tvm_script__dotted(p, e->u.call.func, name, sizeof(name), &len);
  return mod && (strcmp(mod->name, "tirx") == 0 || strcmp(mod->name, "ir") == 0) &&
         strcmp(name, "meta_var") == 0;
}

static int tir_assign(script_parser* p, const ast_stmt* st) {
  const ast_expr* lhs = st->u.assign.target;
  if (st->u.assign.annotation) return annotated_assign(p, st);
  if (!st->u.assign.value) {
    return tvm_script__error_at(p, &st->span, "SyntaxError", "an assignment needs a value");
  }
  TVMFFIAny value = tvm_ffi_any_none();
  if (lhs->kind == AST_SUBSCRIPT) {
    if (tvm_script__eval(p, st->u.assign.value, &value) != 0) return -1;
    int rc = tvm_script__store(p, lhs, &value, &st->span);
    tvm_ffi_any_release(&value);
    return rc;
  }
  int rc = assigned_value(p, st, &value);
  if (rc != 0) return -1;
  /* As upstream: a Var no name refers to yet (`n = T.int32()`, `ptr = A.data`) is bound;
   * `y = x` of a bound Var is a LetStmt like any other PrimExpr. */
  bool in_body = p->func_depth > 0 || p->fragment;
  bool fresh_var = is_tir(&value, TVM_TIR_KIND_Var) && !tvm_script__vt_holds(&p->vt, value.v_obj);
  bool let = in_body && lhs->kind == AST_NAME && !fresh_var && !is_meta_var(p, st->u.assign.value) &&
             (is_tir(&value, TVM_TIR_KIND_PrimExpr) || value.type_index == kTVMFFIInt ||
              value.type_index == kTVMFFIFloat || value.type_index == kTVMFFIBool);
  if (let) {
    rc = let_binding(p, st, lhs, &value, NULL, NULL);
    tvm_ffi_any_release(&value);
    return rc;
  }
  return bind_targets(p, lhs, &value);
}

/* Module-level constants (`N = 128` before the definitions, class-level assignments): plain
 * Python bindings. */
static int constant_assign(script_parser* p, const ast_stmt* st) {
  const ast_expr* lhs = st->u.assign.target;
  if (!st->u.assign.value) {
    return tvm_script__error_at(p, &st->span, "SyntaxError", "an assignment needs a value");
  }
  if (lhs->kind == AST_SUBSCRIPT) {
    return tvm_script__error_at(p, &lhs->span, "SyntaxError",
                                "a store is only valid inside a function");
  }
  TVMFFIAny value;
  if (assigned_value(p, st, &value) != 0) return -1;
  return bind_targets(p, lhs, &value);
}

/* ---- Expression statements ------------------------------------------------------------------ */
static int tir_expr_stmt(script_parser* p, const ast_stmt* st) {
  const ast_expr* e = st->u.expr;
  TVMFFIAny v;
  int rc = e->kind == AST_CALL ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_STMT, NULL, 0, &v)
                               : tvm_script__eval(p, e, &v);
  if (rc != 0) return -1;
  const void* op = is_tir(&v, TVM_TIR_KIND_Call) ? ((const tvm_tir_call_obj*)v.v_obj)->op : NULL;
  if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_break_loop) ||
      tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_continue_loop)) { /* T.break_loop(): `break` */
    if (tvm_script_tir_loop_jump(p->b, tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_break_loop)) != 0)
      rc = tvm_script__relocate(p, &st->span);
  } else if (is_tir(&v, TVM_TIR_KIND_PrimExpr) && tvm_script_tir_evaluate(p->b, v.v_obj) != 0) {
    rc = tvm_script__relocate(p, &st->span);
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* ---- Scoped bodies ------------------------------------------------------------------------- */
/* Run a body in a new variable scope. */
static int scoped_body(script_parser* p, ast_stmts body) {
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_ffi_raise("MemoryError", "out of memory");
  int rc = tvm_script__run_body(p, body);
  tvm_script__vt_pop_scope(&p->vt);
  return rc;
}

/* The extent of range(lo, lo + ext, step) for a constant step != 1: ceil(ext / step) for a
 * positive step, ceil(-ext / -step) for a negative one (a new reference, NULL + error). */
static tvm_tir_expr_obj* stepped_extent(tvm_tir_expr_obj* ext, int64_t step) {
  DLDataType t = ext->dtype;
  int64_t s = step > 0 ? step : -step;
  tvm_tir_expr_obj* zero = tvm_tir_const_int(t, 0);
  tvm_tir_expr_obj* span = !zero      ? NULL
                           : step > 0 ? (tvm_ffi_retain(ext), ext)
                                      : tvm_tir_sub(zero, ext);
  tvm_tir_expr_obj* round = span ? tvm_tir_const_int(t, s - 1) : NULL;
  tvm_tir_expr_obj* num = round ? tvm_tir_add(span, round) : NULL;
  tvm_tir_expr_obj* den = num ? tvm_tir_const_int(t, s) : NULL;
  tvm_tir_expr_obj* q = den ? tvm_tir_floordiv(num, den) : NULL;
  /* An empty range (stop on the wrong side of start) runs no iteration. */
  tvm_tir_expr_obj* r = q ? tvm_tir_max(q, zero) : NULL;
  tvm_ffi_release(zero);
  tvm_ffi_release(span);
  tvm_ffi_release(round);
  tvm_ffi_release(num);
  tvm_ffi_release(den);
  tvm_ffi_release(q);
  return r;
}

/* The loop annotations of range(..., annotations={...}) (upstream's range sugar takes them as
 * its one keyword): *out the dict (a new reference) or NULL when not given; -1 + located error. */
static int range_annotations(script_parser* p, const ast_expr* c, void** out) {
  *out = NULL;
  for (int32_t i = 0; i < c->u.call.kw_values.n; ++i) {
    const script_name* key = c->u.call.kw_names[i];
    const ast_expr* e = c->u.call.kw_values.items[i];
    if (key->size != 11 || memcmp(key->text, "annotations", 11) != 0 || *out) {
      tvm_ffi_release(*out);
      *out = NULL;
      return tvm_script__error_at(p, &e->span, "TypeError",
                                  "range() takes 1 to 3 positional arguments and an "
                                  "annotations= keyword");
    }
    TVMFFIAny v;
    if (tvm_script__eval(p, e, &v) != 0) return -1;
    void* m = (void*)tvm_ffi_any_as_object(&v, kTVMFFIMap);
    if (!m) {
      int rc = tvm_script__error_at(p, &e->span, "TypeError",
                                    "the annotations of range() must be a dict, got %s",
                                    tvm_ffi_any_type_name(&v));
      tvm_ffi_any_release(&v);
      return rc;
    }
    tvm_ffi_retain(m);
    tvm_ffi_any_release(&v);
    *out = m;
  }
  return 0;
}

/* for i in range(a[, b[, step]][, annotations=...]). A constant step other than 1 (TIR's For has
 * none) is a loop over the iteration count, k in range(ceil((b - a) / step)), whose body binds
 * i = a + k * step by a let (named i; the counter is i_k, which carries the annotations). */
static int range_loop(script_parser* p, const ast_stmt* st, const ast_expr* c, const char* name) {
  ast_exprs args = c->u.call.args;
  int32_t n = args.n;
  if (n < 1 || n > 3) {
    return tvm_script__error_at(p, &c->span, "TypeError",
                                "range() takes 1 to 3 positional arguments");
  }
  void* ann;
  if (range_annotations(p, c, &ann) != 0) return -1;
  TVMFFIAny v[3] = {tvm_ffi_any_none(), tvm_ffi_any_none(), tvm_ffi_any_none()};
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < n; ++i) rc = tvm_script__eval(p, args.items[i], &v[i]);
  int64_t step = 1;
  if (rc == 0 && n == 3) {
    if (tvm_script__value_to_int(&v[2], "the step of range()", &step) != 0 || step == 0) {
      tvm_ffi_error_clear();
      rc = tvm_script__error_at(p, &args.items[2]->span, "ValueError",
                                "the step of a TIR loop over range() must be a nonzero integer "
                                "constant");
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
    if (ext && step != 1) {
      tvm_tir_expr_obj* count = stepped_extent(ext, step);
      tvm_ffi_release(ext);
      ext = count;
    }
    if (!ext) rc = tvm_script__relocate(p, &c->span);
  }
  tvm_tir_var_obj* var = NULL;
  if (rc == 0 && step == 1) {
    var = tvm_script_tir_for_enter(p->b, name, TVM_TIR_FOR_SERIAL, lo, ext, NULL, ann);
    if (!var) rc = tvm_script__relocate(p, &c->span);
  } else if (rc == 0) {
    char counter[256];
    snprintf(counter, sizeof(counter), "%s_k", name ? name : "v");
    tvm_tir_var_obj* k =
        tvm_script_tir_for_enter(p->b, counter, TVM_TIR_FOR_SERIAL, NULL, ext, NULL, ann);
    tvm_tir_expr_obj* sc = k ? tvm_tir_const_int(ext->dtype, step) : NULL;
    tvm_tir_expr_obj* off = sc ? tvm_tir_mul((tvm_tir_expr_obj*)k, sc) : NULL;
    bool lo_zero = !lo || (tvm_tir_kind_of(lo) == TVM_TIR_KIND_IntImm &&
                           ((const tvm_tir_int_imm_obj*)lo)->value == 0);
    tvm_tir_expr_obj* at = !off       ? NULL
                           : !lo_zero ? tvm_tir_add(lo, off)
                                      : (tvm_ffi_retain(off), off);
    var = at ? tvm_script_tir_let_enter(p->b, name, at, NULL, true) : NULL;
    tvm_ffi_release(k);
    tvm_ffi_release(sc);
    tvm_ffi_release(off);
    tvm_ffi_release(at);
    if (!var) rc = tvm_script__relocate(p, &c->span);
  }
  for (int i = 0; i < 3; ++i) tvm_ffi_any_release(&v[i]);
  tvm_ffi_release(ann);
  tvm_ffi_release(lo);
  tvm_ffi_release(hi);
  tvm_ffi_release(ext);
  if (rc != 0) return -1;
  TVMFFIAny va = tvm_ffi_any_obj(var);
  if (tvm_script__vt_push_scope(&p->vt) != 0) {
    tvm_ffi_release(var);
    return tvm_script__relocate(p, &st->span);
  }
  rc = bind_name(p, st->u.for_.target, &va);
  if (rc == 0) rc = tvm_script__run_body(p, st->u.for_.body);
  tvm_script__vt_pop_scope(&p->vt);
  return rc;
}

/* tir_for with the names its target binds. */
static int tir_for_named(script_parser* p, const ast_stmt* st, const char* const* names,
                         int32_t n) {
  const ast_expr* target = st->u.for_.target;
  const ast_expr* c = st->u.for_.iter;
  if (c->kind != AST_CALL) {
    return tvm_script__error_at(p, &c->span, "SyntaxError",
                                "a TIR for loop iterates over T.serial/T.grid/range(...)");
  }
  int depth = tvm_script_builder_depth(p->b);
  if (c->u.call.func->kind == AST_NAME) {
    TVMFFIAny callee;
    if (tvm_script__eval(p, c->u.call.func, &callee) != 0) return -1;
    const script_special* sp = tvm_script__special_of(&callee);
    tvm_ffi_any_release(&callee);
    if (sp && sp->kind == SCRIPT_SPECIAL_RANGE) {
      if (target->kind != AST_NAME) {
        return tvm_script__error_at(p, &target->span, "ValueError",
                                    "range() binds one loop variable");
      }
      if (range_loop(p, st, c, names[0]) != 0) return -1;
      return tvm_script__exit_to(p, depth, &st->span);
    }
  }
  TVMFFIAny value;
  if (tvm_script__eval_call(p, c, TVM_SCRIPT_CTX_FOR, names, n, &value) != 0) return -1;
  if (tvm_script__vt_push_scope(&p->vt) != 0) {
    tvm_ffi_any_release(&value);
    return tvm_script__relocate(p, &st->span);
  }
  /* One loop variable may come back as a one-element array. */
  if (n == 1 && target->kind == AST_NAME && value.type_index == kTVMFFIArray &&
      tvm_ffi_seq_size(value.v_obj) == 1) {
    TVMFFIAny one = tvm_ffi_any_copy(tvm_ffi_seq_at(value.v_obj, 0));
    tvm_ffi_any_release(&value);
    value = one;
  }
  int rc = bind_targets(p, target, &value);
  if (rc == 0) rc = tvm_script__run_body(p, st->u.for_.body);
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0) return -1;
  return tvm_script__exit_to(p, depth, &st->span);
}

static int tir_for(script_parser* p, const ast_stmt* st) {
  target_list t;
  int rc = target_names(p, st->u.for_.target, &t) == 0 ? tir_for_named(p, st, t.names, t.n) : -1;
  target_list_free(&t);
  return rc;
}

static int tir_while(script_parser* p, const ast_stmt* st) {
  const ast_expr* test = st->u.while_.test;
  tvm_tir_expr_obj* cond = tvm_script__eval_expr(p, test);
  if (!cond) return -1;
  int depth = tvm_script_builder_depth(p->b);
  int rc = tvm_script_tir_while_enter(p->b, cond);
  tvm_ffi_release(cond);
  if (rc != 0) return tvm_script__relocate(p, &test->span);
  if (scoped_body(p, st->u.while_.body) != 0) return -1;
  return tvm_script__exit_to(p, depth, &st->span);
}

static int tir_if(script_parser* p, const ast_stmt* st) {
  const ast_expr* test = st->u.if_.test;
  TVMFFIAny c;
  if (tvm_script__eval(p, test, &c) != 0) return -1;
  if (!is_tir(&c, TVM_TIR_KIND_PrimExpr)) { /* a Python condition selects a branch statically */
    if (c.type_index != kTVMFFIBool && c.type_index != kTVMFFIInt) { /* as upstream: no `if B:` */
      int rc = tvm_script__error_at(p, &test->span, "TypeError",
                                    "the condition of an if must be a PrimExpr or a bool, got %s",
                                    tvm_ffi_any_type_name(&c));
      tvm_ffi_any_release(&c);
      return rc;
    }
    bool t = tvm_script__truthy(&c);
    tvm_ffi_any_release(&c);
    return scoped_body(p, t ? st->u.if_.body : st->u.if_.orelse);
  }
  int depth = tvm_script_builder_depth(p->b);
  int rc = tvm_script_tir_if_enter(p->b, c.v_obj);
  tvm_ffi_any_release(&c);
  if (rc != 0) return tvm_script__relocate(p, &test->span);
  int inner = tvm_script_builder_depth(p->b);
  if (tvm_script_tir_then_enter(p->b) != 0) return tvm_script__relocate(p, &st->span);
  if (scoped_body(p, st->u.if_.body) != 0 || tvm_script__exit_to(p, inner, &st->span) != 0) {
    return -1;
  }
  if (st->u.if_.orelse.n > 0) {
    if (tvm_script_tir_else_enter(p->b) != 0) return tvm_script__relocate(p, &st->span);
    if (scoped_body(p, st->u.if_.orelse) != 0 || tvm_script__exit_to(p, inner, &st->span) != 0) {
      return -1;
    }
  }
  return tvm_script__exit_to(p, depth, &st->span);
}

/* with <call> [as x]: body */
static int tir_with(script_parser* p, const ast_stmt* st) {
  const ast_expr* context = st->u.with.context;
  const ast_expr* target = st->u.with.target;
  if (context->kind != AST_CALL) {
    return tvm_script__error_at(p, &context->span, "SyntaxError",
                                "a TIR with statement needs a T.* call");
  }
  target_list t;
  t.names = t.inline_names; /* (no target: none) */
  t.n = 0;
  int depth = tvm_script_builder_depth(p->b);
  TVMFFIAny value;
  int rc = target && target_names(p, target, &t) != 0
               ? -1
               : tvm_script__eval_call(p, context, TVM_SCRIPT_CTX_WITH, t.names, t.n, &value);
  target_list_free(&t);
  if (rc != 0) return -1;
  if (tvm_script_builder_depth(p->b) == depth) { /* `with T.abs(x):` would drop the with */
    rc = tvm_script__error_at(p, &context->span, "TypeError",
                              "a TIR with statement needs a frame such as T.sblock(...), "
                              "T.init() or T.attr(...); this call gives %s",
                              tvm_ffi_any_type_name(&value));
    tvm_ffi_any_release(&value);
    return rc;
  }
  if (tvm_script__vt_push_scope(&p->vt) != 0) {
    tvm_ffi_any_release(&value);
    return tvm_script__relocate(p, &st->span);
  }
  rc = target ? bind_targets(p, target, &value) : (tvm_ffi_any_release(&value), 0);
  if (rc == 0) rc = tvm_script__run_body(p, st->u.with.body);
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0) return -1;
  return tvm_script__exit_to(p, depth, &st->span);
}

/* A string the program spells at e (appended to out), else a TypeError naming what (-1). */
static int string_value(script_parser* p, const ast_expr* e, const char* what,
                        tvm_ffi_strbuf* out) {
  TVMFFIAny v;
  TVMFFIByteArray text;
  if (tvm_script__eval(p, e, &v) != 0) return -1;
  int rc = 0;
  if (tvm_ffi_any_as_bytes(&v, &text)) {
    tvm_ffi_strbuf_append(out, text.data, text.size);
  } else if (tvm_ffi_any_is_object(&v) && tvm_tir_kind_of(v.v_obj) == TVM_TIR_KIND_StringImm) {
    text = tvm_ffi_str_view(((const tvm_tir_string_imm_obj*)v.v_obj)->value);
    tvm_ffi_strbuf_append(out, text.data, text.size);
  } else {
    rc = tvm_script__error_at(p, &e->span, "TypeError", "%s must be a string, got %s", what,
                              tvm_ffi_any_type_name(&v));
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* assert cond, (kind, [part, ...]): upstream's newer form, the error kind raised and the message
 * in parts (joined here: one StringImm message). */
static int tir_assert_kind(script_parser* p, const ast_stmt* st, const ast_expr* msg_e) {
  const ast_expr* parts = msg_e->u.elts.n == 2 ? msg_e->u.elts.items[1] : NULL;
  if (!parts || (parts->kind != AST_LIST && parts->kind != AST_TUPLE)) {
    return tvm_script__error_at(p, &msg_e->span, "TypeError",
                                "the message of an assert is a string or a tuple (error kind, "
                                "[message parts])");
  }
  tvm_ffi_strbuf kind = {0}, msg = {0};
  int rc = string_value(p, msg_e->u.elts.items[0], "the error kind of an assert", &kind);
  if (rc == 0 && kind.size == 0) {
    rc = tvm_script__error_at(p, &msg_e->u.elts.items[0]->span, "ValueError",
                              "the error kind of an assert must not be empty");
  }
  for (int32_t i = 0; rc == 0 && i < parts->u.elts.n; ++i)
    rc = string_value(p, parts->u.elts.items[i], "a message part of an assert", &msg);
  tvm_tir_expr_obj* cond = rc == 0 ? tvm_script__eval_expr(p, st->u.assert_.test) : NULL;
  void* text = cond ? tvm_ffi_str_obj(msg.data ? msg.data : "", msg.size) : NULL;
  if (cond && (!text || tvm_script_tir_assert_kind_enter(p->b, cond, tvm_ffi_strbuf_cstr(&kind),
                                                         text, true) != 0)) {
    rc = tvm_script__relocate(p, &st->span);
  } else if (!cond) {
    rc = -1;
  }
  tvm_ffi_release(text);
  tvm_ffi_release(cond);
  tvm_ffi_strbuf_free(&kind);
  tvm_ffi_strbuf_free(&msg);
  return rc;
}

/* assert cond[, msg]: an AssertStmt over the rest of the body. */
static int tir_assert(script_parser* p, const ast_stmt* st) {
  const ast_expr* msg_e = st->u.assert_.msg;
  if (msg_e && msg_e->kind == AST_TUPLE) return tir_assert_kind(p, st, msg_e);
  tvm_tir_expr_obj* cond = tvm_script__eval_expr(p, st->u.assert_.test);
  if (!cond) return -1;
  tvm_tir_expr_obj* msg = NULL;
  TVMFFIAny m = tvm_ffi_any_none();
  TVMFFIByteArray text;
  int rc = msg_e ? tvm_script__eval(p, msg_e, &m) : 0;
  if (rc == 0) {
    if (tvm_ffi_any_is_none(&m)) {
      msg = tvm_tir_string_imm_new(NULL, 0);
    } else if (tvm_ffi_any_as_bytes(&m, &text)) {
      msg = tvm_tir_string_imm_new(text.data, text.size);
    } else {
      msg = script__to_expr(&m, NULL);
    }
    if (!msg) rc = tvm_script__relocate(p, msg_e ? &msg_e->span : &st->span);
  }
  if (rc == 0 && tvm_script_tir_assert_enter(p->b, cond, msg, true) != 0) {
    rc = tvm_script__relocate(p, &st->span);
  }
  tvm_ffi_any_release(&m);
  tvm_ffi_release(cond);
  tvm_ffi_release(msg);
  return rc;
}

/* return v: T.evaluate(T.ret(v)). */
static int tir_return(script_parser* p, const ast_stmt* st) {
  if (!st->u.ret) {
    return tvm_script__error_at(p, &st->span, "SyntaxError", "a TIR return needs a value");
  }
  tvm_tir_expr_obj* v = tvm_script__eval_expr(p, st->u.ret);
  if (!v) return -1;
  tvm_tir_expr_obj* call = tvm_tir_call_builtin(v->dtype, TVM_TIR_BUILTIN_ret, &v, 1);
  int rc = call && tvm_script_tir_evaluate(p->b, call) == 0 ? 0 : tvm_script__relocate(p, &st->span);
  tvm_ffi_release(call);
  tvm_ffi_release(v);
  return rc;
}

/* break / continue: T.evaluate(T.break_loop()) / T.evaluate(T.continue_loop()), upstream's
 * form, in a loop that can be left (tvm_script_tir_loop_jump). */
static int tir_jump(script_parser* p, const ast_stmt* st) {
  if (tvm_script_tir_loop_jump(p->b, st->kind == AST_BREAK) != 0) {
    return tvm_script__relocate(p, &st->span);
  }
  return 0;
}

static int tir_nested_def(script_parser* p, const ast_stmt* st) {
  return tvm_script__error_at(p, &st->span, "SyntaxError", "nested %s are not supported in TIR",
                              st->kind == AST_CLASS ? "classes" : "functions");
}

static int ignore_stmt(script_parser* p, const ast_stmt* st) {
  (void)p;
  (void)st;
  return 0;
}

void tvm_script__register_tir_handlers(void) {
  static const struct {
    ast_stmt_kind kind;
    script_stmt_handler fn;
  } kTir[] = {
      {AST_ASSIGN, tir_assign},  {AST_EXPR_STMT, tir_expr_stmt},
      {AST_FOR, tir_for},        {AST_WHILE, tir_while},
      {AST_IF, tir_if},          {AST_WITH, tir_with},
      {AST_ASSERT, tir_assert},  {AST_RETURN, tir_return},
      {AST_DEF, tir_nested_def}, {AST_CLASS, tir_nested_def},
      {AST_BREAK, tir_jump},     {AST_CONTINUE, tir_jump},
  };
  for (size_t i = 0; i < sizeof(kTir) / sizeof(kTir[0]); ++i) {
    tvm_script__register_handler(SCRIPT_TOKEN_TIRX, kTir[i].kind, kTir[i].fn);
  }
  /* Every dialect: docstrings, module-level constants. */
  tvm_script__register_handler(SCRIPT_TOKEN_DEFAULT, AST_DOCSTRING, ignore_stmt);
  tvm_script__register_handler(SCRIPT_TOKEN_DEFAULT, AST_ASSIGN, constant_assign);
}
