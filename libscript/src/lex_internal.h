/* lex_internal.h: the streaming interface of the tokenizer (lex.c), used by the parser so that
 * tokens are produced on demand into a small window instead of one array for the whole file. */
#ifndef TVM_SCRIPT_LEX_INTERNAL_H_
#define TVM_SCRIPT_LEX_INTERNAL_H_

#include <stdbool.h>
#include <tvm/script/lexer.h>

#include "ast.h" /* script_names, script_arena */

/* A token of the streaming lexer. Which fields a kind sets:
 *   NAME     v.name, the interned identifier (ast.h); a keyword is a token of its own kind
 *   INT      v.i;  FLOAT  v.f
 *   STRING   v.str and str_len: the decoded value, a view of the source when the literal (not
 *            triple-quoted) has no escape or line break, else a copy in the names' arena
 * and every kind its span; nothing else is written (tvm_script_lex makes the public tokens of
 * lexer.h from these). */
typedef struct {
  int32_t kind; /* tvm_script_token_kind */
  uint32_t str_len;
  union {
    int64_t i;
    double f;
    const char* str;
    script_name* name;
  } v;
  tvm_script_span span;
} tvm_script__token;

typedef struct {
  const char* src;
  size_t len;
  const char* filename;
  size_t pos;
  size_t fast_end; /* the offset of the text's last line break, or 0 (see lex_fast in lex.c) */
  int32_t line;
  size_t line_start;
  bool at_line_start;
  bool line_has_tokens;
  bool done; /* ENDMARKER (or, after an error, nothing more) has been produced */
  script_names* names; /* where words are interned (their arena takes decoded literals too) */
  /* The produced tokens not yet dropped by the consumer. */
  tvm_script__token* data;
  size_t count, cap;
  /* A first buffer of the consumer's (set with data and cap after init: no allocation for a
   * small text), which the lexer leaves when it needs more room and never frees; or NULL. */
  tvm_script__token* own_data;
  tvm_ffi_strbuf scratch; /* a string literal being decoded */
  /* Indentation stack in columns with tabs to multiples of 8 and with tabs as 1. Only the
   * entries up to ndent (and the brackets below depth) are initialised: the stacks are most of
   * the struct's ~11 KB, and zeroing them per parse cost more than lexing a small file. */
  int32_t indent8[TVM_SCRIPT_MAX_NESTING + 1], indent1[TVM_SCRIPT_MAX_NESTING + 1];
  int ndent;
  /* Open brackets: their kind for matching, and for "never closed" their byte and its (line,
   * column) pair as set_line_col writes it (lex.c), from which the error's span is made: three
   * stores an opening bracket instead of a whole span's. */
  int32_t brackets[TVM_SCRIPT_MAX_NESTING];
  uint32_t bracket_byte[TVM_SCRIPT_MAX_NESTING];
  uint64_t bracket_line_col[TVM_SCRIPT_MAX_NESTING];
  int depth;
} tvm_script__lexer;

/* Start lexing source[0..len), interning words in `names`. Returns 0, or -1 with an error
 * raised. */
int tvm_script__lexer_init(tvm_script__lexer* lx, const char* source, size_t len,
                           const char* filename, script_names* names);
/* Lex until at least `want` tokens are buffered or the end is reached. Returns 0, or -1 with a
 * SyntaxError raised (lx->done is then set and nothing more is produced). */
int tvm_script__lexer_fill(tvm_script__lexer* lx, size_t want);
/* Drop the first `n` buffered tokens (the rest move to the front). */
void tvm_script__lexer_drop(tvm_script__lexer* lx, size_t n);
void tvm_script__lexer_free(tvm_script__lexer* lx);

#endif /* TVM_SCRIPT_LEX_INTERNAL_H_ */
