/*
 * fuzz_vm_load.c: libFuzzer target for the executable loader (tvm_vm_executable_load_bytes).
 *
 * Whatever the bytes, loading must either fail with an error or give an executable that
 * prints, saves and reloads; an executable using only upstream's constant tags must save back
 * to exactly the input; creating a VM for it (which prepares the code and resolves functions)
 * must succeed or fail cleanly. Bytecode is not run: a valid program may loop forever.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <tvm/vm/vm.h>

/* Object constants are saved as JSON, which need not reproduce the input text. */
static int only_plain_constants(const tvm_vm_executable* e) {
  for (int64_t i = 0; i < tvm_vm_executable_num_constants(e); ++i) {
    int32_t t = tvm_vm_executable_constant(e, i)->type_index;
    if (t >= kTVMFFIStaticObjectBegin && t != kTVMFFIStr && t != kTVMFFIBytes &&
        t != kTVMFFIShape && t != kTVMFFITensor) {
      return 0;
    }
  }
  return 1;
}

static void check_text(int (*print)(const tvm_vm_executable*, TVMFFIAny*),
                       const tvm_vm_executable* e) {
  TVMFFIAny s;
  if (print(e, &s) != 0) abort();
  tvm_ffi_any_release(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  tvm_vm_executable* e = tvm_vm_executable_load_bytes(data, size);
  if (!e) {
    if (!tvm_ffi_error_pending()) abort(); /* a failure must say why */
    tvm_ffi_error_clear();
    return 0;
  }
  check_text(tvm_vm_executable_as_text, e);
  check_text(tvm_vm_executable_as_python, e);
  check_text(tvm_vm_executable_stats, e);
  TVMFFIAny saved;
  if (tvm_vm_executable_save(e, &saved) != 0) abort();
  TVMFFIByteArray b;
  if (!tvm_ffi_any_as_bytes(&saved, &b)) abort();
  if (only_plain_constants(e) && (b.size != size || memcmp(b.data, data, size) != 0)) abort();
  tvm_vm_executable* again = tvm_vm_executable_load_bytes(b.data, b.size);
  if (!again) abort();
  tvm_ffi_release(again);
  tvm_ffi_any_release(&saved);
  DLDevice cpu = {kDLCPU, 0};
  tvm_vm* vm = tvm_vm_create(e, &cpu, 1);
  if (vm) tvm_vm_release(vm);
  else tvm_ffi_error_clear();
  tvm_vm_executable_release(e);
  return 0;
}
