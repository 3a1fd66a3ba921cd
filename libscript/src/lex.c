/* lex.c: the TVMScript tokenizer (see tvm/script/lexer.h for the rules it follows). */
#include <float.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/script/lexer.h>

#include "lex_internal.h"

static const char* const kKindNames[TVM_SCRIPT_TOK_COUNT_] = {
    "end of input", "end of line", "indent", "dedent", "identifier", "integer", "float",
    "string",
#define X(e, s) "'" s "'",
    TVM_SCRIPT_TOKEN_KEYWORDS(X) TVM_SCRIPT_TOKEN_OPERATORS(X)
#undef X
};

const char* tvm_script_token_kind_name(int kind) {
  return kind >= 0 && kind < TVM_SCRIPT_TOK_COUNT_ ? kKindNames[kind] : "<bad token>";
}

typedef struct {
  const char* text;
  uint8_t size;
  int32_t kind;
} spelling;

static const spelling kOperators[] = {
#define X(e, s) {s, sizeof(s) - 1, TVM_SCRIPT_TOK_##e},
    TVM_SCRIPT_TOKEN_OPERATORS(X)
#undef X
};

typedef tvm_script__lexer lexer;

/* Byte classes, which pick the scanner of a token with one load. B_DIGIT and B_NAME are
 * adjacent so that "ASCII identifier character" is one unsigned compare (is_name_or_digit). */
enum {
  B_OTHER = 0, /* an operator's first byte, or an invalid character (lex_operator tells) */
  B_SPACE,     /* ' ', '\t', '\f' */
  B_NEWLINE,   /* '\n', '\r' */
  B_HASH,
  B_BACKSLASH,
  B_QUOTE,
  B_DOT,
  B_DIGIT,
  B_NAME, /* ASCII letters and '_' */
  B_UTF8, /* bytes >= 0x80: only in identifiers (as well-formed UTF-8) */
};

/* The lexer's constant tables, built once per process from kOperators. (Keywords are names
 * the identifier table marks: ast.h.) */
static struct {
  uint8_t cls[256];
  /* Whether a byte continues an ASCII name (cls B_NAME or B_DIGIT): lex_fast's scan of a name
   * tests it with one compare per byte, where the class needs a subtract and a compare. */
  bool name_cont[256];
  /* Whether a byte that ends an ASCII name leaves it to lex_name: a non-ASCII byte (the name
   * goes on) or a quote (a string prefix): one load and test where lex_fast made two. */
  bool name_odd_end[256];
  /* Operator candidates by first byte (indices + 1 into kOperators, longest first); the
   * one-byte operator of a byte (index + 1), and a bitmask of the ASCII bytes that can follow
   * that byte in a longer operator. */
  uint8_t op_cand[128][5];
  uint8_t op_single[128];
  uint64_t op_follow[128][2];
  /* Whether the one-byte operator of a byte is never the start of a longer one (nor of a
   * float, as '.' is): `(`, `)`, `,`, `[`, ... */
  bool op_alone[128];
  /* The kind of the one-byte operator of a byte (op_single's), or 0 (no operator is kind 0,
   * ENDMARKER). */
  uint8_t op_kind[128];
} g_tab;
_Static_assert(TVM_SCRIPT_TOK_COUNT_ <= 256, "token kinds fit op_kind's bytes");
static pthread_once_t g_tab_once = PTHREAD_ONCE_INIT;
/* Set (release) once build_tables is done: lexer_init tests it inline before pthread_once, a
 * call per parse. */
static int g_tab_ready;

static void build_tables(void) {
  for (int c = 0; c < 256; ++c) {
    g_tab.cls[c] = c >= 0x80                                                ? B_UTF8
                   : (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ? B_NAME
                   : c >= '0' && c <= '9'                                   ? B_DIGIT
                   : c == ' ' || c == '\t' || c == '\f'                     ? B_SPACE
                   : c == '\n' || c == '\r'                                 ? B_NEWLINE
                   : c == '#'                                               ? B_HASH
                   : c == '\\'                                             ? B_BACKSLASH
                   : c == '"' || c == '\''                                  ? B_QUOTE
                   : c == '.'                                               ? B_DOT
                                                                            : B_OTHER;
  }
  for (int c = 0; c < 256; ++c) {
    g_tab.name_cont[c] = g_tab.cls[c] == B_NAME || g_tab.cls[c] == B_DIGIT;
    g_tab.name_odd_end[c] = c >= 0x80 || g_tab.cls[c] == B_QUOTE;
  }
  for (size_t k = 0; k < sizeof(kOperators) / sizeof(kOperators[0]); ++k) {
    const spelling* op = &kOperators[k];
    unsigned char c = (unsigned char)op->text[0], c2 = (unsigned char)op->text[1];
    uint8_t* cand = g_tab.op_cand[c];
    while (*cand) ++cand;
    *cand = (uint8_t)(k + 1);
    if (op->size == 1) {
      g_tab.op_single[c] = (uint8_t)(k + 1);
    } else {
      g_tab.op_follow[c][c2 >> 6] |= UINT64_C(1) << (c2 & 63);
    }
  }
  for (int c = 0; c < 128; ++c) {
    g_tab.op_alone[c] = g_tab.op_single[c] && !g_tab.op_follow[c][0] && !g_tab.op_follow[c][1] &&
                        g_tab.cls[c] != B_DOT;
    g_tab.op_kind[c] = g_tab.op_single[c] ? (uint8_t)kOperators[g_tab.op_single[c] - 1].kind : 0;
  }
  __atomic_store_n(&g_tab_ready, 1, __ATOMIC_RELEASE);
}

static inline bool is_name_or_digit(unsigned char c) {
  return (unsigned)(g_tab.cls[c] - B_DIGIT) <= B_NAME - B_DIGIT;
}
static inline bool is_ident_char(unsigned char c) { return is_name_or_digit(c) || c >= 0x80; }
static inline int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* memcmp(a, b, n) == 0 for the short spellings of keywords and operators, without a call. */
static inline bool same_text(const char* a, const char* b, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (a[i] != b[i]) return false;
  }
  return true;
}

/* Span of bytes [begin, end) that lie on the current line. */
static tvm_script_span span_here(const lexer* lx, size_t begin, size_t end) {
  tvm_script_span s;
  s.start_byte = (int64_t)begin;
  s.end_byte = (int64_t)end;
  s.start_line = s.end_line = lx->line;
  s.start_col = (int32_t)(begin - lx->line_start + 1);
  s.end_col = (int32_t)(end - lx->line_start + 1);
  return s;
}

static int fail(const lexer* lx, tvm_script_span span, const char* fmt, ...)
    TVM_FFI_PRINTF(3, 4) TVM_FFI_COLD;
static int fail(const lexer* lx, tvm_script_span span, const char* fmt, ...) {
  tvm_ffi_strbuf msg = {0};
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_script_diag_raise("SyntaxError", lx->src, lx->len, lx->filename, span, "%s",
                        tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&msg);
  return -1;
}

/* Room for more tokens: a buffer twice as large (the consumer's own buffer, `own_data`, is
 * left, not freed). */
static __attribute__((noinline)) bool grow_tokens(lexer* lx) {
  /* 128 tokens hold the parser's window (parse.c) with room for a burst of DEDENTs, in one
   * of the allocator's small size classes (a larger first buffer takes its slower path). */
  size_t cap = lx->cap ? lx->cap * 2 : 128;
  tvm_script__token* data;
  if (lx->data && lx->data == lx->own_data) {
    if ((data = tvm_ffi_malloc(cap * sizeof(tvm_script__token)))) {
      memcpy(data, lx->data, lx->count * sizeof(tvm_script__token));
    }
  } else {
    data = tvm_ffi_realloc(lx->data, cap * sizeof(tvm_script__token));
  }
  if (!data) return false;
  lx->data = data;
  lx->cap = cap;
  return true;
}

static tvm_script__token* push(lexer* lx, int32_t kind, tvm_script_span span) {
  if (lx->count == lx->cap && !grow_tokens(lx)) return NULL;
  tvm_script__token* t = &lx->data[lx->count++];
  t->kind = kind; /* str_len and v: set by the makers of names and literals (lex_internal.h) */
  t->span = span;
  return t;
}

/* The offset of the first line break ('\n' or '\r') at or after p, or lx->len: the end of a
 * comment. memchr finds the '\n' (vectorised, unlike a loop over the bytes); a lone '\r'
 * before it, rare, is then looked for the same way. */
static size_t line_end(const lexer* lx, size_t p) {
  const char* nl = memchr(lx->src + p, '\n', lx->len - p);
  size_t end = nl ? (size_t)(nl - lx->src) : lx->len;
  const char* cr = memchr(lx->src + p, '\r', end - p);
  return cr ? (size_t)(cr - lx->src) : end;
}

static void newline_seen(lexer* lx) {
  /* lx->pos is at '\n' or '\r'; step over it (and the '\n' of "\r\n"). */
  if (lx->src[lx->pos] == '\r' && lx->pos + 1 < lx->len && lx->src[lx->pos + 1] == '\n') ++lx->pos;
  ++lx->pos;
  ++lx->line;
  lx->line_start = lx->pos;
}

/* ---------------------------------------------------------------------------------------- */
/* Indentation                                                                              */
/* ---------------------------------------------------------------------------------------- */

/* At the start of a logical line outside brackets: skip blank and comment-only lines, then
 * emit INDENT/DEDENT tokens for the first line with content. Returns 1 at end of input. */
static int indentation(lexer* lx) {
  for (;;) {
    int32_t col8 = 0, col1 = 0;
    size_t p = lx->pos;
    /* Indentation is mostly runs of spaces (4, 8, 12 ...): they are skipped 8 and 4 at a time
     * (a space moves both columns by one, whatever the tab stops), the rest byte by byte. */
    for (uint64_t w; p + 8 <= lx->len && (memcpy(&w, lx->src + p, 8), w == 0x2020202020202020u);
         p += 8) {
      col8 += 8, col1 += 8;
    }
    for (uint32_t w; p + 4 <= lx->len && (memcpy(&w, lx->src + p, 4), w == 0x20202020u); p += 4) {
      col8 += 4, col1 += 4;
    }
    for (; p < lx->len; ++p) {
      char c = lx->src[p];
      if (c == ' ') {
        ++col8, ++col1;
      } else if (c == '\t') {
        col8 = (col8 / 8 + 1) * 8;
        ++col1;
      } else if (c == '\f') {
        col8 = col1 = 0;
      } else {
        break;
      }
    }
    lx->pos = p;
    if (p >= lx->len) return 1;
    char c = lx->src[p];
    if (c == '#') {
      p = line_end(lx, p);
      lx->pos = p;
      if (lx->pos >= lx->len) return 1;
      newline_seen(lx);
      continue;
    }
    if (c == '\n' || c == '\r') {
      newline_seen(lx);
      continue;
    }
    tvm_script_span ws = span_here(lx, lx->line_start, p);
    int top = lx->ndent;
    if (col8 == lx->indent8[top]) {
      if (col1 != lx->indent1[top]) goto inconsistent;
      return 0;
    }
    if (col8 > lx->indent8[top]) {
      if (col1 <= lx->indent1[top]) goto inconsistent;
      if (top == TVM_SCRIPT_MAX_NESTING) {
        return fail(lx, ws, "too many levels of indentation (the limit is %d)",
                    TVM_SCRIPT_MAX_NESTING);
      }
      lx->ndent = top + 1;
      lx->indent8[top + 1] = col8;
      lx->indent1[top + 1] = col1;
      return push(lx, TVM_SCRIPT_TOK_INDENT, ws) ? 0 : -1;
    }
    tvm_script_span at = span_here(lx, p, p);
    while (lx->ndent > 0 && col8 < lx->indent8[lx->ndent]) {
      --lx->ndent;
      if (!push(lx, TVM_SCRIPT_TOK_DEDENT, at)) return -1;
    }
    if (col8 != lx->indent8[lx->ndent]) {
      return fail(lx, ws, "unindent does not match any outer indentation level");
    }
    if (col1 != lx->indent1[lx->ndent]) goto inconsistent;
    return 0;
  inconsistent:
    return fail(lx, ws, "inconsistent use of tabs and spaces in indentation");
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Numbers                                                                                  */
/* ---------------------------------------------------------------------------------------- */

/* Scan digits of `base` with single underscores between them, from lx->pos. Returns the count
 * of digits, or -1 for a misplaced underscore (lx->pos is then at the offending byte). */
static int64_t scan_digits(lexer* lx, int base, bool leading_underscore_ok) {
  int64_t n = 0;
  bool after_underscore = leading_underscore_ok;
  while (lx->pos < lx->len) {
    unsigned char c = (unsigned char)lx->src[lx->pos];
    if (c == '_') {
      if (!after_underscore && n == 0) return -1;
      if (lx->pos + 1 >= lx->len) return -1;
      int next = hex_value((unsigned char)lx->src[lx->pos + 1]);
      if (next < 0 || next >= base) return -1;
      ++lx->pos;
      after_underscore = false;
      continue;
    }
    int v = hex_value(c);
    if (v < 0 || v >= base) break;
    ++n;
    ++lx->pos;
  }
  return n;
}

/* The value of the float literal [s, e) (scanned by lex_number: digits, at most one '.', an
 * optional exponent) when it has no '_', at most 15 digits and a power of ten within 10**22 of
 * 1: the mantissa m < 10**15 < 2**53 and 10**|p| are then exact doubles, so m * 10**p or
 * m / 10**-p, one correctly rounded IEEE operation, is the correctly rounded value, as strtod
 * gives (Clinger's fast path; in any rounding mode, both rounding the exact value by it). A
 * literal like 1.0 or 0.5 then needs neither strtod's general algorithm nor its locale
 * switch. Returns false for the rest (strtod reads them). */
_Static_assert(FLT_EVAL_METHOD == 0, "float_fast needs double arithmetic in double precision");
static bool float_fast(const char* s, const char* e, double* out) {
  static const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                    1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                    1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
  uint64_t m = 0;
  int digits = 0, frac = 0, exp = 0;
  bool dot = false;
  for (; s < e; ++s) {
    char c = *s;
    if (c >= '0' && c <= '9') {
      if (++digits > 15) return false;
      m = m * 10 + (uint64_t)(c - '0');
      frac += dot;
    } else if (c == '.') {
      dot = true;
    } else {
      break;
    }
  }
  if (s < e) {
    if (*s != 'e' && *s != 'E') return false; /* an underscore */
    ++s;
    bool neg = s < e && *s == '-';
    if (s < e && (*s == '-' || *s == '+')) ++s;
    if (s == e || e - s > 3) return false;
    for (; s < e; ++s) {
      if (*s < '0' || *s > '9') return false;
      exp = exp * 10 + (*s - '0');
    }
    if (neg) exp = -exp;
  }
  int p = exp - frac;
  if (p < -22 || p > 22) return false;
  *out = p >= 0 ? (double)m * kPow10[p] : (double)m / kPow10[-p];
  return true;
}

static int lex_number(lexer* lx) {
  size_t start = lx->pos;
  const char* s = lx->src;
  {
    /* Fast path: a plain decimal integer of at most 18 digits (so it cannot overflow) without
     * a leading zero, followed by neither '.', nor a letter, digit, '_' or non-ASCII byte (an
     * exponent, suffix, underscore or error). Anything else takes the general path below. */
    const unsigned char* u = (const unsigned char*)s;
    size_t p = start, end = lx->len - start > 18 ? start + 18 : lx->len;
    uint64_t v = 0;
    while (p < end && g_tab.cls[u[p]] == B_DIGIT) v = v * 10 + (uint64_t)(u[p++] - '0');
    if (p > start && (u[start] != '0' || p == start + 1) &&
        (p == lx->len || (!is_ident_char(u[p]) && u[p] != '.'))) {
      tvm_script__token* t = push(lx, TVM_SCRIPT_TOK_INT, span_here(lx, start, p));
      if (!t) return -1;
      t->v.i = (int64_t)v;
      lx->pos = p;
      return 0;
    }
  }
  bool is_float = false;
  int base = 10;
  const char* base_name = "decimal";
  if (s[start] == '0' && start + 1 < lx->len) {
    char p = s[start + 1];
    if (p == 'x' || p == 'X') base = 16, base_name = "hexadecimal";
    if (p == 'o' || p == 'O') base = 8, base_name = "octal";
    if (p == 'b' || p == 'B') base = 2, base_name = "binary";
  }
  if (base != 10) {
    lx->pos += 2;
    if (scan_digits(lx, base, true) <= 0) {
      return fail(lx, span_here(lx, start, lx->pos + (lx->pos < lx->len)),
                  "invalid %s literal", base_name);
    }
  } else {
    int64_t int_digits = 0;
    if (s[start] != '.') {
      int_digits = scan_digits(lx, 10, false);
      if (int_digits < 0) goto bad_decimal;
    }
    if (lx->pos < lx->len && s[lx->pos] == '.') {
      is_float = true;
      ++lx->pos;
      if (lx->pos < lx->len && s[lx->pos] >= '0' && s[lx->pos] <= '9' &&
          scan_digits(lx, 10, false) < 0) {
        goto bad_decimal;
      }
    }
    if (lx->pos < lx->len && (s[lx->pos] == 'e' || s[lx->pos] == 'E')) {
      is_float = true;
      ++lx->pos;
      if (lx->pos < lx->len && (s[lx->pos] == '+' || s[lx->pos] == '-')) ++lx->pos;
      if (lx->pos >= lx->len || s[lx->pos] < '0' || s[lx->pos] > '9') goto bad_decimal;
      if (scan_digits(lx, 10, false) < 0) goto bad_decimal;
    }
    if (lx->pos < lx->len && (s[lx->pos] == 'j' || s[lx->pos] == 'J')) {
      return fail(lx, span_here(lx, start, lx->pos + 1),
                  "complex literals are not supported in TVMScript");
    }
    if (!is_float && s[start] == '0') {
      for (size_t i = start; i < lx->pos; ++i) {
        if (s[i] != '0' && s[i] != '_') {
          return fail(lx, span_here(lx, start, lx->pos),
                      "leading zeros in decimal integer literals are not permitted; use an 0o "
                      "prefix for octal integers");
        }
      }
    }
  }
  if (lx->pos < lx->len && is_ident_char((unsigned char)s[lx->pos])) {
    return fail(lx, span_here(lx, start, lx->pos + 1), "invalid %s literal", base_name);
  }
  tvm_script_span span = span_here(lx, start, lx->pos);
  if (is_float) {
    double v;
    if (!float_fast(s + start, s + lx->pos, &v)) {
      char small[64];
      size_t n = lx->pos - start;
      char* buf = n < sizeof(small) ? small : tvm_ffi_malloc(n + 1);
      if (!buf) return -1;
      size_t k = 0;
      for (size_t i = start; i < lx->pos; ++i) {
        if (s[i] != '_') buf[k++] = s[i];
      }
      buf[k] = '\0';
      v = tvm_ffi_strtod(buf, NULL);
      if (buf != small) tvm_ffi_free(buf);
    }
    tvm_script__token* t = push(lx, TVM_SCRIPT_TOK_FLOAT, span);
    if (!t) return -1;
    t->v.f = v;
    return 0;
  }
  uint64_t v = 0;
  for (size_t i = start + (base == 10 ? 0 : 2); i < lx->pos; ++i) {
    if (s[i] == '_') continue;
    uint64_t d = (uint64_t)hex_value((unsigned char)s[i]);
    if (v > (UINT64_C(0x7FFFFFFFFFFFFFFF) - d) / (uint64_t)base) {
      return fail(lx, span, "integer literal is too large (the limit is 2**63 - 1)");
    }
    v = v * (uint64_t)base + d;
  }
  tvm_script__token* t = push(lx, TVM_SCRIPT_TOK_INT, span);
  if (!t) return -1;
  t->v.i = (int64_t)v;
  return 0;
bad_decimal:
  return fail(lx, span_here(lx, start, lx->pos + (lx->pos < lx->len)), "invalid decimal literal");
}

/* ---------------------------------------------------------------------------------------- */
/* Strings                                                                                  */
/* ---------------------------------------------------------------------------------------- */

static void put_utf8(tvm_ffi_strbuf* b, uint32_t cp) {
  char u[4];
  size_t n;
  if (cp < 0x80) {
    u[0] = (char)cp, n = 1;
  } else if (cp < 0x800) {
    u[0] = (char)(0xC0 | (cp >> 6)), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  } else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12)), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18)), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
  }
  tvm_ffi_strbuf_append(b, u, n);
}

/* An escape sequence at lx->pos (the byte after the backslash); `bs` is the backslash. */
static int lex_escape(lexer* lx, size_t bs) {
  tvm_ffi_strbuf* b = &lx->scratch;
  const char* s = lx->src;
  char c = s[lx->pos];
  static const char kSimple[] = "\\\\''\"\"a\ab\bf\fn\nr\rt\tv\v";
  for (size_t i = 0; i + 1 < sizeof(kSimple); i += 2) {
    if (c == kSimple[i]) {
      tvm_ffi_strbuf_putc(b, kSimple[i + 1]);
      ++lx->pos;
      return 0;
    }
  }
  if (c >= '0' && c <= '7') {
    uint32_t v = 0;
    for (int k = 0; k < 3 && lx->pos < lx->len && s[lx->pos] >= '0' && s[lx->pos] <= '7'; ++k) {
      v = v * 8 + (uint32_t)(s[lx->pos++] - '0');
    }
    put_utf8(b, v);
    return 0;
  }
  int digits = c == 'x' ? 2 : c == 'u' ? 4 : c == 'U' ? 8 : 0;
  if (digits) {
    ++lx->pos;
    uint32_t v = 0;
    for (int k = 0; k < digits; ++k) {
      int h = lx->pos < lx->len ? hex_value((unsigned char)s[lx->pos]) : -1;
      if (h < 0) {
        return fail(lx, span_here(lx, bs, lx->pos), "truncated \\%c escape: expected %d hex digits",
                    c, digits);
      }
      v = v * 16 + (uint32_t)h;
      ++lx->pos;
    }
    if (v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF)) {
      return fail(lx, span_here(lx, bs, lx->pos), "invalid Unicode code point in \\%c escape", c);
    }
    put_utf8(b, v);
    return 0;
  }
  if (c == 'N') {
    return fail(lx, span_here(lx, bs, lx->pos + 1),
                "\\N{...} escapes are not supported in TVMScript");
  }
  /* An unknown escape keeps its backslash (Python's behaviour). */
  tvm_ffi_strbuf_putc(b, '\\');
  return 0;
}

/* Length of a well-formed UTF-8 sequence of 2..4 bytes at p, or 0: no overlong form, no
 * surrogate (U+D800..U+DFFF), nothing above U+10FFFF (the second byte's range says which). */
static int utf8_seq(const unsigned char* p, size_t avail) {
  int n = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
        : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
  if (n == 0 || (size_t)n > avail) return 0;
  for (int i = 1; i < n; ++i) {
    if ((p[i] & 0xC0) != 0x80) return 0;
  }
  unsigned lo = p[0] == 0xE0 ? 0xA0 : p[0] == 0xF0 ? 0x90 : 0x80;
  unsigned hi = p[0] == 0xED ? 0x9F : p[0] == 0xF4 ? 0x8F : 0xBF;
  return p[1] >= lo && p[1] <= hi ? n : 0;
}

/* A string literal's text must be UTF-8, as Python reads a source file: its bytes go into the
 * IR's strings (names, attributes, R.str) and from there into printed text and JSON. The literal
 * spans [from, to) and starts on line `line` (which begins at byte line_start). */
static int check_utf8(const lexer* lx, size_t from, size_t to, int32_t line, size_t line_start) {
  const unsigned char* s = (const unsigned char*)lx->src;
  for (size_t i = from; i < to; ++i) {
    if (s[i] < 0x80) continue;
    int n = utf8_seq(s + i, to - i);
    if (n) {
      i += (size_t)n - 1;
      continue;
    }
    for (size_t j = from; j < i; ++j) { /* (the line of the byte, in a triple-quoted literal) */
      if (s[j] == '\n') ++line, line_start = j + 1;
    }
    lexer at = *lx;
    at.line = line, at.line_start = line_start;
    return fail(&at, span_here(&at, i, i + 1), "invalid UTF-8 byte 0x%02x", s[i]);
  }
  return 0;
}

static int lex_string_token(lexer* lx, size_t start);

/* A string literal whose prefix (possibly empty) starts at `start`; lx->pos is at the quote. */
static int lex_string(lexer* lx, size_t start) {
  int32_t line = lx->line;
  size_t line_start = lx->line_start;
  if (lex_string_token(lx, start) != 0) return -1;
  return check_utf8(lx, start, lx->pos, line, line_start);
}

static int lex_string_token(lexer* lx, size_t start) {
  const char* s = lx->src;
  bool raw = false;
  for (size_t i = start; i < lx->pos; ++i) {
    char p = s[i];
    if (p == 'r' || p == 'R') raw = true;
    if (p == 'b' || p == 'B') {
      return fail(lx, span_here(lx, start, lx->pos + 1),
                  "bytes literals are not supported in TVMScript");
    }
    if (p == 'f' || p == 'F') {
      return fail(lx, span_here(lx, start, lx->pos + 1),
                  "f-strings are not supported in TVMScript");
    }
  }
  char q = s[lx->pos];
  bool triple = lx->pos + 2 < lx->len && s[lx->pos + 1] == q && s[lx->pos + 2] == q;
  int32_t line0 = lx->line;
  size_t line_start0 = lx->line_start;
  tvm_script_span open = span_here(lx, start, lx->pos + (triple ? 3 : 1));
  lx->pos += triple ? 3 : 1;
  if (!triple) {
    /* Most literals have no escape and no line break: their value is their text, the bytes
     * between the quotes (a raw prefix changes nothing without a backslash), so the token
     * refers to the source instead of copying it. Anything else takes the loop below. */
    size_t pos = lx->pos;
    while (pos < lx->len) {
      char c = s[pos];
      if (c == q || c == '\\' || c == '\n' || c == '\r') break;
      ++pos;
    }
    if (pos < lx->len && s[pos] == q) {
      tvm_script__token* t = push(lx, TVM_SCRIPT_TOK_STRING, span_here(lx, start, pos + 1));
      if (!t) return -1;
      t->v.str = s + lx->pos;
      t->str_len = (uint32_t)(pos - lx->pos); /* the source is under INT32_MAX bytes */
      lx->pos = pos + 1;
      return 0;
    }
  } else {
    /* Likewise a triple-quoted literal without escape or '\r' (a metadata section's JSON): its
     * value is its text, line breaks included; only the lines are counted. */
    size_t pos = lx->pos, line_start = lx->line_start;
    int32_t lines = 0;
    while (pos < lx->len) {
      char c = s[pos];
      if (c == '\\' || c == '\r') break;
      if (c == q && pos + 2 < lx->len && s[pos + 1] == q && s[pos + 2] == q) break;
      if (c == '\n') {
        ++lines;
        line_start = pos + 1;
      }
      ++pos;
    }
    if (pos + 2 < lx->len && s[pos] == q) {
      lx->line += lines;
      lx->line_start = line_start;
      tvm_script__token* t = push(lx, TVM_SCRIPT_TOK_STRING, span_here(lx, start, pos + 3));
      if (!t) return -1;
      /* (the span starts on the opening line) */
      t->span.start_line = line0;
      t->span.start_col = (int32_t)(start - line_start0 + 1);
      t->v.str = s + lx->pos;
      t->str_len = (uint32_t)(pos - lx->pos);
      lx->pos = pos + 3;
      return 0;
    }
  }
  tvm_ffi_strbuf* b = &lx->scratch;
  b->size = 0;
  /* The text is copied in runs up to the next quote, backslash or line break. A character that
   * stands for itself there (a quote or a '\n' inside a triple-quoted literal; the second
   * character of \\, \' and \", the escaped quotes of a JSON metadata section; both characters
   * of a raw literal's backslash pair) starts the next run instead of being copied alone. */
  size_t run = lx->pos;
  for (;;) {
    size_t pos = lx->pos;
    while (pos < lx->len) {
      char c = s[pos];
      if (c == q || c == '\\' || c == '\n' || c == '\r') break;
      ++pos;
    }
    lx->pos = pos;
    tvm_ffi_strbuf_append(b, s + run, pos - run);
    if (pos >= lx->len) goto unterminated;
    char c = s[pos];
    if (c == q) {
      if (!triple) {
        ++lx->pos;
        break;
      }
      if (pos + 2 < lx->len && s[pos + 1] == q && s[pos + 2] == q) {
        lx->pos += 3;
        break;
      }
      run = lx->pos++;
    } else if (c == '\n' || c == '\r') {
      if (!triple) goto unterminated;
      if (c == '\r') tvm_ffi_strbuf_putc(b, '\n'); /* (a '\n' is the next run's first byte) */
      newline_seen(lx);
      run = c == '\r' ? lx->pos : pos;
    } else { /* backslash */
      size_t bs = lx->pos++;
      if (lx->pos >= lx->len) goto unterminated;
      char e = s[lx->pos];
      if (e == '\n' || e == '\r') {
        if (raw) {
          tvm_ffi_strbuf_append(b, "\\\n", 2);
        }
        newline_seen(lx);
        run = lx->pos;
      } else if (raw) {
        run = bs;
        ++lx->pos;
      } else if (e == '\\' || e == '\'' || e == '"') {
        run = lx->pos++;
      } else {
        if (lex_escape(lx, bs) != 0) return -1;
        run = lx->pos;
      }
    }
  }
  if (b->failed) return tvm_ffi_raise("MemoryError", "out of memory lexing a string literal");
  if (b->size > UINT32_MAX - 1) return fail(lx, open, "string literal too long");
  tvm_script_span span = open;
  span.end_byte = (int64_t)lx->pos;
  span.end_line = lx->line;
  span.end_col = (int32_t)(lx->pos - lx->line_start + 1);
  const char* copy = tvm_script__arena_strdup(lx->names->arena, b->data ? b->data : "", b->size);
  tvm_script__token* t = copy ? push(lx, TVM_SCRIPT_TOK_STRING, span) : NULL;
  if (!t) return -1;
  t->v.str = copy;
  t->str_len = (uint32_t)b->size;
  return 0;
unterminated:
  /* Report at the opening quote(s), on the line where the literal started. */
  lx->line = line0;
  lx->line_start = line_start0;
  if (triple) return fail(lx, open, "unterminated triple-quoted string literal");
  {
    size_t end = (size_t)open.start_byte;
    while (end < lx->len && s[end] != '\n' && s[end] != '\r') ++end;
    return fail(lx, span_here(lx, start, end), "unterminated string literal");
  }
}

/* ---------------------------------------------------------------------------------------- */
/* Names, operators, the main loop                                                          */
/* ---------------------------------------------------------------------------------------- */

static int lex_name(lexer* lx) {
  size_t start = lx->pos;
  const unsigned char* s = (const unsigned char*)lx->src;
  bool ascii = true;
  /* The ASCII part first, one table load per byte, with the position in a local (lx->pos could
   * alias the bytes for the compiler); the loop below takes the rest (non-ASCII). */
  size_t pos = start, len = lx->len;
  while (pos < len && is_name_or_digit(s[pos])) ++pos;
  lx->pos = pos;
  while (lx->pos < lx->len && is_ident_char(s[lx->pos])) {
    if (s[lx->pos] >= 0x80) {
      int n = utf8_seq(s + lx->pos, lx->len - lx->pos);
      if (!n) {
        return fail(lx, span_here(lx, lx->pos, lx->pos + 1), "invalid UTF-8 byte 0x%02x",
                    s[lx->pos]);
      }
      /* Spaces, invisible and punctuation characters pasted from documents (no-break space,
       * zero-width space, curly quotes): Python rejects them in names, and so do we. */
      uint32_t cp = n == 2 ? (s[lx->pos] & 0x1Fu) << 6 | (s[lx->pos + 1] & 0x3Fu)
                    : n == 3 ? (s[lx->pos] & 0x0Fu) << 12 | (s[lx->pos + 1] & 0x3Fu) << 6 |
                                   (s[lx->pos + 2] & 0x3Fu)
                             : 0;
      if (cp == 0xA0 || cp == 0xAD || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x206F) ||
          cp == 0x3000 || cp == 0xFEFF) {
        return fail(lx, span_here(lx, lx->pos, lx->pos + (size_t)n),
                    "invalid character U+%04X (a space or punctuation character) in the program",
                    (unsigned)cp);
      }
      ascii = false;
      lx->pos += (size_t)n;
    } else {
      ++lx->pos;
    }
  }
  size_t n = lx->pos - start;
  if (lx->pos < lx->len && (s[lx->pos] == '"' || s[lx->pos] == '\'') && n <= 2 && ascii) {
    bool prefix = true;
    for (size_t i = start; i < lx->pos; ++i) {
      prefix = prefix && strchr("rRbBuUfF", s[i]) != NULL;
    }
    if (prefix) return lex_string(lx, start);
  }
  script_name* name = tvm_script__intern(lx->names, lx->src + start, n, lx->len - start);
  tvm_script__token* t = name ? push(lx, name->token, span_here(lx, start, lx->pos)) : NULL;
  if (!t) return -1;
  t->v.name = name;
  return 0;
}

/* The brackets are consecutive kinds, each opener followed by its closer. */
_Static_assert(TVM_SCRIPT_TOK_RPAREN == TVM_SCRIPT_TOK_LPAREN + 1 &&
                   TVM_SCRIPT_TOK_LBRACKET == TVM_SCRIPT_TOK_LPAREN + 2 &&
                   TVM_SCRIPT_TOK_RBRACKET == TVM_SCRIPT_TOK_LPAREN + 3 &&
                   TVM_SCRIPT_TOK_LBRACE == TVM_SCRIPT_TOK_LPAREN + 4 &&
                   TVM_SCRIPT_TOK_RBRACE == TVM_SCRIPT_TOK_LPAREN + 5,
               "bracket kinds are (, ), [, ], {, } in order");
static inline bool is_bracket(int32_t k) { return (uint32_t)(k - TVM_SCRIPT_TOK_LPAREN) < 6; }
static inline bool is_open(int32_t k) { return ((k - TVM_SCRIPT_TOK_LPAREN) & 1) == 0; }
static int32_t closer_of(int32_t k) { return k + 1; }

/* The operator at s (avail bytes), or NULL. */
static const spelling* match_operator(const char* s, size_t avail) {
  unsigned char c = (unsigned char)s[0];
  if (c >= 128) return NULL;
  /* Most operators are one byte that nothing longer continues: `(`, `,`, `.`, `=`. */
  if (g_tab.op_single[c]) {
    unsigned char c2 = avail > 1 ? (unsigned char)s[1] : 0;
    if (c2 >= 128 || !(g_tab.op_follow[c][c2 >> 6] >> (c2 & 63) & 1)) {
      return &kOperators[g_tab.op_single[c] - 1];
    }
  }
  for (const uint8_t* cand = g_tab.op_cand[c]; *cand; ++cand) {
    const spelling* op = &kOperators[*cand - 1];
    if (op->size <= avail && same_text(op->text, s, op->size)) return op;
  }
  return NULL;
}

static int lex_operator(lexer* lx) {
  const char* s = lx->src + lx->pos;
  const spelling* op = match_operator(s, lx->len - lx->pos);
  if (op) {
    tvm_script_span span = span_here(lx, lx->pos, lx->pos + op->size);
    if (!is_bracket(op->kind)) {
      /* the common case: nothing to match */
    } else if (is_open(op->kind)) {
      if (lx->depth == TVM_SCRIPT_MAX_NESTING) {
        return fail(lx, span, "too many nested brackets (the limit is %d)",
                    TVM_SCRIPT_MAX_NESTING);
      }
      lx->brackets[lx->depth] = op->kind;
      lx->bracket_byte[lx->depth] = (uint32_t)lx->pos;
      lx->bracket_line_col[lx->depth++] =
          (uint64_t)(uint32_t)span.start_col << 32 | (uint32_t)span.start_line;
    } else {
      if (lx->depth == 0) return fail(lx, span, "unmatched '%s'", op->text);
      int32_t open = lx->brackets[lx->depth - 1];
      if (closer_of(open) != op->kind) {
        return fail(lx, span, "closing parenthesis '%s' does not match opening parenthesis %s",
                    op->text, kKindNames[open]);
      }
      --lx->depth;
    }
    lx->pos += op->size;
    return push(lx, op->kind, span) ? 0 : -1;
  }
  unsigned char c = (unsigned char)s[0];
  if (c >= 0x21 && c < 0x7F) {
    return fail(lx, span_here(lx, lx->pos, lx->pos + 1), "invalid character '%c'", c);
  }
  return fail(lx, span_here(lx, lx->pos, lx->pos + 1), "invalid character (byte 0x%02x)", c);
}

/* The end of input: close what is open, then ENDMARKER. */
static int finish(lexer* lx) {
  lx->done = true;
  if (lx->depth > 0) {
    /* The bracket's span (one byte on one line) from its byte and (line, column) pair. */
    int d = lx->depth - 1;
    tvm_script_span open;
    open.start_line = open.end_line = (int32_t)(uint32_t)lx->bracket_line_col[d];
    open.start_col = (int32_t)(lx->bracket_line_col[d] >> 32);
    open.end_col = open.start_col + 1;
    open.start_byte = (int64_t)lx->bracket_byte[d];
    open.end_byte = open.start_byte + 1;
    return fail(lx, open, "%s was never closed", kKindNames[lx->brackets[d]]);
  }
  tvm_script_span eof = span_here(lx, lx->pos, lx->pos);
  if (lx->line_has_tokens && !push(lx, TVM_SCRIPT_TOK_NEWLINE, eof)) return -1;
  for (; lx->ndent > 0; --lx->ndent) {
    if (!push(lx, TVM_SCRIPT_TOK_DEDENT, eof)) return -1;
  }
  return push(lx, TVM_SCRIPT_TOK_ENDMARKER, eof) ? 0 : -1;
}

/* Lex at least one token (several at line starts and at the end), or at a line start only its
 * indentation when the line has more text than its break (see below). */
static int lex_step(lexer* lx) {
  const char* s = lx->src;
  const uint8_t* cls = g_tab.cls;
  for (;;) {
    if (lx->at_line_start) {
      lx->at_line_start = false;
      int r = indentation(lx);
      if (r < 0) return -1;
      if (r == 1) return finish(lx);
      /* The line's first token is left to lex_fast, which takes most (a name, `@`); the caller
       * calls lex_step again for one it leaves, which then lexes it below (at_line_start is
       * now false). */
      if (lx->pos < lx->fast_end) return 0;
    }
    size_t pos = lx->pos;
    while (pos < lx->len && cls[(unsigned char)s[pos]] == B_SPACE) ++pos;
    lx->pos = pos;
    if (pos >= lx->len) return finish(lx);
    unsigned char c = (unsigned char)s[pos];
    int r;
    switch (cls[c]) {
      case B_NAME:
      case B_UTF8:
        r = lex_name(lx);
        break;
      case B_DIGIT:
        r = lex_number(lx);
        break;
      case B_DOT:
        r = pos + 1 < lx->len && cls[(unsigned char)s[pos + 1]] == B_DIGIT ? lex_number(lx)
                                                                         : lex_operator(lx);
        break;
      case B_QUOTE:
        r = lex_string(lx, pos);
        break;
      case B_HASH:
        pos = line_end(lx, pos);
        lx->pos = pos;
        continue;
      case B_NEWLINE: {
        if (lx->depth == 0 && lx->line_has_tokens) {
          size_t nl_end = pos + (c == '\r' && pos + 1 < lx->len && s[pos + 1] == '\n' ? 2 : 1);
          if (!push(lx, TVM_SCRIPT_TOK_NEWLINE, span_here(lx, pos, nl_end))) return -1;
          lx->line_has_tokens = false;
        }
        newline_seen(lx);
        lx->at_line_start = lx->depth == 0;
        continue; /* on to the next line's indentation (a call and a round of the caller less) */
      }
      case B_BACKSLASH: {
        size_t bs = lx->pos++;
        if (lx->pos < lx->len && (s[lx->pos] == '\n' || s[lx->pos] == '\r')) {
          newline_seen(lx);
          if (lx->pos >= lx->len) {
            return fail(lx, span_here(lx, lx->pos, lx->pos), "unexpected end of input after a "
                        "line continuation");
          }
          continue;
        }
        lx->pos = bs;
        return fail(lx, span_here(lx, bs, bs + 1),
                    "unexpected character after line continuation character");
      }
      default:
        r = lex_operator(lx);
        break;
    }
    if (r != 0) return -1;
    lx->line_has_tokens = true;
    return 0;
  }
}

int tvm_script__lexer_init(lexer* lx, const char* source, size_t len, const char* filename,
                           script_names* names) {
  if (!__atomic_load_n(&g_tab_ready, __ATOMIC_ACQUIRE)) pthread_once(&g_tab_once, build_tables);
  /* Every field but the stacks, whose entries are set before they are read (see the struct). */
  lx->src = source ? source : "";
  lx->len = len;
  lx->filename = filename ? filename : "<string>";
  lx->pos = 0;
  lx->line = 1;
  lx->line_start = 0;
  lx->at_line_start = true;
  lx->line_has_tokens = false;
  lx->done = false;
  lx->names = names;
  lx->data = lx->own_data = NULL;
  lx->count = lx->cap = 0;
  lx->scratch = (tvm_ffi_strbuf){0};
  lx->indent8[0] = lx->indent1[0] = 0;
  lx->ndent = 0;
  lx->depth = 0;
  lx->fast_end = 0;
  if (len >= INT32_MAX) {
    lx->done = true;
    return tvm_ffi_raise("SyntaxError", "%s: source too large (%zu bytes)", lx->filename, len);
  }
  if (len >= 3 && memcmp(lx->src, "\xEF\xBB\xBF", 3) == 0) { /* a UTF-8 BOM, as Python skips it */
    lx->pos = 3;
    lx->line_start = 3;
  }
  /* The last line break (0: none, as a text starting with its only line break has no token
   * before it), which bounds lex_fast's scans. */
  lx->fast_end = len;
  while (lx->fast_end > 0 && g_tab.cls[(unsigned char)lx->src[lx->fast_end - 1]] != B_NEWLINE) {
    --lx->fast_end;
  }
  if (lx->fast_end > 0) --lx->fast_end;
  return 0;
}

/* A line and its start (a byte offset) in one word, for set_line_col: (1 - line_start) mod
 * 2**32 above the line, so that (byte << 32) + key is the line then the 1-based column of
 * byte, the layout of a span's start_line/start_col and end_line/end_col pairs (little-endian;
 * offsets and lines are under 2**31, see lexer_init). */
static inline uint64_t line_key(int32_t line, size_t line_start) {
  return (uint64_t)(uint32_t)(1 - (uint32_t)line_start) << 32 | (uint32_t)line;
}
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "set_line_col writes little-endian");
_Static_assert(offsetof(tvm_script_span, start_col) == offsetof(tvm_script_span, start_line) + 4 &&
                   offsetof(tvm_script_span, end_col) == offsetof(tvm_script_span, end_line) + 4,
               "a span's line is followed by its column");
/* Sets the (line, column) pair at `at` (&span.start_line or &span.end_line) for byte. */
static inline void set_line_col(int32_t* at, size_t byte, uint64_t key) {
  uint64_t v = ((uint64_t)byte << 32) + key;
  memcpy(at, &v, sizeof(v));
}

/* The hot path, most of the tokens of a program: ASCII names and keywords, one-byte operators
 * and the spaces between them, and the line breaks ('\n') after them or within brackets with
 * the next line's indentation when it stays at the current level. The state lives in
 * locals and the room for tokens is checked once (tokens are written up to `limit`, within the
 * buffer's capacity), where lex_step costs a few calls, a capacity check and re-reads of the
 * lexer per token. Anything else (INDENT/DEDENT, blank and comment lines, '\r', numbers,
 * strings, comments, longer or invalid operators, non-ASCII names, brackets that do not match,
 * the end) is left to lex_step, which handles every case (and gives every error): this loop
 * stops before such a token, having consumed nothing of it (or, after a line break, at the
 * next line's start with lx->at_line_start set, as lex_step leaves it). The tokens are those
 * lex_name/lex_operator/lex_step make. It runs only up to lx->fast_end, the text's last line
 * break: every scan below stops at a line break (it is no space, name byte or operator), so
 * none needs a bounds check. */
static void lex_fast(lexer* lx, size_t limit) {
  const unsigned char* s = (const unsigned char*)lx->src;
  const uint8_t* cls = g_tab.cls;
  /* The line and its start in one word (line_key): a token's columns cost a shift and an add
   * each, and the loop keeps one register for both. */
  uint64_t lk = line_key(lx->line, lx->line_start);
  size_t pos = lx->pos;
  tvm_script__token* t = lx->data + lx->count;
  tvm_script__token* const tend = lx->data + limit;
  /* The first token of the current line (since the last line break taken here): the line has
   * tokens when t is past it; NULL when it had some before this call. */
  tvm_script__token* line_first = lx->line_has_tokens ? NULL : t;
  while (t < tend) {
    /* Spaces only (one compare a byte, no class load): a tab or form feed is no token byte
     * below, so the loop stops before it and lex_step takes it with what follows. */
    while (s[pos] == ' ') ++pos;
    size_t start = pos;
    unsigned char c = s[pos];
    uint8_t cl = cls[c];
    int32_t kind;
    if (cl == B_NAME) {
      /* Two bytes a step: s[pos] is a name byte, so pos < fast_end and s[pos + 1] is in the
       * text (the line break at fast_end ends every scan). */
      ++pos;
      while (g_tab.name_cont[s[pos]]) {
        if (!g_tab.name_cont[s[pos + 1]]) {
          ++pos;
          break;
        }
        pos += 2;
      }
      /* A non-ASCII continuation, or a string prefix (r"..."): lex_name's cases. */
      if (g_tab.name_odd_end[s[pos]]) { /* s[pos] >= 0x80 || cls[s[pos]] == B_QUOTE */
        pos = start;
        break;
      }
      /* One lookup interns the word and tells a keyword (ast.h). */
      script_name* name =
          tvm_script__intern(lx->names, (const char*)s + start, pos - start, lx->len - start);
      if (!name) { /* (out of memory: lex_name raises it) */
        pos = start;
        break;
      }
      t->v.name = name;
      kind = name->token;
    } else if ((1u << cl) & (1u << B_OTHER | 1u << B_DOT)) {
      /* B_OTHER or B_DOT (one bit test instead of two compares); B_OTHER bytes are ASCII
       * (B_UTF8 is apart). */
      kind = g_tab.op_kind[c];
      if (!kind) break; /* only a longer operator starts with c, or c is invalid */
      if (!g_tab.op_alone[c]) {
        unsigned char c2 = s[pos + 1]; /* pos < fast_end: s[pos] is no line break */
        /* A longer operator ("**", "->", "..."), or a float like .5: match_operator's and
         * lex_step's cases. */
        if (c2 < 128 && (g_tab.op_follow[c][c2 >> 6] >> (c2 & 63) & 1)) break;
        if (cl == B_DOT && cls[c2] == B_DIGIT) break;
      }
      if (is_bracket(kind)) { /* lex_operator's bookkeeping; its errors are its own */
        if (is_open(kind)) {
          if (lx->depth == TVM_SCRIPT_MAX_NESTING) break;
          lx->brackets[lx->depth] = kind;
          lx->bracket_byte[lx->depth] = (uint32_t)start;
          lx->bracket_line_col[lx->depth++] = ((uint64_t)start << 32) + lk; /* set_line_col's */
        } else {
          if (lx->depth == 0 || closer_of(lx->brackets[lx->depth - 1]) != kind) break;
          --lx->depth;
        }
      }
      ++pos;
    } else if (cl == B_DIGIT) {
      /* lex_number's fast path: a decimal integer of at most 18 digits (no overflow) without
       * a leading zero, followed by none of '.', a letter, digit, '_' or non-ASCII byte (an
       * exponent, suffix, underscore or error: lex_number's cases). */
      uint64_t v = 0;
      while (cls[s[pos]] == B_DIGIT && pos - start < 18) v = v * 10 + (uint64_t)(s[pos++] - '0');
      if ((c == '0' && pos > start + 1) || is_ident_char(s[pos]) || s[pos] == '.') {
        pos = start;
        break;
      }
      t->v.i = (int64_t)v;
      kind = TVM_SCRIPT_TOK_INT;
      goto token;
    } else if (cl == B_QUOTE) {
      /* lex_string's view of the source: a literal without prefix, escape, line break or
       * non-ASCII byte (lex_string checks those are UTF-8; the scan stops at a line break at
       * fast_end at the latest); not a triple quote. */
      if (s[pos + 1] == c) break; /* '' or a triple quote: lex_string's */
      size_t q = pos + 1;
      while (s[q] != c && s[q] != '\\' && cls[s[q]] != B_NEWLINE && s[q] < 0x80) ++q;
      if (s[q] != c) break;
      pos = q + 1;
      t->kind = TVM_SCRIPT_TOK_STRING;
      t->v.str = (const char*)s + start + 1;
      t->str_len = (uint32_t)(q - start - 1);
      goto span;
    } else if (c == '\n') {
      /* A line break (lex_step's B_NEWLINE case, then indentation()'s common case), so that a
       * line ends and the next starts without leaving this loop: '\n' ('\r' is lex_step's)
       * after tokens, or inside brackets. The break at fast_end is the text's last: after it
       * the scans would need bounds checks, so lex_step takes over there. */
      if (pos == lx->fast_end) break;
      if (lx->depth > 0) { /* joined with the next line: no token, no indentation */
        ++pos;
        lk = line_key((int32_t)(uint32_t)lk + 1, pos);
        continue;
      }
      if (t == line_first) break; /* no token on the line (lex_step's case: no NEWLINE) */
      t->kind = TVM_SCRIPT_TOK_NEWLINE;
      set_line_col(&t->span.start_line, pos, lk);
      set_line_col(&t->span.end_line, pos + 1, lk);
      t->span.start_byte = (int64_t)pos;
      t->span.end_byte = (int64_t)pos + 1;
      line_first = ++t;
      ++pos;
      lk = line_key((int32_t)(uint32_t)lk + 1, pos);
      /* The next line's indentation (indentation()'s common cases): blank lines skipped, then
       * only spaces (they move both columns by one: col8 == col1 == their count), to the
       * current level or to a new one (INDENT) or back to an outer one (DEDENTs), followed by
       * a token. Anything else (tabs, a comment line, '\r', an error, no room for the
       * tokens) is left to indentation() from the line's start (lx->at_line_start), as
       * lex_step leaves it, before any token of that line is made. The scans stop at the
       * break at fast_end at the latest (pos <= fast_end). */
      size_t q;
      for (;;) {
        q = pos;
        for (uint64_t w; q + 8 <= lx->len && (memcpy(&w, s + q, 8), w == 0x2020202020202020u);
             q += 8) {
        }
        while (s[q] == ' ') ++q;
        if (s[q] != '\n' || q == lx->fast_end) break;
        pos = q + 1; /* a blank line */
        lk = line_key((int32_t)(uint32_t)lk + 1, pos);
      }
      uint8_t next = cls[s[q]];
      if (next == B_SPACE || next == B_NEWLINE || next == B_HASH) {
        lx->at_line_start = true;
        break;
      }
      int32_t col = (int32_t)(q - pos);
      int top = lx->ndent;
      if (col == lx->indent8[top]) {
        if (col != lx->indent1[top]) {
          lx->at_line_start = true;
          break;
        }
      } else if (col > lx->indent8[top]) {
        if (col <= lx->indent1[top] || top == TVM_SCRIPT_MAX_NESTING || t == tend) {
          lx->at_line_start = true;
          break;
        }
        lx->ndent = top + 1;
        lx->indent8[top + 1] = lx->indent1[top + 1] = col;
        t->kind = TVM_SCRIPT_TOK_INDENT;
        set_line_col(&t->span.start_line, pos, lk);
        set_line_col(&t->span.end_line, q, lk);
        t->span.start_byte = (int64_t)pos;
        t->span.end_byte = (int64_t)q;
        line_first = ++t; /* a layout token: the line has no token yet */
      } else {
        int j = top;
        while (j > 0 && col < lx->indent8[j]) --j;
        if (col != lx->indent8[j] || col != lx->indent1[j] || tend - t < top - j) {
          lx->at_line_start = true;
          break;
        }
        lx->ndent = j;
        for (; top > j; --top) {
          t->kind = TVM_SCRIPT_TOK_DEDENT;
          set_line_col(&t->span.start_line, q, lk);
          set_line_col(&t->span.end_line, q, lk);
          t->span.start_byte = t->span.end_byte = (int64_t)q;
          ++t;
        }
        line_first = t;
      }
      pos = q;
      continue;
    } else {
      break;
    }
  token:
    t->kind = kind;
  span:
    set_line_col(&t->span.start_line, start, lk);
    set_line_col(&t->span.end_line, pos, lk);
    t->span.start_byte = (int64_t)start;
    t->span.end_byte = (int64_t)pos;
    ++t;
  }
  lx->pos = pos;
  lx->line = (int32_t)(uint32_t)lk;
  lx->line_start = (uint32_t)(1 - (uint32_t)(lk >> 32));
  lx->count = (size_t)(t - lx->data);
  lx->line_has_tokens = t != line_first;
}

int tvm_script__lexer_fill(lexer* lx, size_t want) {
  while (!lx->done && lx->count < want) {
    if (!lx->at_line_start && lx->count < lx->cap && lx->pos < lx->fast_end) {
      lex_fast(lx, want < lx->cap ? want : lx->cap);
      if (lx->count >= want) break;
    }
    if (lex_step(lx) != 0) {
      lx->done = true;
      return -1;
    }
  }
  return 0;
}

void tvm_script__lexer_drop(lexer* lx, size_t n) {
  if (n > lx->count) n = lx->count;
  memmove(lx->data, lx->data + n, (lx->count - n) * sizeof(tvm_script__token));
  lx->count -= n;
}

void tvm_script__lexer_free(lexer* lx) {
  if (lx->data != lx->own_data) tvm_ffi_free(lx->data);
  /* Most texts have no string literal to decode (views of the source): no buffer, no call. */
  if (lx->scratch.data) tvm_ffi_strbuf_free(&lx->scratch);
  lx->data = NULL;
  lx->count = lx->cap = 0;
}

/* The public token of t (lexer.h): the fields its kind sets, the rest zero; a string's value
 * appended to `strings`, NUL terminated. */
static void public_token(const tvm_script__token* t, tvm_script_token* o, tvm_ffi_strbuf* strings) {
  memset(o, 0, sizeof(*o));
  o->kind = t->kind;
  o->span = t->span;
  if (t->kind == TVM_SCRIPT_TOK_INT) {
    o->v.i = t->v.i;
  } else if (t->kind == TVM_SCRIPT_TOK_FLOAT) {
    o->v.f = t->v.f;
  } else if (t->kind == TVM_SCRIPT_TOK_STRING) {
    o->str_off = (uint32_t)strings->size;
    o->str_len = t->str_len;
    tvm_ffi_strbuf_append(strings, t->v.str, t->str_len);
    tvm_ffi_strbuf_putc(strings, '\0');
  }
}

/* One streaming pass over the text (the parser's way of reading it: chunks of tokens, each
 * dropped once seen): with `data` NULL, counts the tokens and the bytes of their string
 * values; else stores the public tokens there (room for `cap`) and the values in `strings`. */
static int lex_pass(const char* source, size_t len, const char* filename, script_names* names,
                    tvm_script_token* data, size_t cap, size_t* count, tvm_ffi_strbuf* strings,
                    size_t* string_bytes) {
  lexer lx;
  if (tvm_script__lexer_init(&lx, source, len, filename, names) != 0) return -1;
  int rc = 0;
  *count = *string_bytes = 0;
  while (!lx.done) {
    if (tvm_script__lexer_fill(&lx, 4096) != 0) {
      rc = -1;
      break;
    }
    for (size_t i = 0; i < lx.count; ++i) {
      const tvm_script__token* t = &lx.data[i];
      if (t->kind == TVM_SCRIPT_TOK_STRING) *string_bytes += (size_t)t->str_len + 1;
      if (data && *count == cap) {
        rc = tvm_ffi_raise("RuntimeError", "tvm_script_lex: the second pass found more tokens");
        break;
      }
      if (data) public_token(t, &data[*count], strings);
      ++*count;
    }
    if (rc != 0) break;
    tvm_script__lexer_drop(&lx, lx.count);
  }
  tvm_script__lexer_free(&lx);
  return rc;
}

int tvm_script_lex(const char* source, size_t len, const char* filename, tvm_script_tokens* out) {
  memset(out, 0, sizeof(*out));
  script_arena arena;
  script_names names = {0};
  tvm_script__arena_init(&arena, len);
  tvm_script_token* data = NULL;
  tvm_ffi_strbuf strings = {0};
  size_t count = 0, string_bytes = 0;
  /* Two passes, the first to size the token array: growing it instead cost more (the copies,
   * and the first touches of the blocks given up) than lexing twice. */
  int rc = tvm_script__names_init(&names, &arena, 64);
  if (rc == 0) rc = lex_pass(source, len, filename, &names, NULL, 0, &count, NULL, &string_bytes);
  if (rc == 0 && string_bytes > UINT32_MAX) {
    rc = tvm_ffi_raise("MemoryError", "the string literals hold over 4 GiB");
  }
  if (rc == 0) {
    data = count <= SIZE_MAX / sizeof(*data) ? tvm_ffi_malloc(count * sizeof(*data)) : NULL;
    if (!data) rc = tvm_ffi_raise("MemoryError", "out of memory lexing");
  }
  size_t second = 0;
  if (rc == 0) {
    rc = lex_pass(source, len, filename, &names, data, count, &second, &strings, &string_bytes);
  }
  if (rc == 0 && strings.failed) rc = tvm_ffi_raise("MemoryError", "out of memory lexing");
  if (rc == 0) {
    out->data = data;
    out->count = count;
    out->strings = strings.data;
    out->strings_size = strings.size;
  } else {
    tvm_ffi_free(data);
    tvm_ffi_strbuf_free(&strings);
  }
  tvm_script__names_free(&names);
  tvm_script__arena_free(&arena);
  return rc;
}

void tvm_script_tokens_free(tvm_script_tokens* tokens) {
  tvm_ffi_free(tokens->data);
  tvm_ffi_free(tokens->strings);
  memset(tokens, 0, sizeof(*tokens));
}
