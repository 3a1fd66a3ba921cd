/* ast_doc.c: the Doc tree (tvm/script/doc.h) of a parsed module, for the callers of
 * tvm_script_parse_doc: each node becomes the doc parser.h names for it, with the node's span.
 * The docs are ordinary objects made by doc.c's constructors; an identifier's doc shares the
 * name's ffi.String (one per distinct name), and the target of `x op= v` is one doc, shared with
 * the operation. Recursion follows the tree, whose depth the parser bounds. */
#include "ast.h"
#include "script_internal.h"

static void* expr_doc(const ast_expr* e);
static void* stmts_array(ast_stmts s);

/* doc (consumed, may be NULL after a failure) with span s. */
static void* spanned(void* doc, tvm_script_span s) {
  if (doc) ((tvm_script_doc_obj*)doc)->span = s;
  return doc;
}

/* An ffi.Array of n docs made by conv from items[i] (NULL after a failure); the shared empty
 * array when n is 0. */
static void* docs_array(int32_t n, void* const* items, void* (*conv)(const void*)) {
  if (n == 0) return tvm_script__empty_array();
  void* small[16];
  void** docs = n <= 16 ? small : tvm_ffi_malloc((size_t)n * sizeof(void*));
  if (!docs) return NULL;
  int32_t i = 0;
  for (; i < n; ++i) {
    if (!(docs[i] = conv(items[i]))) break;
  }
  void* arr = NULL;
  if (i == n) {
    arr = tvm_script_doc_array_takev(n, docs);
  } else {
    for (int32_t j = 0; j < i; ++j) tvm_ffi_release(docs[j]);
  }
  if (docs != small) tvm_ffi_free(docs);
  return arr;
}

static void* expr_doc_v(const void* e) { return expr_doc(e); }
static void* exprs_array(ast_exprs s) { return docs_array(s.n, (void* const*)s.items, expr_doc_v); }

/* An optional expression: NULL for none (no error), else its doc. */
static void* opt_expr(const ast_expr* e, bool* ok) {
  void* d = e ? expr_doc(e) : NULL;
  if (e && !d) *ok = false;
  return d;
}

static void* name_doc(script_name* name, tvm_script_span s) {
  void* str = tvm_script__name_string(name);
  return str ? spanned(tvm_script_id_doc_str(str), s) : NULL;
}

static void* call_doc(const ast_expr* e) {
  void* callee = expr_doc(e->u.call.func);
  void* args = callee ? exprs_array(e->u.call.args) : NULL;
  int32_t nk = e->u.call.kw_values.n;
  void* keys = NULL;
  if (args && nk > 0) {
    void* small[16];
    void** names = nk <= 16 ? small : tvm_ffi_malloc((size_t)nk * sizeof(void*));
    bool ok = names != NULL;
    for (int32_t i = 0; ok && i < nk; ++i) ok = (names[i] = tvm_script__name_string(e->u.call.kw_names[i])) != NULL;
    keys = ok ? tvm_ffi_array_of_objects(names, nk) : NULL;
    if (names != small) tvm_ffi_free(names);
  }
  void* values = args && (nk == 0 || keys) ? exprs_array(e->u.call.kw_values) : NULL;
  if (!args || (nk > 0 && (!keys || !values))) {
    tvm_ffi_release(callee);
    tvm_ffi_release(args);
    tvm_ffi_release(keys);
    tvm_ffi_release(values);
    return NULL;
  }
  return tvm_script_call_doc_take(callee, args, keys, values);
}

static void* expr_doc(const ast_expr* e) {
  bool ok = true;
  void* d = NULL;
  switch (e->kind) {
    case AST_NAME:
      return name_doc(e->u.name, e->span);
    case AST_CONST:
      d = tvm_script_literal_doc(&e->u.value);
      break;
    case AST_STR: {
      TVMFFIAny v = tvm_ffi_string_n(e->u.str.data, e->u.str.size);
      if (v.type_index == kTVMFFINone) return NULL;
      d = tvm_script_literal_doc(&v);
      tvm_ffi_any_release(&v);
      break;
    }
    case AST_ATTR:
      d = tvm_script_attr_doc_take(expr_doc(e->u.attr.value), e->u.attr.name->text);
      break;
    case AST_CALL:
      d = call_doc(e);
      break;
    case AST_SUBSCRIPT: {
      void* value = expr_doc(e->u.subscript.value);
      d = tvm_script_index_doc_take(value, value ? exprs_array(e->u.subscript.indices) : NULL);
      break;
    }
    case AST_SLICE: {
      void* start = opt_expr(e->u.slice.start, &ok);
      void* stop = ok ? opt_expr(e->u.slice.stop, &ok) : NULL;
      void* step = ok ? opt_expr(e->u.slice.step, &ok) : NULL;
      d = tvm_script_slice_doc_take(start, stop, step); /* (an error pending fails it) */
      break;
    }
    case AST_STARRED:
      d = tvm_script_starred_doc_take(expr_doc(e->u.starred));
      break;
    case AST_TUPLE:
    case AST_LIST: {
      void* elts = exprs_array(e->u.elts);
      if (!elts) return NULL;
      d = e->kind == AST_TUPLE ? tvm_script_tuple_doc_take(elts) : tvm_script_list_doc_take(elts);
      break;
    }
    case AST_DICT: {
      void* keys = exprs_array(e->u.dict.keys);
      void* values = keys ? exprs_array(e->u.dict.values) : NULL;
      if (!values) {
        tvm_ffi_release(keys);
        return NULL;
      }
      d = tvm_script_dict_doc_take(keys, values);
      break;
    }
    case AST_OP: {
      int n = tvm_script_op_arity(e->u.op.op);
      void* ops = docs_array(n, (void* const*)e->u.op.args, expr_doc_v);
      d = ops ? tvm_script_operation_doc_take(e->u.op.op, ops) : NULL;
      break;
    }
    case AST_LAMBDA: {
      void* params = exprs_array(e->u.lambda.params);
      d = params ? tvm_script_lambda_doc_take(params, expr_doc(e->u.lambda.body)) : NULL;
      break;
    }
    default:
      tvm_ffi_raise("RuntimeError", "internal error: an expression node of kind %d", e->kind);
      return NULL;
  }
  return spanned(d, e->span);
}

/* `x op= v`: AssignDoc(x, OperationDoc(op, x, v)), x one doc. */
static void* aug_assign_doc(const ast_stmt* s) {
  const ast_expr* value = s->u.assign.value;
  void* target = expr_doc(s->u.assign.target);
  void* rhs = target ? expr_doc(value->u.op.args[1]) : NULL;
  if (!rhs) {
    tvm_ffi_release(target);
    return NULL;
  }
  tvm_ffi_retain(target);
  void* op = spanned(tvm_script_operation_doc_take(s->u.assign.aug_op,
                                                   tvm_script_doc_array_take(target, rhs)),
                     value->span);
  return tvm_script_assign_doc_take(target, op, NULL);
}

/* A parameter: AssignDoc(name, default, annotation). */
static void* arg_doc(const void* node) {
  const ast_arg* a = node;
  bool ok = true;
  void* name = expr_doc(a->name);
  void* dflt = name ? opt_expr(a->default_value, &ok) : NULL;
  void* ann = name && ok ? opt_expr(a->annotation, &ok) : NULL;
  return spanned(tvm_script_assign_doc_take(name, dflt, ann), a->span);
}

static void* def_doc(const ast_stmt* s) {
  void* arr = docs_array(s->u.def.nargs, (void* const*)s->u.def.args, arg_doc);
  if (!arr) return NULL;
  bool ok = true;
  void* name = expr_doc(s->u.def.name);
  void* decorators = name ? exprs_array(s->u.def.decorators) : NULL;
  void* ret = decorators ? opt_expr(s->u.def.returns, &ok) : NULL;
  void* body = decorators && ok ? stmts_array(s->u.def.body) : NULL;
  if (!body) {
    tvm_ffi_release(arr);
    tvm_ffi_release(name);
    tvm_ffi_release(decorators);
    tvm_ffi_release(ret);
    return NULL;
  }
  return tvm_script_function_doc_take(name, arr, decorators, ret, body);
}

static void* stmt_doc(const void* node) {
  const ast_stmt* s = node;
  bool ok = true;
  void* d = NULL;
  switch (s->kind) {
    case AST_EXPR_STMT:
      d = tvm_script_expr_stmt_doc_take(expr_doc(s->u.expr));
      break;
    case AST_ASSIGN: {
      if (s->u.assign.aug_op) {
        d = aug_assign_doc(s);
        break;
      }
      void* target = expr_doc(s->u.assign.target);
      void* value = target ? opt_expr(s->u.assign.value, &ok) : NULL;
      void* ann = target && ok ? opt_expr(s->u.assign.annotation, &ok) : NULL;
      d = tvm_script_assign_doc_take(target, value, ann);
      break;
    }
    case AST_IF: {
      void* test = expr_doc(s->u.if_.test);
      void* body = test ? stmts_array(s->u.if_.body) : NULL;
      void* orelse = body ? stmts_array(s->u.if_.orelse) : NULL;
      d = tvm_script_if_doc_take(test, body, orelse);
      break;
    }
    case AST_FOR: {
      void* target = expr_doc(s->u.for_.target);
      void* iter = target ? expr_doc(s->u.for_.iter) : NULL;
      d = tvm_script_for_doc_take(target, iter, iter ? stmts_array(s->u.for_.body) : NULL);
      break;
    }
    case AST_WHILE: {
      void* test = expr_doc(s->u.while_.test);
      d = tvm_script_while_doc_take(test, test ? stmts_array(s->u.while_.body) : NULL);
      break;
    }
    case AST_WITH: {
      void* context = expr_doc(s->u.with.context);
      void* target = context ? opt_expr(s->u.with.target, &ok) : NULL;
      void* body = context && ok ? stmts_array(s->u.with.body) : NULL;
      d = tvm_script_scope_doc_take(target, context, body);
      break;
    }
    case AST_RETURN:
      d = tvm_script_return_doc_take(opt_expr(s->u.ret, &ok));
      break;
    case AST_ASSERT: {
      void* test = expr_doc(s->u.assert_.test);
      d = tvm_script_assert_doc_take(test, test ? opt_expr(s->u.assert_.msg, &ok) : NULL);
      break;
    }
    case AST_DEF:
      d = def_doc(s);
      break;
    case AST_CLASS: {
      void* name = expr_doc(s->u.cls.name);
      void* decorators = name ? exprs_array(s->u.cls.decorators) : NULL;
      d = tvm_script_class_doc_take(name, decorators,
                                    decorators ? stmts_array(s->u.cls.body) : NULL);
      break;
    }
    case AST_DOCSTRING:
      d = tvm_script_doc_string_doc(s->u.docstring.data);
      break;
    case AST_BREAK:
    case AST_CONTINUE: /* the keyword alone */
      d = tvm_script_expr_stmt_doc_take(
          tvm_script_id_doc(s->kind == AST_BREAK ? "break" : "continue"));
      break;
    default:
      tvm_ffi_raise("RuntimeError", "internal error: a statement node of kind %d", s->kind);
      return NULL;
  }
  return spanned(d, s->span);
}

static void* stmts_array(ast_stmts s) { return docs_array(s.n, (void* const*)s.items, stmt_doc); }

void* tvm_script__ast_to_doc(const ast_module* m) {
  void* stmts = stmts_array(m->body);
  return stmts ? spanned(tvm_script_stmt_block_doc_take(stmts), m->span) : NULL;
}
