/*
 * test_upstream_names.c: every name that apache/tvm-ffi's C headers (tvm/ffi/c_api.h and
 * tvm/ffi/extra/c_env_api.h) declare, with its value or signature, so that a program written
 * against upstream's headers compiles against ours. A name missing from our headers, an
 * enumerator with another value, a struct without the field or a function with another
 * signature fails the build of this test.
 *
 * The list was written from upstream's c_api.h 0.1.10 (the newest full text we could read)
 * and the names upstream added up to 0.1.14 as its sources and changelog use them: the
 * SEqHashDefRecursive / SEqHashDefNonRecursive field flags, TVMFFIDefRegionKind, the
 * kTVMFFIVisitInterrupt type index, TVM_FFI_ATTRIBUTE_PURE, the custom object allocator
 * (TVMFFIObjectAllocHeader, TVMFFICustomAllocator, TVMFFIGet/SetCustomAllocator), and the
 * renamed env allocator functions. When upstream adds a name, add it here first.
 *
 * Layouts (offsets and sizes) are pinned separately in test_abi_layout.c.
 */
#include <stddef.h>

#include "test_util.h"

#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

/* A function with another signature than upstream's must fail the build, not warn. */
#pragma GCC diagnostic error "-Wincompatible-pointer-types"

/* ---- Macros ----------------------------------------------------------------------------- */
#if !defined(TVM_FFI_C_API_H_) || !defined(TVM_FFI_EXTRA_C_ENV_API_H_)
#error "include guards"
#endif
#if !defined(TVM_FFI_WEAK) || !defined(TVM_FFI_DLL) || !defined(TVM_FFI_DLL_EXPORT)
#error "linkage macros"
#endif
#if !defined(TVM_FFI_ATTRIBUTE_PURE)
#error "TVM_FFI_ATTRIBUTE_PURE"
#endif
#if !defined(TVM_FFI_VERSION_MAJOR) || !defined(TVM_FFI_VERSION_MINOR) || \
    !defined(TVM_FFI_VERSION_PATCH)
#error "version macros"
#endif
#if TVM_FFI_VERSION_MAJOR != 0 || TVM_FFI_VERSION_MINOR != 1
#error "this list is for tvm-ffi 0.1.x"
#endif

/* ---- Enumerators and their values --------------------------------------------------------- */
#define ENUMERATOR(type, name, value) _Static_assert((type)name == (value), #name);

/* TVMFFITypeIndex */
ENUMERATOR(TVMFFITypeIndex, kTVMFFIAny, -1)
ENUMERATOR(TVMFFITypeIndex, kTVMFFINone, 0)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIInt, 1)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIBool, 2)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIFloat, 3)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIOpaquePtr, 4)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIDataType, 5)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIDevice, 6)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIDLTensorPtr, 7)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIRawStr, 8)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIByteArrayPtr, 9)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIObjectRValueRef, 10)
ENUMERATOR(TVMFFITypeIndex, kTVMFFISmallStr, 11)
ENUMERATOR(TVMFFITypeIndex, kTVMFFISmallBytes, 12)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIStaticObjectBegin, 64)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIObject, 64)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIStr, 65)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIBytes, 66)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIError, 67)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIFunction, 68)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIShape, 69)
ENUMERATOR(TVMFFITypeIndex, kTVMFFITensor, 70)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIArray, 71)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIMap, 72)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIModule, 73)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIOpaquePyObject, 74)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIList, 75)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIDict, 76)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIVisitInterrupt, 77)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIStaticObjectEnd, 78)
ENUMERATOR(TVMFFITypeIndex, kTVMFFIDynObjectBegin, 128)

/* TVMFFIObjectDeleterFlagBitMask */
ENUMERATOR(TVMFFIObjectDeleterFlagBitMask, kTVMFFIObjectDeleterFlagBitMaskStrong, 1)
ENUMERATOR(TVMFFIObjectDeleterFlagBitMask, kTVMFFIObjectDeleterFlagBitMaskWeak, 2)
ENUMERATOR(TVMFFIObjectDeleterFlagBitMask, kTVMFFIObjectDeleterFlagBitMaskBoth, 3)

/* TVMFFIBacktraceUpdateMode */
ENUMERATOR(TVMFFIBacktraceUpdateMode, kTVMFFIBacktraceUpdateModeReplace, 0)
ENUMERATOR(TVMFFIBacktraceUpdateMode, kTVMFFIBacktraceUpdateModeAppend, 1)

/* TVMFFIFieldFlagBitMask */
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskWritable, 1 << 0)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskHasDefault, 1 << 1)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskIsStaticMethod, 1 << 2)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskSEqHashIgnore, 1 << 3)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskSEqHashDefRecursive, 1 << 4)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskDefaultFromFactory, 1 << 5)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskReprOff, 1 << 6)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskCompareOff, 1 << 7)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskHashOff, 1 << 8)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskInitOff, 1 << 9)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskKwOnly, 1 << 10)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitSetterIsFunctionObj, 1 << 11)
ENUMERATOR(TVMFFIFieldFlagBitMask, kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive, 1 << 12)

/* TVMFFISEqHashKind */
ENUMERATOR(TVMFFISEqHashKind, kTVMFFISEqHashKindUnsupported, 0)
ENUMERATOR(TVMFFISEqHashKind, kTVMFFISEqHashKindTreeNode, 1)
ENUMERATOR(TVMFFISEqHashKind, kTVMFFISEqHashKindFreeVar, 2)
ENUMERATOR(TVMFFISEqHashKind, kTVMFFISEqHashKindDAGNode, 3)
ENUMERATOR(TVMFFISEqHashKind, kTVMFFISEqHashKindConstTreeNode, 4)
ENUMERATOR(TVMFFISEqHashKind, kTVMFFISEqHashKindUniqueInstance, 5)

/* TVMFFIDefRegionKind */
ENUMERATOR(TVMFFIDefRegionKind, kTVMFFIDefRegionKindNone, 0)
ENUMERATOR(TVMFFIDefRegionKind, kTVMFFIDefRegionKindRecursive, 1)
ENUMERATOR(TVMFFIDefRegionKind, kTVMFFIDefRegionKindNonRecursive, 2)

/* ---- Struct fields and their types -------------------------------------------------------- */
/* The field exists and has the type upstream gives it (assigning its address to a pointer of
 * that type fails on a mismatch). */
#define FIELD(type, field, ftype) \
  static inline void field_##type##_##field(type* s) { ftype* p = &s->field; (void)p; }
/* For fields of function-pointer or array type, whose pointer type cannot be spelled simply. */
#define FIELD_ANY(type, field) \
  _Static_assert(sizeof(((type*)0)->field) > 0, #type "." #field);

FIELD(TVMFFIVersion, major, uint32_t)
FIELD(TVMFFIVersion, minor, uint32_t)
FIELD(TVMFFIVersion, patch, uint32_t)

FIELD(TVMFFIObject, combined_ref_count, uint64_t)
FIELD(TVMFFIObject, type_index, int32_t)
FIELD(TVMFFIObject, __padding, uint32_t)
FIELD_ANY(TVMFFIObject, deleter)
FIELD(TVMFFIObject, __ensure_align, int64_t)

FIELD(TVMFFIAny, type_index, int32_t)
FIELD(TVMFFIAny, zero_padding, uint32_t)
FIELD(TVMFFIAny, small_str_len, uint32_t)
FIELD(TVMFFIAny, v_int64, int64_t)
FIELD(TVMFFIAny, v_float64, double)
FIELD(TVMFFIAny, v_ptr, void*)
FIELD(TVMFFIAny, v_c_str, const char*)
FIELD(TVMFFIAny, v_obj, TVMFFIObject*)
FIELD(TVMFFIAny, v_dtype, DLDataType)
FIELD(TVMFFIAny, v_device, DLDevice)
FIELD_ANY(TVMFFIAny, v_bytes)
FIELD(TVMFFIAny, v_uint64, uint64_t)

FIELD(TVMFFIByteArray, data, const char*)
FIELD(TVMFFIByteArray, size, size_t)

FIELD(TVMFFIShapeCell, data, const int64_t*)
FIELD(TVMFFIShapeCell, size, size_t)

FIELD(TVMFFISeqCell, data, void*)
FIELD(TVMFFISeqCell, size, int64_t)
FIELD(TVMFFISeqCell, capacity, int64_t)
FIELD_ANY(TVMFFISeqCell, data_deleter)

FIELD(TVMFFIErrorCell, kind, TVMFFIByteArray)
FIELD(TVMFFIErrorCell, message, TVMFFIByteArray)
FIELD(TVMFFIErrorCell, backtrace, TVMFFIByteArray)
FIELD_ANY(TVMFFIErrorCell, update_backtrace)
FIELD(TVMFFIErrorCell, cause_chain, TVMFFIObjectHandle)
FIELD(TVMFFIErrorCell, extra_context, TVMFFIObjectHandle)

FIELD(TVMFFIFunctionCell, safe_call, TVMFFISafeCallType)
FIELD(TVMFFIFunctionCell, cpp_call, void*)

FIELD(TVMFFIOpaqueObjectCell, handle, void*)

FIELD_ANY(TVMFFIObjectAllocHeader, delete_space)
FIELD_ANY(TVMFFICustomAllocator, allocate)
FIELD(TVMFFICustomAllocator, context, void*)

FIELD(TVMFFIFieldInfo, name, TVMFFIByteArray)
FIELD(TVMFFIFieldInfo, doc, TVMFFIByteArray)
FIELD(TVMFFIFieldInfo, metadata, TVMFFIByteArray)
FIELD(TVMFFIFieldInfo, flags, int64_t)
FIELD(TVMFFIFieldInfo, size, int64_t)
FIELD(TVMFFIFieldInfo, alignment, int64_t)
FIELD(TVMFFIFieldInfo, offset, int64_t)
FIELD(TVMFFIFieldInfo, getter, TVMFFIFieldGetter)
FIELD(TVMFFIFieldInfo, setter, void*)
FIELD(TVMFFIFieldInfo, default_value_or_factory, TVMFFIAny)
FIELD(TVMFFIFieldInfo, field_static_type_index, int32_t)

FIELD(TVMFFIMethodInfo, name, TVMFFIByteArray)
FIELD(TVMFFIMethodInfo, doc, TVMFFIByteArray)
FIELD(TVMFFIMethodInfo, metadata, TVMFFIByteArray)
FIELD(TVMFFIMethodInfo, flags, int64_t)
FIELD(TVMFFIMethodInfo, method, TVMFFIAny)

FIELD(TVMFFITypeMetadata, doc, TVMFFIByteArray)
FIELD(TVMFFITypeMetadata, creator, TVMFFIObjectCreator)
FIELD(TVMFFITypeMetadata, total_size, int32_t)
FIELD(TVMFFITypeMetadata, structural_eq_hash_kind, TVMFFISEqHashKind)

FIELD(TVMFFITypeAttrColumn, data, const TVMFFIAny*)
FIELD(TVMFFITypeAttrColumn, size, int32_t)
FIELD(TVMFFITypeAttrColumn, begin_index, int32_t)

FIELD(TVMFFITypeInfo, type_index, int32_t)
FIELD(TVMFFITypeInfo, type_depth, int32_t)
FIELD(TVMFFITypeInfo, type_key, TVMFFIByteArray)
FIELD(TVMFFITypeInfo, type_ancestors, const struct TVMFFITypeInfo**)
FIELD(TVMFFITypeInfo, type_key_hash, uint64_t)
FIELD(TVMFFITypeInfo, num_fields, int32_t)
FIELD(TVMFFITypeInfo, num_methods, int32_t)
FIELD(TVMFFITypeInfo, fields, const TVMFFIFieldInfo*)
FIELD(TVMFFITypeInfo, methods, const TVMFFIMethodInfo*)
FIELD(TVMFFITypeInfo, metadata, const TVMFFITypeMetadata*)

/* ---- Function-pointer fields and typedefs, with upstream's signatures --------------------- */
static void deleter_sig(TVMFFIObject* o) { void (*p)(void*, int) = o->deleter; (void)p; }
static void update_backtrace_sig(TVMFFIErrorCell* c) {
  void (*p)(TVMFFIObjectHandle, const TVMFFIByteArray*, int32_t) = c->update_backtrace;
  (void)p;
}
static void data_deleter_sig(TVMFFISeqCell* c) { void (*p)(void*) = c->data_deleter; (void)p; }
static void delete_space_sig(TVMFFIObjectAllocHeader* h) { void (*p)(void*) = h->delete_space; (void)p; }
static void allocate_sig(TVMFFICustomAllocator* a) {
  void* (*p)(size_t, size_t, int32_t, void*) = a->allocate;
  (void)p;
}
static int safe_call_impl(void* h, const TVMFFIAny* a, int32_t n, TVMFFIAny* r) {
  (void)h, (void)a, (void)n, (void)r;
  return 0;
}
static int getter_impl(void* f, TVMFFIAny* r) { (void)f, (void)r; return 0; }
static int setter_impl(void* f, const TVMFFIAny* v) { (void)f, (void)v; return 0; }
static int creator_impl(TVMFFIObjectHandle* r) { (void)r; return 0; }
static const TVMFFISafeCallType safe_call_sig = safe_call_impl;
static const TVMFFIFieldGetter getter_sig = getter_impl;
static const TVMFFIFieldSetter setter_sig = setter_impl;
static const TVMFFIObjectCreator creator_sig = creator_impl;
static char v_bytes_is_8[sizeof(((TVMFFIAny*)0)->v_bytes) == 8 ? 1 : -1];

/* ---- Functions, with upstream's signatures ------------------------------------------------ */
typedef void (*any_fn)(void);
/* The compound literal converts implicitly, so a signature mismatch is an error. */
#define FUNC(ret, name, params) (any_fn)(ret(*) params){name},

TEST(every_upstream_function_is_declared_and_linked) {
  const any_fn c_api_functions[] = {
    FUNC(void, TVMFFIGetVersion, (TVMFFIVersion*))
    FUNC(TVMFFICustomAllocator*, TVMFFIGetCustomAllocator, (void))
    FUNC(int, TVMFFISetCustomAllocator, (TVMFFICustomAllocator*))
    FUNC(int, TVMFFIObjectIncRef, (TVMFFIObjectHandle))
    FUNC(int, TVMFFIObjectDecRef, (TVMFFIObjectHandle))
    FUNC(int, TVMFFIObjectCreateOpaque, (void*, int32_t, void (*)(void*), TVMFFIObjectHandle*))
    FUNC(int, TVMFFITypeKeyToIndex, (const TVMFFIByteArray*, int32_t*))
    FUNC(int, TVMFFIFunctionCreate, (void*, TVMFFISafeCallType, void (*)(void*), TVMFFIObjectHandle*))
    FUNC(int, TVMFFIFunctionGetGlobal, (const TVMFFIByteArray*, TVMFFIObjectHandle*))
    FUNC(int, TVMFFIAnyViewToOwnedAny, (const TVMFFIAny*, TVMFFIAny*))
    FUNC(int, TVMFFIFunctionCall, (TVMFFIObjectHandle, TVMFFIAny*, int32_t, TVMFFIAny*))
    FUNC(void, TVMFFIErrorMoveFromRaised, (TVMFFIObjectHandle*))
    FUNC(void, TVMFFIErrorSetRaised, (TVMFFIObjectHandle))
    FUNC(void, TVMFFIErrorSetRaisedFromCStr, (const char*, const char*))
    FUNC(void, TVMFFIErrorSetRaisedFromCStrParts, (const char*, const char**, int32_t))
    FUNC(int, TVMFFIErrorCreate, (const TVMFFIByteArray*, const TVMFFIByteArray*,
                                  const TVMFFIByteArray*, TVMFFIObjectHandle*))
    FUNC(int, TVMFFIErrorCreateWithCauseAndExtraContext,
         (const TVMFFIByteArray*, const TVMFFIByteArray*, const TVMFFIByteArray*,
          TVMFFIObjectHandle, TVMFFIObjectHandle, TVMFFIObjectHandle*))
    FUNC(int, TVMFFITensorFromDLPack, (DLManagedTensor*, int32_t, int32_t, TVMFFIObjectHandle*))
    FUNC(int, TVMFFITensorToDLPack, (TVMFFIObjectHandle, DLManagedTensor**))
    FUNC(int, TVMFFITensorFromDLPackVersioned,
         (DLManagedTensorVersioned*, int32_t, int32_t, TVMFFIObjectHandle*))
    FUNC(int, TVMFFITensorToDLPackVersioned, (TVMFFIObjectHandle, DLManagedTensorVersioned**))
    FUNC(int, TVMFFITensorCreateUnsafeView, (TVMFFIObjectHandle, const DLTensor*, TVMFFIObjectHandle*))
    FUNC(int, TVMFFIStringFromByteArray, (const TVMFFIByteArray*, TVMFFIAny*))
    FUNC(int, TVMFFIBytesFromByteArray, (const TVMFFIByteArray*, TVMFFIAny*))
    FUNC(int, TVMFFIDataTypeFromString, (const TVMFFIByteArray*, DLDataType*))
    FUNC(int, TVMFFIDataTypeToString, (const DLDataType*, TVMFFIAny*))
    FUNC(int, TVMFFIFunctionSetGlobal, (const TVMFFIByteArray*, TVMFFIObjectHandle, int))
    FUNC(int, TVMFFIFunctionSetGlobalFromMethodInfo, (const TVMFFIMethodInfo*, int))
    FUNC(int, TVMFFITypeRegisterField, (int32_t, const TVMFFIFieldInfo*))
    FUNC(int, TVMFFITypeRegisterMethod, (int32_t, const TVMFFIMethodInfo*))
    FUNC(int, TVMFFITypeRegisterMetadata, (int32_t, const TVMFFITypeMetadata*))
    FUNC(int, TVMFFITypeRegisterAttr, (int32_t, const TVMFFIByteArray*, const TVMFFIAny*))
    FUNC(const TVMFFITypeAttrColumn*, TVMFFIGetTypeAttrColumn, (const TVMFFIByteArray*))
    FUNC(const TVMFFIByteArray*, TVMFFIBacktrace, (const char*, int, const char*, int))
    FUNC(int32_t, TVMFFITypeGetOrAllocIndex,
         (const TVMFFIByteArray*, int32_t, int32_t, int32_t, int32_t, int32_t))
    FUNC(const TVMFFITypeInfo*, TVMFFIGetTypeInfo, (int32_t))
    FUNC(int, TVMFFIHandleInitOnce, (void**, int (*)(void**)))
    FUNC(int, TVMFFIHandleDeinitOnce, (void**, int (*)(void*)))
};

  const any_fn c_env_api_functions[] = {
    FUNC(int, TVMFFIEnvSetStream, (int32_t, int32_t, TVMFFIStreamHandle, TVMFFIStreamHandle*))
    FUNC(TVMFFIStreamHandle, TVMFFIEnvGetStream, (int32_t, int32_t))
    FUNC(int, TVMFFIEnvSetDLPackManagedTensorAllocator,
         (DLPackManagedTensorAllocator, int, DLPackManagedTensorAllocator*))
    FUNC(DLPackManagedTensorAllocator, TVMFFIEnvGetDLPackManagedTensorAllocator, (void))
    FUNC(int, TVMFFIEnvTensorAlloc, (DLTensor*, TVMFFIObjectHandle*))
    FUNC(int, TVMFFIEnvCheckSignals, (void))
    FUNC(int, TVMFFIEnvRegisterCAPI, (const char*, void*))
    FUNC(int, TVMFFIEnvModLookupFromImports, (TVMFFIObjectHandle, const char*, TVMFFIObjectHandle*))
    FUNC(int, TVMFFIEnvModRegisterContextSymbol, (const char*, void*))
    FUNC(int, TVMFFIEnvModRegisterSystemLibSymbol, (const char*, void*))
};

/* The header's inline accessors (upstream declares them for C++; ours serve C as well). */
  const any_fn inline_accessors[] = {
    FUNC(int32_t, TVMFFIObjectGetTypeIndex, (TVMFFIObjectHandle))
    FUNC(TVMFFIByteArray, TVMFFISmallBytesGetContentByteArray, (const TVMFFIAny*))
    FUNC(TVMFFIByteArray*, TVMFFIBytesGetByteArrayPtr, (TVMFFIObjectHandle))
    FUNC(TVMFFIErrorCell*, TVMFFIErrorGetCellPtr, (TVMFFIObjectHandle))
    FUNC(TVMFFIFunctionCell*, TVMFFIFunctionGetCellPtr, (TVMFFIObjectHandle))
    FUNC(TVMFFIOpaqueObjectCell*, TVMFFIOpaqueObjectGetCellPtr, (TVMFFIObjectHandle))
    FUNC(TVMFFIShapeCell*, TVMFFIShapeGetCellPtr, (TVMFFIObjectHandle))
    FUNC(DLTensor*, TVMFFITensorGetDLTensorPtr, (TVMFFIObjectHandle))
    FUNC(DLDevice, TVMFFIDLDeviceFromIntPair, (int32_t, int32_t))
};

  CHECK_EQ_INT(sizeof(c_api_functions) / sizeof(c_api_functions[0]), 38);
  CHECK_EQ_INT(sizeof(c_env_api_functions) / sizeof(c_env_api_functions[0]), 10);
  for (size_t i = 0; i < sizeof(c_api_functions) / sizeof(c_api_functions[0]); ++i)
    CHECK(c_api_functions[i] != NULL);
  for (size_t i = 0; i < sizeof(c_env_api_functions) / sizeof(c_env_api_functions[0]); ++i)
    CHECK(c_env_api_functions[i] != NULL);
  for (size_t i = 0; i < sizeof(inline_accessors) / sizeof(inline_accessors[0]); ++i)
    CHECK(inline_accessors[i] != NULL);
}

TEST(typedefs_and_signatures) {
  /* Every enum and struct typedef names a complete type. */
  TVMFFITypeIndex ti = kTVMFFIDict;
  TVMFFIObjectDeleterFlagBitMask df = kTVMFFIObjectDeleterFlagBitMaskBoth;
  TVMFFIBacktraceUpdateMode bm = kTVMFFIBacktraceUpdateModeAppend;
  TVMFFIFieldFlagBitMask ff = kTVMFFIFieldFlagBitMaskSEqHashDefNonRecursive;
  TVMFFISEqHashKind sk = kTVMFFISEqHashKindFreeVar;
  TVMFFIDefRegionKind dk = kTVMFFIDefRegionKindNonRecursive;
  CHECK_EQ_INT(ti + df + bm + sk + dk, 76 + 3 + 1 + 2 + 2);
  CHECK_EQ_INT(ff, 4096);
  size_t sizes[] = {sizeof(TVMFFIVersion),       sizeof(TVMFFIObject),
                    sizeof(TVMFFIAny),           sizeof(TVMFFIByteArray),
                    sizeof(TVMFFIShapeCell),     sizeof(TVMFFISeqCell),
                    sizeof(TVMFFIErrorCell),     sizeof(TVMFFIFunctionCell),
                    sizeof(TVMFFIOpaqueObjectCell), sizeof(TVMFFIObjectAllocHeader),
                    sizeof(TVMFFICustomAllocator),  sizeof(TVMFFIFieldInfo),
                    sizeof(TVMFFIMethodInfo),    sizeof(TVMFFITypeMetadata),
                    sizeof(TVMFFITypeAttrColumn), sizeof(struct TVMFFITypeInfo),
                    sizeof(struct TVMFFISeqCell), /* upstream's C++ names the struct */
                    sizeof(TVMFFIObjectHandle),  sizeof(TVMFFIStreamHandle),
                    sizeof(DLManagedTensorVersioned), sizeof(DLPackManagedTensorAllocator)};
  for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); ++i) CHECK(sizes[i] > 0);
  /* The function-typed fields and typedefs (checked at compile time; referenced here). */
  void (*checks[])(void) = {(any_fn)deleter_sig, (any_fn)update_backtrace_sig,
                            (any_fn)data_deleter_sig, (any_fn)delete_space_sig,
                            (any_fn)allocate_sig};
  for (size_t i = 0; i < sizeof(checks) / sizeof(checks[0]); ++i) CHECK(checks[i] != NULL);
  CHECK(safe_call_sig != NULL && getter_sig != NULL && setter_sig != NULL && creator_sig != NULL);
  CHECK_EQ_INT(sizeof(v_bytes_is_8), 1);
}

TEST(attribute_pure_type_info_lookup) {
  /* TVMFFIGetTypeInfo is declared pure: two lookups of one index give the same entry. */
  const TVMFFITypeInfo* a = TVMFFIGetTypeInfo(kTVMFFIStr);
  const TVMFFITypeInfo* b = TVMFFIGetTypeInfo(kTVMFFIStr);
  CHECK(a != NULL && a == b);
  CHECK(TVMFFIGetTypeInfo(kTVMFFIDynObjectBegin + 4000) == NULL);
  CHECK(!tvm_ffi_error_pending());
}

int main(void) {
  RUN(every_upstream_function_is_declared_and_linked);
  RUN(typedefs_and_signatures);
  RUN(attribute_pure_type_info_lookup);
  return test_summary();
}
