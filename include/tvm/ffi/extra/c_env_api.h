/*
 * tvm/ffi/extra/c_env_api.h: the environment half of the tvm-ffi stable C ABI: per-device
 * streams, the DLPack tensor allocator, signal checks, and the symbols a loaded library uses
 * to reach its module. Binary compatible with apache/tvm-ffi's header of the same name.
 */
#ifndef TVM_FFI_EXTRA_C_ENV_API_H_
#define TVM_FFI_EXTRA_C_ENV_API_H_

#include <tvm/ffi/c_api.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* A device stream (cudaStream_t for CUDA); NULL is the default stream. */
typedef void* TVMFFIStreamHandle;

/* ---- Streams (thread-local, per device) ---- */
TVM_FFI_DLL int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id,
                                   TVMFFIStreamHandle stream,
                                   TVMFFIStreamHandle* opt_out_original_stream);
TVM_FFI_DLL TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id);

/* ---- Tensor allocation ---- */
/* Set the thread's allocator (and the process-wide one when write_to_global_context). */
TVM_FFI_DLL int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator);
/* The thread's allocator if set, else the process-wide one (never NULL in libtvmffi). */
TVM_FFI_DLL DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void);
/* Allocate a Tensor shaped like prototype (device, ndim, shape, dtype) with the allocator. */
TVM_FFI_DLL int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out);

/* ---- Host environment ---- */
/* Non-zero (with an error raised) if the host asked to interrupt the computation. */
TVM_FFI_DLL int TVMFFIEnvCheckSignals(void);
/* Record a host-provided C API symbol (looked up by name by context-symbol loading). */
TVM_FFI_DLL int TVMFFIEnvRegisterCAPI(const char* name, void* symbol);

/* ---- Module symbols, used by code inside loaded libraries ---- */
/*
 * Find `func_name` in the imports of the module whose handle the library received in its
 * `__tvm_ffi__library_ctx` symbol. *out is borrowed: the module keeps it alive and cached.
 */
TVM_FFI_DLL int TVMFFIEnvModLookupFromImports(TVMFFIObjectHandle library_ctx,
                                              const char* func_name, TVMFFIObjectHandle* out);
/* Values written into same-named pointer symbols of every library loaded afterwards. */
TVM_FFI_DLL int TVMFFIEnvModRegisterContextSymbol(const char* name, void* symbol);
/* Register a symbol of the system library (statically linked kernels, `ffi.SystemLib`). */
TVM_FFI_DLL int TVMFFIEnvModRegisterSystemLibSymbol(const char* name, void* symbol);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_FFI_EXTRA_C_ENV_API_H_ */
