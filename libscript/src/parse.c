/* parse.c: TVMScript tokens -> syntax tree (ast.h), a recursive-descent parser pulling tokens
 * from the lexer; and the Doc entry points, which convert the tree (ast_doc.c).
 * tvm/script/parser.h lists the Python subset and how each construct maps onto docs.
 *
 * Every parse_* function returns its node, or NULL with one SyntaxError raised. Nodes live in
 * the module's arena (ast.h): nothing is released on a failure, the arena goes as a whole.
 * Expression recursion is bounded by p->depth; statement recursion by the lexer's indentation
 * limit.
 *
 * Tokens are pulled from the lexer into a window: at least LOOKAHEAD tokens from p->tok on are
 * buffered (or the end), so a token pointer is valid only until the next advance(). A lexing
 * error met while parsing ends the parse with that error alone. */
#include <stdio.h>
#include <string.h>
#include <tvm/script/parser.h>

#include "ast.h"
#include "lex_internal.h"

#define TOK(x) TVM_SCRIPT_TOK_##x
#define KW(x) TVM_SCRIPT_TOK_KW_##x
#define OP(x) TVM_SCRIPT_OP_##x

typedef tvm_script__token token;

enum { INLINE_TOKENS = 128, INLINE_STACK = 64 };

typedef struct {
  const char* src;
  size_t len;
  const char* filename;
  script_arena* arena;
  const token* tok; /* the current token; never moves past ENDMARKER */
  /* The token past which advance() refills: LOOKAHEAD before the end of the buffered tokens,
   * or their end once the lexer is done (then never: tok stops at ENDMARKER). */
  const token* refill_at;
  bool lex_failed; /* a lexing error is raised; no other error may replace it */
  /* The last consumed token other than layout tokens (its span ends what since() spans): in
   * the window, or prev_save, where refill() copies it before dropping it. */
  const token* prev;
  token prev_save;
  int depth;       /* expression nesting */
  int block_depth; /* statement nesting: 0 at module level */
  /* Scratch stack of the items of sequences being parsed (nodes, names), used in nested
   * fashion: a sequence's items are pushed, then moved into the arena at once. */
  void** stack;
  size_t sp, cap;
  tvm_script__import* imports;
  size_t n_imports, imports_cap;
  tvm_script__lexer lx; /* (set up by lexer_init; most of the struct, not zeroed) */
  void* stack_inline[INLINE_STACK];
  token tokens_inline[INLINE_TOKENS]; /* the lexer's first buffer */
} parser;

/* ---------------------------------------------------------------------------------------- */
/* Tokens, spans, errors                                                                     */
/* ---------------------------------------------------------------------------------------- */

static inline int kind(const parser* p) { return p->tok->kind; }

/* The window is small so that the lexer's buffer stays small: a refill moves only the
 * LOOKAHEAD tokens left. */
enum { LOOKAHEAD = 4, WINDOW = 96 };
static const token kEndOfInput = {TOK(ENDMARKER)};

static void set_refill_at(parser* p) {
  p->refill_at = p->lx.data + p->lx.count - (p->lx.done ? 0 : LOOKAHEAD);
}

/* Drop the consumed tokens and lex more. On a lexing error the parse sees the end of input. */
static __attribute__((noinline)) void refill(parser* p) {
  p->prev_save.span = p->prev->span;
  p->prev = &p->prev_save;
  tvm_script__lexer_drop(&p->lx, (size_t)(p->tok - p->lx.data));
  if (tvm_script__lexer_fill(&p->lx, WINDOW) != 0) {
    p->lex_failed = true;
    p->tok = &kEndOfInput;
    p->refill_at = p->tok + 1;
    return;
  }
  p->tok = p->lx.data;
  set_refill_at(p);
}

_Static_assert(TVM_SCRIPT_TOK_ENDMARKER == 0 && TVM_SCRIPT_TOK_NEWLINE == 1 &&
                   TVM_SCRIPT_TOK_INDENT == 2 && TVM_SCRIPT_TOK_DEDENT == 3,
               "the layout tokens and the end are kinds 0..3");
static inline void advance(parser* p) {
  int k = p->tok->kind;
  if (k > TOK(DEDENT)) {
    p->prev = p->tok;
  } else if (k == TOK(ENDMARKER)) {
    return;
  }
  ++p->tok;
  if (__builtin_expect(p->tok > p->refill_at, 0)) refill(p);
}

static bool accept(parser* p, int k) {
  if (kind(p) != k) return false;
  advance(p);
  return true;
}

static tvm_script_span join(tvm_script_span a, tvm_script_span b) {
  a.end_line = b.end_line;
  a.end_col = b.end_col;
  a.end_byte = b.end_byte;
  return a;
}
/* From `start` to the end of the last consumed token. */
static inline tvm_script_span since(const parser* p, tvm_script_span start) {
  return join(start, p->prev->span);
}

static inline const char* tok_text(const parser* p, const token* t) {
  return p->src + t->span.start_byte;
}
static inline size_t tok_size(const token* t) {
  return (size_t)(t->span.end_byte - t->span.start_byte);
}

static void* error_at(parser* p, tvm_script_span s, const char* fmt, ...) TVM_FFI_PRINTF(3, 4)
    TVM_FFI_COLD;
static void* error_at(parser* p, tvm_script_span s, const char* fmt, ...) {
  if (p->lex_failed) return NULL; /* the lexer's error stands */
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof(msg), fmt, ap);
  va_end(ap);
  tvm_script_diag_raise("SyntaxError", p->src, p->len, p->filename, s, "%s", msg);
  return NULL;
}

/* "identifier 'x'", "number '1'", "string literal", "'+'", "end of line", ... */
static void describe(const parser* p, const token* t, char* buf, size_t n) {
  int k = t->kind;
  int size = (int)(tok_size(t) > 40 ? 40 : tok_size(t));
  if (k == TOK(NAME)) {
    snprintf(buf, n, "identifier '%.*s'", size, tok_text(p, t));
  } else if (k == TOK(INT) || k == TOK(FLOAT)) {
    snprintf(buf, n, "number '%.*s'", size, tok_text(p, t));
  } else if (k == TOK(STRING)) {
    snprintf(buf, n, "string literal");
  } else {
    snprintf(buf, n, "%s", tvm_script_token_kind_name(k));
  }
}

static void* expected(parser* p, const char* what) {
  char found[96];
  describe(p, p->tok, found, sizeof(found));
  return error_at(p, p->tok->span, "expected %s, found %s", what, found);
}

static bool expect(parser* p, int k, const char* what) {
  if (accept(p, k)) return true;
  expected(p, what);
  return false;
}

/* `what` names the construct with its verb: "'try' statements are". */
static void* unsupported(parser* p, tvm_script_span s, const char* what) {
  return error_at(p, s, "%s not supported in TVMScript", what);
}

static bool enter(parser* p) {
  if (p->depth >= TVM_SCRIPT_MAX_NESTING) {
    error_at(p, p->tok->span, "expression nested too deeply (the limit is %d levels)",
             TVM_SCRIPT_MAX_NESTING);
    return false;
  }
  ++p->depth;
  return true;
}

/* ---------------------------------------------------------------------------------------- */
/* Nodes and sequences                                                                       */
/* ---------------------------------------------------------------------------------------- */

/* An expression node of kind k spanning s, with room for its union member m (the fields are
 * set by the caller); NULL + MemoryError. */
#define NEW_EXPR(p, k, m, s) new_expr((p), (k), offsetof(ast_expr, u) + sizeof(((ast_expr*)0)->u.m), (s))
#define NEW_STMT(p, k, m, s) new_stmt((p), (k), offsetof(ast_stmt, u) + sizeof(((ast_stmt*)0)->u.m), (s))

static inline ast_expr* new_expr(parser* p, int k, size_t size, tvm_script_span s) {
  ast_expr* e = tvm_script__arena_alloc(p->arena, size);
  if (e) {
    e->span = s;
    e->kind = k;
  }
  return e;
}
static inline ast_stmt* new_stmt(parser* p, int k, size_t size, tvm_script_span s) {
  ast_stmt* e = tvm_script__arena_alloc(p->arena, size);
  if (e) {
    e->span = s;
    e->kind = k;
  }
  return e;
}

/* An operation node (operands b and c NULL below its arity), or NULL when an operand is (its
 * parse failed). */
static ast_expr* new_op(parser* p, int op, ast_expr* a, ast_expr* b, ast_expr* c,
                        tvm_script_span s) {
  int arity = tvm_script_op_arity(op);
  if (!a || (arity > 1 && !b) || (arity > 2 && !c)) return NULL;
  ast_expr* e = NEW_EXPR(p, AST_OP, op, s);
  if (e) {
    e->u.op.op = op;
    e->u.op.args[0] = a;
    e->u.op.args[1] = b;
    e->u.op.args[2] = c;
  }
  return e;
}

/* A stack twice as large, on the heap (the first is the parser's stack_inline). */
static __attribute__((noinline)) bool grow_stack(parser* p) {
  void** s = tvm_ffi_malloc(2 * p->cap * sizeof(void*));
  if (!s) return false;
  memcpy(s, p->stack, p->sp * sizeof(void*));
  if (p->stack != p->stack_inline) tvm_ffi_free(p->stack);
  p->stack = s;
  p->cap *= 2;
  return true;
}

/* Push an item (NULL allowed: an absent optional part). -1 when out of memory. */
static int push_opt(parser* p, void* item) {
  if (p->sp == p->cap && !grow_stack(p)) return -1;
  p->stack[p->sp++] = item;
  return 0;
}
/* Push the result of a parse (NULL: it failed). */
static int push(parser* p, void* item) { return item ? push_opt(p, item) : -1; }

/* The n items at stack[base], stack[base + stride], ... moved into the arena (NULL for none),
 * or false + MemoryError. */
static bool take_items(parser* p, size_t base, size_t n, size_t stride, void*** out) {
  *out = NULL;
  if (n == 0) return true;
  if (n > INT32_MAX) {
    tvm_ffi_raise("MemoryError", "TVMScript parser: a sequence of %zu items", n);
    return false;
  }
  void** items = tvm_script__arena_alloc(p->arena, n * sizeof(void*));
  if (!items) return false;
  for (size_t i = 0; i < n; ++i) items[i] = p->stack[base + i * stride];
  *out = items;
  return true;
}

/* The expressions pushed since base, popped into a sequence; false on failure. */
static bool take_exprs(parser* p, size_t base, ast_exprs* out) {
  size_t n = p->sp - base;
  p->sp = base;
  out->n = (int32_t)n;
  return take_items(p, base, n, 1, (void***)&out->items);
}
static bool take_stmts(parser* p, size_t base, ast_stmts* out) {
  size_t n = p->sp - base;
  p->sp = base;
  out->n = (int32_t)n;
  return take_items(p, base, n, 1, (void***)&out->items);
}

/* ---------------------------------------------------------------------------------------- */
/* Expressions                                                                               */
/* ---------------------------------------------------------------------------------------- */

static ast_expr* parse_test(parser* p);
static ast_expr* parse_binary(parser* p, int min_prec);

static bool starts_expr(int k) {
  switch (k) {
    case TOK(NAME): case TOK(INT): case TOK(FLOAT): case TOK(STRING): case TOK(LPAREN):
    case TOK(LBRACKET): case TOK(LBRACE): case TOK(MINUS): case TOK(PLUS): case TOK(TILDE):
    case TOK(ELLIPSIS): case KW(NOT): case KW(LAMBDA): case KW(TRUE): case KW(FALSE):
    case KW(NONE): case KW(AWAIT): case KW(YIELD):
      return true;
    default:
      return false;
  }
}

/* Adjacent string literals, joined. */
static ast_expr* parse_string(parser* p) {
  const token* first = p->tok;
  tvm_script_span start = first->span;
  const char* data = first->v.str;
  size_t size = first->str_len;
  if (first[1].kind != TOK(STRING)) {
    advance(p);
  } else {
    tvm_ffi_strbuf b = {0};
    while (kind(p) == TOK(STRING)) {
      tvm_ffi_strbuf_append(&b, p->tok->v.str, p->tok->str_len);
      advance(p);
    }
    data = b.failed ? NULL : tvm_script__arena_strdup(p->arena, b.data ? b.data : "", b.size);
    size = b.size;
    tvm_ffi_strbuf_free(&b);
    if (!data) {
      if (!tvm_ffi_error_pending()) {
        tvm_ffi_raise("MemoryError", "out of memory building a string literal");
      }
      return NULL;
    }
  }
  ast_expr* e = NEW_EXPR(p, AST_STR, str, since(p, start));
  if (e) {
    e->u.str.data = data;
    e->u.str.size = size;
  }
  return e;
}

/* After the first element of a bracketed display: reject comprehensions and walrus. */
static bool check_display(parser* p) {
  if (kind(p) == KW(FOR) || kind(p) == KW(ASYNC)) {
    unsupported(p, p->tok->span, "comprehensions and generator expressions are");
    return false;
  }
  if (kind(p) == TOK(WALRUS)) {
    unsupported(p, p->tok->span, "assignment expressions (':=') are");
    return false;
  }
  return true;
}

static ast_expr* new_seq(parser* p, int k, size_t base, tvm_script_span s) {
  ast_exprs elts;
  if (!take_exprs(p, base, &elts)) return NULL;
  ast_expr* e = NEW_EXPR(p, k, elts, s);
  if (e) e->u.elts = elts;
  return e;
}

/* ( ... ): a parenthesised expression (its own span) or a tuple (span with parentheses). */
static ast_expr* parse_paren(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  if (accept(p, TOK(RPAREN))) return new_seq(p, AST_TUPLE, base, since(p, start));
  ast_expr* first = parse_test(p);
  if (!first || !check_display(p)) return NULL;
  if (accept(p, TOK(RPAREN))) return first;
  if (kind(p) != TOK(COMMA)) return expected(p, "',' or ')'");
  if (push(p, first) != 0) return NULL;
  while (accept(p, TOK(COMMA)) && kind(p) != TOK(RPAREN)) {
    if (push(p, parse_test(p)) != 0) return NULL;
  }
  if (!expect(p, TOK(RPAREN), "',' or ')'")) return NULL;
  return new_seq(p, AST_TUPLE, base, since(p, start));
}

static ast_expr* parse_list(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  while (kind(p) != TOK(RBRACKET)) {
    if (push(p, parse_test(p)) != 0) return NULL;
    if (p->sp == base + 1 && !check_display(p)) return NULL;
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RBRACKET), "',' or ']'")) return NULL;
  return new_seq(p, AST_LIST, base, since(p, start));
}

static ast_expr* parse_dict(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  while (kind(p) != TOK(RBRACE)) {
    if (kind(p) == TOK(POW)) return unsupported(p, p->tok->span, "'**' unpacking in dict displays are");
    if (push(p, parse_test(p)) != 0) return NULL;
    if (kind(p) != TOK(COLON)) {
      if (p->sp == base + 1 && (kind(p) == TOK(COMMA) || kind(p) == TOK(RBRACE))) {
        return unsupported(p, since(p, start), "set displays are");
      }
      if (p->sp == base + 1 && !check_display(p)) return NULL;
      return expected(p, "':'");
    }
    advance(p);
    if (push(p, parse_test(p)) != 0) return NULL;
    if (p->sp == base + 2 && !check_display(p)) return NULL;
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RBRACE), "',' or '}'")) return NULL;
  size_t n = (p->sp - base) / 2;
  ast_expr* e = NEW_EXPR(p, AST_DICT, dict, since(p, start));
  if (!e || !take_items(p, base, n, 2, (void***)&e->u.dict.keys.items) ||
      !take_items(p, base + 1, n, 2, (void***)&e->u.dict.values.items)) {
    return NULL;
  }
  e->u.dict.keys.n = e->u.dict.values.n = (int32_t)n;
  p->sp = base;
  return e;
}

/* The NAME node of token t (the current token, consumed). */
static ast_expr* parse_name_atom(parser* p) {
  const token* t = p->tok;
  ast_expr* e = NEW_EXPR(p, AST_NAME, name, t->span);
  if (e) e->u.name = t->v.name;
  advance(p);
  return e;
}

static ast_expr* parse_const(parser* p, TVMFFIAny value) {
  ast_expr* e = NEW_EXPR(p, AST_CONST, value, p->tok->span);
  if (e) e->u.value = value;
  advance(p);
  return e;
}

static ast_expr* parse_atom(parser* p) {
  const token* t = p->tok;
  switch (t->kind) {
    case TOK(NAME): return parse_name_atom(p);
    case TOK(INT): return parse_const(p, tvm_ffi_any_int(t->v.i));
    case TOK(FLOAT): return parse_const(p, tvm_ffi_any_float(t->v.f));
    case KW(TRUE): return parse_const(p, tvm_ffi_any_bool(true));
    case KW(FALSE): return parse_const(p, tvm_ffi_any_bool(false));
    case KW(NONE): return parse_const(p, tvm_ffi_any_none());
    case TOK(STRING): return parse_string(p);
    case TOK(LPAREN): return parse_paren(p);
    case TOK(LBRACKET): return parse_list(p);
    case TOK(LBRACE): return parse_dict(p);
    case TOK(ELLIPSIS): return unsupported(p, t->span, "'...' (Ellipsis) is");
    case KW(AWAIT): return unsupported(p, t->span, "'await' expressions are");
    case KW(YIELD): return unsupported(p, t->span, "'yield' expressions are");
    default: return expected(p, "an expression");
  }
}

/* callee( args ): positional arguments (`*xs` among them, also after keywords, as Python
 * allows), then keyword arguments, pushed as (name, value) pairs. */
static ast_expr* parse_call(parser* p, ast_expr* callee, tvm_script_span start) {
  advance(p);
  size_t base = p->sp, kw_base = 0;
  bool has_kw = false;
  while (kind(p) != TOK(RPAREN)) {
    if (kind(p) == TOK(POW)) {
      return unsupported(p, p->tok->span, "double-starred arguments ('**kwargs') are");
    }
    if (kind(p) == TOK(STAR)) {
      tvm_script_span star = p->tok->span;
      advance(p);
      ast_expr* value = parse_test(p);
      ast_expr* arg = value ? NEW_EXPR(p, AST_STARRED, starred, since(p, star)) : NULL;
      if (!arg) return NULL;
      arg->u.starred = value;
      if (push(p, arg) != 0) return NULL;
      if (has_kw) { /* move it below the keyword pairs */
        size_t n_kw = p->sp - 1 - kw_base;
        memmove(&p->stack[kw_base + 1], &p->stack[kw_base], n_kw * sizeof(void*));
        p->stack[kw_base++] = arg;
      }
    } else if (kind(p) == TOK(NAME) && p->tok[1].kind == TOK(ASSIGN)) {
      if (!has_kw) kw_base = p->sp;
      has_kw = true;
      if (push(p, p->tok->v.name) != 0) return NULL;
      advance(p);
      advance(p);
      if (push(p, parse_test(p)) != 0) return NULL;
    } else {
      tvm_script_span arg_start = p->tok->span;
      ast_expr* arg = parse_test(p);
      if (!arg) return NULL;
      if (has_kw) return error_at(p, since(p, arg_start), "positional argument follows keyword argument");
      if (push(p, arg) != 0) return NULL;
      if (p->sp == base + 1 && !check_display(p)) return NULL;
    }
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RPAREN), "',' or ')'")) return NULL;
  ast_expr* e = NEW_EXPR(p, AST_CALL, call, since(p, start));
  if (!e) return NULL;
  e->u.call.func = callee;
  size_t n_kw = has_kw ? (p->sp - kw_base) / 2 : 0;
  e->u.call.kw_values.n = (int32_t)n_kw;
  if (!take_items(p, kw_base, n_kw, 2, (void***)&e->u.call.kw_names) ||
      !take_items(p, kw_base + 1, n_kw, 2, (void***)&e->u.call.kw_values.items)) {
    return NULL;
  }
  if (has_kw) p->sp = kw_base;
  return take_exprs(p, base, &e->u.call.args) ? e : NULL;
}

/* One index: an expression or a slice [lower]:[upper][:[step]]. */
static ast_expr* parse_subscript(parser* p) {
  tvm_script_span start = p->tok->span;
  ast_expr *lower = NULL, *upper = NULL, *step = NULL;
  if (kind(p) != TOK(COLON)) {
    lower = parse_test(p);
    if (!lower || kind(p) != TOK(COLON)) return lower;
  }
  advance(p);
  int k = kind(p);
  if (k != TOK(COLON) && k != TOK(COMMA) && k != TOK(RBRACKET) && !(upper = parse_test(p))) {
    return NULL;
  }
  if (accept(p, TOK(COLON))) {
    k = kind(p);
    if (k != TOK(COMMA) && k != TOK(RBRACKET) && !(step = parse_test(p))) return NULL;
  }
  ast_expr* e = NEW_EXPR(p, AST_SLICE, slice, since(p, start));
  if (e) {
    e->u.slice.start = lower;
    e->u.slice.stop = upper;
    e->u.slice.step = step;
  }
  return e;
}

static ast_expr* parse_index(parser* p, ast_expr* value, tvm_script_span start) {
  advance(p);
  size_t base = p->sp;
  if (kind(p) == TOK(RBRACKET)) return expected(p, "an index");
  bool trailing_comma = false;
  while (kind(p) != TOK(RBRACKET)) {
    if (push(p, parse_subscript(p)) != 0) return NULL;
    trailing_comma = accept(p, TOK(COMMA));
    if (!trailing_comma) break;
  }
  tvm_script_span comma = p->prev->span;
  if (!expect(p, TOK(RBRACKET), "',' or ']'")) return NULL;
  /* a[i,] indexes with the tuple (i,), spanning "i,". */
  if (trailing_comma && p->sp == base + 1 && ((ast_expr*)p->stack[base])->kind != AST_SLICE) {
    tvm_script_span s = join(((ast_expr*)p->stack[base])->span, comma);
    if (push(p, new_seq(p, AST_TUPLE, base, s)) != 0) return NULL;
  }
  ast_expr* e = NEW_EXPR(p, AST_SUBSCRIPT, subscript, since(p, start));
  if (!e) return NULL;
  e->u.subscript.value = value;
  return take_exprs(p, base, &e->u.subscript.indices) ? e : NULL;
}

/* atom followed by .name, (args) and [indices]. */
static ast_expr* parse_primary(parser* p) {
  tvm_script_span start = p->tok->span;
  ast_expr* e = kind(p) == TOK(NAME) ? parse_name_atom(p) : parse_atom(p);
  while (e) {
    if (kind(p) == TOK(DOT)) {
      advance(p);
      if (kind(p) != TOK(NAME)) return expected(p, "an attribute name");
      script_name* name = p->tok->v.name;
      advance(p);
      ast_expr* a = NEW_EXPR(p, AST_ATTR, attr, since(p, start));
      if (a) {
        a->u.attr.value = e;
        a->u.attr.name = name;
      }
      e = a;
    } else if (kind(p) == TOK(LPAREN)) {
      e = parse_call(p, e, start);
    } else if (kind(p) == TOK(LBRACKET)) {
      e = parse_index(p, e, start);
    } else {
      break;
    }
  }
  return e;
}

static ast_expr* parse_factor(parser* p);

/* The levels below each parse their first operand through the next level, then take their
 * operators in a *_rest function given that operand (NULL: its parse failed). parse_test
 * parses a primary directly and runs the *_rest functions in turn, instead of descending
 * through every level for every operand. */

/* primary ['**' factor], given the primary. */
static ast_expr* power_rest(parser* p, tvm_script_span start, ast_expr* base) {
  if (!base || kind(p) != TOK(POW)) return base;
  if (!enter(p)) return NULL; /* a ** b ** c ... recurses through the exponent */
  advance(p);
  ast_expr* exponent = parse_factor(p);
  --p->depth;
  return new_op(p, OP(Pow), base, exponent, NULL, since(p, start));
}

/* ('+' | '-' | '~') factor | power */
static ast_expr* parse_factor(parser* p) {
  int k = kind(p);
  if (k != TOK(PLUS) && k != TOK(MINUS) && k != TOK(TILDE)) {
    tvm_script_span start = p->tok->span;
    return power_rest(p, start, parse_primary(p));
  }
  if (!enter(p)) return NULL;
  tvm_script_span start = p->tok->span;
  advance(p);
  ast_expr* operand = parse_factor(p);
  --p->depth;
  if (!operand) return NULL;
  if (k == TOK(PLUS)) { /* +x is x (made just now), its span widened over the '+' */
    operand->span = since(p, start);
    return operand;
  }
  return new_op(p, k == TOK(MINUS) ? OP(USub) : OP(Invert), operand, NULL, NULL, since(p, start));
}

/* Binary operators by token: precedence (1 loosest .. 6 tightest, 0 = not binary) and the
 * operator. All are left associative ('**' is handled by power_rest). */
static const uint8_t kBinaryPrec[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(PIPE)] = 1,    [TOK(CARET)] = 2, [TOK(AMP)] = 3,      [TOK(LSHIFT)] = 4,
    [TOK(RSHIFT)] = 4,  [TOK(PLUS)] = 5,  [TOK(MINUS)] = 5,    [TOK(STAR)] = 6,
    [TOK(SLASH)] = 6,   [TOK(FLOORDIV)] = 6, [TOK(PERCENT)] = 6, [TOK(AT)] = 6,
};
static const uint8_t kBinaryOp[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(PIPE)] = OP(BitOr),  [TOK(CARET)] = OP(BitXor),   [TOK(AMP)] = OP(BitAnd),
    [TOK(LSHIFT)] = OP(LShift), [TOK(RSHIFT)] = OP(RShift), [TOK(PLUS)] = OP(Add),
    [TOK(MINUS)] = OP(Sub),   [TOK(STAR)] = OP(Mult),      [TOK(SLASH)] = OP(Div),
    [TOK(FLOORDIV)] = OP(FloorDiv), [TOK(PERCENT)] = OP(Mod),
};

/* Precedence climbing over the binary operators binding at least as tight as min_prec; the
 * recursion is at most 6 deep per expression level. */
static ast_expr* binary_rest(parser* p, int min_prec, tvm_script_span start, ast_expr* lhs) {
  while (lhs) {
    int k = kind(p);
    int prec = kBinaryPrec[k];
    if (prec == 0 || prec < min_prec) break;
    if (k == TOK(AT)) {
      return unsupported(p, p->tok->span, "the '@' (matrix multiplication) operator is");
    }
    advance(p);
    ast_expr* rhs = parse_binary(p, prec + 1);
    lhs = new_op(p, kBinaryOp[k], lhs, rhs, NULL, since(p, start));
  }
  return lhs;
}

static ast_expr* parse_binary(parser* p, int min_prec) {
  tvm_script_span start = p->tok->span;
  return binary_rest(p, min_prec, start, parse_factor(p));
}

/* The operand of comparisons and of `for`/`with` targets: the bitwise-or level. */
static inline ast_expr* parse_bitor(parser* p) { return parse_binary(p, 1); }

static int comparison_op(parser* p) {
  switch (kind(p)) {
    case TOK(LT): return OP(Lt);
    case TOK(GT): return OP(Gt);
    case TOK(LE): return OP(LtE);
    case TOK(GE): return OP(GtE);
    case TOK(EQ): return OP(Eq);
    case TOK(NE): return OP(NotEq);
    case KW(IN): unsupported(p, p->tok->span, "'in' comparisons are"); return -1;
    case KW(IS): unsupported(p, p->tok->span, "'is' comparisons are"); return -1;
    case KW(NOT):
      unsupported(p, join(p->tok->span, p->tok[1].span), "'not in' comparisons are");
      return -1;
    default: return 0;
  }
}

/* a < b < c is (a < b) and (b < c), b shared. */
static ast_expr* comparison_rest(parser* p, tvm_script_span start, ast_expr* lhs) {
  ast_expr* result = NULL;
  while (lhs) {
    int op = comparison_op(p);
    if (op < 0) return NULL;
    if (op == 0) break;
    advance(p);
    ast_expr* rhs = parse_bitor(p);
    if (!rhs) return NULL;
    ast_expr* pair = new_op(p, op, lhs, rhs, NULL, join(lhs->span, rhs->span));
    result = result ? new_op(p, OP(And), result, pair, NULL, since(p, start)) : pair;
    if (!result) return NULL;
    lhs = rhs;
  }
  return result ? result : lhs;
}

static ast_expr* parse_comparison(parser* p) {
  tvm_script_span start = p->tok->span;
  return comparison_rest(p, start, parse_bitor(p));
}

static ast_expr* parse_not(parser* p) {
  if (kind(p) != KW(NOT)) return parse_comparison(p);
  if (!enter(p)) return NULL;
  tvm_script_span start = p->tok->span;
  advance(p);
  ast_expr* operand = parse_not(p);
  --p->depth;
  return new_op(p, OP(Not), operand, NULL, NULL, since(p, start));
}

/* lhs followed by `kw operand` pairs (`and` over parse_not, `or` over parse_and), left
 * associative. */
static ast_expr* bool_rest(parser* p, tvm_script_span start, ast_expr* lhs, int kw, int op,
                           ast_expr* (*operand)(parser*)) {
  while (lhs && accept(p, kw)) {
    ast_expr* rhs = operand(p);
    lhs = new_op(p, op, lhs, rhs, NULL, since(p, start));
  }
  return lhs;
}

static ast_expr* parse_and(parser* p) {
  tvm_script_span start = p->tok->span;
  return bool_rest(p, start, parse_not(p), KW(AND), OP(And), parse_not);
}

static ast_expr* parse_or(parser* p) {
  tvm_script_span start = p->tok->span;
  return bool_rest(p, start, parse_and(p), KW(OR), OP(Or), parse_and);
}

static ast_expr* parse_lambda(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  size_t base = p->sp;
  while (kind(p) != TOK(COLON)) {
    if (kind(p) != TOK(NAME)) return expected(p, "a lambda parameter name or ':'");
    if (push(p, parse_name_atom(p)) != 0) return NULL;
    if (kind(p) == TOK(ASSIGN)) {
      return unsupported(p, p->tok->span, "default values of lambda parameters are");
    }
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(COLON), "',' or ':'")) return NULL;
  ast_expr* body = parse_test(p);
  if (!body) return NULL;
  ast_expr* e = NEW_EXPR(p, AST_LAMBDA, lambda, since(p, start));
  if (!e) return NULL;
  e->u.lambda.body = body;
  return take_exprs(p, base, &e->u.lambda.params) ? e : NULL;
}

/* Tokens that end an expression after an atom: most operands (`f(a, 1)`, `x = 1`, `A[i]`) are
 * lone atoms, which then skip the descent through every precedence level. */
static const bool kEndsAtom[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(COMMA)] = true, [TOK(RPAREN)] = true,  [TOK(RBRACKET)] = true, [TOK(RBRACE)] = true,
    [TOK(COLON)] = true, [TOK(NEWLINE)] = true, [TOK(ASSIGN)] = true,   [TOK(SEMI)] = true,
};

/* Tokens that start a primary (an atom, then trailers): an expression starting with one has no
 * prefix operator ('not', '-', ...) at any level. */
static const bool kStartsPrimary[TVM_SCRIPT_TOK_COUNT_] = {
    [TOK(NAME)] = true,     [TOK(INT)] = true,     [TOK(FLOAT)] = true,  [TOK(STRING)] = true,
    [TOK(LPAREN)] = true,   [TOK(LBRACKET)] = true, [TOK(LBRACE)] = true, [KW(TRUE)] = true,
    [KW(FALSE)] = true,     [KW(NONE)] = true,
};

/* lambda | or_test ['if' or_test 'else' test] */
static ast_expr* parse_test(parser* p) {
  int k = kind(p);
  /* A lone atom (most operands: `f(a, 1)`, `x = 1`) at once. */
  if ((k == TOK(NAME) || k == TOK(INT) || k == TOK(FLOAT)) && kEndsAtom[p->tok[1].kind]) {
    return parse_atom(p); /* tok is not the last token: ENDMARKER follows at the latest */
  }
  if (!enter(p)) return NULL;
  ast_expr* result;
  if (k == KW(LAMBDA)) {
    result = parse_lambda(p);
  } else {
    tvm_script_span start = p->tok->span;
    if (kStartsPrimary[k]) {
      /* parse_or without the descent: parse_not, parse_factor and power_rest would each take
       * their non-prefix branch and reach parse_primary with this same start token. Then
       * each level's operators, innermost first, exactly as the returns of the descent. */
      result = parse_primary(p);
      if (result && !kEndsAtom[kind(p)]) {
        result = power_rest(p, start, result);
        result = binary_rest(p, 1, start, result);
        result = comparison_rest(p, start, result);
        result = bool_rest(p, start, result, KW(AND), OP(And), parse_not);
        result = bool_rest(p, start, result, KW(OR), OP(Or), parse_and);
      }
    } else {
      result = parse_or(p);
    }
    if (result && accept(p, KW(IF))) {
      ast_expr* cond = parse_or(p);
      ast_expr* other = NULL;
      if (cond && expect(p, KW(ELSE), "'else' in the conditional expression")) {
        other = parse_test(p);
      }
      result = new_op(p, OP(IfThenElse), result, cond, other, since(p, start));
    }
  }
  --p->depth;
  return result;
}

/* test (',' test)* [','] : a tuple (without parentheses) when there is a comma. For `for`
 * targets (`targets`) the elements are of the bitwise-or level, which stops at 'in'. */
static ast_expr* parse_list_of(parser* p, bool targets) {
  tvm_script_span start = p->tok->span;
  ast_expr* first = targets ? parse_bitor(p) : parse_test(p);
  if (!first || kind(p) != TOK(COMMA)) return first;
  size_t base = p->sp;
  if (push(p, first) != 0) return NULL;
  while (accept(p, TOK(COMMA)) && starts_expr(kind(p))) {
    if (push(p, targets ? parse_bitor(p) : parse_test(p)) != 0) return NULL;
  }
  return new_seq(p, AST_TUPLE, base, since(p, start));
}

/* ---------------------------------------------------------------------------------------- */
/* Statements                                                                                */
/* ---------------------------------------------------------------------------------------- */

static int parse_statement(parser* p, bool docstring_ok);
static int parse_simple_stmts(parser* p, bool docstring_ok);

/* Whether e can be assigned to; raises "cannot assign to ..." when not. */
static bool check_target(parser* p, const ast_expr* e, bool single) {
  int k = e->kind;
  if (k == AST_NAME || k == AST_SUBSCRIPT || k == AST_ATTR) return true;
  if (!single && (k == AST_TUPLE || k == AST_LIST)) {
    for (int32_t i = 0; i < e->u.elts.n; ++i) {
      if (!check_target(p, e->u.elts.items[i], false)) return false;
    }
    return true;
  }
  const char* what = k == AST_CALL                     ? "a function call"
                     : k == AST_CONST || k == AST_STR ? "a literal"
                     : k == AST_TUPLE                 ? "a tuple here"
                     : k == AST_LIST                  ? "a list here"
                                                      : "an expression";
  error_at(p, e->span, "cannot assign to %s", what);
  return false;
}

/* ':' then a block: NEWLINE INDENT statements DEDENT, or simple statements on the same line. */
static bool parse_block(parser* p, bool docstring_ok, ast_stmts* out) {
  if (!expect(p, TOK(COLON), "':'")) return false;
  size_t base = p->sp;
  ++p->block_depth;
  int rc = 0;
  if (kind(p) != TOK(NEWLINE)) {
    rc = parse_simple_stmts(p, docstring_ok); /* `if c: x = 1` (no compound statement here) */
  } else {
    advance(p);
    if (kind(p) != TOK(INDENT)) {
      expected(p, "an indented block");
      rc = -1;
    } else {
      advance(p);
      for (bool first = true; rc == 0 && kind(p) != TOK(DEDENT) && kind(p) != TOK(ENDMARKER);
           first = false) {
        rc = parse_statement(p, first && docstring_ok);
      }
      accept(p, TOK(DEDENT));
    }
  }
  --p->block_depth;
  return rc == 0 && take_stmts(p, base, out);
}

static const struct {
  int tok, op;
} kAugOps[] = {
    {TOK(ADD_ASSIGN), OP(Add)},       {TOK(SUB_ASSIGN), OP(Sub)},
    {TOK(MUL_ASSIGN), OP(Mult)},      {TOK(DIV_ASSIGN), OP(Div)},
    {TOK(FLOORDIV_ASSIGN), OP(FloorDiv)}, {TOK(MOD_ASSIGN), OP(Mod)},
    {TOK(POW_ASSIGN), OP(Pow)},       {TOK(AND_ASSIGN), OP(BitAnd)},
    {TOK(OR_ASSIGN), OP(BitOr)},      {TOK(XOR_ASSIGN), OP(BitXor)},
    {TOK(LSHIFT_ASSIGN), OP(LShift)}, {TOK(RSHIFT_ASSIGN), OP(RShift)},
};

static ast_stmt* new_assign(parser* p, ast_expr* target, ast_expr* value, ast_expr* annotation,
                            int aug_op, tvm_script_span s) {
  ast_stmt* st = NEW_STMT(p, AST_ASSIGN, assign, s);
  if (st) {
    st->u.assign.target = target;
    st->u.assign.value = value;
    st->u.assign.annotation = annotation;
    st->u.assign.aug_op = aug_op;
  }
  return st;
}

/* Expression statement, assignment, annotated or augmented assignment. */
static ast_stmt* parse_expr_stmt(parser* p, bool docstring_ok) {
  tvm_script_span start = p->tok->span;
  ast_expr* lhs = parse_list_of(p, false);
  if (!lhs) return NULL;
  int k = kind(p);
  if (k == TOK(COLON)) {
    if (lhs->kind == AST_TUPLE) return error_at(p, lhs->span, "only a single target can be annotated");
    if (!check_target(p, lhs, true)) return NULL;
    advance(p);
    ast_expr* ann = parse_test(p);
    if (!ann) return NULL;
    ast_expr* rhs = NULL;
    if (accept(p, TOK(ASSIGN)) && !(rhs = parse_list_of(p, false))) return NULL;
    return new_assign(p, lhs, rhs, ann, 0, since(p, start));
  }
  if (k == TOK(ASSIGN)) {
    if (!check_target(p, lhs, false)) return NULL;
    advance(p);
    ast_expr* rhs = parse_list_of(p, false);
    if (!rhs) return NULL;
    if (kind(p) == TOK(ASSIGN)) return unsupported(p, p->tok->span, "chained assignments are");
    return new_assign(p, lhs, rhs, NULL, 0, since(p, start));
  }
  for (size_t i = 0; i < sizeof(kAugOps) / sizeof(kAugOps[0]); ++i) {
    if (kAugOps[i].tok != k) continue;
    if (!check_target(p, lhs, true)) return NULL;
    advance(p);
    ast_expr* rhs = parse_list_of(p, false);
    if (!rhs) return NULL;
    tvm_script_span s = since(p, start);
    ast_expr* value = new_op(p, kAugOps[i].op, lhs, rhs, NULL, s); /* sharing lhs */
    return value ? new_assign(p, lhs, value, NULL, kAugOps[i].op, s) : NULL;
  }
  if (k == TOK(WALRUS)) return unsupported(p, p->tok->span, "assignment expressions (':=') are");
  if (k == TOK(MATMUL_ASSIGN)) return unsupported(p, p->tok->span, "the '@=' operator is");
  if (docstring_ok && lhs->kind == AST_STR && !memchr(lhs->u.str.data, 0, lhs->u.str.size)) {
    ast_stmt* d = NEW_STMT(p, AST_DOCSTRING, docstring, since(p, start));
    /* (A copy: a string that is a view of the source has no NUL after it.) */
    if (!d || !(d->u.docstring.data =
                    tvm_script__arena_strdup(p->arena, lhs->u.str.data, lhs->u.str.size))) {
      return NULL;
    }
    d->u.docstring.size = lhs->u.str.size;
    return d;
  }
  ast_stmt* st = NEW_STMT(p, AST_EXPR_STMT, expr, since(p, start));
  if (st) st->u.expr = lhs;
  return st;
}

/* One simple statement (pushed, except `pass`). */
static int parse_small_stmt(parser* p, bool docstring_ok) {
  const token* t = p->tok; /* valid until the first advance */
  tvm_script_span start = t->span;
  switch (t->kind) {
    case KW(PASS):
      advance(p);
      return 0;
    case KW(RETURN): {
      advance(p);
      ast_expr* value = NULL;
      if (kind(p) != TOK(NEWLINE) && kind(p) != TOK(SEMI) && !(value = parse_list_of(p, false))) {
        return -1;
      }
      ast_stmt* st = NEW_STMT(p, AST_RETURN, ret, since(p, start));
      if (st) st->u.ret = value;
      return push(p, st);
    }
    case KW(ASSERT): {
      advance(p);
      ast_expr* test = parse_test(p);
      if (!test) return -1;
      ast_expr* msg = NULL;
      if (accept(p, TOK(COMMA)) && !(msg = parse_test(p))) return -1;
      ast_stmt* st = NEW_STMT(p, AST_ASSERT, assert_, since(p, start));
      if (st) {
        st->u.assert_.test = test;
        st->u.assert_.msg = msg;
      }
      return push(p, st);
    }
    case KW(DEL): unsupported(p, t->span, "'del' statements are"); return -1;
    case KW(GLOBAL): unsupported(p, t->span, "'global' statements are"); return -1;
    case KW(NONLOCAL): unsupported(p, t->span, "'nonlocal' statements are"); return -1;
    case KW(RAISE): unsupported(p, t->span, "'raise' statements are"); return -1;
    case KW(BREAK):
    case KW(CONTINUE): {
      int k = t->kind == KW(BREAK) ? AST_BREAK : AST_CONTINUE;
      advance(p);
      return push(p, NEW_STMT(p, k, expr, since(p, start)));
    }
    case KW(IMPORT):
    case KW(FROM):
      unsupported(p, t->span, "imports inside a definition are");
      return -1;
    default:
      return push(p, parse_expr_stmt(p, docstring_ok));
  }
}

/* small_stmt (';' small_stmt)* [';'] NEWLINE */
static int parse_simple_stmts(parser* p, bool docstring_ok) {
  for (;;) {
    if (parse_small_stmt(p, docstring_ok) != 0) return -1;
    docstring_ok = false;
    if (!accept(p, TOK(SEMI)) || kind(p) == TOK(NEWLINE)) break;
  }
  return expect(p, TOK(NEWLINE), "end of line") ? 0 : -1;
}

/* if / elif chain: built from the innermost elif outwards (no recursion per elif); each
 * (start span, test, body) triple is on the stack meanwhile. */
static int parse_if(parser* p) {
  size_t base = p->sp;
  do {
    tvm_script_span* start = tvm_script__arena_alloc(p->arena, sizeof(*start));
    if (!start) return -1;
    *start = p->tok->span;
    advance(p);
    ast_stmts* body = tvm_script__arena_alloc(p->arena, sizeof(*body));
    if (!body || push(p, start) != 0 || push(p, parse_test(p)) != 0 ||
        !parse_block(p, false, body) || push(p, body) != 0) {
      return -1;
    }
  } while (kind(p) == KW(ELIF));
  ast_stmts orelse = {0, NULL};
  if (accept(p, KW(ELSE)) && !parse_block(p, false, &orelse)) return -1;
  tvm_script_span end = p->prev->span;
  ast_stmt* node = NULL;
  for (size_t i = (p->sp - base) / 3; i-- > 0;) {
    void** item = &p->stack[base + 3 * i];
    node = NEW_STMT(p, AST_IF, if_, join(*(tvm_script_span*)item[0], end));
    if (!node) return -1;
    node->u.if_.test = item[1];
    node->u.if_.body = *(ast_stmts*)item[2];
    node->u.if_.orelse = orelse;
    if (i > 0) {
      ast_stmt** one = tvm_script__arena_alloc(p->arena, sizeof(ast_stmt*));
      if (!one) return -1;
      one[0] = node;
      orelse = (ast_stmts){1, one};
    }
  }
  p->sp = base;
  return push(p, node);
}

static int parse_for(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  ast_expr* target = parse_list_of(p, true);
  if (!target || !check_target(p, target, false) || !expect(p, KW(IN), "'in'")) return -1;
  ast_expr* iter = parse_list_of(p, false);
  ast_stmts body;
  if (!iter || !parse_block(p, false, &body)) return -1;
  if (kind(p) == KW(ELSE)) {
    unsupported(p, p->tok->span, "'else' clauses of 'for' loops are");
    return -1;
  }
  ast_stmt* st = NEW_STMT(p, AST_FOR, for_, since(p, start));
  if (!st) return -1;
  st->u.for_.target = target;
  st->u.for_.iter = iter;
  st->u.for_.body = body;
  return push(p, st);
}

static int parse_while(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  ast_expr* test = parse_test(p);
  ast_stmts body;
  if (!test || !parse_block(p, false, &body)) return -1;
  if (kind(p) == KW(ELSE)) {
    unsupported(p, p->tok->span, "'else' clauses of 'while' loops are");
    return -1;
  }
  ast_stmt* st = NEW_STMT(p, AST_WHILE, while_, since(p, start));
  if (!st) return -1;
  st->u.while_.test = test;
  st->u.while_.body = body;
  return push(p, st);
}

/* with a [as x], b [as y]: body -> WITH(a, x, [WITH(b, y, body)]); each item's (start span,
 * context, target) triple is on the stack meanwhile. */
static int parse_with(parser* p) {
  size_t base = p->sp;
  tvm_script_span with_start = p->tok->span;
  advance(p);
  do {
    tvm_script_span* start = tvm_script__arena_alloc(p->arena, sizeof(*start));
    if (!start) return -1;
    *start = p->sp == base ? with_start : p->tok->span;
    if (push(p, start) != 0 || push(p, parse_test(p)) != 0) return -1;
    ast_expr* target = NULL;
    if (accept(p, KW(AS)) && (!(target = parse_bitor(p)) || !check_target(p, target, false))) {
      return -1;
    }
    if (push_opt(p, target) != 0) return -1;
  } while (accept(p, TOK(COMMA)));
  ast_stmts body;
  if (!parse_block(p, false, &body)) return -1;
  tvm_script_span end = p->prev->span;
  ast_stmt* node = NULL;
  for (size_t i = (p->sp - base) / 3; i-- > 0;) {
    void** item = &p->stack[base + 3 * i];
    node = NEW_STMT(p, AST_WITH, with, join(*(tvm_script_span*)item[0], end));
    if (!node) return -1;
    node->u.with.context = item[1];
    node->u.with.target = item[2];
    node->u.with.body = body;
    if (i > 0) {
      ast_stmt** one = tvm_script__arena_alloc(p->arena, sizeof(ast_stmt*));
      if (!one) return -1;
      one[0] = node;
      body = (ast_stmts){1, one};
    }
  }
  p->sp = base;
  return push(p, node);
}

static ast_expr* parse_name(parser* p, const char* what) {
  if (kind(p) != TOK(NAME)) return expected(p, what);
  return parse_name_atom(p);
}

/* def name(params) [-> ret]: body; the decorators are on the stack from `decorators_base`. */
static ast_stmt* parse_def(parser* p, size_t decorators_base) {
  tvm_script_span start = p->tok->span;
  advance(p);
  ast_expr* name = parse_name(p, "a function name");
  if (!name || !expect(p, TOK(LPAREN), "'('")) return NULL;
  size_t args_base = p->sp;
  while (kind(p) != TOK(RPAREN)) {
    int k = kind(p);
    if (k == TOK(STAR) || k == TOK(POW) || k == TOK(SLASH)) {
      return unsupported(p, p->tok->span,
                         k == TOK(SLASH)  ? "positional-only parameter markers ('/') are"
                         : k == TOK(STAR) ? "'*' parameters are"
                                          : "'**' parameters are");
    }
    tvm_script_span param_start = p->tok->span;
    ast_arg* arg = tvm_script__arena_alloc(p->arena, sizeof(ast_arg));
    if (!arg || !(arg->name = parse_name(p, "a parameter name"))) return NULL;
    arg->annotation = arg->default_value = NULL;
    if ((accept(p, TOK(COLON)) && !(arg->annotation = parse_test(p))) ||
        (accept(p, TOK(ASSIGN)) && !(arg->default_value = parse_test(p)))) {
      return NULL;
    }
    arg->span = since(p, param_start);
    if (push(p, arg) != 0) return NULL;
    if (!accept(p, TOK(COMMA))) break;
  }
  if (!expect(p, TOK(RPAREN), "',' or ')'")) return NULL;
  ast_expr* ret = NULL;
  if (accept(p, TOK(ARROW)) && !(ret = parse_test(p))) return NULL;
  ast_stmts body;
  if (!parse_block(p, true, &body)) return NULL;
  ast_stmt* st = NEW_STMT(p, AST_DEF, def, since(p, start));
  if (!st) return NULL;
  st->u.def.name = name;
  st->u.def.returns = ret;
  st->u.def.body = body;
  size_t nargs = p->sp - args_base;
  if (!take_items(p, args_base, nargs, 1, (void***)&st->u.def.args)) return NULL;
  st->u.def.nargs = (int32_t)nargs;
  p->sp = args_base;
  return take_exprs(p, decorators_base, &st->u.def.decorators) ? st : NULL;
}

static ast_stmt* parse_class(parser* p, size_t decorators_base) {
  tvm_script_span start = p->tok->span;
  advance(p);
  ast_expr* name = parse_name(p, "a class name");
  if (!name) return NULL;
  if (kind(p) == TOK(LPAREN)) {
    tvm_script_span open = p->tok->span;
    advance(p);
    if (kind(p) != TOK(RPAREN)) return unsupported(p, join(open, p->tok->span), "base classes are");
    advance(p);
  }
  ast_stmts body;
  if (!parse_block(p, true, &body)) return NULL;
  ast_stmt* st = NEW_STMT(p, AST_CLASS, cls, since(p, start));
  if (!st) return NULL;
  st->u.cls.name = name;
  st->u.cls.body = body;
  return take_exprs(p, decorators_base, &st->u.cls.decorators) ? st : NULL;
}

static int parse_decorated(parser* p) {
  size_t base = p->sp;
  while (accept(p, TOK(AT))) {
    if (push(p, parse_test(p)) != 0 || !expect(p, TOK(NEWLINE), "end of line")) return -1;
  }
  if (kind(p) == KW(DEF)) return push(p, parse_def(p, base));
  if (kind(p) == KW(CLASS)) return push(p, parse_class(p, base));
  expected(p, "'def' or 'class' after decorators");
  return -1;
}

static bool tok_is(const parser* p, const token* t, const char* lit) {
  size_t n = strlen(lit);
  return t->kind == TOK(NAME) && tok_size(t) == n && memcmp(tok_text(p, t), lit, n) == 0;
}

/* Record the header import binding `alias` to module `mod` (tir, tirx, ir, relax or tvm). */
static int add_import(parser* p, const token* alias, const token* mod) {
  if (p->n_imports == p->imports_cap) {
    size_t cap = p->imports_cap ? 2 * p->imports_cap : 4;
    tvm_script__import* e = tvm_script__arena_alloc(p->arena, cap * sizeof(*e));
    if (!e) return -1;
    if (p->n_imports) memcpy(e, p->imports, p->n_imports * sizeof(*e));
    p->imports = e;
    p->imports_cap = cap;
  }
  /* The source is under INT32_MAX bytes (lexer_init). */
  p->imports[p->n_imports++] = (tvm_script__import){
      (uint32_t)alias->span.start_byte, (uint32_t)tok_size(alias),
      (uint32_t)mod->span.start_byte, (uint32_t)tok_size(mod)};
  return 0;
}

static bool is_script_module(const parser* p, const token* t) {
  static const char* const kModules[] = {"tir", "tirx", "s_tir", "ir", "relax"};
  for (size_t i = 0; i < sizeof(kModules) / sizeof(kModules[0]); ++i) {
    if (tok_is(p, t, kModules[i])) return true;
  }
  return false;
}

static void skip_to_line_end(parser* p) {
  while (kind(p) != TOK(NEWLINE) && kind(p) != TOK(ENDMARKER)) advance(p);
}

/* from tvm.script import tirx as T, ir as I; from tvm import tir */
static int parse_import(parser* p) {
  tvm_script_span start = p->tok->span;
  advance(p);
  const token* t = p->tok;
  int skip = !tok_is(p, &t[0], "tvm")                                             ? 0
             : t[1].kind == KW(IMPORT)                                             ? 2
             : t[1].kind == TOK(DOT) && tok_is(p, &t[2], "script") && t[3].kind == KW(IMPORT) ? 4
                                                                                   : 0;
  if (!skip) {
    while (kind(p) != TOK(NEWLINE) && kind(p) != KW(IMPORT) && kind(p) != TOK(ENDMARKER)) {
      advance(p);
    }
    unsupported(p, since(p, start),
                "imports other than 'import tvm', 'from tvm import ...' and 'from tvm.script "
                "import ...' header lines are");
    return -1;
  }
  for (int i = 0; i < skip; ++i) advance(p);
  do {
    token mod = *p->tok, alias;
    if (mod.kind != TOK(NAME)) {
      expected(p, "a TVMScript module name");
      return -1;
    }
    if (!is_script_module(p, &mod)) {
      error_at(p, mod.span, "unknown TVMScript module '%.*s' (expected ir, tir, tirx, s_tir or relax)",
               (int)tok_size(&mod), tok_text(p, &mod));
      return -1;
    }
    advance(p);
    alias = mod;
    if (accept(p, KW(AS))) {
      alias = *p->tok;
      if (alias.kind != TOK(NAME)) {
        expected(p, "an alias name");
        return -1;
      }
      advance(p);
    }
    if (add_import(p, &alias, &mod) != 0) return -1;
  } while (accept(p, TOK(COMMA)));
  return expect(p, TOK(NEWLINE), "end of line") ? 0 : -1;
}

/* import tvm; import tvm.script; import tvm.script.tir as T: `tvm` names the package, whose
 * script modules (tvm.script.tir, tvm.script.ir_module, ...) the evaluator resolves. */
static int parse_plain_import(parser* p) {
  advance(p);
  do {
    tvm_script_span start = p->tok->span;
    token root = *p->tok, last = root;
    if (!tok_is(p, &root, "tvm")) {
      skip_to_line_end(p);
      unsupported(p, since(p, start), "imports of modules other than 'tvm' are");
      return -1;
    }
    advance(p);
    while (accept(p, TOK(DOT))) {
      if (kind(p) != TOK(NAME)) {
        expected(p, "a module name");
        return -1;
      }
      last = *p->tok;
      advance(p);
    }
    token alias = root, mod = root;
    if (accept(p, KW(AS))) {
      alias = *p->tok;
      if (alias.kind != TOK(NAME)) {
        expected(p, "an alias name");
        return -1;
      }
      advance(p);
      mod = last;
      if (last.span.start_byte != root.span.start_byte && !is_script_module(p, &last)) {
        error_at(p, since(p, start),
                 "'import ... as' names tvm or one of its script modules (tvm.script.tir, "
                 "tvm.script.ir, tvm.script.relax)");
        return -1;
      }
    }
    if (add_import(p, &alias, &mod) != 0) return -1;
  } while (accept(p, TOK(COMMA)));
  return expect(p, TOK(NEWLINE), "end of line") ? 0 : -1;
}

/* One statement; pushes its node (nothing for `pass` and header imports). */
static int parse_statement(parser* p, bool docstring_ok) {
  switch (kind(p)) {
    case TOK(AT):
    case KW(DEF):
    case KW(CLASS):
      return parse_decorated(p);
    case KW(IF):
      return parse_if(p);
    case KW(FOR):
      return parse_for(p);
    case KW(WHILE):
      return parse_while(p);
    case KW(WITH):
      return parse_with(p);
    case KW(TRY):
      unsupported(p, p->tok->span, "'try' statements are");
      return -1;
    case KW(ASYNC):
      unsupported(p, p->tok->span, "'async' statements are");
      return -1;
    case TOK(INDENT):
      error_at(p, p->tok->span, "unexpected indent");
      return -1;
    case KW(FROM):
      if (p->block_depth == 0) return parse_import(p);
      return parse_simple_stmts(p, false);
    case KW(IMPORT):
      if (p->block_depth == 0) return parse_plain_import(p);
      return parse_simple_stmts(p, false);
    default:
      return parse_simple_stmts(p, docstring_ok);
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Entry points                                                                              */
/* ---------------------------------------------------------------------------------------- */

int tvm_script__parse_ast(const char* source, size_t len, const char* filename, ast_module* m) {
  memset(m, 0, sizeof(*m));
  if (!source && len) return tvm_ffi_raise("ValueError", "tvm_script_parse: NULL source");
  parser p;
  memset(&p, 0, offsetof(parser, lx));
  p.stack = p.stack_inline;
  p.cap = INLINE_STACK;
  p.src = source ? source : "";
  p.len = len;
  p.filename = filename ? filename : "<string>";
  p.arena = &m->arena;
  /* The tree takes ~20 bytes per byte of source: a first chunk for most of a small file. */
  tvm_script__arena_init(&m->arena, len * 16);
  uint32_t slots = 128; /* (a small file has ~30 distinct words, keywords included) */
  while (slots < len / 32 && slots < (1u << 20)) slots *= 2;
  int rc = -1;
  if (tvm_script__lexer_init(&p.lx, p.src, len, p.filename, &m->names) != 0 ||
      tvm_script__names_init(&m->names, &m->arena, slots) != 0 ||
      (p.lx.data = p.lx.own_data = p.tokens_inline, p.lx.cap = INLINE_TOKENS,
       tvm_script__lexer_fill(&p.lx, WINDOW) != 0)) {
    goto done;
  }
  p.tok = p.lx.data;
  set_refill_at(&p);
  p.prev_save.span = p.tok->span;
  p.prev_save.span.end_line = p.prev_save.span.start_line;
  p.prev_save.span.end_col = p.prev_save.span.start_col;
  p.prev_save.span.end_byte = p.prev_save.span.start_byte;
  p.prev = &p.prev_save;
  tvm_script_span start = p.prev_save.span;
  start.start_line = start.start_col = 1;
  start.start_byte = 0;
  while (kind(&p) != TOK(ENDMARKER)) {
    if (parse_statement(&p, false) != 0) goto done;
  }
  if (p.lex_failed || !take_stmts(&p, 0, &m->body)) goto done;
  m->span = since(&p, start);
  m->imports = p.imports;
  m->num_imports = p.n_imports;
  rc = 0;
done:
  if (p.stack != p.stack_inline) tvm_ffi_free(p.stack);
  tvm_script__lexer_free(&p.lx);
  if (rc != 0) tvm_script__ast_free(m);
  return rc;
}

/* The ffi.Map of the imports, alias -> module name (a repeated alias takes the last module,
 * in the place of its first use, as a dict would), or NULL + error. */
static void* imports_map(const ast_module* m, const char* src) {
  size_t n = m->num_imports;
  TVMFFIAny* kv = tvm_ffi_calloc(2 * n + 1, sizeof(TVMFFIAny));
  if (!kv) return NULL;
  bool ok = true;
  for (size_t i = 0; i < n; ++i) {
    const tvm_script__import* e = &m->imports[i];
    kv[i] = tvm_ffi_string_n(src + e->alias, e->alias_n);
    kv[n + i] = tvm_ffi_string_n(src + e->mod, e->mod_n);
    ok = ok && kv[i].type_index != kTVMFFINone && kv[n + i].type_index != kTVMFFINone;
  }
  void* map = ok ? tvm_ffi_map_new(kv, kv + n, (int64_t)n)
                 : (tvm_ffi_raise("MemoryError", "out of memory recording an import"), NULL);
  for (size_t i = 0; i < 2 * n; ++i) tvm_ffi_any_release(&kv[i]);
  tvm_ffi_free(kv);
  return map;
}

void* tvm_script_parse_doc_ex(const char* source, size_t len, const char* filename,
                              void** out_imports) {
  if (out_imports) *out_imports = NULL;
  ast_module m;
  if (tvm_script__parse_ast(source, len, filename, &m) != 0) return NULL;
  void* doc = tvm_script__ast_to_doc(&m);
  if (doc && out_imports && !(*out_imports = imports_map(&m, source))) {
    tvm_ffi_release(doc);
    doc = NULL;
  }
  tvm_script__ast_free(&m);
  return doc;
}

void* tvm_script_parse_doc(const char* source, size_t len, const char* filename) {
  return tvm_script_parse_doc_ex(source, len, filename, NULL);
}
