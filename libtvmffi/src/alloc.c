/*
 * alloc.c: the one allocator interface of the suite, and the object allocator of the ABI.
 *
 * With TVM_FFI_USE_PRIVATE_JEMALLOC the calls go to a private, renamed copy of jemalloc
 * (cmake/PrivateJemalloc.cmake) through its non-standard API, so embedding applications keep
 * their own malloc. Otherwise (sanitizer builds, systems without jemalloc) libc is used.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
/* malloc/calloc/realloc/free are jemalloc's fast paths (the thread cache);
 * the *allocx forms take a slower general path, so they serve only aligned requests. */
void* tvm_je_malloc(size_t size);
void* tvm_je_calloc(size_t count, size_t size);
void* tvm_je_realloc(void* ptr, size_t size);
void tvm_je_free(void* ptr);
void* tvm_je_mallocx(size_t size, int flags);
/* MALLOCX_ALIGN from jemalloc.h (the private copy ships no header). */
#define TVM_MALLOCX_LG_ALIGN(la) ((int)(la))
static int lg_align(size_t a) {
  int lg = 0;
  while (((size_t)1 << lg) < a) ++lg;
  return lg;
}
#endif

static void* oom(size_t size) {
  tvm_ffi_raise("MemoryError", "out of memory allocating %zu bytes", size);
  return NULL;
}

const char* tvm_ffi_allocator_name(void) {
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  return "jemalloc";
#else
  return "libc";
#endif
}

void* tvm_ffi_malloc(size_t size) {
  if (size == 0) size = 1;
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  void* p = tvm_je_malloc(size);
#else
  void* p = malloc(size);
#endif
  return p ? p : oom(size);
}

void* tvm_ffi_calloc(size_t count, size_t size) {
  size_t total;
  if (__builtin_mul_overflow(count, size, &total)) return oom(SIZE_MAX);
  if (total == 0) total = 1;
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  void* p = tvm_je_calloc(1, total);
#else
  void* p = calloc(1, total);
#endif
  return p ? p : oom(total);
}

void* tvm_ffi_realloc(void* ptr, size_t size) {
  if (!ptr) return tvm_ffi_malloc(size);
  if (size == 0) size = 1;
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  void* p = tvm_je_realloc(ptr, size);
#else
  void* p = realloc(ptr, size);
#endif
  return p ? p : oom(size);
}

void tvm_ffi_free(void* ptr) {
  if (!ptr) return;
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  tvm_je_free(ptr);
#else
  free(ptr);
#endif
}

void* tvm_ffi_aligned_alloc(size_t alignment, size_t size) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  if (size == 0) size = 1;
#ifdef TVM_FFI_USE_PRIVATE_JEMALLOC
  void* p = tvm_je_mallocx(size, TVM_MALLOCX_LG_ALIGN(lg_align(alignment)));
#else
  void* p = NULL;
  if (posix_memalign(&p, alignment, size) != 0) p = NULL;
#endif
  return p ? p : oom(size);
}

char* tvm_ffi_strndup(const char* s, size_t n) {
  char* p = (char*)tvm_ffi_malloc(n + 1);
  if (!p) return NULL;
  if (n) memcpy(p, s, n);
  p[n] = '\0';
  return p;
}
