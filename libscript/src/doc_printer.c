/*
 * doc_printer.c: Doc tree -> Python text, in one pass into a strbuf, and the underlining of the
 * docs that lie on given access paths.
 *
 * Layout: every statement starts on its own line at the current indentation; a function or
 * class is followed by a blank line (dropped at the end of the text); the text has no trailing
 * newline. Parentheses follow Python's precedence and associativity (comparisons never chain).
 *
 * Underlining: while printing, the byte range of each doc is compared with the requested paths;
 * for each path the docs whose source path is the longest prefix of it are kept. The ranges are
 * then drawn as `^` lines under the text (each line of a multi-line range is marked from its
 * first non-blank character), with optional line numbers and a context window.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "script_internal.h"

typedef struct {
  int64_t start, end;
} byte_range;

/* Docs nested deeper than this are refused (a RuntimeError) instead of overflowing the stack. */
enum { MAX_DOC_DEPTH = 5000 };

typedef struct {
  tvm_ffi_strbuf* out;
  int indent;
  int indent_spaces;
  bool blank_pending; /* a blank line goes before the next statement */
  bool failed;
  bool too_deep;
  int depth;
  /* Underlining: per requested path, the deepest matching depth and its ranges. */
  const void* const* paths;
  int64_t n_paths;
  int64_t* best_depth;
  byte_range** ranges;
  int64_t* n_ranges;
  int64_t* cap_ranges;
} printer;

enum {
  PREC_LAMBDA = 1,
  PREC_IF_ELSE = 2,
  PREC_OR = 3,
  PREC_AND = 4,
  PREC_NOT = 5,
  PREC_CMP = 6,
  PREC_BIT_OR = 7,
  PREC_BIT_XOR = 8,
  PREC_BIT_AND = 9,
  PREC_SHIFT = 10,
  PREC_ADD = 11,
  PREC_MULT = 12,
  PREC_UNARY = 13,
  PREC_POW = 14,
  PREC_ATOM = 15
};

static int op_prec(int32_t op) {
  switch (op) {
    case TVM_SCRIPT_OP_USub:
    case TVM_SCRIPT_OP_Invert: return PREC_UNARY;
    case TVM_SCRIPT_OP_Not: return PREC_NOT;
    case TVM_SCRIPT_OP_Add:
    case TVM_SCRIPT_OP_Sub: return PREC_ADD;
    case TVM_SCRIPT_OP_Mult:
    case TVM_SCRIPT_OP_Div:
    case TVM_SCRIPT_OP_FloorDiv:
    case TVM_SCRIPT_OP_Mod: return PREC_MULT;
    case TVM_SCRIPT_OP_Pow: return PREC_POW;
    case TVM_SCRIPT_OP_LShift:
    case TVM_SCRIPT_OP_RShift: return PREC_SHIFT;
    case TVM_SCRIPT_OP_BitAnd: return PREC_BIT_AND;
    case TVM_SCRIPT_OP_BitOr: return PREC_BIT_OR;
    case TVM_SCRIPT_OP_BitXor: return PREC_BIT_XOR;
    case TVM_SCRIPT_OP_And: return PREC_AND;
    case TVM_SCRIPT_OP_Or: return PREC_OR;
    case TVM_SCRIPT_OP_IfThenElse: return PREC_IF_ELSE;
    default: return PREC_CMP;
  }
}

static int expr_prec(const void* doc) {
  switch (tvm_script_doc_kind_of(doc)) {
    case TVM_SCRIPT_DOC_OperationDoc:
      return op_prec(((const tvm_script_operation_doc_obj*)doc)->op);
    case TVM_SCRIPT_DOC_LambdaDoc: return PREC_LAMBDA;
    case TVM_SCRIPT_DOC_LiteralDoc: {
      /* A negative number reads as a unary minus. */
      const TVMFFIAny* v = &((const tvm_script_literal_doc_obj*)doc)->value;
      if ((v->type_index == kTVMFFIInt && v->v_int64 < 0) ||
          (v->type_index == kTVMFFIFloat && signbit(v->v_float64))) {
        return PREC_UNARY;
      }
      return PREC_ATOM;
    }
    default: return PREC_ATOM;
  }
}

/* ---- Output primitives --------------------------------------------------------------------- */
static void put(printer* p, const char* s) { tvm_ffi_strbuf_puts(p->out, s); }
static void putn(printer* p, const char* s, size_t n) { tvm_ffi_strbuf_append(p->out, s, n); }
static void put_str_obj(printer* p, const void* s) {
  TVMFFIByteArray v = tvm_ffi_str_view(s);
  putn(p, v.data, v.size);
}

/* Start a statement line at the current indentation. */
static void new_line(printer* p) {
  if (p->out->size) {
    tvm_ffi_strbuf_putc(p->out, '\n');
    if (p->blank_pending) tvm_ffi_strbuf_putc(p->out, '\n');
  }
  p->blank_pending = false;
  for (int i = 0; i < p->indent * p->indent_spaces; ++i) tvm_ffi_strbuf_putc(p->out, ' ');
}

static void print_doc(printer* p, const void* doc);

/* Record [start, end) for the requested paths that doc's source paths lead to. */
static void mark(printer* p, const tvm_script_doc_obj* doc, int64_t start) {
  if (!doc->source_paths || start == (int64_t)p->out->size) return;
  int64_t n = tvm_ffi_seq_size(doc->source_paths);
  for (int64_t i = 0; i < n; ++i) {
    const tvm_ffi_access_path_obj* sp = tvm_ffi_seq_obj_at(doc->source_paths, i);
    for (int64_t k = 0; k < p->n_paths; ++k) {
      if (sp->depth < p->best_depth[k] || !tvm_ffi_access_path_is_prefix(sp, p->paths[k])) {
        continue;
      }
      if (sp->depth > p->best_depth[k]) {
        p->best_depth[k] = sp->depth;
        p->n_ranges[k] = 0;
      }
      if (p->n_ranges[k] == p->cap_ranges[k]) {
        int64_t cap = p->cap_ranges[k] ? p->cap_ranges[k] * 2 : 4;
        byte_range* r = tvm_ffi_realloc(p->ranges[k], (size_t)cap * sizeof(byte_range));
        if (!r) {
          p->failed = true;
          return;
        }
        p->ranges[k] = r;
        p->cap_ranges[k] = cap;
      }
      p->ranges[k][p->n_ranges[k]++] = (byte_range){start, (int64_t)p->out->size};
    }
  }
}

/* ---- Expressions --------------------------------------------------------------------------- */
static void print_child(printer* p, const void* doc, int parent_prec, bool paren_same) {
  int prec = expr_prec(doc);
  bool paren = prec < parent_prec || (paren_same && prec == parent_prec);
  if (paren) put(p, "(");
  print_doc(p, doc);
  if (paren) put(p, ")");
}

static void print_list(printer* p, const void* arr, const char* sep) {
  int64_t n = arr ? tvm_ffi_seq_size(arr) : 0;
  for (int64_t i = 0; i < n; ++i) {
    if (i) put(p, sep);
    print_doc(p, tvm_ffi_seq_obj_at(arr, i));
  }
}

static void put_float(printer* p, double v) {
  if (isnan(v)) {
    put(p, "float(\"nan\")");
    return;
  }
  if (isinf(v)) {
    put(p, v < 0 ? "-float(\"inf\")" : "float(\"inf\")");
    return;
  }
  char buf[400]; /* %.0f of |v| < 1e15 needs < 20 bytes; the size silences -Wformat-truncation */
  if (v > -1e15 && v < 1e15 && v == (double)(int64_t)v) {
    snprintf(buf, sizeof(buf), "%.0f", v); /* integral: exact; ".0" is added below */
  } else {
    tvm_ffi_format_double(v, false, buf, sizeof(buf)); /* shortest exact text */
  }
  put(p, buf);
  if (!strpbrk(buf, ".eEn")) put(p, ".0");
}

static void put_int(printer* p, int64_t v) {
  char buf[24];
  int n = sizeof(buf);
  uint64_t u = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
  do {
    buf[--n] = (char)('0' + u % 10);
    u /= 10;
  } while (u);
  if (v < 0) buf[--n] = '-';
  putn(p, buf + n, sizeof(buf) - (size_t)n);
}

static void put_quoted(printer* p, const char* s, size_t n) {
  put(p, "\"");
  for (size_t i = 0; i < n; ++i) {
    unsigned char c = (unsigned char)s[i];
    switch (c) {
      case '"': put(p, "\\\""); break;
      case '\\': put(p, "\\\\"); break;
      case '\n': put(p, "\\n"); break;
      case '\t': put(p, "\\t"); break;
      case '\r': put(p, "\\r"); break;
      default:
        if (c < 0x20 || c == 0x7f) {
          tvm_ffi_strbuf_printf(p->out, "\\x%02x", c);
        } else {
          tvm_ffi_strbuf_putc(p->out, (char)c);
        }
    }
  }
  put(p, "\"");
}

static void print_literal(printer* p, const void* doc) {
  const TVMFFIAny* v = &((const tvm_script_literal_doc_obj*)doc)->value;
  TVMFFIByteArray bytes;
  switch (v->type_index) {
    case kTVMFFINone: put(p, "None"); return;
    case kTVMFFIBool: put(p, v->v_int64 ? "True" : "False"); return;
    case kTVMFFIInt: put_int(p, v->v_int64); return;
    case kTVMFFIFloat: put_float(p, v->v_float64); return;
    default:
      if (tvm_ffi_any_as_bytes(v, &bytes)) {
        put_quoted(p, bytes.data, bytes.size);
      } else {
        tvm_ffi_strbuf_printf(p->out, "<%s>", tvm_ffi_any_type_name(v));
      }
  }
}

static void print_id(printer* p, const void* doc) {
  put_str_obj(p, ((const tvm_script_id_doc_obj*)doc)->name);
}

static void print_attr(printer* p, const void* doc) {
  const tvm_script_attr_doc_obj* d = doc;
  print_child(p, d->value, PREC_ATOM, false);
  put(p, ".");
  put_str_obj(p, d->name);
}

static void print_index(printer* p, const void* doc) {
  const tvm_script_index_doc_obj* d = doc;
  print_child(p, d->value, PREC_ATOM, false);
  put(p, "[");
  int64_t n = tvm_ffi_seq_size(d->indices);
  if (n == 0) put(p, "()");
  for (int64_t i = 0; i < n; ++i) {
    if (i) put(p, ", ");
    const void* idx = tvm_ffi_seq_obj_at(d->indices, i);
    /* A tuple index prints without parentheses: A[(i, j)] is A[i, j]. */
    if (tvm_script_doc_kind_of(idx) == TVM_SCRIPT_DOC_TupleDoc && n == 1 &&
        tvm_ffi_seq_size(((const tvm_script_seq_doc_obj*)idx)->elements) > 1) {
      print_list(p, ((const tvm_script_seq_doc_obj*)idx)->elements, ", ");
    } else {
      print_doc(p, idx);
    }
  }
  put(p, "]");
}

static void print_call(printer* p, const void* doc) {
  const tvm_script_call_doc_obj* d = doc;
  print_child(p, d->callee, PREC_ATOM, false);
  put(p, "(");
  int64_t n = tvm_ffi_seq_size(d->args), nk = tvm_ffi_seq_size(d->kwargs_keys);
  print_list(p, d->args, ", ");
  for (int64_t i = 0; i < nk; ++i) {
    if (n || i) put(p, ", ");
    TVMFFIByteArray key;
    if (tvm_ffi_any_as_bytes(tvm_ffi_seq_at(d->kwargs_keys, i), &key)) putn(p, key.data, key.size);
    put(p, "=");
    print_doc(p, tvm_ffi_seq_obj_at(d->kwargs_values, i));
  }
  put(p, ")");
}

/* `*value`: the value is a whole expression in Python's grammar, so it needs no parentheses. */
static void print_starred(printer* p, const void* doc) {
  put(p, "*");
  print_doc(p, ((const tvm_script_starred_doc_obj*)doc)->value);
}

static void print_operation(printer* p, const void* doc) {
  const tvm_script_operation_doc_obj* d = doc;
  int prec = op_prec(d->op);
  const void* a = tvm_ffi_seq_obj_at(d->operands, 0);
  switch (tvm_script_op_arity(d->op)) {
    case 1:
      put(p, tvm_script_op_text(d->op));
      if (d->op == TVM_SCRIPT_OP_Not) put(p, " ");
      print_child(p, a, prec, false);
      return;
    case 2: {
      const void* b = tvm_ffi_seq_obj_at(d->operands, 1);
      bool pow = d->op == TVM_SCRIPT_OP_Pow, cmp = prec == PREC_CMP;
      print_child(p, a, prec, pow || cmp);
      tvm_ffi_strbuf_printf(p->out, " %s ", tvm_script_op_text(d->op));
      print_child(p, b, prec, !pow);
      return;
    }
    default: { /* then if cond else else */
      print_child(p, a, prec, true);
      put(p, " if ");
      print_child(p, tvm_ffi_seq_obj_at(d->operands, 1), prec, true);
      put(p, " else ");
      print_child(p, tvm_ffi_seq_obj_at(d->operands, 2), prec, false);
    }
  }
}

static void print_lambda(printer* p, const void* doc) {
  const tvm_script_lambda_doc_obj* d = doc;
  put(p, "lambda");
  if (tvm_ffi_seq_size(d->args)) put(p, " ");
  print_list(p, d->args, ", ");
  put(p, ": ");
  print_child(p, d->body, PREC_LAMBDA, false);
}

static void print_tuple(printer* p, const void* doc) {
  const void* el = ((const tvm_script_seq_doc_obj*)doc)->elements;
  put(p, "(");
  print_list(p, el, ", ");
  if (tvm_ffi_seq_size(el) == 1) put(p, ",");
  put(p, ")");
}

static void print_list_doc(printer* p, const void* doc) {
  put(p, "[");
  print_list(p, ((const tvm_script_seq_doc_obj*)doc)->elements, ", ");
  put(p, "]");
}

static void print_dict(printer* p, const void* doc) {
  const tvm_script_dict_doc_obj* d = doc;
  put(p, "{");
  for (int64_t i = 0; i < tvm_ffi_seq_size(d->keys); ++i) {
    if (i) put(p, ", ");
    print_doc(p, tvm_ffi_seq_obj_at(d->keys, i));
    put(p, ": ");
    print_doc(p, tvm_ffi_seq_obj_at(d->values, i));
  }
  put(p, "}");
}

static void print_slice(printer* p, const void* doc) {
  const tvm_script_slice_doc_obj* d = doc;
  if (d->start) print_doc(p, d->start);
  put(p, ":");
  if (d->stop) print_doc(p, d->stop);
  if (d->step) {
    put(p, ":");
    print_doc(p, d->step);
  }
}

/* ---- Statements ---------------------------------------------------------------------------- */
static void print_block(printer* p, const void* stmts) {
  int64_t n = stmts ? tvm_ffi_seq_size(stmts) : 0;
  for (int64_t i = 0; i < n; ++i) print_doc(p, tvm_ffi_seq_obj_at(stmts, i));
}

static void print_indented(printer* p, const void* stmts) {
  p->indent++;
  if (!stmts || tvm_ffi_seq_size(stmts) == 0) {
    new_line(p);
    put(p, "pass");
  } else {
    print_block(p, stmts);
  }
  p->indent--;
}

/* `# comment` lines above a compound statement. */
static void comment_above(printer* p, const void* doc) {
  const void* c = ((const tvm_script_stmt_doc_obj*)doc)->comment;
  if (!c) return;
  const char* s = tvm_ffi_str_cstr(c);
  while (*s) {
    const char* nl = strchr(s, '\n');
    size_t n = nl ? (size_t)(nl - s) : strlen(s);
    new_line(p);
    put(p, "# ");
    putn(p, s, n);
    s += nl ? n + 1 : n;
  }
}

static void comment_after(printer* p, const void* doc) {
  const void* c = ((const tvm_script_stmt_doc_obj*)doc)->comment;
  if (!c) return;
  put(p, "  # ");
  for (const char* s = tvm_ffi_str_cstr(c); *s; ++s) {
    tvm_ffi_strbuf_putc(p->out, *s == '\n' ? ' ' : *s);
  }
}

/* A tuple on either side of `=` or left of `in` prints without parentheses (after `return`, a
 * tuple keeps them: upstream's printer does both). */
static void print_target(printer* p, const void* doc) {
  if (tvm_script_doc_kind_of(doc) == TVM_SCRIPT_DOC_TupleDoc &&
      tvm_ffi_seq_size(((const tvm_script_seq_doc_obj*)doc)->elements) > 1) {
    print_list(p, ((const tvm_script_seq_doc_obj*)doc)->elements, ", ");
  } else {
    print_doc(p, doc);
  }
}

static void print_stmt_block(printer* p, const void* doc) {
  print_block(p, ((const tvm_script_stmt_block_doc_obj*)doc)->stmts);
}

static void print_assign_inline(printer* p, const tvm_script_assign_doc_obj* d) {
  print_target(p, d->lhs);
  if (d->annotation) {
    put(p, ": ");
    print_doc(p, d->annotation);
  }
  if (d->rhs) {
    put(p, " = ");
    print_target(p, d->rhs);
  }
}

static void print_assign(printer* p, const void* doc) {
  new_line(p);
  print_assign_inline(p, doc);
  comment_after(p, doc);
}

static void print_if(printer* p, const void* doc) {
  const tvm_script_if_doc_obj* d = doc;
  comment_above(p, doc);
  new_line(p);
  put(p, "if ");
  print_doc(p, d->predicate);
  put(p, ":");
  print_indented(p, d->then_branch);
  int64_t ne = tvm_ffi_seq_size(d->else_branch);
  if (ne == 1) {
    const void* only = tvm_ffi_seq_obj_at(d->else_branch, 0);
    if (tvm_script_doc_kind_of(only) == TVM_SCRIPT_DOC_IfDoc &&
        !((const tvm_script_stmt_doc_obj*)only)->comment) {
      /* else: if ... -> elif ...; printed here so that it stays one statement. */
      new_line(p);
      put(p, "el");
      int64_t start = (int64_t)p->out->size;
      const tvm_script_if_doc_obj* e = only;
      /* Print `if cond:` + branches of the nested doc without a new line. */
      put(p, "if ");
      print_doc(p, e->predicate);
      put(p, ":");
      print_indented(p, e->then_branch);
      if (tvm_ffi_seq_size(e->else_branch)) {
        new_line(p);
        put(p, "else:");
        print_indented(p, e->else_branch);
      }
      if (p->n_paths) mark(p, only, start);
      return;
    }
  }
  if (ne) {
    new_line(p);
    put(p, "else:");
    print_indented(p, d->else_branch);
  }
}

static void print_while(printer* p, const void* doc) {
  const tvm_script_while_doc_obj* d = doc;
  comment_above(p, doc);
  new_line(p);
  put(p, "while ");
  print_doc(p, d->predicate);
  put(p, ":");
  print_indented(p, d->body);
}

static void print_for(printer* p, const void* doc) {
  const tvm_script_for_doc_obj* d = doc;
  comment_above(p, doc);
  new_line(p);
  put(p, "for ");
  print_target(p, d->lhs);
  put(p, " in ");
  print_doc(p, d->rhs);
  put(p, ":");
  print_indented(p, d->body);
}

static void print_scope(printer* p, const void* doc) {
  const tvm_script_scope_doc_obj* d = doc;
  comment_above(p, doc);
  new_line(p);
  put(p, "with ");
  print_doc(p, d->rhs);
  if (d->lhs) {
    put(p, " as ");
    print_target(p, d->lhs);
  }
  put(p, ":");
  print_indented(p, d->body);
}

static void print_expr_stmt(printer* p, const void* doc) {
  new_line(p);
  print_doc(p, ((const tvm_script_expr_stmt_doc_obj*)doc)->expr);
  comment_after(p, doc);
}

static void print_assert(printer* p, const void* doc) {
  const tvm_script_assert_doc_obj* d = doc;
  new_line(p);
  put(p, "assert ");
  print_doc(p, d->test);
  if (d->msg) {
    put(p, ", ");
    print_doc(p, d->msg);
  }
  comment_after(p, doc);
}

static void print_return(printer* p, const void* doc) {
  const tvm_script_return_doc_obj* d = doc;
  new_line(p);
  put(p, "return");
  if (d->value) {
    put(p, " ");
    print_doc(p, d->value); /* a tuple in parentheses, as upstream's printer */
  }
  comment_after(p, doc);
}

static void print_decorators(printer* p, const void* decorators) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(decorators); ++i) {
    new_line(p);
    put(p, "@");
    print_doc(p, tvm_ffi_seq_obj_at(decorators, i));
  }
}

static void print_function(printer* p, const void* doc) {
  const tvm_script_function_doc_obj* d = doc;
  comment_above(p, doc);
  print_decorators(p, d->decorators);
  new_line(p);
  put(p, "def ");
  print_doc(p, d->name);
  put(p, "(");
  for (int64_t i = 0; i < tvm_ffi_seq_size(d->args); ++i) {
    if (i) put(p, ", ");
    /* Arguments are AssignDocs printed inline (marked as docs in their own right). */
    const tvm_script_assign_doc_obj* a = tvm_ffi_seq_obj_at(d->args, i);
    int64_t start = (int64_t)p->out->size;
    if (tvm_script_doc_kind_of(a) == TVM_SCRIPT_DOC_AssignDoc) {
      print_assign_inline(p, a);
      if (p->n_paths) mark(p, &a->stmt.doc, start);
    } else {
      print_doc(p, a);
    }
  }
  put(p, ")");
  if (d->return_type) {
    put(p, " -> ");
    print_doc(p, d->return_type);
  }
  put(p, ":");
  print_indented(p, d->body);
  p->blank_pending = true;
}

static void print_class(printer* p, const void* doc) {
  const tvm_script_class_doc_obj* d = doc;
  comment_above(p, doc);
  print_decorators(p, d->decorators);
  new_line(p);
  put(p, "class ");
  print_doc(p, d->name);
  put(p, ":");
  print_indented(p, d->body);
  p->blank_pending = true;
}

static void print_comment(printer* p, const void* doc) {
  const void* c = ((const tvm_script_stmt_doc_obj*)doc)->comment;
  if (!c || !*tvm_ffi_str_cstr(c)) {
    new_line(p); /* an empty comment is a blank line */
    return;
  }
  comment_above(p, doc);
}

static void print_doc_string(printer* p, const void* doc) {
  new_line(p);
  put(p, "\"\"\"");
  const void* c = ((const tvm_script_stmt_doc_obj*)doc)->comment;
  if (c) put_str_obj(p, c);
  put(p, "\"\"\"");
}

typedef void (*print_fn)(printer* p, const void* doc);
static const print_fn k_print[TVM_SCRIPT_DOC_COUNT] = {
    [TVM_SCRIPT_DOC_LiteralDoc] = print_literal,
    [TVM_SCRIPT_DOC_IdDoc] = print_id,
    [TVM_SCRIPT_DOC_AttrAccessDoc] = print_attr,
    [TVM_SCRIPT_DOC_IndexDoc] = print_index,
    [TVM_SCRIPT_DOC_CallDoc] = print_call,
    [TVM_SCRIPT_DOC_OperationDoc] = print_operation,
    [TVM_SCRIPT_DOC_LambdaDoc] = print_lambda,
    [TVM_SCRIPT_DOC_TupleDoc] = print_tuple,
    [TVM_SCRIPT_DOC_ListDoc] = print_list_doc,
    [TVM_SCRIPT_DOC_DictDoc] = print_dict,
    [TVM_SCRIPT_DOC_StarredDoc] = print_starred,
    [TVM_SCRIPT_DOC_SliceDoc] = print_slice,
    [TVM_SCRIPT_DOC_StmtBlockDoc] = print_stmt_block,
    [TVM_SCRIPT_DOC_AssignDoc] = print_assign,
    [TVM_SCRIPT_DOC_IfDoc] = print_if,
    [TVM_SCRIPT_DOC_WhileDoc] = print_while,
    [TVM_SCRIPT_DOC_ForDoc] = print_for,
    [TVM_SCRIPT_DOC_ScopeDoc] = print_scope,
    [TVM_SCRIPT_DOC_ExprStmtDoc] = print_expr_stmt,
    [TVM_SCRIPT_DOC_AssertDoc] = print_assert,
    [TVM_SCRIPT_DOC_ReturnDoc] = print_return,
    [TVM_SCRIPT_DOC_FunctionDoc] = print_function,
    [TVM_SCRIPT_DOC_ClassDoc] = print_class,
    [TVM_SCRIPT_DOC_CommentDoc] = print_comment,
    [TVM_SCRIPT_DOC_DocStringDoc] = print_doc_string,
};

static void print_doc(printer* p, const void* doc) {
  tvm_script_doc_kind k = tvm_script_doc_kind_of(doc);
  print_fn fn = k >= 0 ? k_print[k] : NULL;
  if (!fn || p->depth >= MAX_DOC_DEPTH) {
    p->too_deep = fn != NULL;
    p->failed = true;
    return;
  }
  p->depth++;
  /* A statement's range starts at its first character, after the new line and indentation. */
  int64_t start = (int64_t)p->out->size;
  bool is_stmt = tvm_script_is_stmt_doc(doc) && k != TVM_SCRIPT_DOC_StmtBlockDoc;
  fn(p, doc);
  if (p->n_paths) {
    if (is_stmt) {
      while (start < (int64_t)p->out->size &&
             (p->out->data[start] == '\n' || p->out->data[start] == ' ')) {
        ++start;
      }
    }
    mark(p, doc, start);
  }
  p->depth--;
}

/* ---- Underline rendering ------------------------------------------------------------------- */
static int cmp_range(const void* a, const void* b) {
  const byte_range *x = a, *y = b;
  return x->start < y->start ? -1 : x->start > y->start ? 1 : (x->end > y->end) - (x->end < y->end);
}

/* Write text with underlines, line numbers and a context window into out. */
static void render(const char* text, size_t size, byte_range* ranges, int64_t n_ranges,
                   const tvm_script_print_options* opts, tvm_ffi_strbuf* out) {
  qsort(ranges, (size_t)n_ranges, sizeof(byte_range), cmp_range);
  /* Lines: starts of each line. */
  int64_t n_lines = 1;
  for (size_t i = 0; i < size; ++i) n_lines += text[i] == '\n';
  int64_t* line_start = tvm_ffi_malloc((size_t)(n_lines + 1) * sizeof(int64_t));
  bool* marked = tvm_ffi_calloc((size_t)n_lines, sizeof(bool));
  char* marks = tvm_ffi_malloc(size + 1);
  if (!line_start || !marked || !marks) {
    out->failed = true;
    tvm_ffi_free(line_start);
    tvm_ffi_free(marked);
    tvm_ffi_free(marks);
    return;
  }
  int64_t l = 0;
  line_start[l++] = 0;
  for (size_t i = 0; i < size; ++i) {
    if (text[i] == '\n') line_start[l++] = (int64_t)i + 1;
  }
  line_start[n_lines] = (int64_t)size + 1;
  memset(marks, ' ', size + 1);
  /* Mark each range's characters, skipping leading blanks of continuation lines. */
  for (int64_t r = 0; r < n_ranges; ++r) {
    bool line_begin = false;
    for (int64_t i = ranges[r].start; i < ranges[r].end; ++i) {
      if (text[i] == '\n') {
        line_begin = true;
        continue;
      }
      if (line_begin && text[i] == ' ') continue;
      line_begin = false;
      marks[i] = '^';
    }
  }
  for (int64_t ln = 0; ln < n_lines; ++ln) {
    for (int64_t i = line_start[ln]; i < line_start[ln + 1] - 1; ++i) {
      if (marks[i] == '^') {
        marked[ln] = true;
        break;
      }
    }
  }
  int width = 1;
  for (int64_t v = n_lines; v >= 10; v /= 10) ++width;
  int64_t ctx = opts->context_lines;
  bool window = ctx >= 0 && n_ranges > 0;
  int64_t skipped = 0;
  for (int64_t ln = 0; ln < n_lines; ++ln) {
    if (window) {
      bool keep = false;
      for (int64_t k = ln - ctx; k <= ln + ctx && !keep; ++k) keep = k >= 0 && k < n_lines && marked[k];
      if (!keep) {
        ++skipped;
        continue;
      }
    }
    if (skipped) {
      tvm_ffi_strbuf_printf(out, "(... %lld lines skipped ...)\n", (long long)skipped);
      skipped = 0;
    }
    int64_t s = line_start[ln], e = line_start[ln + 1] - 1;
    if (opts->line_numbers) tvm_ffi_strbuf_printf(out, "%*lld ", width, (long long)ln + 1);
    tvm_ffi_strbuf_append(out, text + s, (size_t)(e - s));
    if (ln + 1 < n_lines || marked[ln]) tvm_ffi_strbuf_putc(out, '\n');
    if (marked[ln]) {
      int64_t last = e - 1;
      while (last >= s && marks[last] != '^') --last;
      if (opts->line_numbers) tvm_ffi_strbuf_printf(out, "%*s ", width, "");
      tvm_ffi_strbuf_append(out, marks + s, (size_t)(last - s + 1));
      if (ln + 1 < n_lines) tvm_ffi_strbuf_putc(out, '\n');
    }
  }
  if (skipped) {
    tvm_ffi_strbuf_printf(out, "\n(... %lld lines skipped ...)", (long long)skipped);
  }
  tvm_ffi_free(line_start);
  tvm_ffi_free(marked);
  tvm_ffi_free(marks);
}

int tvm_script_doc_to_python(const void* doc, const tvm_script_print_options* opts,
                             tvm_ffi_strbuf* out) {
  tvm_script_print_options defaults;
  if (!opts) {
    tvm_script_print_options_init(&defaults);
    opts = &defaults;
  }
  if (!out) return tvm_ffi_raise("ValueError", "doc_to_python: NULL output buffer");
  if (tvm_script_doc_kind_of(doc) < 0) {
    return tvm_ffi_raise("TypeError", "doc_to_python: expected a Doc, got `%s`",
                         doc ? tvm_ffi_type_key(tvm_ffi_type_index(doc)) : "NULL");
  }
  for (int64_t k = 0; k < opts->num_underline_paths; ++k) {
    const void* path = opts->underline_paths[k];
    if (!path || !tvm_ffi_instance_of(path, tvm_ffi_access_path_type_index())) {
      return tvm_ffi_raise("TypeError", "doc_to_python: underline path %lld is not an access path",
                           (long long)k);
    }
  }
  tvm_ffi_strbuf text = {0};
  int64_t np = opts->num_underline_paths;
  printer p = {.out = &text, .indent_spaces = opts->indent_spaces > 0 ? opts->indent_spaces : 4};
  if (np > 0) {
    p.paths = opts->underline_paths;
    p.n_paths = np;
    p.best_depth = tvm_ffi_malloc((size_t)np * sizeof(int64_t));
    p.ranges = tvm_ffi_calloc((size_t)np, sizeof(byte_range*));
    p.n_ranges = tvm_ffi_calloc((size_t)np, sizeof(int64_t));
    p.cap_ranges = tvm_ffi_calloc((size_t)np, sizeof(int64_t));
    if (!p.best_depth || !p.ranges || !p.n_ranges || !p.cap_ranges) p.failed = true;
    for (int64_t k = 0; !p.failed && k < np; ++k) p.best_depth[k] = -1;
  }
  if (!p.failed) print_doc(&p, doc);
  int rc = 0;
  if (p.failed || text.failed) {
    rc = text.failed || tvm_ffi_error_pending()
             ? tvm_ffi_raise("MemoryError", "doc_to_python: out of memory")
         : p.too_deep
             ? tvm_ffi_raise("RuntimeError", "doc_to_python: docs nested deeper than %d",
                             MAX_DOC_DEPTH)
             : tvm_ffi_raise("TypeError", "doc_to_python: a doc of an unprintable kind");
  } else {
    int64_t total = 0;
    for (int64_t k = 0; k < np; ++k) total += p.n_ranges[k];
    bool plain = total == 0 && !opts->line_numbers;
    if (plain) {
      tvm_ffi_strbuf_append(out, text.data ? text.data : "", text.size);
    } else {
      byte_range* all = tvm_ffi_malloc((size_t)(total + 1) * sizeof(byte_range));
      if (!all) {
        rc = -1;
      } else {
        int64_t m = 0;
        for (int64_t k = 0; k < np; ++k) {
          for (int64_t i = 0; i < p.n_ranges[k]; ++i) all[m++] = p.ranges[k][i];
        }
        render(text.data ? text.data : "", text.size, all, m, opts, out);
        tvm_ffi_free(all);
      }
    }
    if (rc == 0 && out->failed) rc = tvm_ffi_raise("MemoryError", "doc_to_python: out of memory");
  }
  for (int64_t k = 0; p.ranges && k < np; ++k) tvm_ffi_free(p.ranges[k]);
  tvm_ffi_free(p.best_depth);
  tvm_ffi_free(p.ranges);
  tvm_ffi_free(p.n_ranges);
  tvm_ffi_free(p.cap_ranges);
  tvm_ffi_strbuf_free(&text);
  return rc;
}
