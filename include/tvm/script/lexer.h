/*
 * tvm/script/lexer.h: the tokenizer of TVMScript's Python subset.
 *
 * tvm_script_lex turns a whole source text into a token array, Python style: NEWLINE ends a
 * logical line (blank and comment-only lines give none), INDENT/DEDENT bracket blocks, newlines
 * inside (), [], {} and after a backslash are joined, and ENDMARKER ends the array. (The parser
 * drives the same lexer incrementally through a small token window: libscript/src/lex_internal.h.)
 *
 * Decisions (documented behaviour, tested):
 * - Columns are 1-based byte columns; lines are 1-based. Offsets are byte offsets from 0.
 * - Tabs in indentation follow Python: a tab moves to the next multiple of 8, and indentation
 *   whose order differs when a tab counts as 1 column is "inconsistent use of tabs and spaces".
 * - Integer literals must fit in int64 (0 .. 9223372036854775807); larger ones are an error.
 *   Floats are IEEE doubles (strtod; an out-of-range exponent gives inf like Python's float()).
 * - String literals are decoded (escapes \\ \' \" \a \b \f \n \r \t \v, octal \ooo, \xHH,
 *   \uXXXX, \UXXXXXXXX to UTF-8; an unknown escape keeps its backslash as Python does; \N{..},
 *   surrogates, bytes (b"") and f-strings are rejected). Raw strings (r"..") keep backslashes.
 * - Identifiers are ASCII letters, digits, '_' and any well-formed non-ASCII UTF-8 sequence.
 * - Indentation and bracket nesting are capped at TVM_SCRIPT_MAX_NESTING levels.
 * Errors are raised as "SyntaxError" with the rendered diagnostic (see tvm_script_diag_render).
 */
#ifndef TVM_SCRIPT_LEXER_H_
#define TVM_SCRIPT_LEXER_H_

#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>
#include <tvm/script/doc.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Maximum nesting of indentation levels, brackets and parsed expressions/statements. */
#define TVM_SCRIPT_MAX_NESTING 200

/* Token spans are tvm_script_span (tvm/script/doc.h): 1-based start/end line and column of the
 * first byte and of the byte just past the end, and 0-based [start_byte, end_byte). */

/* Keywords, as X(ENUM_SUFFIX, "spelling"). Every Python keyword lexes as one, so that the
 * parser can reject the ones TVMScript does not support by name. */
#define TVM_SCRIPT_TOKEN_KEYWORDS(X)                                                          \
  X(FALSE, "False") X(NONE, "None") X(TRUE, "True") X(AND, "and") X(AS, "as")                 \
  X(ASSERT, "assert") X(ASYNC, "async") X(AWAIT, "await") X(BREAK, "break")                   \
  X(CLASS, "class") X(CONTINUE, "continue") X(DEF, "def") X(DEL, "del") X(ELIF, "elif")       \
  X(ELSE, "else") X(EXCEPT, "except") X(FINALLY, "finally") X(FOR, "for") X(FROM, "from")     \
  X(GLOBAL, "global") X(IF, "if") X(IMPORT, "import") X(IN, "in") X(IS, "is")                 \
  X(LAMBDA, "lambda") X(NONLOCAL, "nonlocal") X(NOT, "not") X(OR, "or") X(PASS, "pass")       \
  X(RAISE, "raise") X(RETURN, "return") X(TRY, "try") X(WHILE, "while") X(WITH, "with")       \
  X(YIELD, "yield")

/* Operators and delimiters, longest first within a shared prefix (the lexer relies on it). */
#define TVM_SCRIPT_TOKEN_OPERATORS(X)                                                         \
  X(POW_ASSIGN, "**=") X(FLOORDIV_ASSIGN, "//=") X(RSHIFT_ASSIGN, ">>=")                      \
  X(LSHIFT_ASSIGN, "<<=") X(ELLIPSIS, "...")                                                  \
  X(POW, "**") X(FLOORDIV, "//") X(LSHIFT, "<<") X(RSHIFT, ">>") X(LE, "<=") X(GE, ">=")      \
  X(EQ, "==") X(NE, "!=") X(ARROW, "->") X(ADD_ASSIGN, "+=") X(SUB_ASSIGN, "-=")              \
  X(MUL_ASSIGN, "*=") X(DIV_ASSIGN, "/=") X(MOD_ASSIGN, "%=") X(AND_ASSIGN, "&=")             \
  X(OR_ASSIGN, "|=") X(XOR_ASSIGN, "^=") X(MATMUL_ASSIGN, "@=") X(WALRUS, ":=")               \
  X(PLUS, "+") X(MINUS, "-") X(STAR, "*") X(SLASH, "/") X(PERCENT, "%") X(AT, "@")            \
  X(AMP, "&") X(PIPE, "|") X(CARET, "^") X(TILDE, "~") X(LT, "<") X(GT, ">") X(LPAREN, "(")   \
  X(RPAREN, ")") X(LBRACKET, "[") X(RBRACKET, "]") X(LBRACE, "{") X(RBRACE, "}")              \
  X(COMMA, ",") X(COLON, ":") X(DOT, ".") X(SEMI, ";") X(ASSIGN, "=")

typedef enum {
  TVM_SCRIPT_TOK_ENDMARKER = 0,
  TVM_SCRIPT_TOK_NEWLINE,
  TVM_SCRIPT_TOK_INDENT,
  TVM_SCRIPT_TOK_DEDENT,
  TVM_SCRIPT_TOK_NAME,
  TVM_SCRIPT_TOK_INT,
  TVM_SCRIPT_TOK_FLOAT,
  TVM_SCRIPT_TOK_STRING,
#define TVM_SCRIPT_X_(e, s) TVM_SCRIPT_TOK_KW_##e,
  TVM_SCRIPT_TOKEN_KEYWORDS(TVM_SCRIPT_X_)
#undef TVM_SCRIPT_X_
#define TVM_SCRIPT_X_(e, s) TVM_SCRIPT_TOK_##e,
  TVM_SCRIPT_TOKEN_OPERATORS(TVM_SCRIPT_X_)
#undef TVM_SCRIPT_X_
  TVM_SCRIPT_TOK_COUNT_
} tvm_script_token_kind;

/* What a token kind is called in messages: "'def'", "'+='", "identifier", "end of line", ... */
const char* tvm_script_token_kind_name(int kind);

typedef struct {
  int32_t kind; /* tvm_script_token_kind */
  /* STRING: the decoded value is tokens->strings[str_off .. str_off + str_len) (NUL follows). */
  uint32_t str_off, str_len;
  union {
    int64_t i; /* INT */
    double f;  /* FLOAT */
  } v;
  tvm_script_span span;
} tvm_script_token;

typedef struct {
  tvm_script_token* data;
  size_t count;
  char* strings; /* decoded string literal contents, NUL separated */
  size_t strings_size;
} tvm_script_tokens;

/* Tokenize source[0..len). `filename` is used in messages only (NULL: "<string>").
 * Returns 0, or -1 with a SyntaxError raised (out is then empty). */
int tvm_script_lex(const char* source, size_t len, const char* filename, tvm_script_tokens* out);
void tvm_script_tokens_free(tvm_script_tokens* tokens);

/* Render a diagnostic, appended to out:
 *   file:line:col: error: message
 *   <the source line of span.line>
 *   <'^' under every character of the span on that line (at least one)>
 * Tabs in the source line are kept in the marker line so the carets align. The span is the
 * only source information used; `kind` is the word after the location ("error", "note"). */
void tvm_script_diag_render(const char* source, size_t len, const char* filename,
                            tvm_script_span span, const char* kind, const char* message,
                            tvm_ffi_strbuf* out);

/* Raise `error_kind` (e.g. "SyntaxError") whose message is the rendered diagnostic of a
 * printf-formatted message at span. Returns -1. */
int tvm_script_diag_raise(const char* error_kind, const char* source, size_t len,
                          const char* filename, tvm_script_span span, const char* fmt, ...)
    TVM_FFI_PRINTF(6, 7) TVM_FFI_COLD;

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_SCRIPT_LEXER_H_ */
