/* fuzz_parse_ir.c: libFuzzer target for the whole TVMScript parser (text -> checked IR): any
 * bytes must give IR or raise exactly one error, never crash, hang or leak. When the input
 * parses, the printed result must parse again (the roundtrip guarantee must not crash either).
 * Seeds: tests/corpus (run-fuzzers.sh passes it). */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <tvm/script/parser.h>
#include <tvm/script/printer.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  opts.filename = "fuzz.py";
  void* ir = tvm_script_parse((const char*)data, size, &opts);
  if (!ir) {
    tvm_ffi_error_clear();
    return 0;
  }
  void* text = tvm_script_print_obj(ir, NULL);
  if (text) {
    const char* s = tvm_ffi_str_cstr(text);
    void* again = tvm_script_parse(s, strlen(s), &opts);
    if (again) tvm_ffi_release(again);
    else tvm_ffi_error_clear();
    tvm_ffi_release(text);
  } else {
    tvm_ffi_error_clear();
  }
  tvm_ffi_release(ir);
  return 0;
}
