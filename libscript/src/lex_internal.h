/* lex_internal.h: the streaming interface of the tokenizer (lex.c), used by the parser so that
 * tokens are produced on demand into a small window instead of one array for the whole file. */
#ifndef TVM_SCRIPT_LEX_INTERNAL_H_
#define TVM_SCRIPT_LEX_INTERNAL_H_

#include <stdbool.h>
#include <tvm/script/lexer.h>

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
  /* Set by the consumer after init: a string literal without escapes and line breaks may be
   * a view of the source (its token's v.i is then 1 and str_off an offset into src) instead
   * of a copy in `strings` (tvm_script_lex keeps copies: its tokens have no source). */
  bool views;
  /* The produced tokens not yet dropped by the consumer. Only STRING tokens have str_off and
   * str_len set, and only literals (INT, FLOAT, STRING) v: the parser reads no more, so the
   * other stores are skipped (tvm_script_lex zeroes the rest). */
  tvm_script_token* data;
  size_t count, cap;
  /* A first buffer of the consumer's (set with data and cap after init: no allocation for a
   * small text), which the lexer leaves when it needs more room and never frees; or NULL. */
  tvm_script_token* own_data;
  /* Decoded string literals (tokens refer to them by offset; NUL separated). */
  tvm_ffi_strbuf strings;
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

/* NAME tokens of at most NAME_KEY_MAX bytes carry the key the parser interns them by (parse.c's
 * name_key and intern): v.i holds the name's bytes as a little-endian word, zero padded, and
 * str_off its tvm_script__name_hash(word, 0, size). The lexer has the bytes at hand when it
 * tells a name from a keyword (it loads that word then), so the parser does not load and hash
 * them again for each name (~85 a small file). */
enum { TVM_SCRIPT__NAME_KEY_MAX = 8 };
static inline uint32_t tvm_script__name_hash(uint64_t k0, uint64_t k1, uint64_t n) {
  return (uint32_t)(((k0 ^ (k1 * UINT64_C(0xC2B2AE3D27D4EB4F)) ^ n) *
                     UINT64_C(0x9E3779B97F4A7C15)) >> 32);
}

/* Start lexing source[0..len). Returns 0, or -1 with an error raised. */
int tvm_script__lexer_init(tvm_script__lexer* lx, const char* source, size_t len,
                           const char* filename);
/* Lex until at least `want` tokens are buffered or the end is reached. Returns 0, or -1 with a
 * SyntaxError raised (lx->done is then set and nothing more is produced). */
int tvm_script__lexer_fill(tvm_script__lexer* lx, size_t want);
/* Drop the first `n` buffered tokens (the rest move to the front). */
void tvm_script__lexer_drop(tvm_script__lexer* lx, size_t n);
void tvm_script__lexer_free(tvm_script__lexer* lx);

#endif /* TVM_SCRIPT_LEX_INTERNAL_H_ */
