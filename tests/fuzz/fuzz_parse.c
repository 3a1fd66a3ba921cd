/* fuzz_parse.c: libFuzzer target for the TVMScript lexer and parser: any bytes must parse to a
 * Doc tree or raise one SyntaxError, never crash, hang or leak. */
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
  if (doc) {
    tvm_ffi_release(doc);
    tvm_ffi_release(imports);
  } else {
    tvm_ffi_error_clear();
  }
  return 0;
}
