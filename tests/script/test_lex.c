/* test_lex.c: the TVMScript tokenizer: literals, operators, layout tokens, spans, errors. */
#include <stdlib.h>
#include <string.h>
#include <tvm/script/lexer.h>

#include "../../libscript/src/lex_internal.h"
#include "test_util.h"

/* Tokens as text: names and keywords/operators by spelling, i:INT f:FLOAT s:<string>,
 * NL, IN, DE, EOF; "ERR" when lexing failed (the error stays raised). */
static char g_buf[8192];
static const char* lex_str(const char* src) {
  tvm_script_tokens toks;
  if (tvm_script_lex(src, strlen(src), "t.py", &toks) != 0) return "ERR";
  size_t n = 0;
  g_buf[0] = '\0';
  for (size_t i = 0; i < toks.count && n < sizeof(g_buf) - 256; ++i) {
    const tvm_script_token* t = &toks.data[i];
    const char* sep = i ? " " : "";
    switch (t->kind) {
      case TVM_SCRIPT_TOK_NAME:
        n += (size_t)snprintf(g_buf + n, sizeof(g_buf) - n, "%s%.*s", sep,
                              (int)(t->span.end_byte - t->span.start_byte),
                              src + t->span.start_byte);
        break;
      case TVM_SCRIPT_TOK_INT:
        n += (size_t)snprintf(g_buf + n, sizeof(g_buf) - n, "%si:%" PRId64, sep, t->v.i);
        break;
      case TVM_SCRIPT_TOK_FLOAT:
        n += (size_t)snprintf(g_buf + n, sizeof(g_buf) - n, "%sf:%g", sep, t->v.f);
        break;
      case TVM_SCRIPT_TOK_STRING:
        n += (size_t)snprintf(g_buf + n, sizeof(g_buf) - n, "%ss:%.*s", sep, (int)t->str_len,
                              toks.strings + t->str_off);
        break;
      case TVM_SCRIPT_TOK_NEWLINE:
      case TVM_SCRIPT_TOK_INDENT:
      case TVM_SCRIPT_TOK_DEDENT:
      case TVM_SCRIPT_TOK_ENDMARKER: {
        static const char* const kLayout[] = {"EOF", "NL", "IN", "DE"};
        n += (size_t)snprintf(g_buf + n, sizeof(g_buf) - n, "%s%s", sep, kLayout[t->kind]);
        break;
      }
      default: {
        const char* name = tvm_script_token_kind_name(t->kind); /* "'x'" */
        n += (size_t)snprintf(g_buf + n, sizeof(g_buf) - n, "%s%.*s", sep,
                              (int)strlen(name) - 2, name + 1);
      }
    }
  }
  tvm_script_tokens_free(&toks);
  return g_buf;
}

/* The message of the raised SyntaxError (consumed), or "(none)". */
static char g_err[2048];
static const char* lex_err(const char* src) {
  tvm_script_tokens toks;
  if (tvm_script_lex(src, strlen(src), "t.py", &toks) == 0) {
    tvm_script_tokens_free(&toks);
    return "(none)";
  }
  void* e = tvm_ffi_error_take();
  snprintf(g_err, sizeof(g_err), "%s: %s", tvm_ffi_error_kind(e), tvm_ffi_error_message(e));
  tvm_ffi_release(e);
  return g_err;
}

TEST(empty_and_blank) {
  CHECK_STR_EQ(lex_str(""), "EOF");
  CHECK_STR_EQ(lex_str("\n\n   \n# only a comment\n"), "EOF");
  CHECK_STR_EQ(lex_str("x"), "x NL EOF");
  CHECK_STR_EQ(lex_str("x  # trailing comment\r\ny\r\n"), "x NL y NL EOF");
}

TEST(integers) {
  CHECK_STR_EQ(lex_str("1 0 00 0x1F 0XfF 0o17 0O7 0b101 0B1 1_000 0x_ff 0b1_0"),
               "i:1 i:0 i:0 i:31 i:255 i:15 i:7 i:5 i:1 i:1000 i:255 i:2 NL EOF");
  CHECK_STR_EQ(lex_str("9223372036854775807"), "i:9223372036854775807 NL EOF");
  CHECK_STR_EQ(lex_err("x = 9223372036854775808"),
               "SyntaxError: t.py:1:5: error: integer literal is too large (the limit is 2**63 "
               "- 1)\nx = 9223372036854775808\n    ^^^^^^^^^^^^^^^^^^^");
  CHECK_STR_EQ(lex_err("012"),
               "SyntaxError: t.py:1:1: error: leading zeros in decimal integer literals are not "
               "permitted; use an 0o prefix for octal integers\n012\n^^^");
  CHECK_STR_CONTAINS(lex_err("1__0"), "invalid decimal literal");
  CHECK_STR_CONTAINS(lex_err("1_"), "invalid decimal literal");
  CHECK_STR_CONTAINS(lex_err("0x"), "invalid hexadecimal literal");
  CHECK_STR_CONTAINS(lex_err("0b102"), "invalid binary literal");
  CHECK_STR_CONTAINS(lex_err("0o8"), "invalid octal literal");
  CHECK_STR_CONTAINS(lex_err("12abc"), "invalid decimal literal");
  CHECK_STR_CONTAINS(lex_err("1j"), "complex literals are not supported in TVMScript");
}

TEST(floats) {
  CHECK_STR_EQ(lex_str("1.0 1e-3 .5 1.5e+10 1. 2E3 1_0.2_5 0.0 1e308"),
               "f:1 f:0.001 f:0.5 f:1.5e+10 f:1 f:2000 f:10.25 f:0 f:1e+308 NL EOF");
  CHECK_STR_CONTAINS(lex_err("1e"), "invalid decimal literal");
  CHECK_STR_CONTAINS(lex_err("1e+"), "invalid decimal literal");
  /* a.b is an attribute, 1 .real a number then a name */
  CHECK_STR_EQ(lex_str("a.b"), "a . b NL EOF");
}

TEST(strings_and_escapes) {
  CHECK_STR_EQ(lex_str("'a' \"b\" r'\\n' R\"\\\"\" u'x'"), "s:a s:b s:\\n s:\\\" s:x NL EOF");
  CHECK_STR_EQ(lex_str("'\\\\ \\' \\\" \\t|\\n|'"), "s:\\ ' \" \t|\n| NL EOF");
  CHECK_STR_EQ(lex_str("'\\x41\\u00e9\\U0001F600\\101\\0'"),
               "s:A\xc3\xa9\xf0\x9f\x98\x80" "A NL EOF");
  CHECK_STR_EQ(lex_str("'\\a\\b\\f\\r\\v\\q'"), "s:\a\b\f\r\v\\q NL EOF");
  CHECK_STR_EQ(lex_str("'ab\\\ncd'"), "s:abcd NL EOF");
  /* Escapes back to back, first and last; quotes and escapes inside triple quotes; raw pairs. */
  CHECK_STR_EQ(lex_str("'\\\"\\\"x\\\\' '\\\\' 'a\\tb\\'\\''"), "s:\"\"x\\ s:\\ s:a\tb'' NL EOF");
  CHECK_STR_EQ(lex_str("\"\"\"a\"b\\\"c\\\\\"\"\" '''\\'''\\x41'''"),
               "s:a\"b\"c\\ s:'''A NL EOF");
  CHECK_STR_EQ(lex_str("r'a\\'b\\\\' R\"\"\"x\\\"\"\"y\"\"\""), "s:a\\'b\\\\ s:x\\\"\"\"y NL EOF");
  CHECK_STR_EQ(lex_str("'''a\r\nb\\n\r\nc'''"), "s:a\nb\n\nc NL EOF");
  CHECK_STR_EQ(lex_str("\"\"\"doc\nstring 'q' \"\" x\"\"\" '''a'''"),
               "s:doc\nstring 'q' \"\" x s:a NL EOF");
  /* A triple-quoted literal's span runs from its opening line to its closing one, with or
   * without escapes (its value a view of the source, or decoded), and the lines after it count
   * its line breaks. */
  static const char* const kTriple[] = {"x = \"\"\"ab\ncd\"\"\"\ny\n", "x = \"\"\"ab\nc\\x64\"\"\"\ny\n"};
  for (int i = 0; i < 2; ++i) {
    tvm_script_tokens tt;
    CHECK_OK(tvm_script_lex(kTriple[i], strlen(kTriple[i]), NULL, &tt));
    CHECK(tt.count >= 5);
    if (tt.count >= 5) {
      const tvm_script_token* str = &tt.data[2];
      CHECK_EQ_INT(str->kind, TVM_SCRIPT_TOK_STRING);
      CHECK_EQ_INT(str->span.start_line, 1);
      CHECK_EQ_INT(str->span.start_col, 5);
      CHECK_EQ_INT(str->span.end_line, 2);
      CHECK_EQ_INT(str->span.end_col, i == 0 ? 6 : 9);
      CHECK_EQ_INT(str->span.start_byte, 4);
      CHECK_EQ_INT(str->span.end_byte, i == 0 ? 15 : 18);
      CHECK_EQ_INT(str->str_len, 5);
      CHECK(memcmp(tt.strings + str->str_off, "ab\ncd", 5) == 0);
      CHECK_EQ_INT(tt.data[4].span.start_line, 3); /* y */
      CHECK_EQ_INT(tt.data[4].span.start_col, 1);
    }
    tvm_script_tokens_free(&tt);
  }
  /* An embedded NUL is kept: the token's length counts it. */
  tvm_script_tokens toks;
  CHECK_OK(tvm_script_lex("'a\\0b'", 6, NULL, &toks));
  CHECK_EQ_INT(toks.data[0].str_len, 3);
  tvm_script_tokens_free(&toks);
  CHECK_STR_EQ(lex_err("x = 'abc"),
               "SyntaxError: t.py:1:5: error: unterminated string literal\nx = 'abc\n    ^^^^");
  CHECK_STR_EQ(lex_err("x = \"\"\"abc\n\ndef"),
               "SyntaxError: t.py:1:5: error: unterminated triple-quoted string literal\n"
               "x = \"\"\"abc\n    ^^^");
  CHECK_STR_EQ(lex_err("'\\x4'"),
               "SyntaxError: t.py:1:2: error: truncated \\x escape: expected 2 hex digits\n"
               "'\\x4'\n ^^^");
  CHECK_STR_CONTAINS(lex_err("'\\ud800'"), "invalid Unicode code point in \\u escape");
  CHECK_STR_CONTAINS(lex_err("'\\U00110000'"), "invalid Unicode code point in \\U escape");
  CHECK_STR_CONTAINS(lex_err("'\\N{DASH}'"), "\\N{...} escapes are not supported in TVMScript");
  CHECK_STR_CONTAINS(lex_err("b'x'"), "bytes literals are not supported in TVMScript");
  CHECK_STR_CONTAINS(lex_err("f'{x}'"), "f-strings are not supported in TVMScript");
  CHECK_STR_CONTAINS(lex_err("'a\nb'"), "unterminated string literal");
}

TEST(operators_and_keywords) {
  CHECK_STR_EQ(lex_str("+ - * / // % ** @ << >> & | ^ ~ < > <= >= == != -> : = ; , ."),
               "+ - * / // % ** @ << >> & | ^ ~ < > <= >= == != -> : = ; , . NL EOF");
  CHECK_STR_EQ(lex_str("+= -= *= /= //= %= **= &= |= ^= >>= <<= @= := ..."),
               "+= -= *= /= //= %= **= &= |= ^= >>= <<= @= := ... NL EOF");
  CHECK_STR_EQ(lex_str("a**-b//c<<=d"), "a ** - b // c <<= d NL EOF");
  /* Longest match, also where a one-byte operator could end early or the input ends. */
  CHECK_STR_EQ(lex_str("a..b.c->d:=e!=f==g=-h*=*i**"),
               "a . . b . c -> d := e != f == g = - h *= * i ** NL EOF");
  CHECK_STR_EQ(lex_str("x[...]//=y>>z<-w"), "x [ ... ] //= y >> z < - w NL EOF");
  CHECK_STR_CONTAINS(lex_err("a!b"), "invalid character '!'");
  CHECK_STR_EQ(lex_str("def if elif else for in while with as return pass assert lambda not and "
                       "or True False None class from import definitely"),
               "def if elif else for in while with as return pass assert lambda not and or "
               "True False None class from import definitely NL EOF");
  CHECK_STR_EQ(lex_str("\xc3\xa9t\xc3\xa9 = _x1"), "\xc3\xa9t\xc3\xa9 = _x1 NL EOF");
  CHECK_STR_EQ(lex_err("a ? b"), "SyntaxError: t.py:1:3: error: invalid character '?'\na ? b\n  ^");
  CHECK_STR_CONTAINS(lex_err("a $"), "invalid character '$'");
  CHECK_STR_CONTAINS(lex_err("a \x01"), "invalid character (byte 0x01)");
  CHECK_STR_CONTAINS(lex_err("\xff"), "invalid UTF-8 byte 0xff");
  CHECK_STR_CONTAINS(lex_err("a\xc3"), "invalid UTF-8 byte 0xc3");
  /* String literals hold UTF-8 too, whichever way they are scanned: plain, with an escape,
   * triple-quoted over lines (the byte's own line and column). */
  CHECK_STR_EQ(lex_str("s = \"\xc3\xa9 \xe2\x9c\x93\""), "s = s:\xc3\xa9 \xe2\x9c\x93 NL EOF");
  CHECK_STR_EQ(lex_err("s = \"a\xff" "b\""),
               "SyntaxError: t.py:1:7: error: invalid UTF-8 byte 0xff\ns = \"a\xff" "b\"\n      ^");
  CHECK_STR_CONTAINS(lex_err("s = 'a\\n\xc3'"), "t.py:1:9: error: invalid UTF-8 byte 0xc3");
  CHECK_STR_CONTAINS(lex_err("s = '''ok\n\xc3\xa9\nx \xe2\x9c'''"),
                     "t.py:3:3: error: invalid UTF-8 byte 0xe2");
  /* Overlong forms, surrogates and code points above U+10FFFF are not UTF-8. */
  CHECK_STR_CONTAINS(lex_err("s = '\xe0\x80\xaf'"), "invalid UTF-8 byte 0xe0");
  CHECK_STR_CONTAINS(lex_err("s = '\xed\xa0\x80'"), "invalid UTF-8 byte 0xed");
  CHECK_STR_CONTAINS(lex_err("s = '\xf4\x90\x80\x80'"), "invalid UTF-8 byte 0xf4");
  CHECK_STR_CONTAINS(lex_err("\xf0\x8f\xbf\xbf = 1"), "invalid UTF-8 byte 0xf0");
  CHECK_STR_EQ(lex_str("s = '\xed\x9f\xbf\xf4\x8f\xbf\xbf'"),
               "s = s:\xed\x9f\xbf\xf4\x8f\xbf\xbf NL EOF");
}

TEST(brackets_and_continuation) {
  CHECK_STR_EQ(lex_str("f(a,\n  b\n\n      # c\n)\nx"), "f ( a , b ) NL x NL EOF");
  CHECK_STR_EQ(lex_str("x = 1 + \\\n    2\ny"), "x = i:1 + i:2 NL y NL EOF");
  CHECK_STR_EQ(lex_err("x = (1,\n2"),
               "SyntaxError: t.py:1:5: error: '(' was never closed\nx = (1,\n    ^");
  CHECK_STR_EQ(lex_err("x = 1)"), "SyntaxError: t.py:1:6: error: unmatched ')'\nx = 1)\n     ^");
  CHECK_STR_EQ(lex_err("a[1)"),
               "SyntaxError: t.py:1:4: error: closing parenthesis ')' does not match opening "
               "parenthesis '['\na[1)\n   ^");
  CHECK_STR_CONTAINS(lex_err("x = 1 \\ 2"), "unexpected character after line continuation");
  CHECK_STR_CONTAINS(lex_err("x = 1 \\\n"), "unexpected end of input after a line continuation");
}

TEST(indentation) {
  CHECK_STR_EQ(lex_str("if a:\n  b\n  if c:\n      d\n  e\nf\n"),
               "if a : NL IN b NL if c : NL IN d NL DE e NL DE f NL EOF");
  /* Dedent to zero from two levels at end of input. */
  CHECK_STR_EQ(lex_str("if a:\n  if b:\n    c"), "if a : NL IN if b : NL IN c NL DE DE EOF");
  /* Comment-only and blank lines at odd indentation are ignored. */
  CHECK_STR_EQ(lex_str("if a:\n    b\n  # odd\n        \n\t\n    c\n"),
               "if a : NL IN b NL c NL DE EOF");
  /* Tabs: a tab is 8 columns, consistently used. */
  CHECK_STR_EQ(lex_str("if a:\n\tb\n\tif c:\n\t\td\n"),
               "if a : NL IN b NL if c : NL IN d NL DE DE EOF");
  CHECK_STR_EQ(lex_err("if a:\n    b\n  c\n"),
               "SyntaxError: t.py:3:1: error: unindent does not match any outer indentation "
               "level\n  c\n^^");
  CHECK_STR_EQ(lex_err("if a:\n        b\n\tc\n"),
               "SyntaxError: t.py:3:1: error: inconsistent use of tabs and spaces in "
               "indentation\n\tc\n^");
  CHECK_STR_CONTAINS(lex_err("if a:\n\tb\n        c\n"), "inconsistent use of tabs and spaces");
}

TEST(spans) {
  const char* src = "def f(x):\n  return x  +  10\n";
  tvm_script_tokens toks;
  CHECK_OK(tvm_script_lex(src, strlen(src), NULL, &toks));
  /* def f ( x ) : NL IN return x + 10 NL DE EOF */
  CHECK_EQ_INT(toks.count, 15);
  const tvm_script_token* ret = &toks.data[8];
  CHECK_EQ_INT(ret->kind, TVM_SCRIPT_TOK_KW_RETURN);
  CHECK_EQ_INT(ret->span.start_line, 2);
  CHECK_EQ_INT(ret->span.start_col, 3);
  CHECK_EQ_INT(ret->span.end_line, 2);
  CHECK_EQ_INT(ret->span.end_col, 9);
  CHECK_EQ_INT(ret->span.start_byte, 12);
  CHECK_EQ_INT(ret->span.end_byte, 18);
  const tvm_script_token* ten = &toks.data[11];
  CHECK_EQ_INT(ten->kind, TVM_SCRIPT_TOK_INT);
  CHECK_EQ_INT(ten->span.start_col, 16);
  CHECK_EQ_INT(ten->span.end_col, 18);
  const tvm_script_token* indent = &toks.data[7];
  CHECK_EQ_INT(indent->kind, TVM_SCRIPT_TOK_INDENT);
  CHECK_EQ_INT(indent->span.start_col, 1);
  CHECK_EQ_INT(indent->span.end_col, 3);
  tvm_script_tokens_free(&toks);
  /* A triple-quoted string spans lines. */
  const char* doc = "x = '''a\nbc'''\n";
  CHECK_OK(tvm_script_lex(doc, strlen(doc), NULL, &toks));
  CHECK_EQ_INT(toks.data[2].span.start_line, 1);
  CHECK_EQ_INT(toks.data[2].span.start_col, 5);
  CHECK_EQ_INT(toks.data[2].span.end_line, 2);
  CHECK_EQ_INT(toks.data[2].span.end_col, 6);
  tvm_script_tokens_free(&toks);
}

TEST(nesting_limits) {
  char src[4096];
  size_t n = 0;
  for (int i = 0; i < TVM_SCRIPT_MAX_NESTING + 1; ++i) src[n++] = '(';
  src[n] = '\0';
  CHECK_STR_CONTAINS(lex_err(src), "too many nested brackets (the limit is 200)");
  /* 201 nested indentation levels, one more space each. */
  size_t big = 0;
  char* deep = tvm_ffi_malloc(200000);
  for (int i = 0; i <= TVM_SCRIPT_MAX_NESTING + 1; ++i) {
    for (int k = 0; k < i; ++k) deep[big++] = ' ';
    memcpy(deep + big, "if a:\n", 6);
    big += 6;
  }
  deep[big] = '\0';
  CHECK_STR_CONTAINS(lex_err(deep), "too many levels of indentation (the limit is 200)");
  tvm_ffi_free(deep);
}

TEST(diag_render) {
  const char* src = "a = 1\n\tfoo(b\xc3\xa9, c)\nlast";
  tvm_script_span s = {2, 6, 2, 10, 11, 15};
  tvm_ffi_strbuf out = {0};
  tvm_script_diag_render(src, strlen(src), "m.py", s, "error", "bad", &out);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), "m.py:2:6: error: bad\n\tfoo(b\xc3\xa9, c)\n\t    ^^^\n");
  tvm_ffi_strbuf_free(&out);
  /* A span over several lines underlines to the end of its first line; an empty one gets one
   * caret; a span on the last line without a newline works too. */
  tvm_script_span multi = {1, 3, 3, 2, 2, 21};
  tvm_script_diag_render(src, strlen(src), NULL, multi, "note", "m", &out);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), "<string>:1:3: note: m\na = 1\n  ^^^\n");
  tvm_ffi_strbuf_free(&out);
  tvm_script_span empty = {3, 5, 3, 5, 22, 22};
  tvm_script_diag_render(src, strlen(src), "m.py", empty, "error", "eof", &out);
  CHECK_STR_EQ(tvm_ffi_strbuf_cstr(&out), "m.py:3:5: error: eof\nlast\n    ^\n");
  tvm_ffi_strbuf_free(&out);
}

/* The lexer takes names, one-byte operators and spaces by a fast loop only before the text's
 * last line break, and every token by the general path after it: a line lexes to the same
 * tokens and spans (and errors) either way. */
TEST(fast_path_agrees) {
  static const char* const kLines[] = {
      "a.b(c, d[1:2], *e, **f) -> g", "x = [1, 2, (3, {4: 5})]", "r'x' + b + rb + u'y' + bar",
      "\xc3\xa9 + x\xc3\xa9y", "a...b . c", ".5 + a.b", "x<y<=z>>=1 != ~w", "f(a)]", "f(a]",
      "((((", "def f(x: T.int32) -> None: pass", "a @ b @= c", "x;y", "x ! y", "x $ y",
      "if not a and b or c is not d: yield from await lambda", "while elif else with nonlocal",
      "assert False, None and True", "abcdefghi classy de if_ _", "x\\\n  + y", "(a,\n b)",
      /* keywords and names near the end (lex_fast reads a keyword's bytes as a word, or copies
       * them when fewer than 8 bytes are left), names of odd and even sizes (two bytes a step) */
      "a or", "b in", "x is", "pass", "c if d else e", "ab, abc, abcd, i, in_, isx, or1, Not, e9",
      "for_ in while_ import_ as from_ True_ Falsey",
      /* tabs and form feeds between tokens (lex_fast skips only spaces) */
      "x =\ty", "a \t b\f(c)\t", "f(a,\tb)",
      /* line starts (their first token is lex_fast's) and comments */
      "a # c\n# d\r\n  # e\rb", "def f():\n  return (x,\n    y)\n", "x = 1\n\n  \n# z\n@T.f\n",
      "if a:\n\tb\n  c", "x\n  1\n.5\n'a'\n  )",
      /* numbers (the fast loop takes short decimal integers) */
      "f(0, 10, 1.5, 1e3, 1_000, 0x1f, 0o7, 0b1, 2., 123456789012345678, 1234567890123456789)",
      "00 + 0", "x = 01", "1j", "7a", "9223372036854775807", "9223372036854775808", "3\n4 5",
      "1\xc3\xa9", "12.e-3 + 0.0"};
  for (size_t i = 0; i < sizeof(kLines) / sizeof(kLines[0]); ++i) {
    char with_nl[256];
    snprintf(with_nl, sizeof(with_nl), "%s\n", kLines[i]);
    tvm_script_tokens a, b;
    int ra = tvm_script_lex(kLines[i], strlen(kLines[i]), "t.py", &a);
    char err_a[1024] = "";
    if (ra != 0) {
      void* e = tvm_ffi_error_take();
      snprintf(err_a, sizeof(err_a), "%s", tvm_ffi_error_message(e));
      tvm_ffi_release(e);
    }
    int rb = tvm_script_lex(with_nl, strlen(with_nl), "t.py", &b);
    CHECK(ra == rb);
    if (rb != 0) {
      void* e = tvm_ffi_error_take();
      CHECK_STR_EQ(tvm_ffi_error_message(e), err_a);
      tvm_ffi_release(e);
      continue;
    }
    CHECK(a.count == b.count);
    for (size_t k = 0; k < a.count && k < b.count; ++k) {
      const tvm_script_token *x = &a.data[k], *y = &b.data[k];
      CHECK(x->kind == y->kind);
      if (x->kind <= TVM_SCRIPT_TOK_DEDENT) continue; /* the end's spans differ by the break */
      CHECK(x->span.start_line == y->span.start_line && x->span.end_line == y->span.end_line);
      CHECK(x->span.start_col == y->span.start_col && x->span.end_col == y->span.end_col);
      CHECK(x->span.start_byte == y->span.start_byte && x->span.end_byte == y->span.end_byte);
      CHECK(x->v.i == y->v.i && x->str_len == y->str_len);
    }
    tvm_script_tokens_free(&a);
    tvm_script_tokens_free(&b);
  }
}

/* The streaming lexer with its identifier table (lex_internal.h): init, then tokens. */
typedef struct {
  script_arena arena;
  script_names names;
  tvm_script__lexer lx;
} stream_lexer;
static int stream_init(stream_lexer* s, const char* text, size_t len) {
  tvm_script__arena_init(&s->arena, 0);
  memset(&s->names, 0, sizeof(s->names));
  int rc = tvm_script__lexer_init(&s->lx, text, len, "t.py", &s->names);
  return rc == 0 ? tvm_script__names_init(&s->names, &s->arena, 16) : rc;
}
static void stream_free(stream_lexer* s) {
  tvm_script__lexer_free(&s->lx);
  tvm_script__names_free(&s->names);
  tvm_script__arena_free(&s->arena);
}

/* The tokens of tvm_script_lex (which streams the lexer in chunks, twice) against the streaming
 * lexer's own, filled at once: the same kinds, spans and values, or the same error. Returns how
 * many string tokens are views of the text (-1 after an error). */
static int agrees_with_stream(const char* text, size_t len) {
  tvm_script_tokens ref;
  int rc = tvm_script_lex(text, len, "t.py", &ref);
  char err[1024] = "";
  if (rc != 0) {
    void* e = tvm_ffi_error_take();
    snprintf(err, sizeof(err), "%s", tvm_ffi_error_message(e));
    tvm_ffi_release(e);
  }
  stream_lexer sl;
  CHECK(stream_init(&sl, text, len) == 0);
  tvm_script__lexer* lx = &sl.lx;
  int rv = tvm_script__lexer_fill(lx, SIZE_MAX);
  CHECK(rc == rv);
  if (rv != 0) {
    void* e = tvm_ffi_error_take();
    CHECK_STR_EQ(tvm_ffi_error_message(e), err);
    tvm_ffi_release(e);
    stream_free(&sl);
    return -1;
  }
  CHECK(lx->count == ref.count);
  int views = 0;
  for (size_t k = 0; k < lx->count && k < ref.count; ++k) {
    const tvm_script__token* x = &lx->data[k];
    const tvm_script_token* y = &ref.data[k];
    CHECK(x->kind == y->kind);
    CHECK(memcmp(&x->span, &y->span, sizeof(x->span)) == 0);
    if (x->kind == TVM_SCRIPT_TOK_INT || x->kind == TVM_SCRIPT_TOK_FLOAT) {
      CHECK(x->v.i == y->v.i);
    } else if (x->kind == TVM_SCRIPT_TOK_NAME) { /* the interned name of its text */
      size_t n = (size_t)(x->span.end_byte - x->span.start_byte);
      CHECK(x->v.name->size == n && memcmp(x->v.name->text, text + x->span.start_byte, n) == 0);
    } else if (x->kind == TVM_SCRIPT_TOK_STRING) {
      views += x->v.str >= text && x->v.str < text + len;
      CHECK(x->str_len == y->str_len &&
            memcmp(x->v.str, ref.strings + y->str_off, y->str_len) == 0);
      CHECK(ref.strings[y->str_off + y->str_len] == '\0');
    }
  }
  stream_free(&sl);
  tvm_script_tokens_free(&ref);
  return views;
}

/* The parser's lexer refers to the source for string literals without escapes or line breaks
 * (lex_internal.h); every token must be the one tvm_script_lex makes by copying. */
TEST(string_views_agree) {
  static const char* const kTexts[] = {
      "x = 'abc' + \"d\" + '' + r'e' + R\"f\" + u'g' + 'h\\n' + r'i\\j' + \"k'l\" + 'm\"n'\n",
      "f('a', \"\"\"b\nc\"\"\", '''d''', 'e\\\nf', \"\xc3\xa9\")\n", "'unterminated\n",
      "'x' 'y' z\n", "\"a\\x41b\" '\\'' \"\\\"\"\n", "b'x'\n",
      "x = ''\ny = \"\"\"z\"\"\" + 'q'\n'r\rs'\n"};
  for (size_t i = 0; i < sizeof(kTexts) / sizeof(kTexts[0]); ++i) {
    int views = agrees_with_stream(kTexts[i], strlen(kTexts[i]));
    CHECK(i != 0 || views == 8); /* in the first text, the two with escapes are copied */
  }
}

/* A text of many chunks of tvm_script_lex's passes (4096 tokens each): blocks, strings with
 * and without escapes, numbers; then the same text with an error near its end. */
TEST(many_chunks_agree) {
  tvm_ffi_strbuf b = {0};
  for (int i = 0; i < 3000; ++i) {
    tvm_ffi_strbuf_printf(&b, "def f%d(x):\n    if x > %d:\n", i, i);
    tvm_ffi_strbuf_printf(&b, "        return g('a\\n%d', \"b\", %d.5)\n", i, i);
  }
  int views = agrees_with_stream(tvm_ffi_strbuf_cstr(&b), b.size);
  CHECK(views == 3000); /* each "b"; the escaped 'a\n..' are copies */
  tvm_ffi_strbuf_puts(&b, "y = 'unterminated\n");
  CHECK(agrees_with_stream(tvm_ffi_strbuf_cstr(&b), b.size) == -1);
  tvm_script_tokens t;
  CHECK(tvm_script_lex(b.data, b.size, "t.py", &t) == -1);
  void* e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "t.py:9001:") != NULL);
  tvm_ffi_release(e);
  CHECK(t.data == NULL && t.count == 0);
  tvm_ffi_strbuf_free(&b);
}

/* Line breaks: lex_fast takes '\n' (with the next line's indentation when it is spaces, blank
 * lines, INDENT and DEDENTs) and leaves "\r\n" to lex_step, so the same text with "\r\n"
 * checks the fast path against the general one: the same tokens, lines and columns (bytes
 * differ by the '\r's; a NEWLINE spans its 1 or 2 bytes). The parser's windowed lexing (a few
 * tokens per fill, views on) must give the tokens tvm_script_lex gives. */
TEST(line_breaks_fast_path_agrees) {
  static const char* const kTexts[] = {
      "if a:\n  b\n  if c:\n      d\n  e\nf\n",
      "def f(x):\n    y = g(x,\n          1)\n\n    \n    if y:\n        for i in r:\n"
      "            z = [1,\n  2]\n    return y\n",
      "class A:\n    def f():\n        if x:\n            if y:\n                a\nb\n",
      "if a:\n    b\n  # odd\n        \n\t\n    c\n",
      "if a:\n    b\n  c\n",
      "if a:\n        b\n\tc\n",
      "if a:\n\tb\n        c\n",
      "x = (1,\n# c\n  2)\ny\n",
      "a\n    \n\n  \nb\n",
      "@T.f\ndef g(A: T.Buffer((4,), \"int32\")):\n    for i in range(4):\n"
      "        A[i] = 0\n\n\n",
      "if a:\n    b\n  \n    c\n        d\n    e\n",
      "f(x,\n  y\n",
  };
  for (size_t i = 0; i < sizeof(kTexts) / sizeof(kTexts[0]); ++i) {
    const char* lf = kTexts[i];
    char crlf[1024];
    size_t m = 0;
    for (const char* c = lf; *c && m + 2 < sizeof(crlf); ++c) {
      if (*c == '\n') crlf[m++] = '\r';
      crlf[m++] = *c;
    }
    crlf[m] = '\0';
    tvm_script_tokens a, b;
    int ra = tvm_script_lex(lf, strlen(lf), "t.py", &a);
    char err_a[1024] = "";
    if (ra != 0) {
      void* e = tvm_ffi_error_take();
      snprintf(err_a, sizeof(err_a), "%s", tvm_ffi_error_message(e));
      tvm_ffi_release(e);
    }
    int rb = tvm_script_lex(crlf, m, "t.py", &b);
    CHECK(ra == rb);
    if (rb != 0) {
      void* e = tvm_ffi_error_take();
      const char* msg = tvm_ffi_error_message(e);
      /* the same message up to the rendered source line (which keeps its '\r') */
      const char* line_end = strchr(err_a, '\n');
      CHECK(line_end && strncmp(msg, err_a, (size_t)(line_end - err_a)) == 0);
      tvm_ffi_release(e);
      continue;
    }
    CHECK(a.count == b.count);
    for (size_t k = 0; k < a.count && k < b.count; ++k) {
      const tvm_script_token *x = &a.data[k], *y = &b.data[k];
      CHECK(x->kind == y->kind);
      CHECK(x->span.start_line == y->span.start_line && x->span.end_line == y->span.end_line);
      CHECK(x->span.start_col == y->span.start_col);
      CHECK(x->kind == TVM_SCRIPT_TOK_NEWLINE || x->span.end_col == y->span.end_col);
      CHECK(x->v.i == y->v.i && x->str_off == y->str_off && x->str_len == y->str_len);
    }
    /* The parser's way: a window filled a few tokens at a time. */
    for (size_t step = 1; step <= 3; ++step) {
      stream_lexer sl;
      CHECK(stream_init(&sl, lf, strlen(lf)) == 0);
      tvm_script__lexer* lx = &sl.lx;
      while (!lx->done && tvm_script__lexer_fill(lx, lx->count + step) == 0) {
      }
      CHECK(lx->count == a.count);
      for (size_t k = 0; k < lx->count && k < a.count; ++k) {
        const tvm_script__token* x = &lx->data[k];
        const tvm_script_token* y = &a.data[k];
        CHECK(x->kind == y->kind);
        CHECK(memcmp(&x->span, &y->span, sizeof(x->span)) == 0);
      }
      stream_free(&sl);
    }
    tvm_script_tokens_free(&a);
    tvm_script_tokens_free(&b);
  }
  /* The layout tokens' spans: INDENT over the indentation, DEDENT empty at the line's first
   * token, NEWLINE over its byte. */
  const char* src = "if a:\n  b\nc\n";
  tvm_script_tokens toks;
  CHECK_OK(tvm_script_lex(src, strlen(src), NULL, &toks));
  /* if a : NL IN b NL DE c NL EOF */
  CHECK_EQ_INT(toks.count, 11);
  const tvm_script_token *nl = &toks.data[3], *in = &toks.data[4], *de = &toks.data[7];
  CHECK(nl->kind == TVM_SCRIPT_TOK_NEWLINE && in->kind == TVM_SCRIPT_TOK_INDENT &&
        de->kind == TVM_SCRIPT_TOK_DEDENT);
  CHECK(nl->span.start_line == 1 && nl->span.start_col == 6 && nl->span.end_col == 7 &&
        nl->span.start_byte == 5 && nl->span.end_byte == 6);
  CHECK(in->span.start_line == 2 && in->span.start_col == 1 && in->span.end_col == 3 &&
        in->span.start_byte == 6 && in->span.end_byte == 8);
  CHECK(de->span.start_line == 3 && de->span.start_col == 1 && de->span.end_col == 1 &&
        de->span.start_byte == 10 && de->span.end_byte == 10);
  tvm_script_tokens_free(&toks);
}

/* The lexer's float fast path (float_fast in lex.c: at most 15 digits, a power of ten within
 * 10**22) gives strtod's value to the bit, and the literals past its limits (more digits,
 * larger exponents, underscores, subnormals) too: literals of 1 to 17 digits with the point
 * anywhere or absent and exponents from -40 to 40. */
TEST(floats_agree_with_strtod) {
  uint64_t seed = 0x9E3779B97F4A7C15u;
  for (int iter = 0; iter < 20000; ++iter) {
    char text[64];
    size_t n = 0;
    seed = seed * 6364136223846793005u + 1442695040888963407u;
    int digits = 1 + (int)(seed >> 59) % 17, point = (int)(seed >> 40) % (digits + 2);
    bool has_exp = (seed >> 20 & 3) == 0 || point == digits + 1;
    for (int i = 0; i < digits; ++i) {
      if (i == point) text[n++] = '.';
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      text[n++] = (char)('0' + (i == 0 && iter % 3 ? 1 + (seed >> 33) % 9 : (seed >> 33) % 10));
    }
    if (point == digits) text[n++] = '.';
    if (has_exp) {
      seed = seed * 6364136223846793005u + 1442695040888963407u;
      n += (size_t)snprintf(text + n, sizeof(text) - n, "%s%d", (seed >> 40) & 1 ? "e" : "E",
                            (int)((seed >> 33) % 81) - 40);
    }
    text[n] = '\0';
    if (point >= digits && !has_exp) continue; /* an integer */
    tvm_script_tokens toks;
    CHECK(tvm_script_lex(text, n, "t.py", &toks) == 0);
    CHECK(toks.count >= 1 && toks.data[0].kind == TVM_SCRIPT_TOK_FLOAT);
    double want = strtod(text, NULL), got = toks.data[0].v.f;
    if (memcmp(&want, &got, sizeof(double)) != 0) {
      fprintf(stderr, "float %s: lexed %.17g, strtod %.17g\n", text, got, want);
      CHECK(false);
    }
    tvm_script_tokens_free(&toks);
  }
}

/* One lookup interns a word and tells a keyword (ast.h): the lexer's NAME tokens of one text
 * share one script_name (names that are prefixes of each other, around 8 and 16 bytes, and
 * non-ASCII ones stay apart), keywords are tokens of their own kind, and the table grows past
 * its first slots keeping every name. */
TEST(names_interned_with_keywords) {
  const char* text =
      "if abcdefgh == abcdefghi: abcdefgh_ = abcdefghijklmnop + abcdefghijklmnopq + a\n"
      "while a: abcdefghijklmnopq = \xc3\xa9t\xc3\xa9 + abcdefgh + whiles + r_ + elif_\n";
  stream_lexer sl;
  CHECK(stream_init(&sl, text, strlen(text)) == 0);
  tvm_script__lexer* lx = &sl.lx;
  CHECK(tvm_script__lexer_fill(lx, SIZE_MAX) == 0);
  const script_name* seen[32];
  int n = 0;
  for (size_t k = 0; k < lx->count; ++k) {
    const tvm_script__token* t = &lx->data[k];
    if (t->kind != TVM_SCRIPT_TOK_NAME) continue;
    const char* at = text + t->span.start_byte;
    size_t size = (size_t)(t->span.end_byte - t->span.start_byte);
    CHECK(t->v.name->size == size && memcmp(t->v.name->text, at, size) == 0);
    CHECK(t->v.name->text[size] == '\0' && t->v.name->token == TVM_SCRIPT_TOK_NAME);
    for (int i = 0; i < n; ++i) { /* the same name exactly when the same text */
      CHECK((strcmp(seen[i]->text, t->v.name->text) == 0) == (seen[i] == t->v.name));
    }
    if (n < 32) seen[n++] = t->v.name;
  }
  CHECK_EQ_INT(lx->data[0].kind, TVM_SCRIPT_TOK_KW_IF);
  script_name* w = tvm_script__intern_cstr(&sl.names, "while");
  CHECK(w && w->token == TVM_SCRIPT_TOK_KW_WHILE);
  CHECK(w == tvm_script__intern_cstr(&sl.names, "while"));
  CHECK(tvm_script__intern_cstr(&sl.names, "abcdefghijklmnopq") ==
        tvm_script__intern_cstr(&sl.names, "abcdefghijklmnopq"));
  CHECK(tvm_script__intern_cstr(&sl.names, "abcdefghijklmnopq") !=
        tvm_script__intern_cstr(&sl.names, "abcdefghijklmnopr"));
  /* Many more names than the first 16 slots: each keeps its own entry. */
  char buf[32];
  script_name* first = tvm_script__intern_cstr(&sl.names, "name_0");
  for (int i = 1; i < 500; ++i) {
    snprintf(buf, sizeof(buf), "name_%d", i);
    CHECK(tvm_script__intern_cstr(&sl.names, buf) != first);
  }
  CHECK(tvm_script__intern_cstr(&sl.names, "name_0") == first);
  CHECK_STR_EQ(tvm_script__intern_cstr(&sl.names, "name_499")->text, "name_499");
  stream_free(&sl);
}

int main(void) {
  RUN(empty_and_blank);
  RUN(integers);
  RUN(floats);
  RUN(floats_agree_with_strtod);
  RUN(strings_and_escapes);
  RUN(operators_and_keywords);
  RUN(brackets_and_continuation);
  RUN(indentation);
  RUN(spans);
  RUN(nesting_limits);
  RUN(diag_render);
  RUN(fast_path_agrees);
  RUN(string_views_agree);
  RUN(many_chunks_agree);
  RUN(line_breaks_fast_path_agrees);
  RUN(names_interned_with_keywords);
  return test_summary();
}
