/*
 * struct_field.c: the fields of T.tvm_struct_get / T.tvm_struct_set, shared by the interpreter
 * and libcodegen (tvm-private/tir.h). The numbering is upstream's TVMStructFieldKind; the
 * layouts are DLPack's DLTensor and tvm-ffi's TVMFFIAny, pinned below.
 */
#include <stddef.h>
#include <stdint.h>

#include <tvm/ffi/ffi.h>
#include <tvm-private/tir.h>

#include "internal.h"

_Static_assert(sizeof(DLTensor) == 48 && offsetof(DLTensor, shape) == 24 &&
                   offsetof(DLTensor, strides) == 32 && offsetof(DLTensor, ndim) == 16 &&
                   offsetof(DLTensor, dtype) == 20 && offsetof(DLTensor, byte_offset) == 40 &&
                   offsetof(DLTensor, device) == 8,
               "DLTensor layout");
_Static_assert(sizeof(TVMFFIAny) == 16 && offsetof(TVMFFIAny, v_int64) == 8,
               "TVMFFIAny layout");

#define I(b) {kDLInt, b, 1}
#define U(b) {kDLUInt, b, 1}
#define H {kDLOpaqueHandle, 64, 1}

static const tvm_tir_struct_field kFields[] = {
    [0] = {"addr", 48, 0, H},          [1] = {"data", 48, 0, H},
    [2] = {"shape", 48, 24, H},        [3] = {"strides", 48, 32, H},
    [4] = {"ndim", 48, 16, I(32)},     [5] = {"type_code", 48, 20, U(8)},
    [6] = {"type_bits", 48, 21, U(8)}, [7] = {"type_lanes", 48, 22, U(16)},
    [8] = {"byte_offset", 48, 40, U(64)}, [9] = {"device_id", 48, 12, I(32)},
    [10] = {"device_type", 48, 8, I(32)},
    [12] = {"value", 16, 8, {0, 0, 0}}, [13] = {"type_index", 16, 0, I(32)},
    [14] = {"zero_padding", 16, 4, U(32)}, [15] = {"union_value", 16, 8, I(64)},
    [17] = {"int64 element", 8, 0, I(64)},
};

const tvm_tir_struct_field* tvm_tir__struct_field(int64_t kind) {
  if (kind < 0 || kind >= (int64_t)(sizeof(kFields) / sizeof(kFields[0]))) return NULL;
  return kFields[kind].name ? &kFields[kind] : NULL;
}

bool tvm_tir__struct_field_accepts(const tvm_tir_struct_field* f, DLDataType t) {
  if (t.lanes != 1) return false;
  if (f->dtype.lanes == 0)
    return tvm_tir_dtype_is_handle(t) || (t.code == kDLInt && t.bits == 64) ||
           (t.code == kDLFloat && t.bits == 64);
  if (tvm_tir_dtype_is_handle(f->dtype)) return tvm_tir_dtype_is_handle(t);
  return tvm_tir_dtype_is_integer(t) && !tvm_tir_dtype_is_bool(t);
}

const char* tvm_tir__struct_field_type_text(const tvm_tir_struct_field* f) {
  if (f->dtype.lanes == 0) return "a TVMFFIAny value (int64, float64 or handle)";
  if (f->offset == 0 && f->stride == 48 && f->name[0] == 'a') return "the structure's address (a handle)";
  return tvm_tir_dtype_is_handle(f->dtype) ? "a pointer (handle)" : "an integer";
}
