/*
 * interp_value.c: the interpreter's values. A lane of an Int/UInt type is kept wrapped to its
 * width, a lane of a Float/BFloat type as a double holding a value of that type exactly (so
 * float16/bfloat16 are rounded to nearest even after every operation), a handle as a pointer.
 * Conversions follow C (spec E5 semantics) and the memory encoding is the usual one (IEEE
 * binary16, bfloat16 as the top half of a binary32, bool one byte).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "interp_internal.h"

tir_lane tvm_tir__normalize(DLDataType elem, tir_lane x) {
  if (tvm_tir_dtype_is_integer(elem)) {
    x.i = tvm_tir__wrap_int(elem, (uint64_t)x.i);
  } else if (tvm_tir_dtype_is_floating(elem)) {
    x.f = tvm_tir__round_float(elem, x.f);
  }
  return x;
}

void tvm_tir__value_int(tir_value* out, DLDataType t, int64_t v) {
  out->dtype = t;
  out->lane[0].i = v;
  out->lane[0] = tvm_tir__normalize(t, out->lane[0]);
}

void tvm_tir__value_void(tir_value* out) {
  out->dtype = tvm_tir_dtype_void();
  out->lane[0].i = 0;
}

double tvm_tir__lane_as_double(DLDataType elem, tir_lane x) {
  if (tvm_tir_dtype_is_floating(elem)) return x.f;
  return tir_is_unsigned(elem) ? (double)(uint64_t)x.i : (double)x.i;
}

/* An integer converted to a float type the way C converts it (one rounding for float32 and
 * float64; float16/bfloat16 go through float, which is exact enough to round only once). */
static double int_to_float(DLDataType from, DLDataType to, int64_t v) {
  bool u = tir_is_unsigned(from);
  if (to.code == kDLFloat && to.bits == 64) return u ? (double)(uint64_t)v : (double)v;
  float f = u ? (float)(uint64_t)v : (float)v;
  return tvm_tir__round_float(to, (double)f);
}

/* A float truncated toward zero into an Int/UInt type; false when it does not fit (undefined
 * behaviour in C, an error here). */
static bool float_to_int(DLDataType to, double v, int64_t* out) {
  if (isnan(v)) return false;
  double t = trunc(v);
  if (to.code == kDLInt) {
    double lo = -ldexp(1.0, to.bits - 1), hi = ldexp(1.0, to.bits - 1);
    if (t < lo || t >= hi) return false;
    *out = (int64_t)t;
  } else {
    if (t < 0 || t >= ldexp(1.0, to.bits)) return false;
    *out = (int64_t)(uint64_t)t;
  }
  return true;
}

int tvm_tir__cast_lane(DLDataType from, DLDataType to, tir_lane x, tir_lane* out, const char* what) {
  from = tvm_tir_dtype_element(from);
  to = tvm_tir_dtype_element(to);
  if (tvm_tir_dtype_is_handle_code(to)) {
    if (tvm_tir_dtype_is_handle_code(from)) {
      *out = x;
    } else if (tvm_tir_dtype_is_integer(from)) {
      out->p = (void*)(uintptr_t)x.i;
    } else {
      return tvm_ffi_raise("TypeError", "%s: cannot cast %s to a handle", what,
                           tvm_tir_dtype_str(from).s);
    }
    return 0;
  }
  if (tvm_tir_dtype_is_handle_code(from)) {
    return tvm_ffi_raise("TypeError", "%s: cannot cast a handle to %s", what,
                         tvm_tir_dtype_str(to).s);
  }
  if (tvm_tir_dtype_is_bool(to)) { /* C's _Bool: any non-zero value (NaN included) is 1 */
    out->i = tvm_tir_dtype_is_floating(from) ? x.f != 0 : x.i != 0;
    return 0;
  }
  if (tvm_tir_dtype_is_integer(to)) {
    if (tvm_tir_dtype_is_integer(from)) {
      out->i = tvm_tir__wrap_int(to, (uint64_t)x.i);
      return 0;
    }
    int64_t v;
    if (!float_to_int(to, x.f, &v)) {
      return tvm_ffi_raise("ValueError",
                           "%s: %s value %.17g does not fit %s (undefined behaviour in C)", what,
                           tvm_tir_dtype_str(from).s, x.f, tvm_tir_dtype_str(to).s);
    }
    out->i = tvm_tir__wrap_int(to, (uint64_t)v);
    return 0;
  }
  if (tvm_tir_dtype_is_floating(to)) {
    out->f = tvm_tir_dtype_is_integer(from) ? int_to_float(from, to, x.i)
                                            : tvm_tir__round_float(to, x.f);
    return 0;
  }
  return tvm_ffi_raise("NotImplementedError", "%s: cast from %s to %s is not supported", what,
                       tvm_tir_dtype_str(from).s, tvm_tir_dtype_str(to).s);
}

/* ---- Memory encoding ------------------------------------------------------------------------ */
static double half_to_double(uint16_t h) {
  int exp = (h >> 10) & 0x1f, man = h & 0x3ff;
  double v;
  if (exp == 0) {
    v = ldexp((double)man, -24);
  } else if (exp == 31) {
    v = man ? NAN : INFINITY;
  } else {
    v = ldexp((double)(man + 1024), exp - 25);
  }
  return (h & 0x8000) ? -v : v;
}

/* v is a float16 value (already rounded), so the conversion is exact. */
static uint16_t double_to_half(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (isnan(v)) return sign | 0x7e00;
  if (isinf(a)) return sign | 0x7c00;
  if (a < ldexp(1.0, -14)) return sign | (uint16_t)ldexp(a, 24); /* zero or subnormal */
  int e;
  frexp(a, &e); /* a in [2^(e-1), 2^e) */
  uint16_t man = (uint16_t)(ldexp(a, 11 - e) - 1024);
  return sign | (uint16_t)((e - 1 + 15) << 10) | man;
}

static double bf16_to_double(uint16_t h) {
  uint32_t bits = (uint32_t)h << 16;
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

static uint16_t double_to_bf16(double v) {
  float f = (float)v; /* exact: v is a bfloat16 value */
  uint32_t bits;
  memcpy(&bits, &f, 4);
  if (isnan(f)) return (uint16_t)((bits >> 16) | 0x0040);
  return (uint16_t)(bits >> 16);
}

static int64_t lane_bytes(DLDataType elem) {
  if (tvm_tir_dtype_is_bool(elem)) return 1;
  return elem.bits / 8;
}

int64_t tvm_tir__elem_bytes(DLDataType elem) { return lane_bytes(elem) * (elem.lanes ? elem.lanes : 1); }

static bool storable(DLDataType t) {
  switch (t.code) {
    case kDLInt:
      return t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLUInt:
      return t.bits == 1 || t.bits == 8 || t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLFloat:
      return t.bits == 16 || t.bits == 32 || t.bits == 64;
    case kDLBfloat:
      return t.bits == 16;
    case kDLOpaqueHandle:
      return t.bits == 64;
    default:
      return false;
  }
}

int tvm_tir__check_storable(DLDataType elem, const char* what) {
  if (storable(elem) && elem.lanes >= 1) return 0;
  return tvm_ffi_raise("NotImplementedError", "%s: elements of type %s are not supported", what,
                       tvm_tir_dtype_str(elem).s);
}

void tvm_tir__mem_read(DLDataType elem, const void* addr, tir_lane* out) {
  const char* p = (const char*)addr;
  int64_t n = lane_bytes(elem);
  for (int l = 0; l < (elem.lanes ? elem.lanes : 1); ++l, p += n) {
    tir_lane x = {0};
    if (elem.code == kDLFloat && elem.bits == 16) {
      uint16_t h;
      memcpy(&h, p, 2);
      x.f = half_to_double(h);
    } else if (elem.code == kDLBfloat) {
      uint16_t h;
      memcpy(&h, p, 2);
      x.f = bf16_to_double(h);
    } else if (elem.code == kDLFloat && elem.bits == 32) {
      float f;
      memcpy(&f, p, 4);
      x.f = f;
    } else if (elem.code == kDLFloat) {
      memcpy(&x.f, p, 8);
    } else if (elem.code == kDLOpaqueHandle) {
      memcpy(&x.p, p, sizeof(void*));
    } else if (tvm_tir_dtype_is_bool(elem)) {
      x.i = *(const unsigned char*)p != 0;
    } else {
      uint64_t bits = 0;
      memcpy(&bits, p, (size_t)n); /* little endian: the low bytes */
      x.i = tvm_tir__wrap_int(elem, bits);
    }
    out[l] = x;
  }
}

void tvm_tir__mem_write(DLDataType elem, void* addr, const tir_lane* in) {
  char* p = (char*)addr;
  int64_t n = lane_bytes(elem);
  for (int l = 0; l < (elem.lanes ? elem.lanes : 1); ++l, p += n) {
    tir_lane x = in[l];
    if (elem.code == kDLFloat && elem.bits == 16) {
      uint16_t h = double_to_half(x.f);
      memcpy(p, &h, 2);
    } else if (elem.code == kDLBfloat) {
      uint16_t h = double_to_bf16(x.f);
      memcpy(p, &h, 2);
    } else if (elem.code == kDLFloat && elem.bits == 32) {
      float f = (float)x.f;
      memcpy(p, &f, 4);
    } else if (elem.code == kDLFloat) {
      memcpy(p, &x.f, 8);
    } else if (elem.code == kDLOpaqueHandle) {
      memcpy(p, &x.p, sizeof(void*));
    } else if (tvm_tir_dtype_is_bool(elem)) {
      *(unsigned char*)p = x.i != 0;
    } else {
      uint64_t bits = (uint64_t)x.i;
      memcpy(p, &bits, (size_t)n);
    }
  }
}

void tvm_tir__lane_text(DLDataType elem, tir_lane x, char* buf, size_t n) {
  if (tvm_tir_dtype_is_floating(elem)) {
    snprintf(buf, n, "%.17g", x.f);
  } else if (tvm_tir_dtype_is_handle_code(elem)) {
    snprintf(buf, n, "%p", x.p);
  } else if (tir_is_unsigned(elem)) {
    snprintf(buf, n, "%llu", (unsigned long long)(uint64_t)x.i);
  } else {
    snprintf(buf, n, "%lld", (long long)x.i);
  }
}
