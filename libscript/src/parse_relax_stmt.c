/*
 * parse_relax_stmt.c: the statement handlers of the Relax dialect (token "relax") and the
 * `@R.function` definitions, driving the Relax frames of the IR builder
 * (include/tvm/script/ir_builder_relax.h) as docs/architecture.md's table "What each Relax
 * statement maps to" lays out.
 *
 * Scopes: a function body, an if branch and a dataflow block's body are variable scopes, so a
 * dataflow variable is not visible after its block unless R.output names it: R.output's handler
 * records the Vars that replace the named ones (parse state relax_outputs) and the with
 * statement binds them after popping the block's scope.
 */
#include <string.h>

#include "parse_eval.h"
#include "script_relax_internal.h"

static int bind_name(script_parser* p, const ast_expr* id, TVMFFIAny* value) {
  if (tvm_script__vt_bind(&p->vt, id->u.name, value) != 0) {
    tvm_ffi_any_release(value);
    return tvm_script__relocate(p, &id->span);
  }
  return 0;
}

/* The value of an assignment's right side, a call evaluated with the target's name. */
static int eval_value(script_parser* p, const ast_expr* rhs, const char* name, TVMFFIAny* out) {
  if (rhs->kind == AST_CALL) {
    return tvm_script__eval_call(p, rhs, TVM_SCRIPT_CTX_ASSIGN, name ? &name : NULL, name ? 1 : 0,
                                 out);
  }
  return tvm_script__eval(p, rhs, out);
}

/* ---- Signatures ------------------------------------------------------------------------------ */
/* A module function's signature as its declaration evaluated it, before any body is built: its
 * parameters' struct info (an ffi.Array), its return annotation's (NULL when none is written)
 * and the symbolic variables its annotations name (an ffi.Map name -> tir.Var, from the
 * builder's loose table). Its definition takes it instead of evaluating the annotations again,
 * so the declared GlobalVar's struct info and the function's parameters share their Vars. */
struct script_relax_signature {
  const ast_stmt* def;
  void* params;
  tvm_relax_sinfo_obj* ret;
  void* syms;
};
typedef struct script_relax_signature script_relax_signature;

static void signature_clear(script_relax_signature* sig) {
  tvm_ffi_release(sig->params);
  tvm_ffi_release(sig->ret);
  tvm_ffi_release(sig->syms);
  *sig = (script_relax_signature){0};
}

void tvm_script__relax_signatures_free(script_parser* p) {
  for (int32_t i = p->next_relax_sig; i < p->num_relax_sigs; ++i) {
    signature_clear(&p->relax_sigs[i]);
  }
  tvm_ffi_free(p->relax_sigs);
  p->relax_sigs = NULL;
  p->num_relax_sigs = p->cap_relax_sigs = p->next_relax_sig = 0;
}

/* Evaluate def f's annotations (string dims in the builder's loose table) into *sig. -1 with a
 * located error (sig left empty). */
static int eval_signature(script_parser* p, const ast_stmt* f, script_relax_signature* sig) {
  *sig = (script_relax_signature){f};
  tvm_script_relax_syms_reset(p->b);
  tvm_script_items items;
  if (!tvm_script_items_init(&items, f->u.def.nargs)) {
    return tvm_script__relocate(p, &f->u.def.name->span);
  }
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < f->u.def.nargs; ++i) {
    const ast_arg* a = f->u.def.args[i];
    if (!a->annotation) {
      rc = tvm_script__error_at(p, &a->span, "TypeError", "a Relax parameter needs an annotation");
      break;
    }
    tvm_relax_sinfo_obj* s =
        tvm_script__relax_eval_sinfo(p, a->annotation, "a parameter annotation");
    if (!s) {
      rc = -1;
    } else {
      tvm_script_items_push(&items, s);
    }
  }
  if (rc == 0 && f->u.def.returns) {
    sig->ret = tvm_script__relax_eval_sinfo(p, f->u.def.returns, "the return annotation");
    if (!sig->ret) rc = -1;
  }
  if (rc == 0) {
    sig->params = tvm_script_items_to_array(&items);
    sig->syms = tvm_script_relax_syms(p->b);
    if (!sig->params || !sig->syms) rc = tvm_script__relocate(p, &f->u.def.name->span);
  }
  tvm_script_items_free(&items);
  tvm_script_relax_syms_reset(p->b);
  if (rc != 0) signature_clear(sig);
  return rc;
}

/* Keep sig (moved) for the definition of its def. Without memory for it, the definition
 * evaluates the annotations again. */
static void keep_signature(script_parser* p, script_relax_signature* sig) {
  if (p->num_relax_sigs == p->cap_relax_sigs) {
    int32_t cap = p->cap_relax_sigs ? 2 * p->cap_relax_sigs : 8;
    script_relax_signature* grown = tvm_ffi_malloc((size_t)cap * sizeof(*grown));
    if (!grown) {
      tvm_ffi_error_clear();
      signature_clear(sig);
      return;
    }
    if (p->num_relax_sigs) memcpy(grown, p->relax_sigs, (size_t)p->num_relax_sigs * sizeof(*grown));
    tvm_ffi_free(p->relax_sigs);
    p->relax_sigs = grown;
    p->cap_relax_sigs = cap;
  }
  p->relax_sigs[p->num_relax_sigs++] = *sig;
  *sig = (script_relax_signature){0};
}

/* The kept signature of def f (moved to *out), if its declaration kept one: the definitions come
 * in the order of the declarations. */
static bool take_signature(script_parser* p, const ast_stmt* f, script_relax_signature* out) {
  if (p->next_relax_sig >= p->num_relax_sigs || p->relax_sigs[p->next_relax_sig].def != f) {
    return false;
  }
  *out = p->relax_sigs[p->next_relax_sig++];
  return true;
}

/* Declare def f's GlobalVar with the FuncStructInfo of its signature: its parameters'
 * annotations, its return annotation or R.Object, and its purity. */
int tvm_script__relax_decl_function(script_parser* p, const ast_stmt* f, bool pure,
                                    bool bind_name_too) {
  script_relax_signature sig;
  if (eval_signature(p, f, &sig) != 0) return -1;
  const ast_expr* fname = f->u.def.name;
  tvm_relax_sinfo_obj* ret = sig.ret;
  if (ret) {
    tvm_ffi_retain(ret);
  } else {
    ret = tvm_relax_object_sinfo_new();
  }
  tvm_relax_sinfo_obj* fs = ret ? tvm_relax_func_sinfo_new(sig.params, ret, pure) : NULL;
  tvm_ffi_release(ret);
  tvm_tir_global_var_obj* gv =
      fs ? tvm_script_relax_decl_function(p->b, fname->u.name->text, fs) : NULL;
  tvm_ffi_release(fs);
  if (!gv) {
    signature_clear(&sig);
    return tvm_script__relocate(p, &fname->span);
  }
  keep_signature(p, &sig);
  if (!bind_name_too) {
    tvm_ffi_release(gv);
    return 0;
  }
  TVMFFIAny v = tvm_ffi_any_obj(gv);
  return bind_name(p, fname, &v);
}

/* ---- Functions ------------------------------------------------------------------------------- */
/* Parameter index of def f; declared: its struct info as the declaration evaluated it, or NULL
 * (evaluated here). */
static int relax_param(script_parser* p, const ast_stmt* f, int32_t index,
                       const tvm_relax_sinfo_obj* declared) {
  const ast_arg* a = f->u.def.args[index];
  script_name* name = a->name->u.name;
  if (!a->annotation) {
    return tvm_script__error_at(p, &a->span, "TypeError", "a Relax parameter needs an annotation");
  }
  if (a->default_value) {
    return tvm_script__error_at(p, &a->default_value->span, "SyntaxError",
                                "Relax parameters take no defaults");
  }
  for (int32_t i = 0; i < index; ++i) {
    if (f->u.def.args[i]->name->u.name == name) {
      return tvm_script__error_at(p, &a->name->span, "SyntaxError",
                                  "duplicate argument '%s' in function definition", name->text);
    }
  }
  tvm_relax_sinfo_obj* s =
      declared ? (tvm_relax_sinfo_obj*)declared
               : tvm_script__relax_eval_sinfo(p, a->annotation, "a parameter annotation");
  if (!s) return -1;
  tvm_relax_var_obj* var = tvm_script_relax_arg(p->b, name->text, s);
  if (!declared) tvm_ffi_release(s);
  if (!var) return tvm_script__relocate(p, &a->span);
  TVMFFIAny v = tvm_ffi_any_obj(var);
  return bind_name(p, a->name, &v);
}

/* Name the declaration's symbolic variables (a Map name -> tir.Var) in the function frame's
 * table, as evaluating the annotations there would have. */
static int adopt_syms(script_parser* p, const ast_stmt* f, const void* syms) {
  const TVMFFIAny *k, *v;
  int rc = 0;
  tvm_ffi_strbuf name = {0};
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(syms, pos, &k, &v)) >= 0;) {
    TVMFFIByteArray text;
    if (!tvm_ffi_any_as_bytes(k, &text)) continue;
    name.size = 0;
    tvm_ffi_strbuf_append(&name, text.data, text.size);
    tvm_tir_var_obj* var =
        name.failed ? NULL
                    : tvm_script_relax_bind_sym_var(p->b, tvm_ffi_strbuf_cstr(&name), v->v_obj);
    if (!var) rc = tvm_script__relocate(p, &f->u.def.name->span);
    tvm_ffi_release(var);
  }
  tvm_ffi_strbuf_free(&name);
  return rc;
}

/* Bind the signature's symbolic variables (`"n"` in an annotation) by name for the body. */
static int bind_syms(script_parser* p, const ast_stmt* f) {
  void* syms = tvm_script_relax_syms(p->b);
  if (!syms) return tvm_script__relocate(p, &f->u.def.name->span);
  const TVMFFIAny *k, *v;
  int rc = 0;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(syms, pos, &k, &v)) >= 0;) {
    TVMFFIByteArray text;
    if (!tvm_ffi_any_as_bytes(k, &text)) continue;
    char buf[256];
    if (text.size >= sizeof(buf)) continue;
    memcpy(buf, text.data, text.size);
    buf[text.size] = '\0';
    script_name* n = script__name(p, buf);
    /* A parameter of that name is an error, as upstream, where both are names of the
     * function's scope; except an R.Prim parameter (`extent: T.int64`), which upstream's newest
     * dialect makes the symbolic variable itself: the name is the variable here too. */
    for (int32_t i = 0; n && i < f->u.def.nargs; ++i) {
      const ast_expr* param = f->u.def.args[i]->name;
      const TVMFFIAny* bound = param->u.name == n ? script__vt_lookup(&p->vt, n) : NULL;
      bool prim = bound && tvm_ffi_any_is_object(bound) && tvm_relax_is_expr(bound->v_obj) &&
                  tvm_relax_kind_of(tvm_relax_sinfo_of(bound->v_obj)) ==
                      TVM_RELAX_KIND_PrimStructInfo;
      if (param->u.name == n && !prim) {
        rc = tvm_script__error_at(p, &param->span, "ValueError",
                                  "parameter `%s` has the name of a symbolic variable of the "
                                  "signature (\"%s\" in an annotation): rename one of them",
                                  buf, buf);
      }
    }
    if (rc != 0) break;
    TVMFFIAny val = tvm_ffi_any_copy(v);
    if (!n || tvm_script__vt_bind(&p->vt, n, &val) != 0) {
      tvm_ffi_any_release(&val);
      rc = tvm_script__relocate(p, &f->u.def.name->span);
    }
  }
  tvm_ffi_release(syms);
  return rc;
}

static bool ident_char(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

/* Whether the body of def f names f (upstream's is_recursive): its text holds the name as a
 * whole word. (A mention in a string or comment only makes the local function's Var early, which
 * binds it the same.) */
static bool is_recursive(const script_parser* p, const ast_stmt* f) {
  const ast_stmts* body = &f->u.def.body;
  if (body->n == 0) return false;
  const char* name = f->u.def.name->u.name->text;
  size_t n = strlen(name);
  int64_t lo = body->items[0]->span.start_byte, hi = body->items[body->n - 1]->span.end_byte;
  if (lo < 0 || hi > (int64_t)p->len || n == 0) return false;
  for (int64_t i = lo; i + (int64_t)n <= hi; ++i) {
    if (memcmp(p->src + i, name, n) == 0 && (i == 0 || !ident_char(p->src[i - 1])) &&
        (i + (int64_t)n == (int64_t)p->len || !ident_char(p->src[i + n]))) {
      return true;
    }
  }
  return false;
}

int tvm_script__parse_relax_function(script_parser* p, const ast_stmt* f, unsigned flags,
                                     void** out) {
  *out = NULL;
  const ast_expr* fname = f->u.def.name;
  int depth = tvm_script_builder_depth(p->b);
  if (tvm_script_relax_function_enter(p->b, fname->u.name->text, flags) != 0) {
    return tvm_script__relocate(p, &fname->span);
  }
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_script__relocate(p, &fname->span);
  script_token saved = p->token;
  p->token = SCRIPT_TOKEN_RELAX;
  bool nested = p->func_depth > 0;
  ++p->func_depth;
  int rc = 0;
  /* A module function's signature was evaluated by its declaration. */
  script_relax_signature sig = {0};
  bool declared = !nested && take_signature(p, f, &sig);
  for (int32_t i = 0; rc == 0 && i < f->u.def.nargs; ++i) {
    rc = relax_param(p, f, i, declared ? tvm_ffi_seq_obj_at(sig.params, i) : NULL);
  }
  if (rc == 0 && declared) rc = adopt_syms(p, f, sig.syms);
  if (rc == 0) rc = bind_syms(p, f);
  if (rc == 0 && f->u.def.returns) {
    tvm_relax_sinfo_obj* s = sig.ret;
    if (s) {
      tvm_ffi_retain(s);
    } else {
      s = tvm_script__relax_eval_sinfo(p, f->u.def.returns, "the return annotation");
    }
    if (!s) {
      rc = -1;
    } else if (tvm_script_relax_func_ret(p->b, s) != 0) {
      rc = tvm_script__relocate(p, &f->u.def.returns->span);
    }
    tvm_ffi_release(s);
  }
  signature_clear(&sig);
  if (rc == 0 && nested && is_recursive(p, f)) {
    /* a local function calling itself: its Var is bound in its own scope first */
    tvm_relax_var_obj* self = tvm_script__relax_func_self_var(p->b);
    TVMFFIAny v = tvm_ffi_any_obj(self);
    rc = !self ? tvm_script__relocate(p, &fname->span) : bind_name(p, fname, &v);
  }
  if (rc == 0) rc = tvm_script__run_body(p, f->u.def.body);
  --p->func_depth;
  p->token = saved;
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0) return -1;
  if (tvm_script_builder_depth(p->b) != depth + 1) { /* (frames the body left open) */
    if (tvm_script__exit_to(p, depth + 1, &fname->span) != 0) return -1;
  }
  void* r = tvm_script_relax_function_end(p->b);
  if (!r) return tvm_script__relocate(p, &fname->span);
  *out = r;
  return 0;
}

/* A nested `@R.function def inner(...)`: a local function bound to its name. */
static int relax_def(script_parser* p, const ast_stmt* st) {
  if (st->kind == AST_CLASS) {
    return tvm_script__error_at(p, &st->span, "SyntaxError",
                                "a class cannot be defined inside an R.function");
  }
  unsigned flags;
  if (tvm_script__relax_decorator_flags(p, st, &flags) != 0) return -1;
  void* var;
  if (tvm_script__parse_relax_function(p, st, flags, &var) != 0) return -1;
  TVMFFIAny v = tvm_ffi_any_obj(var);
  return bind_name(p, st->u.def.name, &v);
}

/* ---- Bindings -------------------------------------------------------------------------------- */
/* A value upstream's bind_assign_value binds to the name as it is, emitting nothing: a TIR
 * expression other than a variable (`C = T.int64(16)`, `n * 2`; `R.prim_value(...)` makes a
 * Relax value), a string, or a list written out (`axes = [0, 1]`, an attribute's value; a
 * tuple is a Relax Tuple). */
static bool is_python_value(const ast_expr* e, const TVMFFIAny* v) {
  if (e->kind == AST_LIST || tvm_script__is_str(v)) return true;
  return tvm_ffi_any_is_object(v) && tvm_tir_is_expr(v->v_obj) && !tvm_tir_is_var(v->v_obj);
}

/* name[: ann] = value (value borrowed; e its expression): the bound Var, bound to id. A Python
 * number is bound as upstream's R.const(value) (int32, float32 or bool). */
static int emit_named(script_parser* p, const ast_stmt* st, const ast_expr* id, const ast_expr* e,
                      const TVMFFIAny* value, const tvm_relax_sinfo_obj* ann) {
  void* r;
  if (!ann && is_python_value(e, value)) {
    TVMFFIAny own = tvm_ffi_any_copy(value);
    return bind_name(p, id, &own);
  }
  if (value->type_index == kTVMFFIInt || value->type_index == kTVMFFIFloat ||
      value->type_index == kTVMFFIBool) {
    if (value->type_index == kTVMFFIInt &&
        (value->v_int64 < INT32_MIN || value->v_int64 > INT32_MAX)) {
      return tvm_script__error_at(p, &e->span, "ValueError",
                                  "%lld does not fit in int32: a number bound to a name in a Relax "
                                  "function is R.const(value), int32 for an int (write "
                                  "R.const(value, \"int64\"))",
                                  (long long)value->v_int64);
    }
    int blame;
    tvm_relax_expr_obj* c = tvm_script__relax_const(value, NULL, NULL, &blame);
    if (!c) return tvm_script__relocate(p, &e->span);
    TVMFFIAny cv = tvm_ffi_any_obj(c);
    r = tvm_script_relax_emit(p->b, id->u.name->text, &cv, ann);
    tvm_ffi_release(c);
  } else if (!ann && tvm_ffi_any_is_object(value) && tvm_tir_is_var(value->v_obj)) {
    /* `n = T.int64()`: the signature's n; `b = T.Var("a", "int64")`: one variable, two names
     * (upstream refuses it too) */
    const char* vname = tvm_tir_var_name((const tvm_tir_var_obj*)value->v_obj);
    if (vname && *vname && strcmp(vname, id->u.name->text) != 0) {
      return tvm_script__error_at(p, &st->span, "ValueError",
                                  "the TIR variable %s cannot be bound to the name %s: a "
                                  "symbolic variable takes the name it is assigned to",
                                  vname, id->u.name->text);
    }
    r = tvm_script_relax_bind_sym_var(p->b, id->u.name->text, value->v_obj);
  } else {
    r = tvm_script_relax_emit(p->b, id->u.name->text, value, ann);
  }
  if (!r) return tvm_script__relocate(p, &st->span);
  TVMFFIAny v = tvm_ffi_any_obj(r);
  return bind_name(p, id, &v);
}

/* `a, b = value`: the value bound under a fresh name, then each name to an item. */
static int emit_unpacked(script_parser* p, const ast_stmt* st, const ast_expr* lhs,
                         const TVMFFIAny* value) {
  bool is_var = tvm_ffi_any_is_object(value) && tvm_relax_is_var(value->v_obj);
  tvm_relax_var_obj* tmp = is_var ? tvm_ffi_retain(value->v_obj), (void*)value->v_obj
                                  : tvm_script_relax_emit(p->b, NULL, value, NULL);
  if (!tmp) return tvm_script__relocate(p, &st->span);
  TVMFFIAny t = tvm_ffi_any_obj(tmp);
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < lhs->u.elts.n; ++i) {
    const ast_expr* id = lhs->u.elts.items[i];
    if (id->kind != AST_NAME) {
      rc = tvm_script__error_at(p, &id->span, "SyntaxError", "only names can be bound here");
      break;
    }
    tvm_relax_expr_obj* item = tvm_script__relax_getitem(&t, i);
    if (!item) {
      rc = tvm_script__relocate(p, &lhs->span);
      break;
    }
    TVMFFIAny iv = tvm_ffi_any_obj(item);
    rc = emit_named(p, st, id, id, &iv, NULL); /* (an item: no Python value) */
    tvm_ffi_release(item);
  }
  tvm_ffi_release(tmp);
  return rc;
}

/* `a, b = x, y` (a tuple of names, a tuple of as many values): the values are evaluated left to
 * right first, then each bound to its name as `a = x` is, as Python unpacks them; so
 * `n, m = T.int64(), T.int64()` declares two symbolic variables. */
static int assign_elementwise(script_parser* p, const ast_stmt* st, const ast_expr* lhs,
                              const ast_expr* rhs) {
  int32_t n = lhs->u.elts.n;
  TVMFFIAny vals[16];
  int32_t done = 0;
  int rc = 0;
  for (; rc == 0 && done < n; ++done) {
    const ast_expr* id = lhs->u.elts.items[done];
    if (id->kind != AST_NAME) {
      rc = tvm_script__error_at(p, &id->span, "SyntaxError", "only names can be bound here");
      break;
    }
    rc = eval_value(p, rhs->u.elts.items[done], id->u.name->text, &vals[done]);
    if (rc != 0) break;
  }
  for (int32_t i = 0; rc == 0 && i < n; ++i) {
    const ast_expr* id = lhs->u.elts.items[i];
    rc = tvm_script__special_of(&vals[i]) ? bind_name(p, id, &vals[i])
                                          : emit_named(p, st, id, rhs->u.elts.items[i], &vals[i],
                                                       NULL);
  }
  for (int32_t i = 0; i < done; ++i) tvm_ffi_any_release(&vals[i]);
  return rc;
}

static int relax_assign(script_parser* p, const ast_stmt* st) {
  const ast_expr* lhs = st->u.assign.target;
  const ast_expr* ann_e = st->u.assign.annotation;
  if (!st->u.assign.value && p->fragment && lhs->kind == AST_NAME && ann_e) {
    /* `x: R.Tensor(...)` at the top of a fragment: a free variable (as the printer declares) */
    tvm_relax_sinfo_obj* ann = tvm_script__relax_eval_sinfo(p, ann_e, "a variable annotation");
    if (!ann) return -1;
    tvm_relax_var_obj* v = tvm_script_relax_fragment_var(p->b, lhs->u.name->text, ann);
    tvm_ffi_release(ann);
    if (!v) return tvm_script__relocate(p, &st->span);
    TVMFFIAny a = tvm_ffi_any_obj(v);
    return bind_name(p, lhs, &a);
  }
  if (!st->u.assign.value) {
    return tvm_script__error_at(p, &st->span, "SyntaxError", "a Relax binding needs a value");
  }
  if (st->u.assign.aug_op) {
    return tvm_script__error_at(p, &st->span, "SyntaxError",
                                "augmented assignment is not supported in Relax");
  }
  bool tuple = lhs->kind == AST_TUPLE || lhs->kind == AST_LIST;
  if (lhs->kind != AST_NAME && !tuple) {
    return tvm_script__error_at(p, &lhs->span, "SyntaxError",
                                "a Relax binding assigns to a name or a tuple of names");
  }
  if (tuple && ann_e) {
    return tvm_script__error_at(p, &lhs->span, "SyntaxError", "only a name can be annotated");
  }
  const ast_expr* rhs = st->u.assign.value;
  if (tuple && rhs->kind == AST_TUPLE && rhs->u.elts.n == lhs->u.elts.n && lhs->u.elts.n <= 16) {
    return assign_elementwise(p, st, lhs, rhs);
  }
  tvm_relax_sinfo_obj* ann = NULL;
  if (ann_e && !(ann = tvm_script__relax_eval_sinfo(p, ann_e, "a binding annotation"))) return -1;
  TVMFFIAny value;
  int rc = eval_value(p, st->u.assign.value, tuple ? NULL : lhs->u.name->text, &value);
  if (rc == 0 && !tuple && !ann && tvm_script__special_of(&value)) {
    return bind_name(p, lhs, &value); /* `cls = Module`: a Python binding */
  }
  if (rc == 0) {
    rc = tuple ? emit_unpacked(p, st, lhs, &value) : emit_named(p, st, lhs, rhs, &value, ann);
    tvm_ffi_any_release(&value);
  }
  tvm_ffi_release(ann);
  return rc;
}

/* ---- Expression statements: R.output, R.func_attr, ... ------------------------------------ */
static int relax_expr_stmt(script_parser* p, const ast_stmt* st) {
  const ast_expr* e = st->u.expr;
  if (e->kind == AST_CONST || e->kind == AST_STR) return 0; /* a stray literal */
  bool output = tvm_script__is_relax_call(p, e, "output");
  if (output) {
    ast_exprs args = e->u.call.args;
    for (int32_t i = 0; i < args.n; ++i) {
      if (args.items[i]->kind != AST_NAME) {
        return tvm_script__error_at(p, &args.items[i]->span, "SyntaxError",
                                    "R.output takes the names of the block's variables");
      }
    }
  }
  TVMFFIAny v;
  int rc = e->kind == AST_CALL ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_STMT, NULL, 0, &v)
                               : tvm_script__eval(p, e, &v);
  if (rc != 0) return -1;
  if (output) {
    if (v.type_index != kTVMFFIArray || tvm_ffi_seq_size(v.v_obj) != e->u.call.args.n) {
      tvm_ffi_any_release(&v);
      return tvm_script__error_at(p, &e->span, "RuntimeError",
                                  "internal error: R.output gave no outputs");
    }
    tvm_ffi_release(p->relax_outputs);
    p->relax_outputs = v.v_obj;
    p->relax_output_call = e;
    return 0;
  }
  if (tvm_ffi_any_is_object(&v) && tvm_relax_is_expr(v.v_obj)) {
    /* An expression evaluated for its effect (`R.print(x)`): bound to a fresh name; as the
     * last statement of an if branch, the branch's value (named `_`). Only a value of no
     * struct info (an empty tuple) may be dropped so, as upstream's parser requires: any
     * other is a result the program forgot to bind. */
    const char* name = st == p->relax_void_tail ? "_" : NULL;
    tvm_relax_var_obj* var = tvm_script_relax_emit(p->b, name, &v, NULL);
    const tvm_relax_sinfo_obj* s = var ? tvm_relax_sinfo_of(var) : NULL;
    if (!var) {
      rc = tvm_script__relocate(p, &st->span);
    } else if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TupleStructInfo ||
               tvm_ffi_seq_size(((const tvm_relax_tuple_sinfo_obj*)s)->fields) != 0) {
      tvm_ffi_strbuf b = {0};
      tvm_relax_sinfo_text(&b, s);
      rc = tvm_script__error_at(p, &st->span, "TypeError",
                                "a Relax expression of struct info %s is used as a statement: "
                                "only a call that returns nothing (R.Tuple()) may be; bind "
                                "its value to a variable",
                                tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&b);
    }
    tvm_ffi_release(var);
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* ---- with R.dataflow(): ---------------------------------------------------------------------- */
/* `return value` ending a dataflow block, as upstream reads it: R.output of the value, then
 * `return` of it after the block. A DataflowVar is the output; another expression is bound in
 * the block first; a Var from outside needs no output. *out: what the function returns. */
static int dataflow_return(script_parser* p, const ast_stmt* ret, TVMFFIAny* out) {
  if (!ret->u.ret) {
    return tvm_script__error_at(p, &ret->span, "SyntaxError", "a Relax return needs a value");
  }
  if (p->relax_outputs) {
    return tvm_script__error_at(p, &ret->span, "ValueError",
                                "return after R.output: R.output must be the last statement of "
                                "a dataflow block");
  }
  TVMFFIAny v;
  if (tvm_script__eval(p, ret->u.ret, &v) != 0) return -1;
  bool is_expr = tvm_ffi_any_is_object(&v) && tvm_relax_is_expr(v.v_obj);
  if (is_expr && tvm_relax_kind_of(v.v_obj) == TVM_RELAX_KIND_Var) {
    *out = v;
    return 0;
  }
  void* var = is_expr && tvm_relax_kind_of(v.v_obj) == TVM_RELAX_KIND_DataflowVar
                  ? (tvm_ffi_retain(v.v_obj), (void*)v.v_obj)
                  : (void*)tvm_script_relax_emit(p->b, NULL, &v, NULL);
  tvm_ffi_any_release(&v);
  TVMFFIAny item = tvm_ffi_any_obj(var);
  void* vars = var ? tvm_ffi_array_new(&item, 1) : NULL;
  void* outs = vars ? tvm_script_relax_dataflow_output(p->b, vars) : NULL;
  tvm_ffi_release(vars);
  tvm_ffi_release(var);
  if (!outs) return tvm_script__relocate(p, &ret->span);
  *out = tvm_ffi_any_copy(tvm_ffi_seq_at(outs, 0));
  tvm_ffi_release(outs);
  return 0;
}

static int relax_with(script_parser* p, const ast_stmt* st) {
  const ast_expr* context = st->u.with.context;
  if (!tvm_script__is_relax_call(p, context, "dataflow") || st->u.with.target) {
    return tvm_script__error_at(p, &context->span, "SyntaxError",
                                "a Relax with statement is `with R.dataflow():`");
  }
  int depth = tvm_script_builder_depth(p->b);
  TVMFFIAny v;
  if (tvm_script__eval_call(p, context, TVM_SCRIPT_CTX_WITH, NULL, 0, &v) != 0) return -1;
  tvm_ffi_any_release(&v);
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_script__relocate(p, &st->span);
  tvm_ffi_release(p->relax_outputs);
  p->relax_outputs = NULL;
  p->relax_output_call = NULL;
  ast_stmts body = st->u.with.body;
  const ast_stmt* ret =
      body.n > 0 && body.items[body.n - 1]->kind == AST_RETURN ? body.items[--body.n] : NULL;
  int rc = tvm_script__run_body(p, body);
  TVMFFIAny result = tvm_ffi_any_none();
  if (rc == 0 && ret) rc = dataflow_return(p, ret, &result);
  /* The block's names, undefined after it unless R.output names them (below). */
  for (int32_t i = p->vt.scopes[p->vt.nscopes - 1]; i < p->vt.nbinds; ++i) {
    p->vt.binds[i].name->relax_df_local = true;
  }
  tvm_script__vt_pop_scope(&p->vt);
  if (rc == 0) rc = tvm_script__exit_to(p, depth, &st->span);
  void* outs = p->relax_outputs;
  const ast_expr* call = p->relax_output_call;
  p->relax_outputs = NULL;
  p->relax_output_call = NULL;
  for (int32_t i = 0; rc == 0 && outs && i < call->u.call.args.n; ++i) {
    TVMFFIAny o = tvm_ffi_any_copy(tvm_ffi_seq_at(outs, i));
    call->u.call.args.items[i]->u.name->relax_df_local = false;
    rc = bind_name(p, call->u.call.args.items[i], &o);
  }
  tvm_ffi_release(outs);
  if (rc == 0 && ret && tvm_script_relax_func_return(p->b, &result) != 0) {
    rc = tvm_script__relocate(p, &ret->span);
  }
  tvm_ffi_any_release(&result);
  return rc;
}

/* ---- if / else ------------------------------------------------------------------------------- */
static int branch(script_parser* p, ast_stmts body, int depth, const ast_stmt* st, bool void_tail) {
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_script__relocate(p, &st->span);
  const ast_stmt* saved = p->relax_void_tail;
  p->relax_void_tail = void_tail ? body.items[body.n - 1] : NULL;
  int rc = tvm_script__run_body(p, body);
  p->relax_void_tail = saved;
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0) return -1;
  return tvm_script__exit_to(p, depth, &st->span);
}

/* The name a branch's last statement assigns, or NULL. A branch ending with a dataflow block
 * (`with R.dataflow(): ... out = ...; R.output(out)`) results in the block's last binding, as
 * upstream's; the name is that of the assignment before R.output (the builder checks that it is
 * an output). */
static const ast_expr* branch_target(script_parser* p, ast_stmts body) {
  const ast_stmt* last = body.n ? body.items[body.n - 1] : NULL;
  if (last && last->kind == AST_WITH &&
      tvm_script__is_relax_call(p, last->u.with.context, "dataflow")) {
    ast_stmts df = last->u.with.body;
    const ast_stmt* out = df.n >= 2 ? df.items[df.n - 1] : NULL;
    if (!out || out->kind != AST_EXPR_STMT ||
        !tvm_script__is_relax_call(p, out->u.expr, "output")) {
      return NULL;
    }
    last = df.items[df.n - 2];
  }
  if (!last || last->kind != AST_ASSIGN || last->u.assign.target->kind != AST_NAME) return NULL;
  return last->u.assign.target;
}

/* Whether a branch's last statement is a call evaluated for its effect. */
static bool branch_void_tail(ast_stmts body) {
  const ast_stmt* last = body.n ? body.items[body.n - 1] : NULL;
  return last && last->kind == AST_EXPR_STMT && last->u.expr->kind == AST_CALL;
}

static int relax_if(script_parser* p, const ast_stmt* st) {
  if (st->u.if_.orelse.n == 0) {
    return tvm_script__error_at(p, &st->span, "SyntaxError",
                                "a Relax if needs an else branch (both branches bind the value)");
  }
  const ast_expr* t = branch_target(p, st->u.if_.body);
  const ast_expr* e = branch_target(p, st->u.if_.orelse);
  /* `R.print(...)` ending both branches: the if's value is theirs, bound to no name */
  bool void_tail = !t && !e && branch_void_tail(st->u.if_.body) &&
                   branch_void_tail(st->u.if_.orelse);
  if (!void_tail && (!t || !e || t->u.name != e->u.name)) {
    const ast_stmts* b = t ? &st->u.if_.orelse : &st->u.if_.body;
    const tvm_script_span* at = b->n ? &b->items[b->n - 1]->span : &st->span;
    return tvm_script__error_at(p, at, "SyntaxError",
                                "both branches of a Relax if must end by assigning the same name");
  }
  const ast_expr* test = st->u.if_.test;
  TVMFFIAny c;
  if (tvm_script__eval(p, test, &c) != 0) return -1;
  int depth = tvm_script_builder_depth(p->b);
  int rc = tvm_script_relax_if_enter(p->b, &c);
  tvm_ffi_any_release(&c);
  if (rc != 0) return tvm_script__relocate(p, &test->span);
  int inner = tvm_script_builder_depth(p->b);
  if (tvm_script_relax_then_enter(p->b) != 0) return tvm_script__relocate(p, &st->span);
  if (branch(p, st->u.if_.body, inner, st, void_tail) != 0) return -1;
  if (tvm_script_relax_else_enter(p->b) != 0) return tvm_script__relocate(p, &st->span);
  if (branch(p, st->u.if_.orelse, inner, st, void_tail) != 0) return -1;
  if (tvm_script_builder_depth(p->b) != depth + 1) {
    return tvm_script__error_at(p, &st->span, "RuntimeError", "internal error: if frames");
  }
  tvm_relax_var_obj* var = tvm_script_relax_if_end(p->b);
  if (!var) return tvm_script__relocate(p, &st->span);
  if (void_tail) {
    tvm_ffi_release(var);
    return 0;
  }
  TVMFFIAny v = tvm_ffi_any_obj(var);
  return bind_name(p, t, &v);
}

/* ---- return ---------------------------------------------------------------------------------- */
static int relax_return(script_parser* p, const ast_stmt* st) {
  if (!st->u.ret) {
    return tvm_script__error_at(p, &st->span, "SyntaxError", "a Relax return needs a value");
  }
  TVMFFIAny v;
  if (tvm_script__eval(p, st->u.ret, &v) != 0) return -1;
  int rc = tvm_script_relax_func_return(p->b, &v) == 0 ? 0 : tvm_script__relocate(p, &st->span);
  tvm_ffi_any_release(&v);
  return rc;
}

void tvm_script__register_relax_handlers(void) {
  static const struct {
    ast_stmt_kind kind;
    script_stmt_handler fn;
  } kRelax[] = {
      {AST_ASSIGN, relax_assign}, {AST_EXPR_STMT, relax_expr_stmt}, {AST_WITH, relax_with},
      {AST_IF, relax_if},         {AST_RETURN, relax_return},       {AST_DEF, relax_def},
      {AST_CLASS, relax_def},
  };
  for (size_t i = 0; i < sizeof(kRelax) / sizeof(kRelax[0]); ++i) {
    tvm_script__register_handler(SCRIPT_TOKEN_RELAX, kRelax[i].kind, kRelax[i].fn);
  }
}
