/*
 * parse_func.c: the top of the TVMScript parser's semantic half: the statement dispatch table,
 * decorators, `@T.prim_func` functions, `@I.ir_module` classes, module-level constants,
 * fragments, and tvm_script_parse (which parses the text into the tree of ast.h and evaluates
 * it).
 *
 * Dispatch: a statement runs the handler registered for (current dialect token, statement
 * kind), else the one registered for the default token (parse_eval.h says how a dialect plugs
 * in). The decorator of a definition sets the token for its body (kDecorators).
 */
#include <ctype.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/relax/analysis.h>
#include <tvm/script/ir_builder_relax.h>
#include <tvm/script/parser.h>
#include <tvm/tir/analysis.h>

#include "ir_builder_internal.h"
#include "parse_eval.h"
#include "script_relax_internal.h"

/* The parser of one tvm_script_parse call (the only place a script_parser is made), with this
 * file's own state: the functions of the module being parsed are verified as soon as each is
 * built, while its IR is still in cache (the check of a whole module at its end walks IR long
 * evicted: for large modules most of the check's time). A function that passes is remembered
 * (by its def) and not checked again; one that fails is left to check_module_functions, which
 * reports it in its own order, so errors are those of a check at the end. */
typedef struct {
  const ast_stmt* def;
  void* func; /* (retained: the module's check at the end skips it by identity) */
} passed_func;
typedef struct {
  script_parser p;
  bool module_checks; /* the module being parsed checks its functions */
  /* The defs whose functions were found well-formed, in parse order (a module's functions are
   * parsed and checked in the order of its statements): inline when few. */
  int64_t num_passed, cap_passed;
  passed_func* passed;
  passed_func passed_inline[8];
  /* During the Relax check of a finished module: the passed functions by address, which that
   * check skips (relax_func_checked). */
  const void** checked_sorted;
} func_parser;

static func_parser* func_parser_of(script_parser* p) {
  return (func_parser*)((char*)p - offsetof(func_parser, p));
}

/* The well-formedness check of a function built by this parse. Its first pass (structure) is
 * skipped when every node came from libtir's constructors, i.e. when no caller-supplied object
 * (extra_vars) can be part of it. */
static int verify(script_parser* p, const void* func) {
  bool constructed = !p->extra_vars || tvm_ffi_map_size(p->extra_vars) == 0;
  return tvm_tir_verify_well_formed_ex(func, constructed ? TVM_TIR_WF_CONSTRUCTED : 0);
}

/* Verify the function of def fn (named name) just added to the module being built; remember fn
 * if it passes. Failures are not errors here (see func_parser). Remembering the def stands for
 * remembering the function: the module never replaces the function of a name (a second
 * definition is an error), so at the end the module's function of fn's name is this one. */
static void precheck_module_function(script_parser* p, const ast_stmt* fn, const char* name) {
  func_parser* fp = func_parser_of(p);
  tvm_script__frame* mod = tvm_script__find_frame(p->b, TVM_SCRIPT_FRAME_MODULE);
  const TVMFFIAny* gv = mod ? tvm_ffi_map_get_str(mod->global_vars, name) : NULL;
  const TVMFFIAny* func = gv ? tvm_ffi_map_get(mod->functions, gv) : NULL;
  if (func && tvm_ffi_any_is_object(func) &&
      tvm_tir_kind_of(func->v_obj) == TVM_TIR_KIND_PrimFunc && verify(p, func->v_obj) == 0) {
    if (fp->num_passed == fp->cap_passed) {
      int64_t cap = fp->cap_passed * 2;
      passed_func* grown = tvm_ffi_malloc((size_t)cap * sizeof(passed_func));
      if (!grown) { /* (not remembered: checked again at the end) */
        tvm_ffi_error_clear();
        return;
      }
      memcpy(grown, fp->passed, (size_t)fp->num_passed * sizeof(passed_func));
      if (fp->passed != fp->passed_inline) tvm_ffi_free(fp->passed);
      fp->passed = grown;
      fp->cap_passed = cap;
    }
    tvm_ffi_retain(func->v_obj);
    fp->passed[fp->num_passed++] = (passed_func){fn, func->v_obj};
  }
  tvm_ffi_error_clear();
}

/* Whether def fn's function passed precheck_module_function; *cursor: the next entry. The
 * defs were remembered in the order of the module's statements, the order the end's check
 * meets them in, so fn passed only if it is the next entry (a def found elsewhere would only be
 * checked again: one look per def keeps the check linear in the module). */
static bool prechecked(script_parser* p, const ast_stmt* fn, int64_t* cursor) {
  const func_parser* fp = func_parser_of(p);
  if (*cursor < fp->num_passed && fp->passed[*cursor].def == fn) {
    ++*cursor;
    return true;
  }
  return false;
}

/* The options of the parser's Relax well-formedness checks: calls made by inference are not
 * inferred again, and a module's PrimFuncs that passed precheck_module_function are not
 * checked again. ctx: the parser. */
static bool relax_call_inferred(void* ctx, const void* call) {
  return tvm_script__relax_call_inferred(((script_parser*)ctx)->b, call);
}

static int by_address(const void* a, const void* b) {
  const void* const* pa = a;
  const void* const* pb = b;
  uintptr_t x = (uintptr_t)*pa, y = (uintptr_t)*pb;
  return x < y ? -1 : x > y;
}

static bool relax_func_checked(void* ctx, const void* func) {
  const func_parser* fp = func_parser_of(ctx);
  return fp->checked_sorted &&
         bsearch(&func, fp->checked_sorted, (size_t)fp->num_passed, sizeof(void*), by_address);
}

/* fp->checked_sorted: the functions that passed, by address (NULL without memory for it: they
 * are checked again). */
static void sort_passed(func_parser* fp) {
  size_t n = (size_t)fp->num_passed;
  fp->checked_sorted = tvm_ffi_malloc((n ? n : 1) * sizeof(void*));
  if (!fp->checked_sorted) {
    tvm_ffi_error_clear();
    return;
  }
  for (size_t i = 0; i < n; ++i) fp->checked_sorted[i] = fp->passed[i].func;
  qsort(fp->checked_sorted, n, sizeof(void*), by_address);
}

static tvm_relax_wf_options relax_wf_options(script_parser* p) {
  return (tvm_relax_wf_options){relax_call_inferred, p, relax_func_checked};
}

/* ---- Dispatch ------------------------------------------------------------------------------ */
static script_stmt_handler g_handlers[SCRIPT_TOKEN_COUNT][AST_STMT_COUNT];
static const char* const kTokenNames[SCRIPT_TOKEN_COUNT] = {"", "ir", "tirx", "relax"};

void tvm_script__register_handler(script_token token, ast_stmt_kind kind, script_stmt_handler fn) {
  if ((int)token >= 0 && token < SCRIPT_TOKEN_COUNT && (int)kind >= 0 && kind < AST_STMT_COUNT) {
    g_handlers[token][kind] = fn;
  }
}

int tvm_script__run_stmt(script_parser* p, const ast_stmt* stmt) {
  int k = stmt->kind;
  script_stmt_handler h = g_handlers[p->token][k];
  if (!h) h = g_handlers[SCRIPT_TOKEN_DEFAULT][k];
  if (!h) {
    if (p->token == SCRIPT_TOKEN_DEFAULT) {
      return tvm_script__error_at(p, &stmt->span, "SyntaxError",
                                  "this statement (%s) is not supported at module level",
                                  tvm_script__ast_stmt_kind_name(k));
    }
    return tvm_script__error_at(p, &stmt->span, "SyntaxError",
                                "this statement (%s) is not supported in dialect '%s'",
                                tvm_script__ast_stmt_kind_name(k), kTokenNames[p->token]);
  }
  /* The builder records the nodes built for this statement at its span (a definition's own
   * errors are reported at its name, so it sets none), for errors found in the finished IR. */
  if (k == AST_DEF || k == AST_CLASS) return h(p, stmt);
  const tvm_script_span* outer = p->b->span;
  p->b->span = &stmt->span;
  int rc = h(p, stmt);
  p->b->span = outer;
  return rc;
}

int tvm_script__run_body(script_parser* p, ast_stmts stmts) {
  for (int32_t i = 0; i < stmts.n; ++i) {
    if (tvm_script__run_stmt(p, stmts.items[i]) != 0) return -1;
  }
  return 0;
}

/* Raise err (consumed; an unlocated error) again at span, keeping its kind. Returns -1. */
static int raise_at(script_parser* p, void* err, tvm_script_span span) {
  if (!err) return tvm_ffi_raise("RuntimeError", "internal error: failure without an error");
  tvm_script_diag_raise(tvm_ffi_error_kind(err), p->src, p->len, p->filename, span, "%s",
                        tvm_ffi_error_message(err));
  tvm_ffi_release(err);
  return -1;
}

int tvm_script__exit_to(script_parser* p, int depth, const tvm_script_span* span) {
  while (tvm_script_builder_depth(p->b) > depth) {
    if (tvm_script_builder_exit(p->b) == 0) continue;
    /* At the statement of the frame whose node failed (a rest-of-body frame closed here was
     * opened by an earlier statement), when the builder knows it. */
    const tvm_script_span* at = p->b->exit_error_span;
    return at ? raise_at(p, tvm_ffi_error_take(), *at) : tvm_script__relocate(p, span);
  }
  return 0;
}

/* ---- Decorators ---------------------------------------------------------------------------- */
/* The decorators that start a definition, and the dialect token each sets for its body (a
 * dialect without a parser yet has its message). */
static const struct {
  const char* module; /* script_special.name of the alias's module */
  const char* name;
  script_token token;
  const char* not_yet; /* NULL, or the NotImplementedError's message */
} kDecorators[] = {
    {"tirx", "prim_func", SCRIPT_TOKEN_TIRX, NULL},
    {"ir", "ir_module", SCRIPT_TOKEN_IR, NULL},
    {"relax", "function", SCRIPT_TOKEN_RELAX, NULL},
};

typedef struct {
  script_token token; /* TIRX for @T.prim_func, IR for @I.ir_module, RELAX for @R.function */
  bool is_private;
  bool is_pure; /* @R.function(pure=False): false */
  bool check_wf;
} decorator_info;

static int parse_decorators(script_parser* p, const ast_expr* def_name, ast_exprs decorators,
                            decorator_info* out) {
  out->token = SCRIPT_TOKEN_DEFAULT;
  out->is_private = false;
  out->is_pure = true;
  out->check_wf = true;
  for (int32_t i = 0; i < decorators.n; ++i) {
    const ast_expr* d = decorators.items[i];
    const ast_expr* call = d->kind == AST_CALL ? d : NULL;
    char name[64];
    size_t len = 0;
    const script_special* mod =
        tvm_script__dotted(p, call ? call->u.call.func : d, name, sizeof(name), &len);
    size_t row = 0, rows = sizeof(kDecorators) / sizeof(kDecorators[0]);
    while (row < rows && !(mod && strcmp(mod->name, kDecorators[row].module) == 0 &&
                           strcmp(name, kDecorators[row].name) == 0)) {
      ++row;
    }
    if (row == rows) {
      return tvm_script__error_at(
          p, &d->span, "SyntaxError",
          "unknown decorator (expected @T.prim_func, @R.function or @I.ir_module)");
    }
    if (kDecorators[row].not_yet) {
      return tvm_script__error_at(p, &d->span, "NotImplementedError", "%s",
                                  kDecorators[row].not_yet);
    }
    if (out->token != SCRIPT_TOKEN_DEFAULT) {
      return tvm_script__error_at(p, &d->span, "SyntaxError", "a definition takes one decorator");
    }
    out->token = kDecorators[row].token;
    if (!call) continue;
    if (call->u.call.args.n != 0) {
      return tvm_script__error_at(p, &call->u.call.args.items[0]->span, "TypeError",
                                  "the decorator takes keyword arguments only");
    }
    for (int32_t k = 0; k < call->u.call.kw_values.n; ++k) {
      const char* key = call->u.call.kw_names[k]->text;
      const ast_expr* vd = call->u.call.kw_values.items[k];
      bool ignored = strcmp(key, "s_tir") == 0 ||
                     (strcmp(key, "pure") == 0 && kDecorators[row].token != SCRIPT_TOKEN_RELAX);
      if (!ignored && strcmp(key, "private") != 0 && strcmp(key, "check_well_formed") != 0 &&
          strcmp(key, "pure") != 0) {
        return tvm_script__error_at(p, &vd->span, "TypeError", "unknown decorator argument '%s'",
                                    key);
      }
      TVMFFIAny v;
      if (tvm_script__eval(p, vd, &v) != 0) return -1;
      /* A flag is a bool (or an int, as upstream's FFI converts it): `pure="False"` is no
       * truthy string. */
      bool is_flag = v.type_index == kTVMFFIBool || v.type_index == kTVMFFIInt;
      bool flag = is_flag && v.v_int64 != 0;
      const char* got = tvm_ffi_any_type_name(&v);
      tvm_ffi_any_release(&v);
      if (ignored) continue;
      if (!is_flag) {
        return tvm_script__error_at(p, &vd->span, "TypeError",
                                    "decorator argument '%s' must be True or False, got %s", key,
                                    got);
      }
      if (strcmp(key, "private") == 0) {
        out->is_private = flag;
      } else if (strcmp(key, "check_well_formed") == 0) {
        out->check_wf = flag || p->wf_always;
      } else {
        out->is_pure = flag;
      }
    }
  }
  if (out->token == SCRIPT_TOKEN_DEFAULT) {
    return tvm_script__error_at(
        p, &def_name->span, "SyntaxError",
        "a definition needs a decorator (@T.prim_func, @R.function or @I.ir_module)");
  }
  return 0;
}

/* ---- Functions ------------------------------------------------------------------------------ */
/* The parameter object for an annotation value: a Buffer or Var as it is, a dtype (`T.int32`,
 * `T.handle`) or a type as a new Var named name_str (the parameter's String, shared). NULL with
 * an unlocated error. */
static void* param_object(const TVMFFIAny* ann, void* name_str) {
  DLDataType t;
  if (tvm_ffi_any_is_object(ann)) {
    void* o = ann->v_obj;
    if (tvm_tir_kind_of(o) == TVM_TIR_KIND_Buffer || tvm_tir_is_var(o)) {
      tvm_ffi_retain(o);
      return o;
    }
    if (tvm_tir_is_type(o)) return tvm_tir_var_new_typed_str(name_str, o);
  }
  if (tvm_script__as_dtype(ann, &t)) return tvm_tir_var_new_str(name_str, t);
  tvm_ffi_raise("TypeError",
                "a parameter annotation must be T.Buffer(...), T.handle or a dtype, not '%s'",
                tvm_ffi_any_type_name(ann));
  return NULL;
}

/* Parameter `index` of def fn (earlier ones already checked). */
static int parse_param(script_parser* p, const ast_stmt* fn, int32_t index) {
  const ast_arg* a = fn->u.def.args[index];
  script_name* name = a->name->u.name;
  if (!a->annotation) {
    return tvm_script__error_at(p, &a->span, "TypeError",
                                "a TIR parameter needs a type annotation");
  }
  if (a->default_value) {
    return tvm_script__error_at(p, &a->default_value->span, "SyntaxError",
                                "TIR parameters take no defaults");
  }
  for (int32_t i = 0; i < index; ++i) { /* as Python: a name once per signature */
    if (fn->u.def.args[i]->name->u.name == name) {
      return tvm_script__error_at(p, &a->name->span, "SyntaxError",
                                  "duplicate argument '%s' in function definition", name->text);
    }
  }
  void* name_str = tvm_script__name_string(name);
  if (!name_str) return tvm_script__relocate(p, &a->span);
  const char* cname = tvm_ffi_str_cstr(name_str);
  TVMFFIAny ann;
  p->b->name_strs[0] = name_str; /* (T.Buffer(...) names the buffer after the parameter) */
  p->b->num_name_strs = 1;
  int rc = a->annotation->kind == AST_CALL
               ? tvm_script__eval_call(p, a->annotation, TVM_SCRIPT_CTX_ASSIGN, &cname, 1, &ann)
               : tvm_script__eval(p, a->annotation, &ann);
  if (rc != 0) return -1;
  void* param = param_object(&ann, name_str);
  tvm_ffi_any_release(&ann);
  if (!param) return tvm_script__relocate(p, &a->annotation->span);
  void* bound = tvm_script_tir_arg(p->b, cname, param);
  tvm_ffi_release(param);
  if (!bound) return tvm_script__relocate(p, &a->span);
  TVMFFIAny v = tvm_ffi_any_obj(bound);
  if (tvm_script__vt_bind(&p->vt, name, &v) != 0) {
    tvm_ffi_any_release(&v);
    return tvm_script__relocate(p, &a->span);
  }
  return 0;
}

/* The type a PrimFunc's return annotation rt names (a new reference; NULL for `None`). */
static int eval_ret_type(script_parser* p, const ast_expr* rt, void** type) {
  TVMFFIAny v;
  *type = NULL;
  if (tvm_script__eval(p, rt, &v) != 0) return -1;
  DLDataType t;
  if (tvm_ffi_any_is_object(&v) && tvm_tir_is_type(v.v_obj)) {
    *type = v.v_obj;
    tvm_ffi_retain(*type);
  } else if (tvm_script__as_dtype(&v, &t)) {
    if (!(*type = tvm_tir_prim_type_new(t))) {
      tvm_ffi_any_release(&v);
      return tvm_script__relocate(p, &rt->span);
    }
  } else if (!tvm_ffi_any_is_none(&v)) {
    tvm_ffi_any_release(&v);
    return tvm_script__error_at(p, &rt->span, "TypeError",
                                "a return annotation must be a dtype such as T.int32");
  }
  tvm_ffi_any_release(&v);
  return 0;
}

static int parse_ret_type(script_parser* p, const ast_expr* rt) {
  void* type;
  if (eval_ret_type(p, rt, &type) != 0) return -1;
  if (!type) return 0;
  int rc = tvm_script_tir_func_ret(p->b, type) == 0 ? 0 : tvm_script__relocate(p, &rt->span);
  tvm_ffi_release(type);
  return rc;
}

/* Whether a comment line `# with <T>.sblock("root"):` (or `.block`) lies in bytes [from, to)
 * of the source. */
static bool has_root_comment(const char* src, size_t from, size_t to) {
  static const char* const kForms[] = {".sblock(\"root\"):", ".block(\"root\"):",
                                       ".sblock('root'):", ".block('root'):"};
  for (size_t i = from; i < to; ++i) {
    const char* hash = memchr(src + i, '#', to - i); /* a function's text: mostly no '#' */
    if (!hash) break;
    i = (size_t)(hash - src);
    if (i > from && src[i - 1] != ' ' && src[i - 1] != '\t' && src[i - 1] != '\n') continue;
    size_t k = i + 1;
    while (k < to && src[k] == ' ') ++k;
    if (to - k < 5 || memcmp(src + k, "with ", 5) != 0) continue;
    k += 5;
    while (k < to && (src[k] == '_' || isalnum((unsigned char)src[k]))) ++k;
    for (size_t f = 0; f < sizeof(kForms) / sizeof(kForms[0]); ++f) {
      size_t n = strlen(kForms[f]);
      if (to - k >= n && memcmp(src + k, kForms[f], n) == 0) return true;
    }
  }
  return false;
}

/* The printer writes a function's implicit root block (no iter vars, reads, writes or init) as
 * the comment `# with T.sblock("root"):` before the body: comments are not in the tree, so look
 * for it in the text before the last statement of the body, and ask the builder for the root
 * block (which it also creates for root allocations). */
static int request_root_block(script_parser* p, const ast_stmt* f) {
  ast_stmts body = f->u.def.body;
  if (body.n == 0) return 0;
  int64_t from = f->span.start_byte, to = body.items[body.n - 1]->span.start_byte;
  if (from < 0 || to < from || (size_t)to > p->len) return 0;
  if (!has_root_comment(p->src, (size_t)from, (size_t)to)) return 0;
  return tvm_script_tir_func_root_block(p->b);
}

/* tvm_script__parse_function; *check_wf: whether its decorator asks for the well-formedness
 * check (what wants_check reads for it in the same state). */
static int parse_function(script_parser* p, const ast_stmt* f, bool* check_wf) {
  decorator_info deco;
  const ast_expr* fname = f->u.def.name;
  if (parse_decorators(p, fname, f->u.def.decorators, &deco) != 0) return -1;
  *check_wf = deco.check_wf;
  if (deco.token == SCRIPT_TOKEN_RELAX) {
    unsigned flags = (deco.is_private ? TVM_SCRIPT_RELAX_PRIVATE : 0) |
                     (deco.is_pure ? 0 : TVM_SCRIPT_RELAX_IMPURE);
    void* r;
    if (tvm_script__parse_relax_function(p, f, flags, &r) != 0) return -1;
    tvm_ffi_release(r);
    return 0;
  }
  if (deco.token != SCRIPT_TOKEN_TIRX) {
    return tvm_script__error_at(p, &f->u.def.decorators.items[0]->span, "SyntaxError",
                                "@I.ir_module decorates a class, not a function");
  }
  void* name_str = tvm_script__name_string(fname->u.name);
  if (!name_str) return tvm_script__relocate(p, &fname->span);
  const char* name = tvm_ffi_str_cstr(name_str);
  script_token saved = p->token;
  int depth = tvm_script_builder_depth(p->b);
  p->b->name_strs[0] = name_str; /* (shared by the IR) */
  p->b->num_name_strs = 1;
  if (tvm_script_tir_prim_func_enter(p->b, deco.is_private) != 0 ||
      tvm_script_tir_func_name(p->b, name) != 0) {
    return tvm_script__relocate(p, &fname->span);
  }
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_script__relocate(p, &fname->span);
  p->token = SCRIPT_TOKEN_TIRX;
  ++p->func_depth;
  int rc = 0;
  for (int32_t i = 0; rc == 0 && i < f->u.def.nargs; ++i) rc = parse_param(p, f, i);
  if (rc == 0 && f->u.def.returns) rc = parse_ret_type(p, f->u.def.returns);
  if (rc == 0 && request_root_block(p, f) != 0) rc = tvm_script__relocate(p, &fname->span);
  if (rc == 0) rc = tvm_script__run_body(p, f->u.def.body);
  --p->func_depth;
  p->token = saved;
  tvm_script__vt_pop_scope(&p->vt);
  if (rc != 0 || tvm_script__exit_to(p, depth, &fname->span) != 0) return -1;
  if (p->check_wf && deco.check_wf && func_parser_of(p)->module_checks) {
    precheck_module_function(p, f, name);
  }
  return 0;
}

int tvm_script__relax_decorator_flags(script_parser* p, const ast_stmt* fn, unsigned* flags) {
  decorator_info deco;
  if (parse_decorators(p, fn->u.def.name, fn->u.def.decorators, &deco) != 0) return -1;
  if (deco.token != SCRIPT_TOKEN_RELAX) {
    return tvm_script__error_at(p, &fn->u.def.decorators.items[0]->span, "SyntaxError",
                                "a function inside an R.function must be an @R.function");
  }
  *flags = (deco.is_private ? TVM_SCRIPT_RELAX_PRIVATE : 0) |
           (deco.is_pure ? 0 : TVM_SCRIPT_RELAX_IMPURE);
  return 0;
}

/* A decorated def in any context (module level or inside a class). */
int tvm_script__parse_function(script_parser* p, const ast_stmt* fn) {
  bool check_wf;
  return parse_function(p, fn, &check_wf);
}

/* The span of def's first T.func_attr / R.func_attr statement, or NULL. */
static const tvm_script_span* func_attr_span(script_parser* p, const ast_stmt* def) {
  for (int32_t i = 0; i < def->u.def.body.n; ++i) {
    const ast_stmt* st = def->u.def.body.items[i];
    const ast_expr* e = st->kind == AST_EXPR_STMT ? st->u.expr : NULL;
    char name[16];
    size_t len;
    if (e && e->kind == AST_CALL &&
        tvm_script__dotted(p, e->u.call.func, name, sizeof(name), &len) &&
        strcmp(name, "func_attr") == 0) {
      return &st->span;
    }
  }
  return NULL;
}

/* The span of the node at an access path below func (function def's): the statement that built
 * the deepest node on it; the attrs' at the function's func_attr statement. NULL if none. */
static const tvm_script_span* span_at_path(script_parser* p, const ast_stmt* def,
                                           const void* func, const char* path) {
  if (strncmp(path, "<root>.attrs", 12) == 0) return func_attr_span(p, def);
  return tvm_script__span_at_path(&p->b->spans, func, path);
}

/* Where a Relax well-formedness error is reported: at the statement that built the deepest
 * node on the access path its message starts with ("<root>.body...: ..." relative to func, the
 * function def defines), else at def's name. */
static tvm_script_span relax_error_span(script_parser* p, const ast_stmt* def, const void* func,
                                        const char* path) {
  tvm_script_span at = def->u.def.name->span;
  const tvm_script_span* span = span_at_path(p, def, func, path);
  /* (the function's own entry is its whole def: its name says the same, shorter) */
  if (span && span->start_byte != def->span.start_byte) at = *span;
  return at;
}

/* Verify a finished function. A failure is reported at the statement that built the deepest
 * node on the access path the checker names, else at the function's name. */
static int check_function(script_parser* p, const ast_stmt* fn, const void* func) {
  if (tvm_relax_kind_of(func) == TVM_RELAX_KIND_Function) { /* Relax's own check */
    tvm_relax_wf_options wo = relax_wf_options(p);
    if (tvm_relax_verify_well_formed_ex(func, &wo) == 0) return 0;
    void* err = tvm_ffi_error_take();
    return raise_at(p, err, relax_error_span(p, fn, func, err ? tvm_ffi_error_message(err) : ""));
  }
  if (verify(p, func) == 0) return 0;
  void* err = tvm_ffi_error_take();
  const char* msg = err ? tvm_ffi_error_message(err) : "";
  const char* at = strstr(msg, " at <root>");
  for (const char* later; at && (later = strstr(at + 1, " at <root>"));) at = later;
  const tvm_script_span* span = at ? span_at_path(p, fn, func, at + 4) : NULL;
  return raise_at(p, err, span ? *span : fn->u.def.name->span);
}

/* ---- Modules ------------------------------------------------------------------------------- */
/* I.module_attrs({...}) / I.module_global_infos({...}) in a class body. */
static int ir_expr_stmt(script_parser* p, const ast_stmt* st) {
  const ast_expr* e = st->u.expr;
  const ast_expr* c = e->kind == AST_CALL ? e : NULL;
  char name[64];
  size_t len;
  const script_special* mod =
      c ? tvm_script__dotted(p, c->u.call.func, name, sizeof(name), &len) : NULL;
  bool attrs = mod && strcmp(mod->name, "ir") == 0 && strcmp(name, "module_attrs") == 0;
  bool infos = mod && strcmp(mod->name, "ir") == 0 && strcmp(name, "module_global_infos") == 0;
  if (!attrs && !infos) {
    if (e->kind == AST_CONST || e->kind == AST_STR) return 0; /* a stray literal */
    return tvm_script__error_at(p, &st->span, "SyntaxError",
                                "an @I.ir_module class holds functions, "
                                "I.module_attrs and I.module_global_infos");
  }
  if (c->u.call.args.n != 1 || c->u.call.kw_values.n != 0) {
    return tvm_script__error_at(p, &e->span, "TypeError",
                                "I.%s() takes exactly one argument (a dict)", name);
  }
  const ast_expr* a = c->u.call.args.items[0];
  TVMFFIAny v;
  if (tvm_script__eval(p, a, &v) != 0) return -1;
  int rc;
  if (v.type_index != kTVMFFIMap) {
    rc = tvm_script__error_at(p, &a->span, "TypeError", "I.%s() takes a dict, not '%s'", name,
                              tvm_ffi_any_type_name(&v));
  } else {
    rc = (attrs ? tvm_script_ir_module_attrs(p->b, v.v_obj)
                : tvm_script_ir_module_global_infos(p->b, v.v_obj)) == 0
             ? 0
             : tvm_script__relocate(p, &e->span);
  }
  tvm_ffi_any_release(&v);
  return rc;
}

/* `name = R.ExternFunc("symbol")` in a class: an entry of the module, as upstream's (a function
 * reaches it as `cls.name`); any other assignment is a module-level constant. */
static int ir_assign(script_parser* p, const ast_stmt* st) {
  const ast_expr* lhs = st->u.assign.target;
  if (lhs->kind != AST_NAME || st->u.assign.annotation ||
      !tvm_script__is_relax_call(p, st->u.assign.value, "ExternFunc")) {
    return g_handlers[SCRIPT_TOKEN_DEFAULT][AST_ASSIGN](p, st);
  }
  TVMFFIAny v;
  if (tvm_script__eval(p, st->u.assign.value, &v) != 0) return -1;
  int rc = tvm_ffi_any_is_object(&v) && tvm_relax_kind_of(v.v_obj) == TVM_RELAX_KIND_ExternFunc
               ? tvm_script__deliver_func(p->b, lhs->u.name->text, NULL, v.v_obj)
               : tvm_ffi_raise("TypeError", "R.ExternFunc made %s", tvm_ffi_any_type_name(&v));
  tvm_ffi_any_release(&v);
  return rc == 0 ? 0 : tvm_script__relocate(p, &st->span);
}

static int ir_function(script_parser* p, const ast_stmt* st) {
  return tvm_script__parse_function(p, st);
}

static int ir_nested_class(script_parser* p, const ast_stmt* st) {
  return tvm_script__error_at(p, &st->span, "SyntaxError", "nested classes are not supported");
}

/* Whether the definition asks for the well-formedness check (decorator flag). */
static bool wants_check(script_parser* p, const ast_stmt* def) {
  decorator_info deco;
  if (parse_decorators(p, def->u.def.name, def->u.def.decorators, &deco) != 0) {
    tvm_ffi_error_clear();
    return true;
  }
  return deco.check_wf;
}

/* Check each PrimFunc of a finished module defined by the defs among stmts. A function that
 * passed its check while the module was built is skipped before its decorators are read
 * again: whatever they would say now, it is not checked twice. first_passed: the module's
 * first entry among the functions that passed (those of modules parsed before come first). */
static int check_module_functions(script_parser* p, const void* mod, ast_stmts stmts,
                                  int64_t first_passed) {
  int64_t cursor = first_passed;
  /* The Relax functions together (calls between them are checked against the module). */
  bool any_relax = false;
  for (int32_t i = 0; i < stmts.n && !any_relax; ++i) {
    const ast_stmt* s = stmts.items[i];
    if (s->kind != AST_DEF) continue;
    void* func = tvm_tir_ir_module_lookup(mod, s->u.def.name->u.name->text);
    any_relax = any_relax || (func && tvm_relax_kind_of(func) == TVM_RELAX_KIND_Function);
    tvm_ffi_release(func);
  }
  int rc = 0;
  if (p->check_wf && any_relax) {
    func_parser* fp = func_parser_of(p);
    sort_passed(fp);
    tvm_relax_wf_options wo = relax_wf_options(p);
    rc = tvm_relax_verify_well_formed_ex(mod, &wo);
    tvm_ffi_free(fp->checked_sorted);
    fp->checked_sorted = NULL;
  }
  if (rc != 0) {
    /* At the def of the function the message's access path starts with (`<root>["main"]...`),
     * else the first def. */
    void* err = tvm_ffi_error_take();
    const char* msg = err ? tvm_ffi_error_message(err) : "";
    const char* at = strstr(msg, "<root>[\"");
    const char* name = at ? at + 8 : NULL;
    const char* end = name ? strchr(name, '"') : NULL;
    const ast_stmt* first = NULL;
    bool named = false;
    for (int32_t i = 0; i < stmts.n && !named; ++i) {
      const ast_stmt* s = stmts.items[i];
      if (s->kind != AST_DEF) continue;
      if (!first) first = s;
      const script_name* n = s->u.def.name->u.name;
      named = end && n->size == (size_t)(end - name) && memcmp(n->text, name, n->size) == 0;
      if (named) first = s;
    }
    if (!first) return raise_at(p, err, stmts.n ? stmts.items[0]->span : p->module->span);
    if (!named) return raise_at(p, err, first->u.def.name->span);
    /* Below the def, at the node's statement: the path relative to the function. */
    void* func = tvm_tir_ir_module_lookup(mod, first->u.def.name->u.name->text);
    tvm_ffi_strbuf rel = {0};
    tvm_ffi_strbuf_printf(&rel, "<root>%s", end + 2); /* (after `"]`) */
    tvm_script_span span = func && rel.data ? relax_error_span(p, first, func, rel.data)
                                            : first->u.def.name->span;
    tvm_ffi_strbuf_free(&rel);
    tvm_ffi_release(func);
    tvm_ffi_error_clear(); /* (a failed lookup or out of memory only loses the location) */
    return raise_at(p, err, span);
  }
  for (int32_t i = 0; p->check_wf && i < stmts.n; ++i) {
    const ast_stmt* s = stmts.items[i];
    if (s->kind != AST_DEF || prechecked(p, s, &cursor)) continue;
    void* func = tvm_tir_ir_module_lookup(mod, s->u.def.name->u.name->text);
    bool prim = func && tvm_tir_kind_of(func) == TVM_TIR_KIND_PrimFunc;
    rc = prim && wants_check(p, s) ? check_function(p, s, func) : 0;
    tvm_ffi_release(func);
    if (rc != 0) return -1;
  }
  return 0;
}

/* Declare the GlobalVar of every function among stmts, so that `cls.f` may refer to a
 * function defined later; with bind_names, the bare names refer to them as well (functions
 * at a file's top level, which have no `cls`). */
static int declare_functions(script_parser* p, ast_stmts stmts, bool bind_names) {
  bool any_relax = false;
  for (int32_t i = 0; i < stmts.n; ++i) {
    const ast_stmt* s = stmts.items[i];
    if (s->kind != AST_DEF) continue;
    const ast_expr* fname = s->u.def.name;
    decorator_info deco;
    if (parse_decorators(p, fname, s->u.def.decorators, &deco) != 0) return -1;
    if (deco.token == SCRIPT_TOKEN_RELAX) { /* declared with its signature's struct info */
      if (tvm_script__relax_decl_function(p, s, deco.is_pure, bind_names) != 0) return -1;
      any_relax = true;
      continue;
    }
    tvm_tir_global_var_obj* gv = tvm_script_ir_module_global_var(p->b, fname->u.name->text);
    if (!gv) return tvm_script__relocate(p, &fname->span);
    TVMFFIAny v = tvm_ffi_any_obj(gv);
    if (!bind_names) {
      tvm_ffi_release(gv);
    } else if (tvm_script__vt_bind(&p->vt, fname->u.name, &v) != 0) {
      tvm_ffi_any_release(&v);
      return tvm_script__relocate(p, &fname->span);
    }
  }
  /* With Relax functions, which may call the PrimFuncs directly: their GlobalVars' struct info,
   * from the return annotations (one that does not evaluate is left to the PrimFunc's parse,
   * which reports it; its GlobalVar gets the function's struct info when the module ends). */
  for (int32_t i = 0; any_relax && i < stmts.n; ++i) {
    const ast_stmt* s = stmts.items[i];
    if (s->kind != AST_DEF) continue;
    decorator_info deco;
    if (parse_decorators(p, s->u.def.name, s->u.def.decorators, &deco) != 0) return -1;
    if (deco.token == SCRIPT_TOKEN_RELAX) continue;
    void* ret_type = NULL;
    if (s->u.def.returns && eval_ret_type(p, s->u.def.returns, &ret_type) != 0) {
      tvm_ffi_error_clear();
      continue;
    }
    tvm_tir_global_var_obj* gv = tvm_script_ir_module_global_var(p->b, s->u.def.name->u.name->text);
    int rc = gv ? tvm_script__relax_declare_prim_func(gv, ret_type) : -1;
    tvm_ffi_release(gv);
    tvm_ffi_release(ret_type);
    if (rc != 0) return tvm_script__relocate(p, &s->u.def.name->span);
  }
  return 0;
}

static int parse_class(script_parser* p, const ast_stmt* c, void** out) {
  const ast_expr* cname = c->u.cls.name;
  decorator_info deco;
  if (parse_decorators(p, cname, c->u.cls.decorators, &deco) != 0) return -1;
  if (deco.token != SCRIPT_TOKEN_IR) {
    return tvm_script__error_at(p, &c->u.cls.decorators.items[0]->span, "SyntaxError",
                                "a class needs the @I.ir_module decorator");
  }
  if (tvm_script_ir_module_enter(p->b) != 0) return tvm_script__relocate(p, &cname->span);
  if (tvm_script__vt_push_scope(&p->vt) != 0) return tvm_script__relocate(p, &cname->span);
  /* `cls` and the class name refer to the module; every function is declared up front so that
   * `cls.f` may refer to a function defined later. */
  script_name* cls = script__name(p, "cls");
  TVMFFIAny m1 = tvm_script__cls_value(), m2 = tvm_script__cls_value();
  int rc = cls && tvm_script__vt_bind(&p->vt, cname->u.name, &m1) == 0 &&
                   tvm_script__vt_bind(&p->vt, cls, &m2) == 0
               ? 0
               : tvm_script__relocate(p, &cname->span);
  script_token saved = p->token;
  p->token = SCRIPT_TOKEN_IR;
  /* As upstream: the statements other than functions first (I.module_global_infos defines the
   * virtual devices signatures name, `vdevice="llvm:0"`), then the declarations, then the
   * functions in their order. */
  ast_stmts body = c->u.cls.body;
  for (int32_t i = 0; rc == 0 && i < body.n; ++i) {
    if (body.items[i]->kind != AST_DEF) rc = tvm_script__run_stmt(p, body.items[i]);
  }
  int64_t first_passed = func_parser_of(p)->num_passed;
  if (rc == 0) rc = declare_functions(p, body, false);
  p->module_defs = &c->u.cls.body;
  func_parser_of(p)->module_checks = deco.check_wf;
  for (int32_t i = 0; rc == 0 && i < body.n; ++i) {
    if (body.items[i]->kind == AST_DEF) rc = tvm_script__run_stmt(p, body.items[i]);
  }
  func_parser_of(p)->module_checks = false;
  p->module_defs = NULL;
  p->token = saved;
  tvm_script__vt_pop_scope(&p->vt);
  if (rc == 0) rc = tvm_script__exit_to(p, 0, &cname->span);
  void* mod = rc == 0 ? tvm_script_builder_result(p->b) : NULL;
  if (rc == 0 && !mod) rc = tvm_script__relocate(p, &cname->span);
  if (rc == 0 && tvm_tir_kind_of(mod) != TVM_TIR_KIND_IRModule) {
    rc = tvm_script__error_at(p, &cname->span, "RuntimeError",
                              "the IR builder did not produce an IRModule");
  }
  if (rc == 0 && deco.check_wf) rc = check_module_functions(p, mod, c->u.cls.body, first_passed);
  if (rc != 0) {
    tvm_ffi_release(mod);
    return -1;
  }
  *out = mod;
  return 0;
}

/* ---- Top level ------------------------------------------------------------------------------ */
static pthread_once_t g_register_once = PTHREAD_ONCE_INIT;
static atomic_bool g_registered; /* register_handlers has run */

static void register_handlers(void) {
  tvm_script__register_tir_handlers();
  tvm_script__register_relax_handlers();
  tvm_script__register_handler(SCRIPT_TOKEN_IR, AST_DEF, ir_function);
  tvm_script__register_handler(SCRIPT_TOKEN_IR, AST_CLASS, ir_nested_class);
  tvm_script__register_handler(SCRIPT_TOKEN_IR, AST_EXPR_STMT, ir_expr_stmt);
  tvm_script__register_handler(SCRIPT_TOKEN_IR, AST_ASSIGN, ir_assign);
}

void tvm_script_parse_options_init(tvm_script_parse_options* opts) {
  memset(opts, 0, sizeof(*opts));
  opts->check_well_formed = true;
}

/* A file of definitions: module-level constants and either one @I.ir_module class or
 * @T.prim_func functions: one gives a PrimFunc, several an IRModule of them (by name). */
static void* parse_definitions(script_parser* p, const ast_stmts* stmts) {
  int32_t n = stmts->n, nfn = 0, ncls = 0;
  const ast_stmt* first = NULL;
  for (int32_t i = 0; i < n; ++i) {
    const ast_stmt* s = stmts->items[i];
    bool is_fn = s->kind == AST_DEF, is_cls = s->kind == AST_CLASS;
    if (is_fn && !first) first = s;
    nfn += is_fn;
    ncls += is_cls;
    if ((is_cls && ncls + nfn > 1) || (is_fn && ncls > 0)) {
      tvm_script__error_at(p, &s->span, "SyntaxError",
                           "a TVMScript file holds one @I.ir_module class or "
                           "@T.prim_func functions, not both");
      return NULL;
    }
  }
  bool implicit_module = nfn > 1;
  int64_t first_passed = func_parser_of(p)->num_passed;
  if (implicit_module) {
    if (tvm_script_ir_module_enter(p->b) != 0) {
      tvm_script__relocate(p, &first->span);
      return NULL;
    }
    if (declare_functions(p, *stmts, true) != 0) return NULL;
    p->module_defs = stmts;
    func_parser_of(p)->module_checks = true;
  }
  void* result = NULL;
  for (int32_t i = 0; i < n; ++i) {
    const ast_stmt* s = stmts->items[i];
    if (s->kind == AST_CLASS) {
      if (parse_class(p, s, &result) != 0) goto fail;
    } else if (s->kind != AST_DEF) {
      if (tvm_script__run_stmt(p, s) != 0) goto fail;
    } else {
      bool check_wf;
      if (parse_function(p, s, &check_wf) != 0) goto fail;
      if (implicit_module) continue;
      if (!(result = tvm_script_builder_result(p->b))) {
        tvm_script__relocate(p, &s->u.def.name->span);
        goto fail;
      }
      /* check_wf is what wants_check would read again from the decorators: the function's
       * scope is popped and the builder back at its depth, so their evaluation sees the state
       * it saw before the function (this def's decorators were read with no statement between;
       * a module's functions are checked after later statements, so those read them again). */
      if (p->check_wf && check_wf && check_function(p, s, result) != 0) goto fail;
    }
  }
  if (implicit_module) {
    const tvm_script_span* last = &stmts->items[n - 1]->span;
    if (tvm_script__exit_to(p, 0, last) != 0) goto fail;
    if (!(result = tvm_script_builder_result(p->b))) {
      tvm_script__relocate(p, last);
      goto fail;
    }
    if (check_module_functions(p, result, *stmts, first_passed) != 0) goto fail;
  }
  return result;
fail:
  tvm_ffi_release(result);
  return NULL;
}

/* Whether the statement just run at the top of a fragment only declared free variables or
 * buffers (`n = T.int32()`, `A = T.Buffer(...)`, `n, m = T.int32(), T.int32()`), emitting
 * nothing; *last gets the last value declared. */
static bool is_declaration(script_parser* p, const ast_stmt* s, int depth_before,
                           TVMFFIAny* last) {
  if (s->kind != AST_ASSIGN || s->u.assign.annotation || !s->u.assign.value ||
      tvm_script_builder_depth(p->b) != depth_before) {
    return false;
  }
  const ast_expr* lhs = s->u.assign.target;
  const ast_expr* rhs = s->u.assign.value;
  bool single = lhs->kind == AST_NAME;
  if (!single && lhs->kind != AST_TUPLE) return false;
  int32_t n = single ? 1 : lhs->u.elts.n;
  for (int32_t i = 0; i < n; ++i) {
    const ast_expr* id = single ? lhs : lhs->u.elts.items[i];
    const ast_expr* value = single || rhs->kind != AST_TUPLE ? rhs : rhs->u.elts.items[i];
    if (id->kind != AST_NAME || value->kind != AST_CALL) return false;
    const TVMFFIAny* v = script__vt_lookup(&p->vt, id->u.name);
    if (!v || !tvm_ffi_any_is_object(v)) return false;
    void* o = v->v_obj;
    if (!tvm_tir_is_var(o) && tvm_tir_kind_of(o) != TVM_TIR_KIND_Buffer) return false;
    tvm_ffi_any_release(last);
    *last = tvm_ffi_any_copy(v);
  }
  return true;
}

/* Whether a fragment's statement is Relax: it calls or annotates with an `R.*` name at its
 * top (`x: R.Tensor(...)`, `y = R.add(x, x)`, `with R.dataflow():`, `R.shape([...])`). */
static bool names_relax(script_parser* p, const ast_expr* e) {
  if (!e) return false;
  if (e->kind == AST_CALL) e = e->u.call.func;
  if (e->kind != AST_ATTR) return false;
  char name[64];
  size_t len;
  const script_special* mod = tvm_script__dotted(p, e, name, sizeof(name), &len);
  return mod && strcmp(mod->name, "relax") == 0;
}

static bool is_relax_stmt(script_parser* p, const ast_stmt* s) {
  switch (s->kind) {
    case AST_ASSIGN:
      return names_relax(p, s->u.assign.annotation) || names_relax(p, s->u.assign.value);
    case AST_EXPR_STMT:
      return names_relax(p, s->u.expr);
    case AST_WITH:
      return names_relax(p, s->u.with.context);
    default:
      return false;
  }
}

/* A Relax fragment (tvm_script_relax_fragment_enter): its statements run as a function body's;
 * a last expression statement is its value. */
static void* parse_relax_fragment(script_parser* p, const ast_module* m) {
  p->token = SCRIPT_TOKEN_RELAX;
  if (tvm_script_relax_fragment_enter(p->b) != 0) {
    tvm_script__relocate(p, &m->span);
    return NULL;
  }
  int32_t n = m->body.n;
  while (n > 0 && m->body.items[n - 1]->kind == AST_DOCSTRING) --n;
  const ast_stmt* last = n > 0 ? m->body.items[n - 1] : NULL;
  bool has_value = last && last->kind == AST_EXPR_STMT && last->u.expr->kind != AST_CONST &&
                   last->u.expr->kind != AST_STR;
  for (int32_t i = 0; i < n - (has_value ? 1 : 0); ++i) {
    if (m->body.items[i]->kind == AST_DOCSTRING) continue;
    if (tvm_script__run_stmt(p, m->body.items[i]) != 0) return NULL;
  }
  TVMFFIAny v = tvm_ffi_any_none();
  if (has_value) {
    const ast_expr* e = last->u.expr;
    int rc = e->kind == AST_CALL ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_EXPR, NULL, 0, &v)
                                 : tvm_script__eval(p, e, &v);
    if (rc != 0) return NULL;
  }
  void* result =
      tvm_script_relax_fragment_end(p->b, tvm_ffi_any_is_object(&v) ? &v : NULL);
  tvm_ffi_any_release(&v);
  if (!result) tvm_script__relocate(p, last ? &last->span : &m->span);
  return result;
}

/* Statements outside any definition: the Stmt they build, or the PrimExpr of a lone
 * expression statement after the declarations (or any IR object it evaluates to, such as
 * a BufferRegion), or the last declared Var / Buffer. */
static void* parse_fragment(script_parser* p, const ast_module* m) {
  p->fragment = true;
  for (int32_t i = 0; i < m->body.n; ++i) {
    if (is_relax_stmt(p, m->body.items[i])) return parse_relax_fragment(p, m);
  }
  p->token = SCRIPT_TOKEN_TIRX;
  int32_t n = m->body.n;
  bool decls_only = true;
  TVMFFIAny last = tvm_ffi_any_none();
  void* result = NULL;
  for (int32_t i = 0; i < n; ++i) {
    const ast_stmt* s = m->body.items[i];
    if (decls_only && i == n - 1 && s->kind == AST_EXPR_STMT) {
      const ast_expr* e = s->u.expr;
      TVMFFIAny v;
      int rc = e->kind == AST_CALL ? tvm_script__eval_call(p, e, TVM_SCRIPT_CTX_STMT, NULL, 0, &v)
                                   : tvm_script__eval(p, e, &v);
      if (rc != 0) goto done;
      if (tvm_ffi_any_is_object(&v)) { /* a PrimExpr, a BufferRegion, ... */
        result = v.v_obj;
        goto done;
      }
      tvm_ffi_any_release(&v);
      decls_only = false; /* the call emitted its statement (T.evaluate(...)) */
      break;
    }
    if (s->kind == AST_DOCSTRING) continue;
    int depth = tvm_script_builder_depth(p->b);
    if (tvm_script__run_stmt(p, s) != 0) goto done;
    decls_only = decls_only && is_declaration(p, s, depth, &last);
  }
  if (decls_only && tvm_ffi_any_is_object(&last)) {
    result = last.v_obj;
    last = tvm_ffi_any_none();
    goto done;
  }
  /* (Rest-of-body frames still open at the top, `x: T.let = v`, end with the fragment.) */
  result = tvm_script_builder_result(p->b);
  if (!result) tvm_script__relocate(p, &m->span);
done:
  tvm_ffi_any_release(&last);
  return result;
}

static void* parse_source(const char* source, size_t len, const tvm_script_parse_options* opts) {
  tvm_script_parse_options defaults;
  if (!opts) {
    tvm_script_parse_options_init(&defaults);
    opts = &defaults;
  }
  if (!atomic_load_explicit(&g_registered, memory_order_acquire)) {
    pthread_once(&g_register_once, register_handlers);
    atomic_store_explicit(&g_registered, true, memory_order_release);
  }
  ast_module m;
  if (tvm_script__parse_ast(source, len, opts->filename, &m) != 0) return NULL;
  func_parser fp;
  memset(&fp.p, 0, offsetof(script_parser, vt));
  fp.module_checks = false;
  fp.num_passed = 0;
  fp.passed = fp.passed_inline;
  fp.cap_passed = sizeof(fp.passed_inline) / sizeof(fp.passed_inline[0]);
  fp.checked_sorted = NULL;
  script_parser* p = &fp.p;
  p->src = source ? source : "";
  p->len = len;
  p->filename = opts->filename ? opts->filename : "<string>";
  p->module = &m;
  p->extra_vars = opts->extra_vars;
  p->check_wf = opts->check_well_formed;
  p->wf_always = opts->ignore_check_flags;
  p->token = SCRIPT_TOKEN_DEFAULT;
  tvm_script__vt_init(&p->vt);
  void* result = NULL;
  if (tvm_script__bind_imports(p) != 0 || !(p->b = tvm_script_builder_new())) {
    tvm_script__relocate(p, &m.span);
    goto done;
  }
  bool has_def = false;
  for (int32_t i = 0; i < m.body.n; ++i) {
    has_def = has_def || m.body.items[i]->kind == AST_DEF || m.body.items[i]->kind == AST_CLASS;
  }
  result = has_def ? parse_definitions(p, &m.body) : parse_fragment(p, &m);
done:
  tvm_script_builder_free(p->b);
  tvm_ffi_release(p->relax_outputs);
  tvm_script__relax_signatures_free(p);
  tvm_script__sinfo_cache_free(p);
  tvm_script__vt_free(&p->vt);
  for (int64_t i = 0; i < fp.num_passed; ++i) tvm_ffi_release(fp.passed[i].func);
  if (fp.passed != fp.passed_inline) tvm_ffi_free(fp.passed);
  tvm_script__ast_free(&m);
  return result;
}

void* tvm_script_parse(const char* source, size_t len, const tvm_script_parse_options* opts) {
  /* An error the caller left raised (a failed parse whose error it never took) is set aside:
   * the parse's own steps read a raised error as theirs (the arithmetic simplifier, the TIR
   * builder), so a stale one would fail a good program with its message. It is given back when
   * this parse raises none. */
  void* stale = tvm_ffi_error_take();
  void* result = parse_source(source, len, opts);
  tvm_ffi_error_give_back(stale);
  return result;
}
