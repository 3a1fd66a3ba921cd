/* fuzz_parse.c: libFuzzer target for the TVMScript lexer and parser: any bytes must parse to a
 * Doc tree or raise one SyntaxError, never crash, hang or leak. The tree is released both ways:
 * as a whole, and with an inner doc outliving the root. */
#include <stddef.h>
#include <stdint.h>
#include <tvm/script/parser.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tvm_script_tokens toks;
  if (tvm_script_lex((const char*)data, size, "fuzz.py", &toks) == 0) {
    tvm_script_tokens_free(&toks);
  } else {
    tvm_ffi_error_clear();
  }
  void* imports = NULL;
  void* doc = tvm_script_parse_doc_ex((const char*)data, size, "fuzz.py", &imports);
  if (!doc) {
    tvm_ffi_error_clear();
    return 0;
  }
  tvm_ffi_release(imports);
  /* Keep the last statement (its subtree must stay whole) past the root, on odd sizes. */
  const void* stmts = ((const tvm_script_stmt_block_doc_obj*)doc)->stmts;
  int64_t n = tvm_ffi_seq_size(stmts);
  void* kept = (size & 1) && n > 0 ? (void*)tvm_ffi_seq_obj_at(stmts, n - 1) : NULL;
  tvm_ffi_retain(kept);
  tvm_ffi_release(doc);
  if (kept && !tvm_script_is_stmt_doc(kept)) __builtin_trap();
  tvm_ffi_release(kept);
  return 0;
}
