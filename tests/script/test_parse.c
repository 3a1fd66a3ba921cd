/* test_parse.c: TVMScript text -> Doc tree: each construct, precedence, spans, a real program,
 * and the exact rendered message of each kind of syntax error. */
#include <pthread.h>
#include <stdlib.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>
#include <unistd.h>

#include "test_util.h"

/* ---- An S-expression dump of a doc tree ---------------------------------------------------- */
static void dump(const void* d, tvm_ffi_strbuf* b);

static void dump_seq(const void* arr, tvm_ffi_strbuf* b) {
  tvm_ffi_strbuf_putc(b, '(');
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    if (i) tvm_ffi_strbuf_putc(b, ' ');
    dump(tvm_ffi_seq_obj_at(arr, i), b);
  }
  tvm_ffi_strbuf_putc(b, ')');
}

static void dump_items(const void* arr, tvm_ffi_strbuf* b) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(arr); ++i) {
    tvm_ffi_strbuf_putc(b, ' ');
    dump(tvm_ffi_seq_obj_at(arr, i), b);
  }
}

static void dump(const void* d, tvm_ffi_strbuf* b) {
  if (!d) {
    tvm_ffi_strbuf_putc(b, '_');
    return;
  }
  switch (tvm_script_doc_kind_of(d)) {
    case TVM_SCRIPT_DOC_IdDoc:
      tvm_ffi_strbuf_puts(b, tvm_ffi_str_cstr(((const tvm_script_id_doc_obj*)d)->name));
      break;
    case TVM_SCRIPT_DOC_LiteralDoc: {
      const TVMFFIAny* v = &((const tvm_script_literal_doc_obj*)d)->value;
      TVMFFIByteArray s;
      if (v->type_index == kTVMFFINone) tvm_ffi_strbuf_puts(b, "None");
      else if (v->type_index == kTVMFFIBool) tvm_ffi_strbuf_puts(b, v->v_int64 ? "True" : "False");
      else if (v->type_index == kTVMFFIInt) tvm_ffi_strbuf_printf(b, "%" PRId64, v->v_int64);
      else if (v->type_index == kTVMFFIFloat) tvm_ffi_strbuf_printf(b, "%gf", v->v_float64);
      else if (tvm_ffi_any_as_bytes(v, &s))
        tvm_ffi_strbuf_printf(b, "\"%.*s\"", (int)s.size, s.data);
      break;
    }
    case TVM_SCRIPT_DOC_AttrAccessDoc: {
      const tvm_script_attr_doc_obj* a = d;
      dump(a->value, b);
      tvm_ffi_strbuf_printf(b, ".%s", tvm_ffi_str_cstr(a->name));
      break;
    }
    case TVM_SCRIPT_DOC_IndexDoc: {
      const tvm_script_index_doc_obj* x = d;
      tvm_ffi_strbuf_puts(b, "([] ");
      dump(x->value, b);
      dump_items(x->indices, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_CallDoc: {
      const tvm_script_call_doc_obj* c = d;
      tvm_ffi_strbuf_puts(b, "(call ");
      dump(c->callee, b);
      dump_items(c->args, b);
      for (int64_t i = 0; i < tvm_ffi_seq_size(c->kwargs_keys); ++i) {
        tvm_ffi_strbuf_printf(b, " %s=", tvm_ffi_str_cstr(tvm_ffi_seq_obj_at(c->kwargs_keys, i)));
        dump(tvm_ffi_seq_obj_at(c->kwargs_values, i), b);
      }
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_OperationDoc: {
      const tvm_script_operation_doc_obj* o = d;
      tvm_ffi_strbuf_printf(b, "(%s",
                            o->op == TVM_SCRIPT_OP_USub ? "neg" : tvm_script_op_text(o->op));
      dump_items(o->operands, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_LambdaDoc: {
      const tvm_script_lambda_doc_obj* l = d;
      tvm_ffi_strbuf_puts(b, "(lambda ");
      dump_seq(l->args, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(l->body, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_TupleDoc:
    case TVM_SCRIPT_DOC_ListDoc:
      tvm_ffi_strbuf_puts(
          b, tvm_script_doc_kind_of(d) == TVM_SCRIPT_DOC_TupleDoc ? "(tuple" : "(list");
      dump_items(((const tvm_script_seq_doc_obj*)d)->elements, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    case TVM_SCRIPT_DOC_DictDoc: {
      const tvm_script_dict_doc_obj* x = d;
      tvm_ffi_strbuf_puts(b, "(dict");
      for (int64_t i = 0; i < tvm_ffi_seq_size(x->keys); ++i) {
        tvm_ffi_strbuf_putc(b, ' ');
        dump(tvm_ffi_seq_obj_at(x->keys, i), b);
        tvm_ffi_strbuf_putc(b, ':');
        dump(tvm_ffi_seq_obj_at(x->values, i), b);
      }
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_SliceDoc: {
      const tvm_script_slice_doc_obj* s = d;
      tvm_ffi_strbuf_puts(b, "(: ");
      dump(s->start, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(s->stop, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(s->step, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_StmtBlockDoc:
      dump_seq(((const tvm_script_stmt_block_doc_obj*)d)->stmts, b);
      break;
    case TVM_SCRIPT_DOC_AssignDoc: {
      const tvm_script_assign_doc_obj* a = d;
      tvm_ffi_strbuf_puts(b, "(= ");
      dump(a->lhs, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(a->rhs, b);
      if (a->annotation) {
        tvm_ffi_strbuf_puts(b, " : ");
        dump(a->annotation, b);
      }
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_IfDoc: {
      const tvm_script_if_doc_obj* x = d;
      tvm_ffi_strbuf_puts(b, "(if ");
      dump(x->predicate, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(x->then_branch, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(x->else_branch, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_WhileDoc: {
      const tvm_script_while_doc_obj* x = d;
      tvm_ffi_strbuf_puts(b, "(while ");
      dump(x->predicate, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(x->body, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_ForDoc:
    case TVM_SCRIPT_DOC_ScopeDoc: {
      const tvm_script_for_doc_obj* x = d; /* same layout as ScopeDoc */
      tvm_ffi_strbuf_puts(b,
                          tvm_script_doc_kind_of(d) == TVM_SCRIPT_DOC_ForDoc ? "(for " : "(with ");
      dump(x->lhs, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(x->rhs, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(x->body, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_ExprStmtDoc:
      tvm_ffi_strbuf_puts(b, "(expr ");
      dump(((const tvm_script_expr_stmt_doc_obj*)d)->expr, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    case TVM_SCRIPT_DOC_AssertDoc: {
      const tvm_script_assert_doc_obj* x = d;
      tvm_ffi_strbuf_puts(b, "(assert ");
      dump(x->test, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(x->msg, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_ReturnDoc:
      tvm_ffi_strbuf_puts(b, "(return ");
      dump(((const tvm_script_return_doc_obj*)d)->value, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    case TVM_SCRIPT_DOC_FunctionDoc: {
      const tvm_script_function_doc_obj* f = d;
      tvm_ffi_strbuf_puts(b, "(def ");
      dump(f->name, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(f->args, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(f->decorators, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump(f->return_type, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(f->body, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_ClassDoc: {
      const tvm_script_class_doc_obj* c = d;
      tvm_ffi_strbuf_puts(b, "(class ");
      dump(c->name, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(c->decorators, b);
      tvm_ffi_strbuf_putc(b, ' ');
      dump_seq(c->body, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    }
    case TVM_SCRIPT_DOC_DocStringDoc:
      tvm_ffi_strbuf_printf(b, "(doc \"%s\")",
                            tvm_ffi_str_cstr(((const tvm_script_stmt_doc_obj*)d)->comment));
      break;
    case TVM_SCRIPT_DOC_StarredDoc:
      tvm_ffi_strbuf_puts(b, "(* ");
      dump(((const tvm_script_starred_doc_obj*)d)->value, b);
      tvm_ffi_strbuf_putc(b, ')');
      break;
    default:
      tvm_ffi_strbuf_printf(b, "<%s>", tvm_script_doc_kind_name(tvm_script_doc_kind_of(d)));
  }
}

/* The dump of a parsed program ("ERR" when parsing failed; the error stays raised). */
static char g_out[16384];
static const char* parse_str(const char* src) {
  void* m = tvm_script_parse_doc(src, strlen(src), "t.py");
  if (!m) return "ERR";
  tvm_ffi_strbuf b = {0};
  dump(m, &b);
  snprintf(g_out, sizeof(g_out), "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  tvm_ffi_release(m);
  return g_out;
}

/* The dump of one expression statement's expression. */
static const char* expr_str(const char* src) {
  const char* s = parse_str(src);
  static char e[16384];
  size_t n = strlen(s);
  if (strncmp(s, "((expr ", 7) == 0 && n > 9) {
    snprintf(e, sizeof(e), "%.*s", (int)(n - 9), s + 7);
    return e;
  }
  return s;
}

/* The message of the raised error (consumed), or "(none)". */
static char g_err[4096];
static const char* parse_err(const char* src) {
  void* m = tvm_script_parse_doc(src, strlen(src), "t.py");
  if (m) {
    tvm_ffi_release(m);
    return "(none)";
  }
  void* e = tvm_ffi_error_take();
  snprintf(g_err, sizeof(g_err), "%s: %s", tvm_ffi_error_kind(e), tvm_ffi_error_message(e));
  tvm_ffi_release(e);
  return g_err;
}

static char g_span[64];
static const char* span_str(const void* d) {
  const tvm_script_span* s = &((const tvm_script_doc_obj*)d)->span;
  snprintf(g_span, sizeof(g_span), "%d:%d-%d:%d@%lld-%lld", s->start_line, s->start_col,
           s->end_line, s->end_col, (long long)s->start_byte, (long long)s->end_byte);
  return g_span;
}

static const void* stmt_at(const void* block, int64_t i) {
  return tvm_ffi_seq_obj_at(((const tvm_script_stmt_block_doc_obj*)block)->stmts, i);
}

/* ---- Expressions ---------------------------------------------------------------------------- */

TEST(literals_and_atoms) {
  CHECK_STR_EQ(expr_str("1"), "1");
  CHECK_STR_EQ(expr_str("1.5"), "1.5f");
  CHECK_STR_EQ(expr_str("'a' \"b\"  'c'"), "\"abc\"");
  CHECK_STR_EQ(expr_str("True"), "True");
  CHECK_STR_EQ(expr_str("None"), "None");
  CHECK_STR_EQ(expr_str("x"), "x");
  CHECK_STR_EQ(expr_str("(x)"), "x");
  CHECK_STR_EQ(expr_str("()"), "(tuple)");
  CHECK_STR_EQ(expr_str("(1,)"), "(tuple 1)");
  CHECK_STR_EQ(expr_str("(1, 2,)"), "(tuple 1 2)");
  CHECK_STR_EQ(expr_str("1, 2"), "(tuple 1 2)");
  CHECK_STR_EQ(expr_str("[]"), "(list)");
  CHECK_STR_EQ(expr_str("[1, [2], (3,)]"), "(list 1 (list 2) (tuple 3))");
  CHECK_STR_EQ(expr_str("{}"), "(dict)");
  CHECK_STR_EQ(expr_str("{'a': 1, \"b\": x,}"), "(dict \"a\":1 \"b\":x)");
}

TEST(calls_attrs_subscripts) {
  CHECK_STR_EQ(expr_str("T.prim_func"), "T.prim_func");
  CHECK_STR_EQ(expr_str("f()"), "(call f)");
  CHECK_STR_EQ(expr_str("T.Buffer((128, 128), \"float32\")"),
               "(call T.Buffer (tuple 128 128) \"float32\")");
  CHECK_STR_EQ(expr_str("f(a, b=1, c=g(x),)"), "(call f a b=1 c=(call g x))");
  CHECK_STR_EQ(expr_str("a.b(c).d[e]"), "([] (call a.b c).d e)");
  CHECK_STR_EQ(expr_str("a[1:2]"), "([] a (: 1 2 _))");
  CHECK_STR_EQ(expr_str("a[:, 0]"), "([] a (: _ _ _) 0)");
  CHECK_STR_EQ(expr_str("a[::2]"), "([] a (: _ _ 2))");
  CHECK_STR_EQ(expr_str("a[i:i + 4, j:, ::k]"), "([] a (: i (+ i 4) _) (: j _ _) (: _ _ k))");
  CHECK_STR_EQ(expr_str("a[i, j]"), "([] a i j)");
  CHECK_STR_EQ(expr_str("a[(i, j)]"), "([] a (tuple i j))");
  CHECK_STR_EQ(expr_str("a[i,]"), "([] a (tuple i))");
  CHECK_STR_EQ(expr_str("lambda x, y: x + y"), "(lambda (x y) (+ x y))");
  CHECK_STR_EQ(expr_str("lambda: 0"), "(lambda () 0)");
  CHECK_STR_EQ(expr_str("T.comm_reducer(lambda x, y: x + y, [T.float32(0)])"),
               "(call T.comm_reducer (lambda (x y) (+ x y)) (list (call T.float32 0)))");
}

/* Names are interned by a key the lexer makes for names of up to 8 bytes (their bytes) and the
 * parser for longer ones: names that are prefixes of each other, of sizes around 4, 8 and 16,
 * and the same names met again (through the thread's table) keep their own text. */
TEST(interned_names_prefixes) {
  const char* src =
      "f(a, ab, abc, abcd, abcde, abcdefg, abcdefgh, abcdefghi, abcdefgh_, abcdefghijklmnop, "
      "abcdefghijklmnopq, abcdefghijklmnopr, a.abcdefgh, b_, _b, abcdefgh.abcdefghi)";
  const char* want =
      "(call f a ab abc abcd abcde abcdefg abcdefgh abcdefghi abcdefgh_ abcdefghijklmnop "
      "abcdefghijklmnopq abcdefghijklmnopr a.abcdefgh b_ _b abcdefgh.abcdefghi)";
  for (int i = 0; i < 3; ++i) CHECK_STR_EQ(expr_str(src), want);
}

/* Identifiers are interned once per parse (ast.h): the docs of one name share one String,
 * also past a table that grew (more names than its first slots), and keywords stay keywords. */
TEST(names_interned_per_parse) {
  tvm_ffi_strbuf src = {0};
  tvm_ffi_strbuf_puts(&src, "f(");
  for (int i = 0; i < 1100; ++i) tvm_ffi_strbuf_printf(&src, "name_%d, ", i);
  tvm_ffi_strbuf_puts(&src, "name_7, f, None, True)\nf(name_1099)\n");
  void* m = tvm_script_parse_doc(src.data, src.size, NULL);
  CHECK(m != NULL);
  if (m) {
    const tvm_script_call_doc_obj* c0 = (const void*)((const tvm_script_expr_stmt_doc_obj*)stmt_at(m, 0))->expr;
    const tvm_script_call_doc_obj* c1 = (const void*)((const tvm_script_expr_stmt_doc_obj*)stmt_at(m, 1))->expr;
    const void* args0 = c0->args;
    CHECK_EQ_INT(tvm_ffi_seq_size(args0), 1104);
#define NAME_OF(d) (((const tvm_script_id_doc_obj*)(d))->name)
    CHECK(NAME_OF(tvm_ffi_seq_obj_at(args0, 7)) == NAME_OF(tvm_ffi_seq_obj_at(args0, 1100)));
    CHECK(NAME_OF(c0->callee) == NAME_OF(tvm_ffi_seq_obj_at(args0, 1101)));
    CHECK(NAME_OF(c0->callee) == NAME_OF(c1->callee));
    CHECK(NAME_OF(tvm_ffi_seq_obj_at(args0, 1099)) == NAME_OF(tvm_ffi_seq_obj_at(c1->args, 0)));
    CHECK_STR_EQ(tvm_ffi_str_cstr(NAME_OF(tvm_ffi_seq_obj_at(args0, 1099))), "name_1099");
#undef NAME_OF
    CHECK_EQ_INT(tvm_script_doc_kind_of(tvm_ffi_seq_obj_at(args0, 1102)),
                 TVM_SCRIPT_DOC_LiteralDoc);
    tvm_ffi_release(m);
  }
  tvm_ffi_strbuf_free(&src);
}

/* Keyword arguments and dict entries are pairs on the scratch stack, split into two arrays:
 * more than 8 pairs, and keywords after positional arguments at depth. */
TEST(keyword_and_dict_pairs_many) {
  CHECK_STR_EQ(expr_str("f(a, g(b, k=1), a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9)"),
               "(call f a (call g b k=1) a=1 b=2 c=3 d=4 e=5 f=6 g=7 h=8 i=9)");
  CHECK_STR_EQ(expr_str("{1: a, 2: b, 3: c, 4: d, 5: e, 6: f, 7: g, 8: h, 9: {0: i}}"),
               "(dict 1:a 2:b 3:c 4:d 5:e 6:f 7:g 8:h 9:(dict 0:i))");
}

TEST(starred_arguments) {
  CHECK_STR_EQ(expr_str("f(*args)"), "(call f (* args))");
  CHECK_STR_EQ(expr_str("f(a, *xs, b)"), "(call f a (* xs) b)");
  CHECK_STR_EQ(expr_str("f(*a, *b,)"), "(call f (* a) (* b))");
  /* `*` takes a whole expression; after keywords it is still positional (as in Python). */
  CHECK_STR_EQ(expr_str("f(*a + b, k=1)"), "(call f (* (+ a b)) k=1)");
  CHECK_STR_EQ(expr_str("f(k=1, *xs, j=2, *ys)"), "(call f (* xs) (* ys) k=1 j=2)");
  CHECK_STR_EQ(expr_str("T.call(*(x if c else y))"), "(call T.call (* (if x c y)))");
  const char* src = "f(a, *g(x))\n";
  void* m = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m != NULL);
  if (m) {
    const tvm_script_expr_stmt_doc_obj* e = stmt_at(m, 0);
    const tvm_script_call_doc_obj* c = (const void*)e->expr;
    const tvm_script_starred_doc_obj* star = tvm_ffi_seq_obj_at(c->args, 1);
    CHECK_EQ_INT(tvm_script_doc_kind_of(star), TVM_SCRIPT_DOC_StarredDoc);
    CHECK(tvm_script_is_expr_doc(star));
    CHECK_STR_EQ(span_str(star), "1:6-1:11@5-10");
    CHECK_STR_EQ(span_str(star->value), "1:7-1:11@6-10");
    tvm_ffi_strbuf out = {0};
    CHECK_OK(tvm_script_doc_to_python(m, NULL, &out));
    CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), "f(a, *g(x))");
    tvm_ffi_strbuf_free(&out);
  }
  tvm_ffi_release(m);
  /* Only call arguments unpack; `**` stays rejected; the operand is required. */
  CHECK_STR_EQ(parse_err("f(**kw)\n"),
               "SyntaxError: t.py:1:3: error: double-starred arguments ('**kwargs') are not "
               "supported in TVMScript\nf(**kw)\n  ^^");
  CHECK_STR_EQ(parse_err("f(*)\n"),
               "SyntaxError: t.py:1:4: error: expected an expression, found ')'\nf(*)\n   ^");
  CHECK_STR_CONTAINS(parse_err("x = *a\n"), "expected an expression, found '*'");
  CHECK_STR_CONTAINS(parse_err("[*a]\n"), "expected an expression, found '*'");
  CHECK_STR_CONTAINS(parse_err("f(*a for a in b)\n"), "expected ',' or ')', found 'for'");
  CHECK_STR_CONTAINS(parse_err("f(*a, k=1, b)\n"), "positional argument follows keyword argument");
}

TEST(precedence) {
  CHECK_STR_EQ(expr_str("a + b * c ** -d"), "(+ a (* b (** c (neg d))))");
  CHECK_STR_EQ(expr_str("-a ** b"), "(neg (** a b))");
  CHECK_STR_EQ(expr_str("a ** b ** c"), "(** a (** b c))");
  CHECK_STR_EQ(expr_str("a - b - c"), "(- (- a b) c)");
  CHECK_STR_EQ(expr_str("a // b % c / d"), "(/ (% (// a b) c) d)");
  CHECK_STR_EQ(expr_str("not a and b or c"), "(or (and (not a) b) c)");
  CHECK_STR_EQ(expr_str("a or b and not c"), "(or a (and b (not c)))");
  CHECK_STR_EQ(expr_str("a | b ^ c & d << e + f"), "(| a (^ b (& c (<< d (+ e f)))))");
  CHECK_STR_EQ(expr_str("~a >> 1"), "(>> (~ a) 1)");
  CHECK_STR_EQ(expr_str("+a"), "a");
  CHECK_STR_EQ(expr_str("a < b"), "(< a b)");
  CHECK_STR_EQ(expr_str("a < b <= c"), "(and (< a b) (<= b c))");
  CHECK_STR_EQ(expr_str("a == b != c > d >= e"),
               "(and (and (and (== a b) (!= b c)) (> c d)) (>= d e))");
  CHECK_STR_EQ(expr_str("not a < b"), "(not (< a b))");
  CHECK_STR_EQ(expr_str("x if c else y"), "(if x c y)");
  CHECK_STR_EQ(expr_str("x if a or b else y if c else z"), "(if x (or a b) (if y c z))");
  CHECK_STR_EQ(expr_str("(a + b) * c"), "(* (+ a b) c)");
}

TEST(expression_spans) {
  const char* src = "y = f(a, k=b)[1:n] + -x * (c + d)\n";
  void* m = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m != NULL);
  if (!m) return;
  const tvm_script_assign_doc_obj* a = stmt_at(m, 0);
  CHECK_STR_EQ(span_str(a), "1:1-1:34@0-33");
  CHECK_STR_EQ(span_str(a->lhs), "1:1-1:2@0-1");
  const tvm_script_operation_doc_obj* add = (const void*)a->rhs;
  CHECK_STR_EQ(span_str(add), "1:5-1:34@4-33");
  const tvm_script_index_doc_obj* idx = tvm_ffi_seq_obj_at(add->operands, 0);
  CHECK_STR_EQ(span_str(idx), "1:5-1:19@4-18");
  CHECK_STR_EQ(span_str(idx->value), "1:5-1:14@4-13");
  CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(idx->indices, 0)), "1:15-1:18@14-17");
  const tvm_script_operation_doc_obj* mul = tvm_ffi_seq_obj_at(add->operands, 1);
  CHECK_STR_EQ(span_str(mul), "1:22-1:34@21-33");
  CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(mul->operands, 0)), "1:22-1:24@21-23");
  /* a parenthesised expression keeps the span of its contents */
  CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(mul->operands, 1)), "1:28-1:33@27-32");
  CHECK_STR_EQ(span_str(m), "1:1-1:34@0-33");
  tvm_ffi_release(m);
}

/* ---- Statements ----------------------------------------------------------------------------- */

TEST(assignments) {
  CHECK_STR_EQ(parse_str("x = 1"), "((= x 1))");
  CHECK_STR_EQ(parse_str("a, b = c"), "((= (tuple a b) c))");
  CHECK_STR_EQ(parse_str("(a, b), [c] = d, e"), "((= (tuple (tuple a b) (list c)) (tuple d e)))");
  CHECK_STR_EQ(parse_str("x: T.let = y + 1"), "((= x (+ y 1) : T.let))");
  CHECK_STR_EQ(parse_str("x: T.int32"), "((= x _ : T.int32))");
  CHECK_STR_EQ(parse_str("A[i, j] = 0.0"), "((= ([] A i j) 0f))");
  CHECK_STR_EQ(parse_str("x += 1; y.z //= 2"), "((= x (+ x 1)) (= y.z (// y.z 2)))");
  CHECK_STR_EQ(parse_str("C[i] **= 2"), "((= ([] C i) (** ([] C i) 2)))");
  CHECK_STR_EQ(parse_str("f(x)"), "((expr (call f x)))");
  CHECK_STR_EQ(parse_str("x = 1;"), "((= x 1))");
}

TEST(compound_statements) {
  CHECK_STR_EQ(parse_str("if a:\n    b = 1\nelif c:\n    pass\nelif d: e\nelse:\n    f\n"),
               "((if a ((= b 1)) ((if c () ((if d ((expr e)) ((expr f))))))))");
  CHECK_STR_EQ(parse_str("if a: pass\n"), "((if a () ()))");
  CHECK_STR_EQ(parse_str("for i in range(10):\n  x = i\n"), "((for i (call range 10) ((= x i))))");
  CHECK_STR_EQ(parse_str("for i, j in T.grid(4, 4):\n  pass\n"),
               "((for (tuple i j) (call T.grid 4 4) ()))");
  CHECK_STR_EQ(parse_str("while i < n:\n  i += 1\n"), "((while (< i n) ((= i (+ i 1)))))");
  CHECK_STR_EQ(parse_str("with T.sblock(\"b\"):\n  pass\n"), "((with _ (call T.sblock \"b\") ()))");
  CHECK_STR_EQ(parse_str("with a as x, b() as (y, z):\n  w\n"),
               "((with x a ((with (tuple y z) (call b) ((expr w))))))");
  /* More items than the parser notes without allocating (4). */
  CHECK_STR_EQ(parse_str("with a, b as x, c, d, e as y, f: g\n"),
               "((with _ a ((with x b ((with _ c ((with _ d ((with y e ((with _ f ((expr "
               "g))))))))))))))");
  CHECK_STR_EQ(parse_str("def f():\n  return\n"), "((def f () () _ ((return _))))");
  CHECK_STR_EQ(parse_str("def f(a: T.handle, b=2, c: int = 3) -> T.int32:\n"
                         "  '''doc'''\n  return a, b\n"),
               "((def f ((= a _ : T.handle) (= b 2) (= c 3 : int)) () T.int32 "
               "((doc \"doc\") (return (tuple a b)))))");
  CHECK_STR_EQ(parse_str("assert x > 0, \"positive\"\nassert y\n"),
               "((assert (> x 0) \"positive\") (assert y _))");
  CHECK_STR_EQ(parse_str("@I.ir_module\nclass M:\n  @T.prim_func(private=True)\n"
                         "  def f():\n    pass\n  x = 1\n"),
               "((class M (I.ir_module) ((def f () ((call T.prim_func private=True)) _ ()) "
               "(= x 1))))");
  CHECK_STR_EQ(parse_str("class C():\n  pass\n"), "((class C () ()))");
}

TEST(statement_spans) {
  const char* src =
      "@T.prim_func\n"
      "def f(a: T.handle):\n"
      "    for i in range(4):\n"
      "        if i:\n"
      "            x = 1\n"
      "        elif i < 2:\n"
      "            y = 2\n"
      "    with T.sblock(\"b\") as b, c:\n"
      "        pass\n"
      "        z = (3,\n"
      "             4)\n";
  void* m = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m != NULL);
  if (!m) return;
  const tvm_script_function_doc_obj* f = stmt_at(m, 0);
  CHECK_STR_EQ(span_str(f), "2:1-11:16@13-202");
  CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(f->decorators, 0)), "1:2-1:13@1-12");
  CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(f->args, 0)), "2:7-2:18@19-30");
  const tvm_script_for_doc_obj* loop = tvm_ffi_seq_obj_at(f->body, 0);
  CHECK_STR_EQ(span_str(loop), "3:5-7:18@37-125");
  const tvm_script_if_doc_obj* cond = tvm_ffi_seq_obj_at(loop->body, 0);
  CHECK_STR_EQ(span_str(cond), "4:9-7:18@64-125");
  CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(cond->else_branch, 0)), "6:9-7:18@96-125");
  const tvm_script_scope_doc_obj* w = tvm_ffi_seq_obj_at(f->body, 1);
  CHECK_STR_EQ(span_str(w), "8:5-11:16@130-202");
  const tvm_script_scope_doc_obj* inner = tvm_ffi_seq_obj_at(w->body, 0);
  CHECK_STR_EQ(span_str(inner), "8:30-11:16@155-202");
  const tvm_script_assign_doc_obj* z = tvm_ffi_seq_obj_at(inner->body, 0);
  CHECK_STR_EQ(span_str(z), "10:9-11:16@179-202");
  CHECK_STR_EQ(span_str(z->rhs), "10:13-11:16@183-202");
  tvm_ffi_release(m);
}

TEST(imports) {
  const char* src = "from tvm.script import tirx as T\nfrom tvm.script import ir as I, relax as R\n"
                    "from tvm.script import tir\nx = 1\n";
  void* imports = NULL;
  void* m = tvm_script_parse_doc_ex(src, strlen(src), NULL, &imports);
  CHECK(m != NULL && imports != NULL);
  if (!m || !imports) return;
  CHECK_EQ_INT(tvm_ffi_map_size(imports), 4);
  TVMFFIByteArray v;
  CHECK(tvm_ffi_any_as_bytes(tvm_ffi_map_get_str(imports, "T"), &v) && strcmp(v.data, "tirx") == 0);
  CHECK(tvm_ffi_any_as_bytes(tvm_ffi_map_get_str(imports, "I"), &v) && strcmp(v.data, "ir") == 0);
  CHECK(tvm_ffi_any_as_bytes(tvm_ffi_map_get_str(imports, "R"), &v) &&
        strcmp(v.data, "relax") == 0);
  CHECK(tvm_ffi_any_as_bytes(tvm_ffi_map_get_str(imports, "tir"), &v) &&
        strcmp(v.data, "tir") == 0);
  CHECK_EQ_INT(tvm_ffi_seq_size(((tvm_script_stmt_block_doc_obj*)m)->stmts), 1);
  tvm_ffi_release(m);
  tvm_ffi_release(imports);
  /* More imports than the parser keeps inline (8); a repeated alias takes the last module, in
   * the place of its first import, as a dict's update does. */
  const char* many = "from tvm.script import tir as A, ir as B, relax as C, tirx as D, tir as E\n"
                     "from tvm.script import ir as F, relax as G, tirx as H, tir as J\n"
                     "from tvm.script import relax as A\n";
  imports = NULL;
  m = tvm_script_parse_doc_ex(many, strlen(many), NULL, &imports);
  CHECK(m != NULL && imports != NULL);
  if (!m || !imports) return;
  CHECK_EQ_INT(tvm_ffi_map_size(imports), 9);
  CHECK(tvm_ffi_any_as_bytes(tvm_ffi_map_get_str(imports, "A"), &v) &&
        strcmp(v.data, "relax") == 0);
  CHECK(tvm_ffi_any_as_bytes(tvm_ffi_map_get_str(imports, "J"), &v) && strcmp(v.data, "tir") == 0);
  const TVMFFIAny *first_key, *first_value;
  CHECK(tvm_ffi_map_next(imports, 0, &first_key, &first_value) >= 0 &&
        tvm_ffi_any_as_bytes(first_key, &v) && strcmp(v.data, "A") == 0);
  tvm_ffi_release(m);
  tvm_ffi_release(imports);
}

static const char kMatmul[] =
    "# from tvm.script import ir as I\n"
    "from tvm.script import ir as I\n"
    "from tvm.script import tirx as T\n"
    "\n"
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def matmul(A: T.Buffer((128, 128), \"float32\"), B: T.Buffer((128, 128), \"float32\"),\n"
    "               C: T.Buffer((128, 128), \"float32\")):\n"
    "        \"\"\"C = A @ B.\"\"\"\n"
    "        T.func_attr({\"global_symbol\": \"matmul\", \"tir.noalias\": True})\n"
    "        # with T.sblock(\"root\"):\n"
    "        for i, j, k in T.grid(128, 128, 128):\n"
    "            with T.sblock(\"C\"):\n"
    "                vi, vj, vk = T.axis.remap(\"SSR\", [i, j, k])\n"
    "                T.reads(A[vi, vk], B[vk, vj])\n"
    "                T.writes(C[vi, vj])\n"
    "                with T.init():\n"
    "                    C[vi, vj] = T.float32(0.0)\n"
    "                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]\n"
    "\n"
    "    @T.prim_func\n"
    "    def scale(a: T.handle, n: T.int32):\n"
    "        m = T.int64()\n"
    "        X = T.match_buffer(a, (m,), \"float32\")\n"
    "        for i in T.serial(m):\n"
    "            if i % 2 == 0 and i < n:\n"
    "                X[i] = X[i] * T.float32(2) if X[i] > T.float32(0) else -X[i]\n"
    "            else:\n"
    "                X[i] = T.max(X[i], T.min_value(\"float32\"))\n";

TEST(real_program) {
  void* imports = NULL;
  void* m = tvm_script_parse_doc_ex(kMatmul, strlen(kMatmul), "matmul.py", &imports);
  CHECK(m != NULL);
  if (!m) return;
  CHECK_EQ_INT(tvm_ffi_map_size(imports), 2);
  const tvm_script_class_doc_obj* c = stmt_at(m, 0);
  CHECK_EQ_INT(tvm_script_doc_kind_of(c), TVM_SCRIPT_DOC_ClassDoc);
  CHECK_EQ_INT(tvm_ffi_seq_size(c->body), 2);
  const tvm_script_function_doc_obj* mm = tvm_ffi_seq_obj_at(c->body, 0);
  tvm_ffi_strbuf b = {0};
  dump(mm, &b);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&b),
               "(def matmul ((= A _ : (call T.Buffer (tuple 128 128) \"float32\")) "
               "(= B _ : (call T.Buffer (tuple 128 128) \"float32\")) "
               "(= C _ : (call T.Buffer (tuple 128 128) \"float32\"))) "
               "((call T.prim_func private=True)) _ "
               "((doc \"C = A @ B.\") "
               "(expr (call T.func_attr (dict \"global_symbol\":\"matmul\" \"tir.noalias\":True))) "
               "(for (tuple i j k) (call T.grid 128 128 128) "
               "((with _ (call T.sblock \"C\") "
               "((= (tuple vi vj vk) (call T.axis.remap \"SSR\" (list i j k))) "
               "(expr (call T.reads ([] A vi vk) ([] B vk vj))) "
               "(expr (call T.writes ([] C vi vj))) "
               "(with _ (call T.init) ((= ([] C vi vj) (call T.float32 0f)))) "
               "(= ([] C vi vj) (+ ([] C vi vj) (* ([] A vi vk) ([] B vk vj))))))))))");
  tvm_ffi_strbuf_free(&b);
  const tvm_script_function_doc_obj* sc = tvm_ffi_seq_obj_at(c->body, 1);
  dump(tvm_ffi_seq_obj_at(sc->body, 2), &b);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&b),
               "(for i (call T.serial m) ((if (and (== (% i 2) 0) (< i n)) "
               "((= ([] X i) (if (* ([] X i) (call T.float32 2)) (> ([] X i) (call T.float32 0)) "
               "(neg ([] X i))))) "
               "((= ([] X i) (call T.max ([] X i) (call T.min_value \"float32\")))))))");
  tvm_ffi_strbuf_free(&b);
  tvm_ffi_release(m);
  tvm_ffi_release(imports);
}

/* Text in the printer's canonical form survives text -> Doc -> text unchanged. */
static const char kCanonical[] =
    "@I.ir_module\n"
    "class Module:\n"
    "    @T.prim_func(private=True)\n"
    "    def f(a: T.handle, n: T.int32) -> T.int32:\n"
    "        A = T.match_buffer(a, (n, 16), \"float32\")\n"
    "        for i, j in T.grid(n, 16):\n"
    "            with T.sblock(\"b\") as blk:\n"
    "                if i < n and not j == 0:\n"
    "                    A[i, j] = (A[i, j] + T.float32(1)) * -A[i - 1, j] ** 2\n"
    "                elif i % 2 == 0 or j >= 4:\n"
    "                    A[i, 0:4] = A[i, ::2]\n"
    "                else:\n"
    "                    x: T.let = T.if_then_else(i > 0, 1, 2) if n != 0 else "
    "(lambda u, v: u // v)\n"
    "        while n > 0:\n"
    "            n = n >> 1 | 1 & ~n\n"
    "        assert n == 0, \"zero\"\n"
    "        T.func_attr({\"global_symbol\": \"f\", \"tir.noalias\": True})\n"
    "        return n";

TEST(printer_roundtrip) {
  void* m = tvm_script_parse_doc(kCanonical, strlen(kCanonical), "canonical.py");
  CHECK(m != NULL);
  if (!m) return;
  tvm_ffi_strbuf out = {0};
  CHECK_OK(tvm_script_doc_to_python(m, NULL, &out));
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), kCanonical);
  tvm_ffi_strbuf_free(&out);
  tvm_ffi_release(m);
}

/* ---- Lifetimes: the docs of a parse are ordinary counted objects --------------------------- */

static const void* expr_of(const void* block, int64_t i) {
  return ((const tvm_script_expr_stmt_doc_obj*)stmt_at(block, i))->expr;
}

TEST(doc_lifetimes) {
  const char* src = "f(a, g(b, c=[1, 'x']))\nx += y\n";
  void* m = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m != NULL);
  if (!m) return;
  CHECK_EQ_INT(tvm_ffi_strong_count(m), 1);
  const tvm_script_call_doc_obj* f = expr_of(m, 0);
  CHECK_EQ_INT(tvm_ffi_strong_count(f), 1);
  /* `x += y` shares x between the target and the operation. */
  const tvm_script_assign_doc_obj* aug = stmt_at(m, 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(aug->lhs), 2);
  /* A subtree held past its root stays whole; so does the shared x. */
  void* g = tvm_ffi_seq_obj_at(f->args, 1);
  void* x = aug->lhs;
  tvm_ffi_retain(g);
  tvm_ffi_retain(x);
  tvm_ffi_release(m);
  tvm_ffi_strbuf b = {0};
  dump(g, &b);
  dump(x, &b);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&b), "(call g b c=(list 1 \"x\"))x");
  CHECK_EQ_INT(tvm_ffi_strong_count(g), 1);
  CHECK_EQ_INT(tvm_ffi_strong_count(x), 1);
  tvm_ffi_strbuf_free(&b);
  tvm_ffi_release(g);
  tvm_ffi_release(x);

  /* Weak references: to an inner doc (dies with the tree), and to the root. */
  m = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m != NULL);
  if (!m) return;
  void* inner = (void*)expr_of(m, 0);
  tvm_ffi_weak_retain(inner);
  tvm_ffi_weak_retain(m);
  void* locked = tvm_ffi_weak_lock(inner);
  CHECK(locked == inner);
  tvm_ffi_release(locked);
  tvm_ffi_release(m);
  CHECK(tvm_ffi_weak_lock(inner) == NULL);
  CHECK(tvm_ffi_weak_lock(m) == NULL);
  tvm_ffi_weak_release(inner);
  tvm_ffi_weak_release(m);

  /* Docs may still be annotated after parsing (paths and comments are released with them). */
  m = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m != NULL);
  if (!m) return;
  void* root_path = tvm_ffi_access_path_root();
  CHECK_OK(tvm_script_doc_add_path((void*)expr_of(m, 0), root_path));
  CHECK_OK(tvm_script_stmt_doc_set_comment((void*)stmt_at(m, 1), "note"));
  tvm_ffi_release(root_path);
  tvm_ffi_strbuf out = {0};
  CHECK_OK(tvm_script_doc_to_python(m, NULL, &out));
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), "f(a, g(b, c=[1, \"x\"]))\nx = x + y  # note");
  tvm_ffi_strbuf_free(&out);
  tvm_ffi_release(m);
}

/* Generic algorithms see the parser's arrays as ordinary ffi.Arrays. */
TEST(docs_with_generic_algorithms) {
  const char* src = "def f(a: T.handle):\n  x = a[1:2, (3, 4)]\n  return {'k': [x, None]}\n";
  void* m1 = tvm_script_parse_doc(src, strlen(src), NULL);
  void* m2 = tvm_script_parse_doc(src, strlen(src), NULL);
  CHECK(m1 && m2);
  if (!m1 || !m2) {
    tvm_ffi_release(m1);
    tvm_ffi_release(m2);
    return;
  }
  TVMFFIAny a = tvm_ffi_any_obj(m1), b = tvm_ffi_any_obj(m2);
  CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &b, false, NULL, NULL), 1);
  CHECK(tvm_ffi_structural_hash(&a, false) == tvm_ffi_structural_hash(&b, false));
  tvm_ffi_strbuf json = {0};
  CHECK_OK(tvm_ffi_json_save(&a, &json));
  TVMFFIAny back = tvm_ffi_any_none();
  CHECK_OK(tvm_ffi_json_load(json.data, json.size, &back));
  CHECK_EQ_INT(tvm_ffi_structural_equal(&a, &back, false, NULL, NULL), 1);
  tvm_ffi_any_release(&back);
  tvm_ffi_strbuf_free(&json);
  const void* stmts = ((const tvm_script_stmt_block_doc_obj*)m1)->stmts;
  CHECK_EQ_INT(tvm_ffi_type_index(stmts), kTVMFFIArray);
  void* copy = tvm_ffi_array_new(tvm_ffi_seq_data(stmts), tvm_ffi_seq_size(stmts));
  CHECK(copy != NULL);
  tvm_ffi_release(m1); /* the copy keeps the function doc */
  CHECK_EQ_INT(tvm_script_doc_kind_of(tvm_ffi_seq_obj_at(copy, 0)), TVM_SCRIPT_DOC_FunctionDoc);
  tvm_ffi_release(copy);
  tvm_ffi_release(m2);
}

/* Many and large parses: sequences bigger than an arena chunk. */
TEST(many_and_large_parses) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_puts(&b, "x = [");
  for (int i = 0; i < 30000; ++i) tvm_ffi_strbuf_printf(&b, "%d, ", i);
  tvm_ffi_strbuf_puts(&b, "]\n");
  for (int i = 0; i < 20000; ++i) tvm_ffi_strbuf_printf(&b, "y%d = f(%d)\n", i, i);
  for (int round = 0; round < 3; ++round) {
    void* m = tvm_script_parse_doc(b.data, b.size, "big.py");
    CHECK(m != NULL);
    if (!m) break;
    const void* stmts = ((const tvm_script_stmt_block_doc_obj*)m)->stmts;
    CHECK_EQ_INT(tvm_ffi_seq_size(stmts), 20001);
    const tvm_script_assign_doc_obj* list = tvm_ffi_seq_obj_at(stmts, 0);
    const void* items = ((const tvm_script_seq_doc_obj*)list->rhs)->elements;
    CHECK_EQ_INT(tvm_ffi_seq_size(items), 30000);
    CHECK_EQ_INT(
        ((const tvm_script_literal_doc_obj*)tvm_ffi_seq_obj_at(items, 29999))->value.v_int64,
        29999);
    const tvm_script_assign_doc_obj* last = tvm_ffi_seq_obj_at(stmts, 20000);
    CHECK_STR_EQ(tvm_ffi_str_cstr(((const tvm_script_id_doc_obj*)last->lhs)->name), "y19999");
    if (round == 1) { /* keep one statement past the root */
      void* keep = (void*)last;
      tvm_ffi_retain(keep);
      tvm_ffi_release(m);
      tvm_ffi_strbuf d = {0};
      dump(keep, &d);
      CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&d), "(= y19999 (call f 19999))");
      tvm_ffi_strbuf_free(&d);
      tvm_ffi_release(keep);
    } else {
      tvm_ffi_release(m);
    }
  }
  /* A failure late in a big program releases everything built before it. */
  tvm_ffi_strbuf_puts(&b, "z = (1 +\n");
  CHECK(tvm_script_parse_doc(b.data, b.size, "big.py") == NULL);
  CHECK_RAISED("SyntaxError", "big.py:20002:5: error: '(' was never closed");
  tvm_ffi_strbuf_free(&b);
}

/* Parses in several threads at once; each result is released by
 * another thread than the one that parsed it. */
enum { N_THREADS = 4, N_ROUNDS = 20 };
static void* g_thread_docs[N_THREADS];
static void* parse_in_thread(void* arg) {
  intptr_t t = (intptr_t)arg;
  tvm_ffi_strbuf b = {0};
  for (int i = 0; i < 2000; ++i)
    tvm_ffi_strbuf_printf(&b, "x%d = f(a, b=[%d, %d])\n", i, i, (int)t);
  void* result = NULL;
  for (int round = 0; round < N_ROUNDS; ++round) {
    tvm_ffi_release(result);
    result = tvm_script_parse_doc(b.data, b.size, "t.py");
    if (!result) break;
  }
  tvm_ffi_strbuf_free(&b);
  g_thread_docs[t] = result;
  return NULL;
}
static void* release_in_thread(void* doc) {
  tvm_ffi_release(doc);
  return NULL;
}

TEST(parses_in_threads) {
  pthread_t threads[N_THREADS];
  for (intptr_t t = 0; t < N_THREADS; ++t) {
    CHECK_EQ_INT(pthread_create(&threads[t], NULL, parse_in_thread, (void*)t), 0);
  }
  for (int t = 0; t < N_THREADS; ++t) pthread_join(threads[t], NULL);
  for (int t = 0; t < N_THREADS; ++t) {
    CHECK(g_thread_docs[t] != NULL);
    if (!g_thread_docs[t]) continue;
    const void* stmts = ((const tvm_script_stmt_block_doc_obj*)g_thread_docs[t])->stmts;
    CHECK_EQ_INT(tvm_ffi_seq_size(stmts), 2000);
    tvm_ffi_strbuf d = {0};
    dump(tvm_ffi_seq_obj_at(stmts, 1999), &d);
    char want[64];
    snprintf(want, sizeof(want), "(= x1999 (call f a b=(list 1999 %d)))", t);
    CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&d), want);
    tvm_ffi_strbuf_free(&d);
    CHECK_EQ_INT(pthread_create(&threads[t], NULL, release_in_thread, g_thread_docs[t]), 0);
  }
  for (int t = 0; t < N_THREADS; ++t) {
    if (g_thread_docs[t]) pthread_join(threads[t], NULL);
  }
}

/* Fields changed after the parse: doc.c's setters on a parsed doc, and reflection writes that
 * replace a name and a literal's value (with a string, or with an int: no object); each object
 * is released exactly once (AddressSanitizer and LeakSanitizer check). */
TEST(outside_refs_changed_after_the_parse) {
  const char* src = "\"\"\"doc\"\"\"\nf(a, 'a long literal')\ng(1)\n";
  for (int how = 0; how < 5; ++how) {
    void* m = tvm_script_parse_doc(src, strlen(src), NULL);
    CHECK(m != NULL);
    if (!m) return;
    void* docstring = (void*)stmt_at(m, 0);
    const tvm_script_call_doc_obj* f = expr_of(m, 1);
    void* id = f->callee;
    void* literal = (void*)tvm_ffi_seq_obj_at(f->args, 1);
    if (how == 0) {
      CHECK_OK(tvm_script_stmt_doc_set_comment(docstring, "another docstring"));
    } else if (how == 1) {
      void* root = tvm_ffi_access_path_root();
      CHECK_OK(tvm_script_doc_add_path(literal, root));
      tvm_ffi_release(root);
    } else if (how == 2) {
      const TVMFFIFieldInfo* name = tvm_ffi_type_find_field(tvm_ffi_type_index(id), "name");
      CHECK(name != NULL);
      void* str = tvm_ffi_str_obj("a name longer than a small string", 33);
      TVMFFIAny v = tvm_ffi_any_obj(str);
      CHECK_OK(tvm_ffi_field_set(id, name, &v));
      tvm_ffi_release(str);
    } else if (how == 4) {
      const TVMFFIFieldInfo* value = tvm_ffi_type_find_field(tvm_ffi_type_index(literal), "value");
      CHECK(value != NULL);
      TVMFFIAny v = tvm_ffi_any_int(7);
      CHECK_OK(tvm_ffi_field_set(literal, value, &v));
    } else {
      const TVMFFIFieldInfo* value = tvm_ffi_type_find_field(tvm_ffi_type_index(literal), "value");
      CHECK(value != NULL);
      void* str = tvm_ffi_str_obj("another long literal value", 26);
      TVMFFIAny v = tvm_ffi_any_obj(str);
      CHECK_OK(tvm_ffi_field_set(literal, value, &v));
      tvm_ffi_release(str);
    }
    tvm_ffi_release(m);
  }
}

/* A doc that dies before the root (a reflection write replaced it) while a weak reference keeps
 * its memory (AddressSanitizer checks the order of the frees). */
TEST(weakly_held_doc_dies_before_the_root) {
  const char* src = "f(a, b)\n";
  for (int order = 0; order < 2; ++order) {
    void* m = tvm_script_parse_doc(src, strlen(src), NULL);
    CHECK(m != NULL);
    if (!m) return;
    tvm_script_call_doc_obj* f = (tvm_script_call_doc_obj*)expr_of(m, 0);
    void* callee = f->callee;
    void* a = (void*)tvm_ffi_seq_obj_at(f->args, 0);
    tvm_ffi_weak_retain(callee);
    const TVMFFIFieldInfo* field = tvm_ffi_type_find_field(tvm_ffi_type_index(f), "callee");
    CHECK(field != NULL);
    TVMFFIAny v = tvm_ffi_any_obj(a);
    CHECK_OK(tvm_ffi_field_set(f, field, &v)); /* the old callee's last strong reference goes */
    void* locked = tvm_ffi_weak_lock(callee);
    CHECK(locked == NULL);
    if (order == 0) {
      tvm_ffi_release(m);
      tvm_ffi_weak_release(callee);
    } else {
      tvm_ffi_weak_release(callee);
      tvm_ffi_release(m);
    }
  }
}

/* Docs and values of a tree held from outside when its root dies: an array of the tree, the
 * empty array every empty field shares, a parsed doc inside a doc built by doc.c, a weak
 * reference, and the objects the tree holds (each released exactly once). */
TEST(docs_held_past_the_root) {
  const char* src = "f(a, 'a long literal')\ng()\n"; /* long: an ffi.String object */
  for (int held = 0; held < 5; ++held) {
    void* m = tvm_script_parse_doc(src, strlen(src), NULL);
    CHECK(m != NULL);
    if (!m) return;
    const tvm_script_call_doc_obj* f = expr_of(m, 0);
    const tvm_script_call_doc_obj* g = expr_of(m, 1);
    void* name = ((const tvm_script_id_doc_obj*)f->callee)->name;
    const tvm_script_literal_doc_obj* literal = tvm_ffi_seq_obj_at(f->args, 1);
    const TVMFFIAny* value = &literal->value;
    CHECK_EQ_INT(value->type_index, kTVMFFIStr);
    void* lit = value->v_obj;
    tvm_ffi_retain(name);
    tvm_ffi_retain(lit);
    void* keep = NULL;
    const char* want = NULL;
    if (held == 1) { /* an array of the tree */
      keep = f->args;
      tvm_ffi_retain(keep);
      want = " a \"a long literal\""; /* dump_items puts a space before each item */
    } else if (held == 2) { /* the shared empty array */
      keep = g->args;
      tvm_ffi_retain(keep);
      CHECK(keep == (void*)g->kwargs_keys && keep == (void*)f->kwargs_values);
      want = "";
    } else if (held == 3) { /* a parsed call inside a statement doc built by doc.c */
      tvm_ffi_retain((void*)f);
      keep = tvm_script_expr_stmt_doc_take((void*)f);
      CHECK(keep != NULL);
      want = "(expr (call f a \"a long literal\"))";
    }
    if (held == 4) { /* only a weak reference to a doc of the tree */
      tvm_ffi_weak_retain((void*)g);
      tvm_ffi_release(m);
      CHECK(tvm_ffi_weak_lock((void*)g) == NULL);
      tvm_ffi_weak_release((void*)g);
    } else {
      tvm_ffi_release(m);
    }
    if (keep) {
      tvm_ffi_strbuf b = {0};
      if (held == 3) dump(keep, &b);
      else dump_items(keep, &b);
      CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&b), want);
      /* (the empty array is doc.c's, shared by every doc: it holds one more) */
      CHECK_EQ_INT(tvm_ffi_strong_count(keep), held == 2 ? 2 : 1);
      tvm_ffi_strbuf_free(&b);
      tvm_ffi_release(keep);
    }
    /* The tree is gone: these are the only references left (the parse's identifier table
     * went with the parse). */
    CHECK_EQ_INT(tvm_ffi_strong_count(name), 1);
    CHECK_EQ_INT(tvm_ffi_strong_count(lit), 1);
    CHECK_STR_EQ(tvm_ffi_str_cstr(name), "f");
    CHECK_STR_EQ(tvm_ffi_str_cstr(lit), "a long literal");
    tvm_ffi_release(name);
    tvm_ffi_release(lit);
  }
}

/* The root released in one thread while another releases a doc of its tree, or locks a weak
 * reference to one and reads it: whichever runs first, no doc is freed while reachable (ASan)
 * and none is leaked (LeakSanitizer). */
typedef struct {
  void* strong; /* released by the thread */
  void* weak;   /* weakly held; locked, read, released by the thread */
  int bad;      /* a locked doc that did not read back */
} racer;
static void* race_root(void* arg) {
  racer* r = arg;
  tvm_ffi_release(r->strong);
  void* locked = tvm_ffi_weak_lock(r->weak);
  if (locked) {
    tvm_ffi_strbuf b = {0};
    dump(locked, &b);
    r->bad = strcmp(tvm_ffi_strbuf_cstr(&b), "(call h (list x 2))") != 0;
    tvm_ffi_strbuf_free(&b);
    tvm_ffi_release(locked);
  }
  tvm_ffi_weak_release(r->weak);
  return NULL;
}

TEST(releases_racing_the_root) {
  const char* src = "y = g(a, b)\nz = h([x, 2])\n";
  int bad = 0;
  for (int i = 0; i < 300; ++i) {
    void* m = tvm_script_parse_doc(src, strlen(src), NULL);
    CHECK(m != NULL);
    if (!m) return;
    /* Every other round, only the weak reference: nothing else keeps the tree. */
    racer r = {i % 2 ? NULL : (void*)((const tvm_script_assign_doc_obj*)stmt_at(m, 0))->rhs,
               (void*)((const tvm_script_assign_doc_obj*)stmt_at(m, 1))->rhs, 0};
    tvm_ffi_retain(r.strong);
    tvm_ffi_weak_retain(r.weak);
    pthread_t t;
    bool started = pthread_create(&t, NULL, race_root, &r) == 0;
    CHECK(started);
    tvm_ffi_release(m);
    if (!started) {
      race_root(&r);
    } else {
      pthread_join(t, NULL);
    }
    bad += r.bad;
  }
  CHECK_EQ_INT(bad, 0);
}

/* ---- Errors: the exact rendered message ----------------------------------------------------- */

TEST(error_messages) {
  CHECK_STR_EQ(parse_err("def f(:)\n  pass\n"),
               "SyntaxError: t.py:1:7: error: expected a parameter name, found ':'\n"
               "def f(:)\n      ^");
  CHECK_STR_EQ(parse_err("x = (a +)\n"),
               "SyntaxError: t.py:1:9: error: expected an expression, found ')'\n"
               "x = (a +)\n        ^");
  CHECK_STR_EQ(parse_err("if x\n  y\n"),
               "SyntaxError: t.py:1:5: error: expected ':', found end of line\nif x\n    ^");
  CHECK_STR_EQ(parse_err("if x:\ny\n"),
               "SyntaxError: t.py:2:1: error: expected an indented block, found identifier 'y'\n"
               "y\n^");
  CHECK_STR_EQ(parse_err("x = 1\n  y = 2\n"),
               "SyntaxError: t.py:2:1: error: unexpected indent\n  y = 2\n^^");
  CHECK_STR_EQ(parse_err("x = foo bar\n"),
               "SyntaxError: t.py:1:9: error: expected end of line, found identifier 'bar'\n"
               "x = foo bar\n        ^^^");
  CHECK_STR_EQ(parse_err("f(x=1, y)\n"),
               "SyntaxError: t.py:1:8: error: positional argument follows keyword argument\n"
               "f(x=1, y)\n       ^");
  CHECK_STR_EQ(parse_err("f() = 1\n"),
               "SyntaxError: t.py:1:1: error: cannot assign to a function call\nf() = 1\n^^^");
  CHECK_STR_EQ(parse_err("x = 'abc\n"),
               "SyntaxError: t.py:1:5: error: unterminated string literal\nx = 'abc\n    ^^^^");
  CHECK_STR_EQ(parse_err("if a:\n    b\n  c\n"),
               "SyntaxError: t.py:3:1: error: unindent does not match any outer indentation "
               "level\n  c\n^^");
  CHECK_STR_EQ(parse_err("@T.prim_func\nx = 1\n"),
               "SyntaxError: t.py:2:1: error: expected 'def' or 'class' after decorators, found "
               "identifier 'x'\nx = 1\n^");
  CHECK_STR_EQ(parse_err("x = a if b\n"),
               "SyntaxError: t.py:1:11: error: expected 'else' in the conditional expression, "
               "found end of line\nx = a if b\n          ^");
  CHECK_STR_EQ(parse_err("a[]\n"),
               "SyntaxError: t.py:1:3: error: expected an index, found ']'\na[]\n  ^");
}

TEST(unsupported_constructs) {
  CHECK_STR_EQ(parse_err("import numpy\n"),
               "SyntaxError: t.py:1:8: error: imports of modules other than 'tvm' are not "
               "supported in TVMScript\nimport numpy\n       ^^^^^");
  CHECK_STR_EQ(parse_err("import tvm, numpy as np\n"),
               "SyntaxError: t.py:1:13: error: imports of modules other than 'tvm' are not "
               "supported in TVMScript\nimport tvm, numpy as np\n            ^^^^^^^^^^^");
  CHECK_STR_EQ(parse_err("import tvm.testing as tt\n"),
               "SyntaxError: t.py:1:8: error: 'import ... as' names tvm or one of its script "
               "modules (tvm.script.tir, tvm.script.ir, tvm.script.relax)\n"
               "import tvm.testing as tt\n       ^^^^^^^^^^^^^^^^^");
  CHECK_STR_EQ(parse_err("def f():\n    import tvm\n"),
               "SyntaxError: t.py:2:5: error: imports inside a definition are not supported in "
               "TVMScript\n    import tvm\n    ^^^^^^");
  CHECK_STR_EQ(parse_err("from os import path\n"),
               "SyntaxError: t.py:1:1: error: imports other than 'import tvm', 'from tvm import "
               "...' and 'from tvm.script import ...' header lines are not supported in "
               "TVMScript\nfrom os import path\n^^^^^^^");
  CHECK_STR_EQ(parse_err("from tvm.script import numpy as np\n"),
               "SyntaxError: t.py:1:24: error: unknown TVMScript module 'numpy' (expected ir, "
               "tir, tirx, s_tir or relax)\nfrom tvm.script import numpy as np\n"
               "                       ^^^^^");
  CHECK_STR_EQ(parse_err("def f():\n    try:\n        pass\n"),
               "SyntaxError: t.py:2:5: error: 'try' statements are not supported in TVMScript\n"
               "    try:\n    ^^^");
  CHECK_STR_EQ(parse_err("x = [i for i in y]\n"),
               "SyntaxError: t.py:1:8: error: comprehensions and generator expressions are not "
               "supported in TVMScript\nx = [i for i in y]\n       ^^^");
  CHECK_STR_EQ(parse_err("if (n := 10) > 5:\n  pass\n"),
               "SyntaxError: t.py:1:7: error: assignment expressions (':=') are not supported in "
               "TVMScript\nif (n := 10) > 5:\n      ^^");
  CHECK_STR_CONTAINS(parse_err("def f():\n  yield x\n"), "'yield' expressions are not supported");
  CHECK_STR_CONTAINS(parse_err("global x\n"), "'global' statements are not supported");
  CHECK_STR_CONTAINS(parse_err("nonlocal x\n"), "'nonlocal' statements are not supported");
  CHECK_STR_CONTAINS(parse_err("del x\n"), "'del' statements are not supported");
  CHECK_STR_CONTAINS(parse_err("raise x\n"), "'raise' statements are not supported");
  CHECK_STR_EQ(parse_err("for i in x:\n  break\n  continue\n"), "(none)"); /* TIR has them */
  CHECK_STR_CONTAINS(parse_err("async def f():\n  pass\n"), "'async' statements are not supported");
  CHECK_STR_CONTAINS(parse_err("x = {1, 2}\n"), "set displays are not supported");
  CHECK_STR_CONTAINS(parse_err("x = {k: v for k in y}\n"), "comprehensions");
  CHECK_STR_CONTAINS(parse_err("f(**kw)\n"), "double-starred arguments ('**kwargs') are not");
  CHECK_STR_CONTAINS(parse_err("f(x for x in y)\n"), "comprehensions");
  CHECK_STR_CONTAINS(parse_err("x = a @ b\n"), "the '@' (matrix multiplication) operator is not");
  CHECK_STR_CONTAINS(parse_err("x @= b\n"), "the '@=' operator is not supported in TVMScript");
  CHECK_STR_CONTAINS(parse_err("x = a in b\n"), "'in' comparisons are not supported");
  CHECK_STR_CONTAINS(parse_err("x = a is None\n"), "'is' comparisons are not supported");
  CHECK_STR_CONTAINS(parse_err("x = a not in b\n"), "'not in' comparisons are not supported");
  CHECK_STR_CONTAINS(parse_err("x = a[...]\n"), "'...' (Ellipsis) is not supported");
  CHECK_STR_CONTAINS(parse_err("for i in x:\n  pass\nelse:\n  pass\n"), "'else' clauses of 'for'");
  CHECK_STR_CONTAINS(parse_err("while x:\n  pass\nelse:\n  pass\n"), "'else' clauses of 'while'");
  CHECK_STR_CONTAINS(parse_err("a = b = c\n"), "chained assignments are not supported");
  CHECK_STR_CONTAINS(parse_err("class A(B):\n  pass\n"), "base classes are not supported");
  CHECK_STR_CONTAINS(parse_err("def f(*a):\n  pass\n"), "'*' parameters are not supported");
  CHECK_STR_CONTAINS(parse_err("lambda x=1: x\n"), "default values of lambda parameters");
  CHECK_STR_CONTAINS(parse_err("a, b: int = 1\n"), "only a single target can be annotated");
  CHECK_STR_CONTAINS(parse_err("def f():\n  import os\n"), "imports inside a definition");
}

TEST(nesting_limits) {
  /* 250 unary minus signs: deeper than the limit, one line, no brackets. */
  char src[1024];
  size_t n = 0;
  memcpy(src, "x = ", 4);
  n = 4;
  for (int i = 0; i < 250; ++i) src[n++] = '-';
  src[n++] = '1';
  src[n] = '\0';
  CHECK_STR_CONTAINS(parse_err(src),
                     "t.py:1:204: error: expression nested too deeply (the limit is 200 levels)");
  n = 4;
  for (int i = 0; i < 250; ++i) {
    memcpy(src + n, "not ", 4);
    n += 4;
    if (n > 900) break;
  }
  src[n++] = 'a';
  src[n] = '\0';
  CHECK_STR_CONTAINS(parse_err(src), "expression nested too deeply (the limit is 200 levels)");
  n = 0;
  for (int i = 0; i < 250; ++i) {
    memcpy(src + n, "a**", 3);
    n += 3;
  }
  src[n++] = 'a';
  src[n] = '\0';
  CHECK_STR_CONTAINS(parse_err(src), "expression nested too deeply (the limit is 200 levels)");
  /* 150 nested brackets are fine (each level costs one expression level). */
  n = 0;
  for (int i = 0; i < 150; ++i) src[n++] = '[';
  for (int i = 0; i < 150; ++i) src[n++] = ']';
  src[n] = '\0';
  CHECK(strncmp(parse_str(src), "((expr (list (list", 18) == 0);
  for (int i = 0; i < 201; ++i) src[i] = '(';
  src[201] = '\0';
  CHECK_STR_CONTAINS(parse_err(src), "too many nested brackets (the limit is 200)");
  /* A long elif chain is not recursion. */
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_puts(&b, "if a:\n  pass\n");
  for (int i = 0; i < 5000; ++i) tvm_ffi_strbuf_puts(&b, "elif a:\n  pass\n");
  void* m = tvm_script_parse_doc(b.data, b.size, NULL);
  CHECK(m != NULL);
  tvm_ffi_release(m);
  tvm_ffi_strbuf_free(&b);
}

TEST(odd_inputs) {
  CHECK_STR_EQ(parse_str(""), "()");
  CHECK_STR_EQ(parse_str("\n\n# c\n"), "()");
  void* empty = tvm_script_parse_doc(NULL, 0, NULL);
  CHECK(empty != NULL);
  tvm_ffi_release(empty);
  void* m = tvm_script_parse_doc("x = 1\0y", 7, NULL);
  CHECK(m == NULL);
  CHECK_RAISED("SyntaxError", "invalid character (byte 0x00)");
  CHECK_STR_CONTAINS(parse_err("x ="), "expected an expression, found end of line");
  CHECK_STR_CONTAINS(parse_err("def"), "expected a function name, found end of line");
  CHECK_STR_CONTAINS(parse_err("else:\n  x\n"), "expected an expression, found 'else'");
  CHECK_STR_CONTAINS(parse_err("x = 1 = 2 = 3"), "chained assignments");
  /* A compound statement cannot follow a colon on the same line (nor recurse that way). */
  CHECK_STR_EQ(parse_err("if a: if b: c\n"),
               "SyntaxError: t.py:1:7: error: expected an expression, found 'if'\n"
               "if a: if b: c\n      ^^");
}

/* Tokens are lexed in windows while parsing: errors far from the start keep their exact form. */
TEST(long_inputs) {
  tvm_ffi_strbuf b = {0};
  for (int i = 0; i < 3000; ++i) tvm_ffi_strbuf_printf(&b, "x%d = f(a, b)[i]\n", i);
  size_t prefix = b.size;
  tvm_ffi_strbuf_puts(&b, "y = 'abc\n");
  void* m = tvm_script_parse_doc(b.data, b.size, "t.py");
  CHECK(m == NULL);
  CHECK_RAISED("SyntaxError",
               "t.py:3001:5: error: unterminated string literal\ny = 'abc\n    ^^^^");
  b.size = prefix;
  tvm_ffi_strbuf_puts(&b, "y = (1,\n");
  m = tvm_script_parse_doc(b.data, b.size, "t.py");
  CHECK(m == NULL);
  CHECK_RAISED("SyntaxError", "t.py:3001:5: error: '(' was never closed\ny = (1,\n    ^");
  b.size = prefix;
  tvm_ffi_strbuf_puts(&b, "y = = 1\n");
  m = tvm_script_parse_doc(b.data, b.size, "t.py");
  CHECK(m == NULL);
  CHECK_RAISED("SyntaxError",
               "t.py:3001:5: error: expected an expression, found '='\ny = = 1\n    ^");
  b.size = prefix;
  m = tvm_script_parse_doc(b.data, b.size, "t.py");
  CHECK(m != NULL);
  if (m) {
    const void* stmts = ((tvm_script_stmt_block_doc_obj*)m)->stmts;
    CHECK_EQ_INT(tvm_ffi_seq_size(stmts), 3000);
    CHECK_STR_EQ(span_str(tvm_ffi_seq_obj_at(stmts, 2999)), "3000:1-3000:19@55871-55889");
  }
  tvm_ffi_release(m);
  tvm_ffi_strbuf_free(&b);
}

TEST(line_endings) {
  CHECK_STR_EQ(parse_str("if a:\r\n  b = 1\r\nc\r\n"), "((if a ((= b 1)) ()) (expr c))");
  CHECK_STR_EQ(parse_str("if a:\r  b = 1\rc"), "((if a ((= b 1)) ()) (expr c))");
  CHECK_STR_EQ(parse_err("if a:\r\n  b = (\r\n"),
               "SyntaxError: t.py:2:7: error: '(' was never closed\n  b = (\n      ^");
}

int main(void) {
  RUN(literals_and_atoms);
  RUN(calls_attrs_subscripts);
  RUN(interned_names_prefixes);
  RUN(names_interned_per_parse);
  RUN(keyword_and_dict_pairs_many);
  RUN(starred_arguments);
  RUN(precedence);
  RUN(expression_spans);
  RUN(assignments);
  RUN(compound_statements);
  RUN(statement_spans);
  RUN(imports);
  RUN(real_program);
  RUN(printer_roundtrip);
  RUN(doc_lifetimes);
  RUN(docs_with_generic_algorithms);
  RUN(many_and_large_parses);
  RUN(parses_in_threads);
  RUN(docs_held_past_the_root);
  RUN(outside_refs_changed_after_the_parse);
  RUN(weakly_held_doc_dies_before_the_root);
  RUN(releases_racing_the_root);
  RUN(error_messages);
  RUN(unsupported_constructs);
  RUN(nesting_limits);
  RUN(odd_inputs);
  RUN(long_inputs);
  RUN(line_endings);
  return test_summary();
}
