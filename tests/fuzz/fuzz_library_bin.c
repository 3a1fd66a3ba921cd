/* fuzz_library_bin.c: libFuzzer target for the __tvm_ffi__library_bin reader: any blob must
 * give a module tree or a RuntimeError, never a crash. */
#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  void* mod = tvm_ffi_module_from_library_bin(data, size);
  if (mod) {
    tvm_ffi_release(mod);
  } else {
    tvm_ffi_error_clear();
  }
  return 0;
}
