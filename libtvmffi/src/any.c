/* any.c: owned/borrowed Any values: conversion of views, typed reads, value hashing. */
#include <string.h>

#include "internal.h"

int TVMFFIAnyViewToOwnedAny(const TVMFFIAny* any_view, TVMFFIAny* out) {
  if (!any_view || !out) return tvm_ffi_raise("ValueError", "TVMFFIAnyViewToOwnedAny: NULL");
  switch (any_view->type_index) {
    case kTVMFFIRawStr: {
      if (!any_view->v_c_str) return tvm_ffi_raise("ValueError", "raw string value is NULL");
      TVMFFIByteArray b = {any_view->v_c_str, strlen(any_view->v_c_str)};
      return TVMFFIStringFromByteArray(&b, out);
    }
    case kTVMFFIByteArrayPtr:
      if (!any_view->v_ptr) return tvm_ffi_raise("ValueError", "byte array value is NULL");
      return TVMFFIBytesFromByteArray((const TVMFFIByteArray*)any_view->v_ptr, out);
    case kTVMFFIObjectRValueRef: {
      /* Move the object out of the referenced slot. */
      void** slot = (void**)any_view->v_ptr;
      if (!slot) return tvm_ffi_raise("ValueError", "object reference value is NULL");
      *out = tvm_ffi_any_obj(*slot);
      *slot = NULL;
      return 0;
    }
    default:
      *out = tvm_ffi_any_copy(any_view);
      return 0;
  }
}

int tvm_ffi_any_to_owned(const TVMFFIAny* view, TVMFFIAny* out) {
  return TVMFFIAnyViewToOwnedAny(view, out);
}

bool tvm_ffi_any_as_int(const TVMFFIAny* a, int64_t* out) {
  if (a->type_index == kTVMFFIInt || a->type_index == kTVMFFIBool) {
    *out = a->v_int64;
    return true;
  }
  return false;
}

bool tvm_ffi_any_as_float(const TVMFFIAny* a, double* out) {
  if (a->type_index == kTVMFFIFloat) {
    *out = a->v_float64;
    return true;
  }
  if (a->type_index == kTVMFFIInt || a->type_index == kTVMFFIBool) {
    *out = (double)a->v_int64;
    return true;
  }
  return false;
}

bool tvm_ffi_any_as_bool(const TVMFFIAny* a, bool* out) {
  if (a->type_index == kTVMFFIBool || a->type_index == kTVMFFIInt) {
    *out = a->v_int64 != 0;
    return true;
  }
  return false;
}

bool tvm_ffi_any_as_bytes(const TVMFFIAny* a, TVMFFIByteArray* out) {
  switch (a->type_index) {
    case kTVMFFISmallStr:
    case kTVMFFISmallBytes:
      *out = TVMFFISmallBytesGetContentByteArray(a);
      return true;
    case kTVMFFIStr:
    case kTVMFFIBytes:
      *out = *TVMFFIBytesGetByteArrayPtr(a->v_obj);
      return true;
    case kTVMFFIRawStr:
      if (!a->v_c_str) return false;
      out->data = a->v_c_str;
      out->size = strlen(a->v_c_str);
      return true;
    case kTVMFFIByteArrayPtr:
      *out = *(const TVMFFIByteArray*)a->v_ptr;
      return true;
    default:
      return false;
  }
}

void* tvm_ffi_any_as_object(const TVMFFIAny* a, int32_t type_index) {
  if (a->type_index < kTVMFFIStaticObjectBegin) return NULL;
  return tvm_ffi_instance_of(a->v_obj, type_index) ? a->v_obj : NULL;
}

const char* tvm_ffi_any_type_name(const TVMFFIAny* a) {
  switch (a->type_index) {
    case kTVMFFISmallStr:
    case kTVMFFIRawStr:
      return "ffi.String";
    case kTVMFFISmallBytes:
    case kTVMFFIByteArrayPtr:
      return "ffi.Bytes";
    default:
      return tvm_ffi_type_key(a->type_index);
  }
}

static bool is_str(int32_t t) {
  return t == kTVMFFISmallStr || t == kTVMFFIStr || t == kTVMFFIRawStr;
}
static bool is_bytes(int32_t t) {
  return t == kTVMFFISmallBytes || t == kTVMFFIBytes || t == kTVMFFIByteArrayPtr;
}

bool tvm_ffi_any_equal(const TVMFFIAny* a, const TVMFFIAny* b) {
  int32_t ta = a->type_index, tb = b->type_index;
  if ((is_str(ta) && is_str(tb)) || (is_bytes(ta) && is_bytes(tb))) {
    TVMFFIByteArray x, y;
    tvm_ffi_any_as_bytes(a, &x);
    tvm_ffi_any_as_bytes(b, &y);
    return x.size == y.size && (x.size == 0 || memcmp(x.data, y.data, x.size) == 0);
  }
  if (ta != tb) return false;
  switch (ta) {
    case kTVMFFINone:
      return true;
    case kTVMFFIDataType:
      return tvm_ffi_dtype_equal(a->v_dtype, b->v_dtype);
    case kTVMFFIDevice:
      return a->v_device.device_type == b->v_device.device_type &&
             a->v_device.device_id == b->v_device.device_id;
    case kTVMFFIFloat:
      return a->v_float64 == b->v_float64 || (a->v_float64 != a->v_float64 &&
                                              b->v_float64 != b->v_float64);
    default:
      return a->v_uint64 == b->v_uint64;
  }
}

uint64_t tvm_ffi_hash_bytes(const void* data, size_t n) {
  return tvm_ffi__hash_bytes((const char*)data, n);
}

uint64_t tvm_ffi_any_hash(const TVMFFIAny* a) {
  int32_t t = a->type_index;
  TVMFFIByteArray s;
  if (is_str(t) || is_bytes(t)) {
    tvm_ffi_any_as_bytes(a, &s);
    return tvm_ffi__hash_bytes(s.data, s.size) ^
           (is_str(t) ? TVM_FFI__STR_HASH_TAG : TVM_FFI__BYTES_HASH_TAG);
  }
  uint64_t v;
  switch (t) {
    case kTVMFFINone:
      v = 0;
      break;
    case kTVMFFIDataType:
      v = (uint64_t)a->v_dtype.code | ((uint64_t)a->v_dtype.bits << 8) |
          ((uint64_t)a->v_dtype.lanes << 16);
      break;
    case kTVMFFIDevice:
      v = (uint64_t)(uint32_t)a->v_device.device_type | ((uint64_t)(uint32_t)a->v_device.device_id << 32);
      break;
    case kTVMFFIFloat: {
      /* Consistent with tvm_ffi_any_equal: 0.0 == -0.0, and all NaNs are equal. */
      double d = a->v_float64;
      if (d == 0.0) d = 0.0;
      if (d != d) d = __builtin_nan("");
      memcpy(&v, &d, sizeof(v));
      break;
    }
    default:
      v = a->v_uint64;
  }
  return tvm_ffi__mix64(v ^ ((uint64_t)(uint32_t)t << 40));
}
