/* fuzz_dtype.c: libFuzzer target for data type strings: parse, and what parses must print and
 * parse back to the same type. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <tvm/ffi/ffi.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  DLDataType t;
  if (tvm_ffi_dtype_parse((const char*)data, size, &t) != 0) {
    tvm_ffi_error_clear();
    return 0;
  }
  char buf[64];
  int n = tvm_ffi_dtype_format(t, buf, sizeof(buf));
  if (n < 0) {
    tvm_ffi_error_clear();
    return 0;
  }
  DLDataType back;
  if (tvm_ffi_dtype_parse(buf, (size_t)n, &back) != 0 || !tvm_ffi_dtype_equal(t, back)) abort();
  return 0;
}
