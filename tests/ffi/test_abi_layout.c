/*
 * test_abi_layout.c: the ABI's struct layouts, enum values and function set, pinned.
 *
 * The static asserts fail the build if a layout drifts from apache/tvm-ffi 0.1.14's; the
 * runtime part takes the address of every ABI function, so a missing one fails the link.
 */
#include <stddef.h>

#include "test_util.h"

/* Object header and values. */
_Static_assert(sizeof(TVMFFIObject) == 24, "TVMFFIObject size");
_Static_assert(offsetof(TVMFFIObject, combined_ref_count) == 0, "ref count first");
_Static_assert(offsetof(TVMFFIObject, type_index) == 8, "type_index offset");
_Static_assert(offsetof(TVMFFIObject, deleter) == 16, "deleter offset");
_Static_assert(sizeof(TVMFFIAny) == 16, "TVMFFIAny size");
_Static_assert(offsetof(TVMFFIAny, type_index) == 0, "Any type_index");
_Static_assert(offsetof(TVMFFIAny, small_str_len) == 4, "Any small_str_len");
_Static_assert(offsetof(TVMFFIAny, v_int64) == 8, "Any payload");
_Static_assert(offsetof(TVMFFIAny, v_bytes) == 8, "Any small bytes");
_Static_assert(sizeof(TVMFFIByteArray) == 16, "TVMFFIByteArray size");
_Static_assert(sizeof(TVMFFIShapeCell) == 16, "TVMFFIShapeCell size");
_Static_assert(sizeof(TVMFFISeqCell) == 32, "TVMFFISeqCell size");
_Static_assert(offsetof(TVMFFISeqCell, size) == 8 && offsetof(TVMFFISeqCell, capacity) == 16 &&
                   offsetof(TVMFFISeqCell, data_deleter) == 24,
               "TVMFFISeqCell fields");
_Static_assert(sizeof(TVMFFIErrorCell) == 72, "TVMFFIErrorCell size");
_Static_assert(offsetof(TVMFFIErrorCell, message) == 16 && offsetof(TVMFFIErrorCell, backtrace) == 32 &&
                   offsetof(TVMFFIErrorCell, update_backtrace) == 48 &&
                   offsetof(TVMFFIErrorCell, cause_chain) == 56 &&
                   offsetof(TVMFFIErrorCell, extra_context) == 64,
               "TVMFFIErrorCell fields");
_Static_assert(sizeof(TVMFFIFunctionCell) == 16, "TVMFFIFunctionCell size");
_Static_assert(sizeof(TVMFFIOpaqueObjectCell) == 8, "TVMFFIOpaqueObjectCell size");
_Static_assert(sizeof(TVMFFIVersion) == 12, "TVMFFIVersion size");
_Static_assert(sizeof(TVMFFIObjectAllocHeader) == 8, "TVMFFIObjectAllocHeader size");
_Static_assert(sizeof(TVMFFICustomAllocator) == 16, "TVMFFICustomAllocator size");

/* Reflection. */
_Static_assert(sizeof(TVMFFIFieldInfo) == 120, "TVMFFIFieldInfo size");
_Static_assert(offsetof(TVMFFIFieldInfo, flags) == 48 && offsetof(TVMFFIFieldInfo, size) == 56 &&
                   offsetof(TVMFFIFieldInfo, alignment) == 64 &&
                   offsetof(TVMFFIFieldInfo, offset) == 72 && offsetof(TVMFFIFieldInfo, getter) == 80 &&
                   offsetof(TVMFFIFieldInfo, setter) == 88 &&
                   offsetof(TVMFFIFieldInfo, default_value_or_factory) == 96 &&
                   offsetof(TVMFFIFieldInfo, field_static_type_index) == 112,
               "TVMFFIFieldInfo fields");
_Static_assert(sizeof(TVMFFIMethodInfo) == 72, "TVMFFIMethodInfo size");
_Static_assert(offsetof(TVMFFIMethodInfo, flags) == 48 && offsetof(TVMFFIMethodInfo, method) == 56,
               "TVMFFIMethodInfo fields");
_Static_assert(sizeof(TVMFFITypeMetadata) == 32, "TVMFFITypeMetadata size");
_Static_assert(offsetof(TVMFFITypeMetadata, creator) == 16 &&
                   offsetof(TVMFFITypeMetadata, total_size) == 24 &&
                   offsetof(TVMFFITypeMetadata, structural_eq_hash_kind) == 28,
               "TVMFFITypeMetadata fields");
_Static_assert(sizeof(TVMFFITypeAttrColumn) == 16, "TVMFFITypeAttrColumn size");
_Static_assert(offsetof(TVMFFITypeAttrColumn, size) == 8 &&
                   offsetof(TVMFFITypeAttrColumn, begin_index) == 12,
               "TVMFFITypeAttrColumn fields");
_Static_assert(sizeof(TVMFFITypeInfo) == 72, "TVMFFITypeInfo size");
_Static_assert(offsetof(TVMFFITypeInfo, type_key) == 8 &&
                   offsetof(TVMFFITypeInfo, type_ancestors) == 24 &&
                   offsetof(TVMFFITypeInfo, type_key_hash) == 32 &&
                   offsetof(TVMFFITypeInfo, num_fields) == 40 &&
                   offsetof(TVMFFITypeInfo, num_methods) == 44 && offsetof(TVMFFITypeInfo, fields) == 48 &&
                   offsetof(TVMFFITypeInfo, methods) == 56 && offsetof(TVMFFITypeInfo, metadata) == 64,
               "TVMFFITypeInfo fields");

/* Enum values callers hard-code. */
_Static_assert(kTVMFFINone == 0 && kTVMFFIInt == 1 && kTVMFFIBool == 2 && kTVMFFIFloat == 3 &&
                   kTVMFFIOpaquePtr == 4 && kTVMFFIDataType == 5 && kTVMFFIDevice == 6 &&
                   kTVMFFIDLTensorPtr == 7 && kTVMFFIRawStr == 8 && kTVMFFIByteArrayPtr == 9 &&
                   kTVMFFIObjectRValueRef == 10 && kTVMFFISmallStr == 11 && kTVMFFISmallBytes == 12,
               "POD type indices");
_Static_assert(kTVMFFIObject == 64 && kTVMFFIStr == 65 && kTVMFFIBytes == 66 && kTVMFFIError == 67 &&
                   kTVMFFIFunction == 68 && kTVMFFIShape == 69 && kTVMFFITensor == 70 &&
                   kTVMFFIArray == 71 && kTVMFFIMap == 72 && kTVMFFIModule == 73 &&
                   kTVMFFIOpaquePyObject == 74 && kTVMFFIList == 75 && kTVMFFIDict == 76 &&
                   kTVMFFIVisitInterrupt == 77 && kTVMFFIDynObjectBegin == 128,
               "object type indices");
_Static_assert(kTVMFFIObjectDeleterFlagBitMaskStrong == 1 && kTVMFFIObjectDeleterFlagBitMaskWeak == 2 &&
                   kTVMFFIObjectDeleterFlagBitMaskBoth == 3,
               "deleter flags");
_Static_assert(kTVMFFIFieldFlagBitMaskSEqHashIgnore == 8 && kTVMFFIFieldFlagBitMaskSEqHashDef == 16 &&
                   kTVMFFIFieldFlagBitSetterIsFunctionObj == 2048,
               "field flags");
_Static_assert(kTVMFFISEqHashKindFreeVar == 2 && kTVMFFISEqHashKindUniqueInstance == 5, "seq kinds");

typedef void (*any_fn)(void);
#define FN(name) (any_fn) & name

TEST(all_abi_functions_link) {
  /* 38 functions of c_api.h and 10 of extra/c_env_api.h. */
  any_fn c_api[] = {
      FN(TVMFFIGetVersion), FN(TVMFFIGetCustomAllocator), FN(TVMFFISetCustomAllocator),
      FN(TVMFFIObjectIncRef), FN(TVMFFIObjectDecRef), FN(TVMFFIObjectCreateOpaque),
      FN(TVMFFITypeKeyToIndex), FN(TVMFFIFunctionCreate), FN(TVMFFIFunctionGetGlobal),
      FN(TVMFFIAnyViewToOwnedAny), FN(TVMFFIFunctionCall), FN(TVMFFIErrorMoveFromRaised),
      FN(TVMFFIErrorSetRaised), FN(TVMFFIErrorSetRaisedFromCStr),
      FN(TVMFFIErrorSetRaisedFromCStrParts), FN(TVMFFIErrorCreate),
      FN(TVMFFIErrorCreateWithCauseAndExtraContext), FN(TVMFFITensorFromDLPack),
      FN(TVMFFITensorToDLPack), FN(TVMFFITensorFromDLPackVersioned),
      FN(TVMFFITensorToDLPackVersioned), FN(TVMFFITensorCreateUnsafeView),
      FN(TVMFFIStringFromByteArray), FN(TVMFFIBytesFromByteArray), FN(TVMFFIDataTypeFromString),
      FN(TVMFFIDataTypeToString), FN(TVMFFIFunctionSetGlobal),
      FN(TVMFFIFunctionSetGlobalFromMethodInfo), FN(TVMFFITypeRegisterField),
      FN(TVMFFITypeRegisterMethod), FN(TVMFFITypeRegisterMetadata), FN(TVMFFITypeRegisterAttr),
      FN(TVMFFIGetTypeAttrColumn), FN(TVMFFIBacktrace), FN(TVMFFITypeGetOrAllocIndex),
      FN(TVMFFIGetTypeInfo), FN(TVMFFIHandleInitOnce), FN(TVMFFIHandleDeinitOnce)};
  any_fn env_api[] = {FN(TVMFFIEnvSetStream), FN(TVMFFIEnvGetStream),
                      FN(TVMFFIEnvSetDLPackManagedTensorAllocator),
                      FN(TVMFFIEnvGetDLPackManagedTensorAllocator), FN(TVMFFIEnvTensorAlloc),
                      FN(TVMFFIEnvCheckSignals), FN(TVMFFIEnvRegisterCAPI),
                      FN(TVMFFIEnvModLookupFromImports), FN(TVMFFIEnvModRegisterContextSymbol),
                      FN(TVMFFIEnvModRegisterSystemLibSymbol)};
  CHECK_EQ_INT(sizeof(c_api) / sizeof(c_api[0]), 38);
  CHECK_EQ_INT(sizeof(env_api) / sizeof(env_api[0]), 10);
  for (size_t i = 0; i < sizeof(c_api) / sizeof(c_api[0]); ++i) CHECK(c_api[i] != NULL);
  for (size_t i = 0; i < sizeof(env_api) / sizeof(env_api[0]); ++i) CHECK(env_api[i] != NULL);
}

TEST(version) {
  TVMFFIVersion v;
  TVMFFIGetVersion(&v);
  CHECK_EQ_INT(v.major, 0);
  CHECK_EQ_INT(v.minor, 1);
  CHECK_EQ_INT(v.patch, 14);
  TVMFFIGetVersion(NULL); /* must not crash */
  extern const char* tvm_ffi_version(void);
  CHECK(strlen(tvm_ffi_version()) >= 5);
}

TEST(static_type_keys) {
  static const struct {
    int32_t index;
    const char* key;
  } keys[] = {{kTVMFFINone, "None"},         {kTVMFFIInt, "int"},
              {kTVMFFIBool, "bool"},         {kTVMFFIFloat, "float"},
              {kTVMFFIObject, "ffi.Object"}, {kTVMFFIStr, "ffi.String"},
              {kTVMFFIBytes, "ffi.Bytes"},   {kTVMFFIError, "ffi.Error"},
              {kTVMFFIFunction, "ffi.Function"}, {kTVMFFIShape, "ffi.Shape"},
              {kTVMFFITensor, "ffi.Tensor"}, {kTVMFFIArray, "ffi.Array"},
              {kTVMFFIMap, "ffi.Map"},       {kTVMFFIModule, "ffi.Module"},
              {kTVMFFIList, "ffi.List"},     {kTVMFFIDict, "ffi.Dict"}};
  for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); ++i) {
    const TVMFFITypeInfo* info = TVMFFIGetTypeInfo(keys[i].index);
    CHECK(info != NULL);
    if (!info) continue;
    CHECK_STR_EQ(info->type_key.data, keys[i].key);
    int32_t idx = -1;
    TVMFFIByteArray k = {keys[i].key, strlen(keys[i].key)};
    CHECK_OK(TVMFFITypeKeyToIndex(&k, &idx));
    CHECK_EQ_INT(idx, keys[i].index);
    if (keys[i].index > kTVMFFIObject) {
      CHECK_EQ_INT(info->type_depth, 1);
      CHECK_EQ_INT(info->type_ancestors[0]->type_index, kTVMFFIObject);
    }
  }
  CHECK(TVMFFIGetTypeInfo(5000) == NULL);
  CHECK(TVMFFIGetTypeInfo(-3) == NULL);
}

int main(void) {
  RUN(all_abi_functions_link);
  RUN(version);
  RUN(static_type_keys);
  return test_summary();
}
