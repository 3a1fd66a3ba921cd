/*
 * parse_relax_dims.c: dims of Relax struct info written as strings holding an expression,
 * `R.Tensor(("n * 2", 3))`, `R.Shape(["n + 1"])`, as upstream evaluates them (a string that is
 * not a name is eval'ed over the function's symbolic variables). A string that is a name ("n")
 * is left to the builtin (one tir.Var per name and function); any other string is read here as a
 * PrimExpr of int64 over those variables (a name is the function's variable of that name, made
 * on first use as "n" would make it):
 *
 *   expr  := term (('+' | '-') term)*
 *   term  := unary (('*' | '//' | '%') unary)*
 *   unary := '-' unary | '+' unary | atom
 *   atom  := integer | name | '(' expr ')' | ('min' | 'max') '(' expr ',' expr ')'
 *          | ('T.Select' | 'T.if_then_else') '(' expr [cmp expr] ',' expr ',' expr ')'
 *            (cmp: < <= > >= == !=; if_then_else as inference writes pooling's ceil_mode dims)
 *          | 'T.' binary '(' expr ',' expr ')'   (T.min, T.Add, T.Div, T.truncmod, T.FloorDiv,
 *                                                T.LT, ...: the printer's call forms)
 *          | 'T.Cast' '(' dtype-string ',' expr ')' | 'T.int32' '(' expr ')' (any int type)
 *
 * with Python's precedence and the same operator helpers as the evaluator's (n * 2 is the Mul a
 * PrimExpr `n * 2` gives). Errors are SyntaxError / TypeError located at the offending
 * characters inside the string literal (the whole literal when it spans escapes or lines).
 */
#include <string.h>
#include <tvm/tir/builder.h>

#include "parse_eval.h"
#include "script_relax_internal.h"

typedef struct {
  script_parser* p;
  const ast_expr* lit; /* the string literal */
  const char* s;       /* its decoded text */
  size_t n, pos;
} dim_reader;

static bool is_ident_start(char c) {
  return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}
static bool is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

bool tvm_script__relax_dim_is_name(const char* s, size_t n) {
  if (n == 0 || !is_ident_start(s[0])) return false;
  for (size_t i = 1; i < n; ++i) {
    if (!is_ident_char(s[i])) return false;
  }
  return true;
}

/* The span of text [from, to) of the string (the literal's span when the literal's characters
 * are not its text one for one: escapes, a prefix, several lines). */
static tvm_script_span span_of(const dim_reader* r, size_t from, size_t to) {
  tvm_script_span sp = r->lit->span;
  const tvm_script_span* l = &r->lit->span;
  bool exact = l->start_line == l->end_line && l->start_byte >= 0 &&
               (size_t)(l->end_byte - l->start_byte) == r->n + 2 &&
               (r->p->src[l->start_byte] == '"' || r->p->src[l->start_byte] == '\'');
  if (!exact) return sp;
  if (to <= from) to = from + 1;
  if (to > r->n + 1) to = r->n + 1; /* (at most the closing quote) */
  sp.start_col = l->start_col + 1 + (int32_t)from;
  sp.end_col = l->start_col + 1 + (int32_t)to;
  sp.start_byte = l->start_byte + 1 + (int64_t)from;
  sp.end_byte = l->start_byte + 1 + (int64_t)to;
  return sp;
}

static int fail(dim_reader* r, size_t from, size_t to, const char* kind, const char* what) {
  tvm_script_span sp = span_of(r, from, to);
  return tvm_script__error_at(r->p, &sp, kind, "in the dim \"%.*s\": %s", (int)r->n, r->s, what);
}

static void skip_space(dim_reader* r) {
  while (r->pos < r->n && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t')) ++r->pos;
}

static bool accept(dim_reader* r, const char* tok) {
  skip_space(r);
  size_t k = strlen(tok);
  if (r->pos + k > r->n || memcmp(r->s + r->pos, tok, k) != 0) return false;
  /* '/' is not '//', '*' not '**' */
  if ((k == 1 && (tok[0] == '/' || tok[0] == '*')) && r->pos + 1 < r->n &&
      r->s[r->pos + 1] == tok[0]) {
    return false;
  }
  r->pos += k;
  return true;
}

static tvm_tir_expr_obj* read_expr(dim_reader* r, int depth);

/* A located error from a libtir helper (its message kept). */
static tvm_tir_expr_obj* relocated(dim_reader* r, size_t from, size_t to) {
  tvm_script_span sp = span_of(r, from, to);
  tvm_script__relocate(r->p, &sp);
  return NULL;
}

/* expr [('<' | '<=' | '>' | '>=' | '==' | '!=') expr]: a T.Select / T.if_then_else condition. */
static tvm_tir_expr_obj* read_compare(dim_reader* r, int depth) {
  size_t start = (skip_space(r), r->pos);
  tvm_tir_expr_obj* a = read_expr(r, depth);
  if (!a) return NULL;
  int op = accept(r, "<=") ? 1 : accept(r, ">=") ? 2 : accept(r, "==") ? 3 : accept(r, "!=") ? 4
           : accept(r, "<") ? 5 : accept(r, ">") ? 6 : 0;
  if (!op) return a;
  tvm_tir_expr_obj* b = read_expr(r, depth);
  if (!b) {
    tvm_ffi_release(a);
    return NULL;
  }
  tvm_tir_expr_obj* e = op == 1 ? tvm_tir_le_take(a, b) : op == 2 ? tvm_tir_ge_take(a, b)
                        : op == 3 ? tvm_tir_eq_take(a, b) : op == 4 ? tvm_tir_ne_take(a, b)
                        : op == 5 ? tvm_tir_lt_take(a, b) : tvm_tir_gt_take(a, b);
  return e ? e : relocated(r, start, r->pos);
}

/* T.Select(condition, a, b) or T.if_then_else(condition, a, b) as the printer writes an inferred
 * dim (after the name): a Select, or a call to tir.if_then_else (if_then_else true). */
static tvm_tir_expr_obj* read_select(dim_reader* r, size_t start, int depth, bool if_then_else) {
  tvm_tir_expr_obj* part[3] = {NULL, NULL, NULL};
  static const char* const sep[3] = {"(", ",", ","};
  for (int i = 0; i < 3; ++i) {
    if (!accept(r, sep[i])) {
      fail(r, r->pos, r->pos + 1, "SyntaxError", i ? "expected ','" : "expected '('");
      break;
    }
    if (!(part[i] = i ? read_expr(r, depth + 1) : read_compare(r, depth + 1))) break;
  }
  if (part[2] && !accept(r, ")")) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected ')'");
    tvm_ffi_release(part[2]);
    part[2] = NULL;
  }
  if (!part[2]) {
    tvm_ffi_release(part[0]), tvm_ffi_release(part[1]);
    return NULL;
  }
  tvm_tir_expr_obj* e;
  if (if_then_else) {
    e = tvm_tir_if_then_else(part[0], part[1], part[2]);
    for (int i = 0; i < 3; ++i) tvm_ffi_release(part[i]);
  } else {
    e = tvm_tir_select_take(part[0], part[1], part[2]);
  }
  return e ? e : relocated(r, start, r->pos);
}

/* The TIR binary kind of a call name the printer writes (`T.Add(1, 2)` for two constants,
 * `T.Div` for integer division, `T.truncmod`, `T.min`, ...) or Python's (T.floordiv,
 * T.truncdiv, ...); 0 for none. */
static tvm_tir_kind binary_kind(const char* name, size_t len) {
  static const struct {
    const char* name;
    tvm_tir_kind kind;
  } kCalls[] = {
      {"Add", TVM_TIR_KIND_Add},       {"Sub", TVM_TIR_KIND_Sub},
      {"Mul", TVM_TIR_KIND_Mul},       {"Div", TVM_TIR_KIND_Div},
      {"truncdiv", TVM_TIR_KIND_Div},  {"truncmod", TVM_TIR_KIND_Mod},
      {"FloorDiv", TVM_TIR_KIND_FloorDiv}, {"floordiv", TVM_TIR_KIND_FloorDiv},
      {"FloorMod", TVM_TIR_KIND_FloorMod}, {"floormod", TVM_TIR_KIND_FloorMod},
      {"min", TVM_TIR_KIND_Min},       {"max", TVM_TIR_KIND_Max},
      {"EQ", TVM_TIR_KIND_EQ},         {"NE", TVM_TIR_KIND_NE},
      {"LT", TVM_TIR_KIND_LT},         {"LE", TVM_TIR_KIND_LE},
      {"GT", TVM_TIR_KIND_GT},         {"GE", TVM_TIR_KIND_GE},
      {"And", TVM_TIR_KIND_And},       {"Or", TVM_TIR_KIND_Or},
  };
  for (size_t i = 0; i < sizeof(kCalls) / sizeof(kCalls[0]); ++i) {
    if (strlen(kCalls[i].name) == len && memcmp(kCalls[i].name, name, len) == 0) {
      return kCalls[i].kind;
    }
  }
  return (tvm_tir_kind)0;
}

/* '(' a ',' b ')' after a binary call's name (from start): exactly the node of kind for a T.
 * call (as the TIR evaluator makes T.Add(1, 2)), else folded as the evaluator's helpers fold. */
static tvm_tir_expr_obj* read_binary_call(dim_reader* r, size_t start, tvm_tir_kind kind,
                                          bool exact, int depth) {
  tvm_tir_expr_obj *a = NULL, *b = NULL;
  if (!accept(r, "(")) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected '('");
  } else if ((a = read_expr(r, depth + 1)) != NULL && !accept(r, ",")) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected ','");
  } else if (a && (b = read_expr(r, depth + 1)) != NULL && !accept(r, ")")) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected ')'");
    tvm_ffi_release(b);
    b = NULL;
  }
  tvm_tir_expr_obj* e = !(a && b) ? NULL
                       : exact    ? tvm_tir_binary_new(kind, a, b)
                                  : tvm_tir_binary(kind, a, b);
  bool read = a && b;
  tvm_ffi_release(a), tvm_ffi_release(b);
  return e || !read ? e : relocated(r, start, r->pos);
}

/* '"' dtype '"' inside the dim (T.Cast's first argument): its dtype, or false with an error. */
static bool read_dtype(dim_reader* r, DLDataType* out) {
  skip_space(r);
  char q = r->pos < r->n ? r->s[r->pos] : 0;
  size_t at = r->pos + 1, end = at;
  while (end < r->n && r->s[end] != q) ++end;
  if ((q != '"' && q != '\'') || end >= r->n) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected a dtype string");
    return false;
  }
  r->pos = end + 1;
  if (tvm_tir_dtype_parse(r->s + at, end - at, out) != 0) {
    tvm_ffi_error_clear();
    fail(r, at, end, "TypeError", "unknown dtype");
    return false;
  }
  return true;
}

/* T.<name>(...) as the printer writes a dim's PrimExpr (name at [name, name + len), the call
 * from start): T.Select / T.if_then_else (cond, a, b), the binary calls (binary_kind),
 * T.Cast("dtype", value) and integer literals of a type, T.int32(-1); the nodes are those the
 * TIR evaluator makes of the same text (a Cast of a constant stays a Cast). */
static tvm_tir_expr_obj* read_t_call(dim_reader* r, size_t start, const char* name, size_t len,
                                     int depth) {
  bool ite = len == 12 && !memcmp(name, "if_then_else", 12);
  if (ite || (len == 6 && !memcmp(name, "Select", 6))) return read_select(r, start, depth, ite);
  tvm_tir_kind kind = binary_kind(name, len);
  if (kind) return read_binary_call(r, start, kind, true, depth);
  DLDataType t;
  bool cast = len == 4 && !memcmp(name, "Cast", 4);
  bool literal = !cast && tvm_script__tir_dtype_name(name, len, &t) &&
                 (t.code == kDLInt || t.code == kDLUInt) && t.lanes == 1;
  if (!cast && !literal) {
    fail(r, start, r->pos, "SyntaxError",
         "a dim takes T.min, T.max, T.Select, T.if_then_else, T.Cast, the arithmetic and "
         "comparison calls (T.Add, T.FloorDiv, T.truncmod, T.LT, ...) and integer literals "
         "(T.int32(1))");
    return NULL;
  }
  if (!accept(r, "(")) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected '('");
    return NULL;
  }
  if (cast && !read_dtype(r, &t)) return NULL;
  if (cast && !accept(r, ",")) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected ','");
    return NULL;
  }
  size_t value_at = (skip_space(r), r->pos);
  tvm_tir_expr_obj* v = read_expr(r, depth + 1);
  if (!v) return NULL;
  if (!accept(r, ")")) {
    tvm_ffi_release(v);
    fail(r, r->pos, r->pos + 1, "SyntaxError", "expected ')'");
    return NULL;
  }
  int64_t k;
  if (literal && !tvm_tir_as_const_int(v, &k)) {
    tvm_ffi_release(v);
    fail(r, value_at, r->pos - 1, "TypeError", "an integer literal's value must be a number");
    return NULL;
  }
  tvm_tir_expr_obj* e = literal ? tvm_tir_const_int(t, k) : tvm_tir_cast_new(t, v);
  tvm_ffi_release(v);
  return e ? e : relocated(r, start, r->pos);
}

static tvm_tir_expr_obj* read_atom(dim_reader* r, int depth) {
  skip_space(r);
  size_t start = r->pos;
  if (r->pos >= r->n) {
    fail(r, r->n, r->n + 1, "SyntaxError", "expected a number, a name or '('");
    return NULL;
  }
  char c = r->s[r->pos];
  if (c >= '0' && c <= '9') {
    int64_t v = 0;
    while (r->pos < r->n && r->s[r->pos] >= '0' && r->s[r->pos] <= '9') {
      if (v > (INT64_MAX - 9) / 10) {
        fail(r, start, r->pos + 1, "ValueError", "the number is too large for int64");
        return NULL;
      }
      v = v * 10 + (r->s[r->pos++] - '0');
    }
    if (r->pos < r->n && (is_ident_char(r->s[r->pos]) || r->s[r->pos] == '.')) {
      fail(r, start, r->pos + 1, "SyntaxError", "a dim must be an integer expression");
      return NULL;
    }
    tvm_tir_expr_obj* e = tvm_tir_const_int(tvm_tir_dtype_int(64), v);
    return e ? e : relocated(r, start, r->pos);
  }
  if (c == '(') {
    ++r->pos;
    tvm_tir_expr_obj* e = read_expr(r, depth + 1);
    if (e && !accept(r, ")")) {
      tvm_ffi_release(e);
      fail(r, r->pos, r->pos + 1, "SyntaxError", "expected ')'");
      return NULL;
    }
    return e;
  }
  if (!is_ident_start(c)) {
    fail(r, start, start + 1, "SyntaxError", "expected a number, a name or '('");
    return NULL;
  }
  while (r->pos < r->n && is_ident_char(r->s[r->pos])) ++r->pos;
  size_t len = r->pos - start;
  const char* name = r->s + start;
  if (len == 1 && name[0] == 'T' && r->pos < r->n && r->s[r->pos] == '.') {
    /* T.<name>(...) in the forms the printer writes (see read_t_call) */
    size_t at = ++r->pos;
    while (r->pos < r->n && is_ident_char(r->s[r->pos])) ++r->pos;
    return read_t_call(r, start, r->s + at, r->pos - at, depth);
  }
  skip_space(r);
  if (r->pos < r->n && r->s[r->pos] == '(') {
    tvm_tir_kind kind = binary_kind(name, len);
    if (kind != TVM_TIR_KIND_Min && kind != TVM_TIR_KIND_Max) {
      fail(r, start, r->pos, "SyntaxError", "only min(a, b) and max(a, b) calls are supported "
           "in a dim");
      return NULL;
    }
    return read_binary_call(r, start, kind, false, depth);
  }
  char buf[128];
  if (len >= sizeof(buf)) {
    fail(r, start, r->pos, "ValueError", "the name is too long");
    return NULL;
  }
  memcpy(buf, name, len);
  buf[len] = 0;
  tvm_tir_var_obj* v = r->p->b ? tvm_script_relax_sym_var(r->p->b, buf) : NULL;
  return v ? &v->expr : relocated(r, start, r->pos);
}

static tvm_tir_expr_obj* read_unary(dim_reader* r, int depth) {
  if (depth > 64) {
    fail(r, r->pos, r->pos + 1, "SyntaxError", "the expression is nested too deeply");
    return NULL;
  }
  size_t start = (skip_space(r), r->pos);
  if (accept(r, "-")) {
    tvm_tir_expr_obj* x = read_unary(r, depth + 1);
    tvm_tir_expr_obj* e = x ? tvm_script__tir_negate(x) : NULL;
    tvm_ffi_release(x);
    return e || !x ? e : relocated(r, start, r->pos);
  }
  if (accept(r, "+")) return read_unary(r, depth + 1);
  return read_atom(r, depth);
}

static tvm_tir_expr_obj* read_term(dim_reader* r, int depth) {
  size_t start = (skip_space(r), r->pos);
  tvm_tir_expr_obj* e = read_unary(r, depth);
  while (e) {
    int op = accept(r, "*") ? 1 : accept(r, "//") ? 2 : accept(r, "%") ? 3 : 0;
    if (!op) {
      skip_space(r);
      if (r->pos < r->n && r->s[r->pos] == '/') {
        tvm_ffi_release(e);
        fail(r, r->pos, r->pos + 1, "TypeError", "'/' is not an integer operation; write '//'");
        return NULL;
      }
      break;
    }
    tvm_tir_expr_obj* b = read_unary(r, depth);
    tvm_tir_expr_obj* x = !b            ? NULL
                          : op == 1     ? tvm_tir_mul(e, b)
                          : op == 2     ? tvm_tir_floordiv(e, b)
                                        : tvm_tir_floormod(e, b);
    tvm_ffi_release(e);
    tvm_ffi_release(b);
    if (b && !x) return relocated(r, start, r->pos);
    e = x;
  }
  return e;
}

static tvm_tir_expr_obj* read_expr(dim_reader* r, int depth) {
  size_t start = (skip_space(r), r->pos);
  tvm_tir_expr_obj* e = read_term(r, depth);
  while (e) {
    int op = accept(r, "+") ? 1 : accept(r, "-") ? 2 : 0;
    if (!op) break;
    tvm_tir_expr_obj* b = read_term(r, depth);
    tvm_tir_expr_obj* x = !b ? NULL : op == 1 ? tvm_tir_add(e, b) : tvm_tir_sub(e, b);
    tvm_ffi_release(e);
    tvm_ffi_release(b);
    if (b && !x) return relocated(r, start, r->pos);
    e = x;
  }
  return e;
}

int tvm_script__relax_dim_expr(script_parser* p, const ast_expr* lit, TVMFFIAny* out) {
  dim_reader r = {p, lit, lit->u.str.data, lit->u.str.size, 0};
  tvm_tir_expr_obj* e = read_expr(&r, 0);
  if (!e) return -1;
  skip_space(&r);
  if (r.pos < r.n) {
    tvm_ffi_release(e);
    return fail(&r, r.pos, r.n, "SyntaxError", "unexpected text after the expression");
  }
  *out = tvm_ffi_any_obj(e);
  return 0;
}
