/* init.c: one-time registration of the built-in types and global functions, in order. */
#include <pthread.h>

#include "internal.h"

int tvm_ffi__initialized;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
/* Set while this thread runs init_all: registration calls back into entry points that call
 * tvm_ffi_init(), which must not wait on the pthread_once it is already inside. */
static __thread int t_in_init;

static void init_all(void) {
  t_in_init = 1;
  tvm_ffi__init_types();
  tvm_ffi__init_objects();
  tvm_ffi__init_strings();
  tvm_ffi__init_errors();
  tvm_ffi__init_functions();
  tvm_ffi__init_containers();
  tvm_ffi__init_tensors();
  tvm_ffi__init_env();
  tvm_ffi__init_modules();
  tvm_ffi__init_reflection();
  __atomic_store_n(&tvm_ffi__initialized, 1, __ATOMIC_RELEASE);
  t_in_init = 0;
}

void tvm_ffi_init(void) {
  if (__atomic_load_n(&tvm_ffi__initialized, __ATOMIC_ACQUIRE) || t_in_init) return;
  pthread_once(&g_once, init_all);
}

/* Run at load time too, so globals exist before the first lookup from another library. */
__attribute__((constructor)) static void init_at_load(void) { tvm_ffi_init(); }

void TVMFFIGetVersion(TVMFFIVersion* out_version) {
  if (!out_version) return;
  out_version->major = TVM_FFI_VERSION_MAJOR;
  out_version->minor = TVM_FFI_VERSION_MINOR;
  out_version->patch = TVM_FFI_VERSION_PATCH;
}
