/*
 * missing_symbol.c: a kernel library that references a function no process defines, as an
 * exported kernel did with __truncsfbf2 (a runtime-library function the host lacked). Loading
 * it must fail with the symbol named; with lazy binding it loaded, and the first call of
 * `__tvm_ffi_broken` ended the process ("symbol lookup error"). Loaded by test_abi_kernel.c.
 */
#include <tvm/ffi/c_api.h>

#define EXPORT __attribute__((visibility("default")))

/* Defined nowhere: the link leaves it undefined (shared libraries may). */
extern int tvm_test_kernel_no_such_symbol(int x);

EXPORT int __tvm_ffi_broken(void* handle, const TVMFFIAny* args, int32_t num_args,
                            TVMFFIAny* result) {
  (void)handle;
  (void)args;
  result->type_index = kTVMFFIInt;
  result->v_int64 = tvm_test_kernel_no_such_symbol(num_args);
  return 0;
}
