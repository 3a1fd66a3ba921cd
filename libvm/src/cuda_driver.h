/*
 * cuda_driver.h: the CUDA driver API as libvm loads it (device_cuda.c: dlopen of
 * libcuda.so.1, or $TVM_VM_LIBCUDA), shared by the CUDA device (device_cuda.c) and the CUDA
 * module kind (cuda_module.c). No CUDA header is needed: the few types are declared here.
 */
#ifndef TVM_VM_SRC_CUDA_DRIVER_H_
#define TVM_VM_SRC_CUDA_DRIVER_H_

#include "internal.h"

typedef int CUresult;
typedef int CUdevice;
typedef void* CUcontext;
typedef unsigned long long CUdeviceptr;
typedef void* CUstream;
typedef void* CUmodule;
typedef void* CUfunction;
typedef void* CUevent;

#define CUDA_MAX_DEVICES 64
/* CUdevice_attribute / CUfunction_attribute values used here. */
enum {
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
  CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76,
  CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES = 8
};

/* X(field, symbol, parameter list): every driver function returns a CUresult. */
#define CUDA_SYMBOLS(X)                                                                    \
  X(Init, "cuInit", (unsigned))                                                            \
  X(DeviceGetCount, "cuDeviceGetCount", (int*))                                            \
  X(DeviceGet, "cuDeviceGet", (CUdevice*, int))                                            \
  X(DeviceGetAttribute, "cuDeviceGetAttribute", (int*, int, CUdevice))                     \
  X(PrimaryCtxRetain, "cuDevicePrimaryCtxRetain", (CUcontext*, CUdevice))                  \
  X(CtxSetCurrent, "cuCtxSetCurrent", (CUcontext))                                         \
  X(MemAlloc, "cuMemAlloc_v2", (CUdeviceptr*, size_t))                                     \
  X(MemFree, "cuMemFree_v2", (CUdeviceptr))                                                \
  X(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", (CUdeviceptr, const void*, size_t, CUstream)) \
  X(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", (void*, CUdeviceptr, size_t, CUstream))       \
  X(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", (CUdeviceptr, CUdeviceptr, size_t, CUstream)) \
  X(StreamSynchronize, "cuStreamSynchronize", (CUstream))                                  \
  X(ModuleLoadData, "cuModuleLoadData", (CUmodule*, const void*))                          \
  X(ModuleUnload, "cuModuleUnload", (CUmodule))                                            \
  X(ModuleGetFunction, "cuModuleGetFunction", (CUfunction*, CUmodule, const char*))        \
  X(FuncSetAttribute, "cuFuncSetAttribute", (CUfunction, int, int))                        \
  X(LaunchKernel, "cuLaunchKernel",                                                        \
    (CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,      \
     CUstream, void**, void**))                                                            \
  X(EventCreate, "cuEventCreate", (CUevent*, unsigned))                                   \
  X(EventRecord, "cuEventRecord", (CUevent, CUstream))                                     \
  X(EventSynchronize, "cuEventSynchronize", (CUevent))                                     \
  X(EventElapsedTime, "cuEventElapsedTime", (float*, CUevent, CUevent))                    \
  X(EventDestroy, "cuEventDestroy_v2", (CUevent))                                          \
  X(GetErrorName, "cuGetErrorName", (CUresult, const char**))                              \
  X(GetErrorString, "cuGetErrorString", (CUresult, const char**))

typedef struct {
#define CUDA_FIELD_(field, sym, params) CUresult(*field) params;
  CUDA_SYMBOLS(CUDA_FIELD_)
#undef CUDA_FIELD_
} tvm_vm_cuda_driver;

/* The loaded driver (loading it on first use), or NULL with a RuntimeError that says why
 * ("no CUDA driver: ..."). */
const tvm_vm_cuda_driver* tvm_vm__cuda_driver(void);
/* Make device dev's primary context current on this thread (retaining it on first use). */
int tvm_vm__cuda_set_context(DLDevice dev);
/* 0 for CUDA_SUCCESS, else -1 with a RuntimeError "CUDA: <call> failed: <NAME> (<code>): <text>". */
int tvm_vm__cuda_check(CUresult r, const char* call);

#endif /* TVM_VM_SRC_CUDA_DRIVER_H_ */
