/*
 * dtype.c: TIR datatype ranges and text. TIR spells uint1 "bool" and the void type "void";
 * everything else is libtvmffi's spelling (tvm_ffi_dtype_format / tvm_ffi_dtype_parse).
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

int64_t tvm_tir_dtype_min_int(DLDataType t) {
  if (t.code == kDLUInt || t.bits <= 1) return 0;
  if (t.bits >= 64) return INT64_MIN;
  return -((int64_t)1 << (t.bits - 1));
}

int64_t tvm_tir_dtype_max_int(DLDataType t) {
  if (t.bits <= 1) return 1; /* bool, and int1 (spec: "value must be either 0 or 1") */
  if (t.bits >= 64 || (t.code == kDLUInt && t.bits >= 63)) return INT64_MAX;
  if (t.code == kDLUInt) return ((int64_t)1 << t.bits) - 1;
  return ((int64_t)1 << (t.bits - 1)) - 1;
}

bool tvm_tir_dtype_int_fits(DLDataType t, int64_t v) {
  return v >= tvm_tir_dtype_min_int(t) && v <= tvm_tir_dtype_max_int(t);
}

int tvm_tir_dtype_format(DLDataType t, char* buf, size_t buf_size) {
  if (tvm_tir_dtype_is_bool(t)) {
    int n = t.lanes > 1 ? snprintf(buf, buf_size, "boolx%u", (unsigned)t.lanes)
                        : snprintf(buf, buf_size, "bool");
    if (n < 0 || (size_t)n >= buf_size) {
      return tvm_ffi_raise("ValueError", "tvm_tir_dtype_format: buffer too small");
    }
    return n;
  }
  if (t.code == kDLBool) {
    /* DLPack's bool (code kDLBool, 8 bits: "bool" to tvm-ffi) is not TIR's "bool" (uint1):
     * spell its width so that tvm_tir_dtype_parse reads it back ("bool8", "bool8x4"). */
    int n = t.lanes > 1 ? snprintf(buf, buf_size, "bool%ux%u", (unsigned)t.bits, (unsigned)t.lanes)
                        : snprintf(buf, buf_size, "bool%u", (unsigned)t.bits);
    if (n < 0 || (size_t)n >= buf_size) {
      return tvm_ffi_raise("ValueError", "tvm_tir_dtype_format: buffer too small");
    }
    return n;
  }
  return tvm_ffi_dtype_format(t, buf, buf_size);
}

int tvm_tir_dtype_parse(const char* s, size_t n, DLDataType* out) {
  if (s && n >= 4 && memcmp(s, "bool", 4) == 0 && (n == 4 || s[4] == 'x')) {
    DLDataType t;
    if (tvm_ffi_dtype_parse(s, n, &t) != 0) return -1; /* validates the lanes suffix */
    *out = tvm_ffi_dtype(kDLUInt, 1, t.lanes);
    return 0;
  }
  return tvm_ffi_dtype_parse(s, n, out);
}

tvm_tir_dtype_text tvm_tir_dtype_str(DLDataType t) {
  tvm_tir_dtype_text r;
  /* Every code up to kDLFloat4_e2m1fn has a name and fits the buffer, so formatting cannot
   * fail (and raise) there; other codes (custom types) get the numeric form. */
  if (t.code <= kDLFloat4_e2m1fn && tvm_tir_dtype_format(t, r.s, sizeof(r.s)) >= 0) return r;
  snprintf(r.s, sizeof(r.s), "dtype(code=%u, bits=%u, lanes=%u)", (unsigned)t.code,
           (unsigned)t.bits, (unsigned)t.lanes);
  return r;
}
