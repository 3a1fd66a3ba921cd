/* module_internal.h: what module.c, library_module.c and library_bin.c share (not installed). */
#ifndef TVM_FFI_SRC_MODULE_INTERNAL_H_
#define TVM_FFI_SRC_MODULE_INTERNAL_H_

#include "internal.h"

/* Symbol naming of the tvm-ffi library convention. */
#define TVM_FFI_SYMBOL_PREFIX "__tvm_ffi_" /* __tvm_ffi_<name>: a safe-call function */
#define TVM_FFI_SYMBOL_LIBRARY_CTX "__tvm_ffi__library_ctx"
#define TVM_FFI_SYMBOL_LIBRARY_BIN "__tvm_ffi__library_bin"
#define TVM_FFI_SYMBOL_METADATA_PREFIX "__tvm_ffi__metadata_"
#define TVM_FFI_SYMBOL_DOC_PREFIX "__tvm_ffi__doc_"

/* library_module.c: registers the loaders and ffi.SystemLib (called by tvm_ffi__init_modules). */
void tvm_ffi__init_library_modules(void);

/* Whether a module is a library module ("library" or "system_lib"): packed as "_lib". */
bool tvm_ffi__module_is_library(const void* mod);

/*
 * library_bin.c: rebuild the module tree of a __tvm_ffi__library_bin blob. `data` points at the
 * u64 length prefix and `avail` bytes are readable there (SIZE_MAX when unknown). Each "_lib"
 * entry becomes make_lib(lib_ctx) (a new module reference); with make_lib NULL a "_lib" entry is
 * an error. Returns the root (a new reference), or NULL with a RuntimeError.
 */
void* tvm_ffi__library_bin_load(const uint8_t* data, size_t avail, void* (*make_lib)(void* lib_ctx),
                                void* lib_ctx);

#endif /* TVM_FFI_SRC_MODULE_INTERNAL_H_ */
