/*
 * tvm/ffi/dlpack_compat.h: the DLPack 1.x pieces the tvm-ffi ABI needs, for systems whose
 * <dlpack/dlpack.h> is older (Debian 12 ships DLPack 0.6).
 *
 * With a DLPack >= 1.0 header nothing here is defined: the system header is used as is.
 * With an older header we add exactly: DLPackVersion, DLManagedTensorVersioned and its flag
 * bits, the DLPack 1.x data type codes (kDLBool, the float8/6/4 families), the device types
 * added after 0.6, and the managed-tensor allocator callback type. Layouts are the ones DLPack
 * 1.x publishes; the static asserts at the bottom pin them.
 */
#ifndef TVM_FFI_DLPACK_COMPAT_H_
#define TVM_FFI_DLPACK_COMPAT_H_

#include <dlpack/dlpack.h>
#include <stddef.h>
#include <stdint.h>

#if !defined(DLPACK_MAJOR_VERSION)
#define TVM_FFI_DLPACK_COMPAT 1
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 1

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* Data type codes introduced by DLPack 1.x (the 0.6 enum stops at kDLComplex = 5). */
enum {
  kDLBool = 6,
  kDLFloat8_e3m4 = 7,
  kDLFloat8_e4m3 = 8,
  kDLFloat8_e4m3b11fnuz = 9,
  kDLFloat8_e4m3fn = 10,
  kDLFloat8_e4m3fnuz = 11,
  kDLFloat8_e5m2 = 12,
  kDLFloat8_e5m2fnuz = 13,
  kDLFloat8_e8m0fnu = 14,
  kDLFloat6_e2m3fn = 15,
  kDLFloat6_e3m2fn = 16,
  kDLFloat4_e2m1fn = 17
};

/* Device types introduced after DLPack 0.6 (kDLCUDAManaged = 13 is the last one there). */
enum { kDLOneAPI = 14, kDLWebGPU = 15, kDLHexagon = 16, kDLMAIA = 17, kDLTrn = 18 };

/* The version of the DLPack ABI a versioned tensor was produced with. */
typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

/* Flag bits of DLManagedTensorVersioned.flags. */
#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)
#define DLPACK_FLAG_BITMASK_IS_SUBBYTE_TYPE_PADDED (1UL << 2UL)

/* A DLTensor with its owner, its deleter, the producer's DLPack version and flags. */
typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

/*
 * Allocates a tensor shaped like `prototype` (device, ndim, shape, dtype are read). On failure
 * it calls SetError(error_ctx, kind, message) and returns non-zero.
 */
typedef int (*DLPackManagedTensorAllocator)(DLTensor* prototype, DLManagedTensorVersioned** out,
                                            void* error_ctx,
                                            void (*SetError)(void* error_ctx, const char* kind,
                                                             const char* message));

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* !DLPACK_MAJOR_VERSION */

/* Pin the layouts the ABI depends on, whichever header supplied them (LP64). */
#ifndef __cplusplus
_Static_assert(sizeof(DLDevice) == 8, "DLDevice layout");
_Static_assert(sizeof(DLDataType) == 4, "DLDataType layout");
_Static_assert(offsetof(DLDataType, bits) == 1 && offsetof(DLDataType, lanes) == 2,
               "DLDataType field offsets");
_Static_assert(sizeof(DLTensor) == 48, "DLTensor layout");
_Static_assert(offsetof(DLTensor, device) == 8 && offsetof(DLTensor, ndim) == 16 &&
                   offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, shape) == 24 &&
                   offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, byte_offset) == 40,
               "DLTensor field offsets");
_Static_assert(sizeof(DLManagedTensor) == 64, "DLManagedTensor layout");
_Static_assert(sizeof(DLPackVersion) == 8, "DLPackVersion layout");
_Static_assert(offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
                   offsetof(DLManagedTensorVersioned, deleter) == 16 &&
                   offsetof(DLManagedTensorVersioned, flags) == 24 &&
                   offsetof(DLManagedTensorVersioned, dl_tensor) == 32,
               "DLManagedTensorVersioned field offsets");
_Static_assert(sizeof(DLManagedTensorVersioned) == 80, "DLManagedTensorVersioned layout");
_Static_assert(kDLBool == 6 && kDLFloat8_e4m3fn == 10 && kDLFloat4_e2m1fn == 17,
               "DLPack 1.x data type codes");
#endif

#endif /* TVM_FFI_DLPACK_COMPAT_H_ */
