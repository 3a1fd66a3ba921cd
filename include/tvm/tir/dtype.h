/*
 * tvm/tir/dtype.h: TIR data types on top of DLDataType.
 *
 * TIR's datatypes (spec: "Datatypes") are DLDataType {code, bits, lanes}:
 *   int8/16/32/64       {kDLInt, bits, 1}          uint8/16/32/64   {kDLUInt, bits, 1}
 *   float16/32/64       {kDLFloat, bits, 1}        bfloat16         {kDLBfloat, 16, 1}
 *   bool                {kDLUInt, 1, 1}            (spec: "Bool refers to a UInt datatype with a
 *                                                   bitwidth of 1"; upstream TIR does the same)
 *   handle              {kDLOpaqueHandle, 64, 1}   void             {kDLOpaqueHandle, 0, 0}
 *   vectors             lanes > 1, e.g. float32x4 = {kDLFloat, 32, 4}, boolx8 = {kDLUInt, 1, 8}
 *
 * Text uses TIR's spelling: "bool"/"boolx4" for uint1, "handle", "void"; everything else is
 * written as libtvmffi writes it ("int32", "float16x8", "bfloat16"). Note that libtvmffi parses
 * "bool" as DLPack's kDLBool (8 bits); tvm_tir_dtype_parse maps it to TIR's uint1 instead.
 */
#ifndef TVM_TIR_DTYPE_H_
#define TVM_TIR_DTYPE_H_

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <tvm/ffi/ffi.h>

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default) /* public API; see cmake/TvmLibrary.cmake */

/* ---- Constructors ------------------------------------------------------------------------ */
static inline DLDataType tvm_tir_dtype_int(int bits) {
  return tvm_ffi_dtype(kDLInt, (uint8_t)bits, 1);
}
static inline DLDataType tvm_tir_dtype_uint(int bits) {
  return tvm_ffi_dtype(kDLUInt, (uint8_t)bits, 1);
}
static inline DLDataType tvm_tir_dtype_float(int bits) {
  return tvm_ffi_dtype(kDLFloat, (uint8_t)bits, 1);
}
static inline DLDataType tvm_tir_dtype_bfloat16(void) { return tvm_ffi_dtype(kDLBfloat, 16, 1); }
static inline DLDataType tvm_tir_dtype_bool(void) { return tvm_ffi_dtype(kDLUInt, 1, 1); }
static inline DLDataType tvm_tir_dtype_handle(void) {
  return tvm_ffi_dtype(kDLOpaqueHandle, 64, 1);
}
static inline DLDataType tvm_tir_dtype_void(void) { return tvm_ffi_dtype(kDLOpaqueHandle, 0, 0); }
/* The same element type with `lanes` lanes / with one lane. */
static inline DLDataType tvm_tir_dtype_with_lanes(DLDataType t, int lanes) {
  t.lanes = (uint16_t)lanes;
  return t;
}
static inline DLDataType tvm_tir_dtype_element(DLDataType t) {
  return tvm_tir_dtype_with_lanes(t, 1);
}

/* Shorthands for the common scalar types. */
#define TVM_TIR_INT8 tvm_tir_dtype_int(8)
#define TVM_TIR_INT16 tvm_tir_dtype_int(16)
#define TVM_TIR_INT32 tvm_tir_dtype_int(32)
#define TVM_TIR_INT64 tvm_tir_dtype_int(64)
#define TVM_TIR_UINT8 tvm_tir_dtype_uint(8)
#define TVM_TIR_UINT16 tvm_tir_dtype_uint(16)
#define TVM_TIR_UINT32 tvm_tir_dtype_uint(32)
#define TVM_TIR_UINT64 tvm_tir_dtype_uint(64)
#define TVM_TIR_FLOAT16 tvm_tir_dtype_float(16)
#define TVM_TIR_FLOAT32 tvm_tir_dtype_float(32)
#define TVM_TIR_FLOAT64 tvm_tir_dtype_float(64)
#define TVM_TIR_BFLOAT16 tvm_tir_dtype_bfloat16()
#define TVM_TIR_BOOL tvm_tir_dtype_bool()
#define TVM_TIR_HANDLE tvm_tir_dtype_handle()
#define TVM_TIR_VOID tvm_tir_dtype_void()

/* ---- Predicates (spec: "Definitions Related to DataType") ---------------------------------- */
static inline bool tvm_tir_dtype_equal(DLDataType a, DLDataType b) {
  return tvm_ffi_dtype_equal(a, b);
}
static inline bool tvm_tir_dtype_is_int(DLDataType t) { return t.code == kDLInt; }
static inline bool tvm_tir_dtype_is_uint(DLDataType t) { return t.code == kDLUInt; }
/* Int or UInt (bool included). */
static inline bool tvm_tir_dtype_is_integer(DLDataType t) {
  return t.code == kDLInt || t.code == kDLUInt;
}
static inline bool tvm_tir_dtype_is_float(DLDataType t) { return t.code == kDLFloat; }
static inline bool tvm_tir_dtype_is_bfloat(DLDataType t) { return t.code == kDLBfloat; }
/* Float or BFloat. */
static inline bool tvm_tir_dtype_is_floating(DLDataType t) {
  return t.code == kDLFloat || t.code == kDLBfloat;
}
/* A handle (pointer, bits != 0) or void (bits == 0): both carry the Handle code. */
static inline bool tvm_tir_dtype_is_handle_code(DLDataType t) { return t.code == kDLOpaqueHandle; }
static inline bool tvm_tir_dtype_is_void(DLDataType t) {
  return t.code == kDLOpaqueHandle && t.bits == 0;
}
static inline bool tvm_tir_dtype_is_handle(DLDataType t) {
  return t.code == kDLOpaqueHandle && t.bits != 0;
}
/* Bool of any lane count: {kDLUInt, 1, lanes}. */
static inline bool tvm_tir_dtype_is_bool(DLDataType t) { return t.code == kDLUInt && t.bits == 1; }
/* Scalar / vector apply to the value codes (Int, UInt, Float, BFloat), as in the spec. */
static inline bool tvm_tir_dtype_is_scalar(DLDataType t) {
  return t.code != kDLOpaqueHandle && t.lanes == 1;
}
static inline bool tvm_tir_dtype_is_vector(DLDataType t) {
  return t.code != kDLOpaqueHandle && t.lanes > 1;
}
/* Int/UInt with one lane: the type of loop variables, indices, extents. */
static inline bool tvm_tir_dtype_is_index(DLDataType t) {
  return tvm_tir_dtype_is_integer(t) && t.lanes == 1;
}

/* Smallest / largest value of an Int or UInt element type (IntImm's range, spec rule 2). UInt64
 * tops out at INT64_MAX because IntImm stores an int64 (larger values use tir.large_uint_imm). */
int64_t tvm_tir_dtype_min_int(DLDataType t);
int64_t tvm_tir_dtype_max_int(DLDataType t);
/* Whether v is a valid IntImm value of t (t an Int/UInt type). */
bool tvm_tir_dtype_int_fits(DLDataType t, int64_t v);

/* ---- Text ---------------------------------------------------------------------------------- */
/* TIR spelling into buf (at least 32 bytes): the length, or -1 with a ValueError. */
int tvm_tir_dtype_format(DLDataType t, char* buf, size_t buf_size);
/* Parse TIR spelling ("bool", "boolx4", "handle", "void", "float32x4", ...); ValueError. */
int tvm_tir_dtype_parse(const char* s, size_t n, DLDataType* out);

/* Formatted text by value, for messages: printf("%s", tvm_tir_dtype_str(t).s). Never fails:
 * a type with no name prints as "dtype(code=C, bits=B, lanes=L)". */
typedef struct {
  char s[48];
} tvm_tir_dtype_text;
tvm_tir_dtype_text tvm_tir_dtype_str(DLDataType t);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif /* TVM_TIR_DTYPE_H_ */
