/*
 * blob_kernel.c: kernel libraries with a hand-written __tvm_ffi__library_bin, the way a
 * compiler embeds custom modules next to its kernels. Built once per BLOB_CASE:
 *
 *   BLOB_IMPORTS        a valid tree: modules[0] = test_blob "root" importing modules[1] = "_lib"
 *                       (this library), which imports modules[2] = test_blob "child".
 *   BLOB_TRUNCATED      the length prefix claims more bytes than the symbol has
 *   BLOB_HUGE_COUNT     indptr claims 2^32 - 1 entries
 *   BLOB_BAD_CHILD      a child index past the last module
 *   BLOB_NOT_MONOTONE   indptr goes down
 *   BLOB_CYCLE          module 0 imports 1, which imports 0
 *   BLOB_HUGE_STR       a kind string longer than the blob
 *   BLOB_NO_LOADER      a kind nobody registered a loader for
 *   BLOB_NOT_DATA       __tvm_ffi__library_bin is a function, not data
 *   CTX_NOT_DATA        __tvm_ffi__library_ctx is a function, not a pointer variable
 *
 * The test registers ffi.Module.load_from_bytes.test_blob. Like abi_kernel.c this includes only
 * the ABI headers and does not link libtvmffi.
 */
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define EXPORT __attribute__((visibility("default")))

/* Every integer of the layout is a u64 little-endian; a str is a u64 length and its bytes. */
#define U64(x) U64_((unsigned long long)(x))
#define U64_(v)                                                                 \
  (unsigned char)((v)&0xff), (unsigned char)(((v) >> 8) & 0xff),                \
      (unsigned char)(((v) >> 16) & 0xff), (unsigned char)(((v) >> 24) & 0xff), \
      (unsigned char)(((v) >> 32) & 0xff), (unsigned char)(((v) >> 40) & 0xff), \
      (unsigned char)(((v) >> 48) & 0xff), (unsigned char)(((v) >> 56) & 0xff)
#define STR_TEST_BLOB U64(9), 't', 'e', 's', 't', '_', 'b', 'l', 'o', 'b'
#define STR_LIB U64(4), '_', 'l', 'i', 'b'

/* The exported blob: its u64 prefix is the payload's length plus `extra` (0 when honest). */
#define LIBRARY_BIN_WITH_EXTRA(extra, ...)                \
  EXPORT const unsigned char __tvm_ffi__library_bin[] = { \
      U64((unsigned long long)sizeof((unsigned char[]){__VA_ARGS__}) + (extra)), __VA_ARGS__}
#define LIBRARY_BIN(...) LIBRARY_BIN_WITH_EXTRA(0, __VA_ARGS__)

#ifndef CTX_NOT_DATA
EXPORT void* __tvm_ffi__library_ctx = 0;
#else
EXPORT int __tvm_ffi__library_ctx(void) { return 0; }
#endif

#if defined(BLOB_IMPORTS)
LIBRARY_BIN(U64(4), U64(0), U64(1), U64(2), U64(2), /* indptr = [0, 1, 2, 2] */
            U64(2), U64(1), U64(2),                 /* child_indices = [1, 2] */
            STR_TEST_BLOB, U64(4), 'r', 'o', 'o', 't', STR_LIB, STR_TEST_BLOB, U64(5), 'c', 'h',
            'i', 'l', 'd');
#elif defined(BLOB_TRUNCATED)
LIBRARY_BIN_WITH_EXTRA(64, U64(2), U64(0), U64(0), U64(0), STR_LIB);
#elif defined(BLOB_HUGE_COUNT)
LIBRARY_BIN(U64(0xffffffffull), U64(0), U64(0), U64(0), STR_LIB);
#elif defined(BLOB_BAD_CHILD)
LIBRARY_BIN(U64(2), U64(0), U64(1), U64(1), U64(5), STR_LIB);
#elif defined(BLOB_NOT_MONOTONE)
LIBRARY_BIN(U64(3), U64(0), U64(2), U64(1), U64(2), U64(1), U64(1), STR_LIB, STR_LIB);
#elif defined(BLOB_CYCLE)
LIBRARY_BIN(U64(3), U64(0), U64(1), U64(2), U64(2), U64(1), U64(0), STR_TEST_BLOB, U64(1), 'a',
            STR_TEST_BLOB, U64(1), 'b');
#elif defined(BLOB_HUGE_STR)
LIBRARY_BIN(U64(2), U64(0), U64(0), U64(0), U64(1000), '_', 'l', 'i', 'b');
#elif defined(BLOB_NO_LOADER)
LIBRARY_BIN(U64(2), U64(0), U64(0), U64(0), U64(12), 'n', 'o', '_', 's', 'u', 'c', 'h', '_', 'k',
            'i', 'n', 'd', U64(0));
#elif defined(BLOB_NOT_DATA)
EXPORT int __tvm_ffi__library_bin(void) { return 0; }
#endif

/* lib_value(): 7, a function of the library module itself. */
EXPORT int __tvm_ffi_lib_value(void* handle, const TVMFFIAny* args, int32_t num_args,
                               TVMFFIAny* result) {
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = 7;
  return 0;
}

#ifndef CTX_NOT_DATA
/* lib_call_child(): calls blob_child, a function of the module this library imports. */
EXPORT int __tvm_ffi_lib_call_child(void* handle, const TVMFFIAny* args, int32_t num_args,
                                    TVMFFIAny* result) {
  TVMFFIObjectHandle f;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, "blob_child", &f) != 0) return -1;
  return TVMFFIFunctionCall(f, (TVMFFIAny*)args, num_args, result);
}
#endif
