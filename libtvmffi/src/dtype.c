/*
 * dtype.c: DLDataType <-> text ("float32", "int8x4", "bool", "float8_e4m3fn", ...).
 *
 * Grammar accepted by tvm_ffi_dtype_parse / TVMFFIDataTypeFromString:
 *
 *   ""  | "void"                          -> {handle, 0, 0}   (the void type)
 *   "handle"                              -> {handle, 64, 1}
 *   base [bits] ["x" lanes]               base in int uint float bfloat bool complex
 *   fname ["x" lanes]                     fname one of the float8/6/4 names of DLPack 1.x,
 *                                         bits fixed by the name (8, 6 or 4)
 *
 * Default bits: int/uint/float 32, bfloat 16, bool 8, complex 64. bits is 1..255 and lanes
 * 1..65535 when written; digits are parsed with an explicit bound, so no input overflows.
 * "complex<bits>" is our extension (upstream neither prints nor parses it).
 *
 * Formatting is the inverse, as upstream prints it: bits are shown for codes below 7
 * (int, uint, float, bfloat, complex, and bool unless it has 8 bits), never for handle or
 * the named float8/6/4 codes; "x<lanes>" follows when lanes > 1. One deliberate difference:
 * the void type {handle, 0, 0} prints as "void" where upstream prints "" (both parse back).
 * Custom codes (>= 129) are not supported: no registry of custom type names exists here.
 */
#include <string.h>

#include "internal.h"

/* Names indexed by type code; NULL for codes without a name. */
static const char* const k_code_names[] = {
    [kDLInt] = "int",
    [kDLUInt] = "uint",
    [kDLFloat] = "float",
    [kDLOpaqueHandle] = "handle",
    [kDLBfloat] = "bfloat",
    [kDLComplex] = "complex",
    [kDLBool] = "bool",
    [kDLFloat8_e3m4] = "float8_e3m4",
    [kDLFloat8_e4m3] = "float8_e4m3",
    [kDLFloat8_e4m3b11fnuz] = "float8_e4m3b11fnuz",
    [kDLFloat8_e4m3fn] = "float8_e4m3fn",
    [kDLFloat8_e4m3fnuz] = "float8_e4m3fnuz",
    [kDLFloat8_e5m2] = "float8_e5m2",
    [kDLFloat8_e5m2fnuz] = "float8_e5m2fnuz",
    [kDLFloat8_e8m0fnu] = "float8_e8m0fnu",
    [kDLFloat6_e2m3fn] = "float6_e2m3fn",
    [kDLFloat6_e3m2fn] = "float6_e3m2fn",
    [kDLFloat4_e2m1fn] = "float4_e2m1fn",
};
#define NUM_CODE_NAMES ((int)(sizeof(k_code_names) / sizeof(k_code_names[0])))
_Static_assert(kDLFloat4_e2m1fn + 1 == sizeof(k_code_names) / sizeof(k_code_names[0]),
               "one name per DLPack type code");

/* Bases that take optional bits digits, with their default bits. */
static const struct {
  const char* name;
  uint8_t len;
  uint8_t code;
  uint8_t default_bits;
} k_bases[] = {
    {"int", 3, kDLInt, 32},       {"uint", 4, kDLUInt, 32},       {"float", 5, kDLFloat, 32},
    {"bfloat", 6, kDLBfloat, 16}, {"bool", 4, kDLBool, 8},         {"complex", 7, kDLComplex, 64},
};

int64_t tvm_ffi_dtype_bytes(DLDataType dtype) {
  return ((int64_t)dtype.bits * (int64_t)dtype.lanes + 7) / 8;
}

/* Raise the parse error; the string is quoted (truncated when very long). */
static int parse_error(const char* s, size_t n, const char* why) {
  const int max_quote = 64;
  int shown = n > (size_t)max_quote ? max_quote : (int)n;
  return tvm_ffi_raise("ValueError", "invalid data type string `%.*s%s`: %s", shown, s,
                       n > (size_t)max_quote ? "..." : "", why);
}

/* Decimal digits at s[*pos..n) with value in [1, max]; advances *pos. Returns the value, 0 when
 * there are no digits, or -1 when the value is 0 or above max. Never overflows: accumulation
 * stops as soon as the bound is passed (the remaining digits are still consumed). */
static int64_t parse_bounded(const char* s, size_t n, size_t* pos, int64_t max) {
  size_t i = *pos;
  int64_t v = 0;
  bool over = false;
  while (i < n && s[i] >= '0' && s[i] <= '9') {
    if (!over) {
      v = v * 10 + (s[i] - '0');
      if (v > max) over = true;
    }
    ++i;
  }
  if (i == *pos) return 0;
  *pos = i;
  return (over || v == 0) ? -1 : v;
}

/* Parse the optional "x<lanes>" suffix and the end of the string. */
static int parse_lanes_and_end(const char* s, size_t n, size_t pos, DLDataType* t) {
  if (pos < n && s[pos] == 'x') {
    ++pos;
    size_t start = pos;
    int64_t lanes = parse_bounded(s, n, &pos, 65535);
    if (pos == start) return parse_error(s, n, "expected lane count digits after 'x'");
    if (lanes < 0) return parse_error(s, n, "lanes must be in 1..65535");
    t->lanes = (uint16_t)lanes;
  }
  if (pos != n) return parse_error(s, n, "unexpected trailing characters");
  return 0;
}

static bool has_prefix(const char* s, size_t n, const char* p, size_t pn) {
  return n >= pn && memcmp(s, p, pn) == 0;
}

/* The commonest names, as the grammar reads them, by a comparison or two: the walk over the
 * bases and digits is longer, and every dtype a script names is parsed. */
static bool common_dtype(const char* s, size_t n, DLDataType* out) {
  DLDataType t;
  if (n == 4 && memcmp(s, "bool", 4) == 0) {
    t = tvm_ffi_dtype(kDLBool, 8, 1);
  } else if (n == 5 && memcmp(s, "int32", 5) == 0) {
    t = tvm_ffi_dtype(kDLInt, 32, 1);
  } else if (n == 5 && memcmp(s, "int64", 5) == 0) {
    t = tvm_ffi_dtype(kDLInt, 64, 1);
  } else if (n == 5 && memcmp(s, "uint8", 5) == 0) {
    t = tvm_ffi_dtype(kDLUInt, 8, 1);
  } else if (n == 7 && memcmp(s, "float32", 7) == 0) {
    t = tvm_ffi_dtype(kDLFloat, 32, 1);
  } else if (n == 7 && memcmp(s, "float16", 7) == 0) {
    t = tvm_ffi_dtype(kDLFloat, 16, 1);
  } else if (n == 7 && memcmp(s, "float64", 7) == 0) {
    t = tvm_ffi_dtype(kDLFloat, 64, 1);
  } else {
    return false;
  }
  *out = t;
  return true;
}

int tvm_ffi_dtype_parse(const char* s, size_t n, DLDataType* out) {
  if (!out) return tvm_ffi_raise("ValueError", "tvm_ffi_dtype_parse: out is NULL");
  if (!s && n) return tvm_ffi_raise("ValueError", "tvm_ffi_dtype_parse: string is NULL");
  if (n == 0 || (n == 4 && memcmp(s, "void", 4) == 0)) {
    *out = tvm_ffi_dtype(kDLOpaqueHandle, 0, 0);
    return 0;
  }
  if (n == 6 && memcmp(s, "handle", 6) == 0) {
    *out = tvm_ffi_dtype(kDLOpaqueHandle, 64, 1);
    return 0;
  }
  if (common_dtype(s, n, out)) return 0;
  DLDataType t = tvm_ffi_dtype(0, 0, 1);
  /* The named sub-byte / 8-bit floats: "float<d>_..." with bits fixed by the name. The longest
   * name that is followed by the end or 'x' wins ("float8_e4m3fnuz" over "float8_e4m3fn"). */
  if (n >= 7 && has_prefix(s, n, "float", 5) && s[5] >= '0' && s[5] <= '9' && s[6] == '_') {
    size_t best_len = 0;
    for (int c = kDLFloat8_e3m4; c < NUM_CODE_NAMES; ++c) {
      size_t len = strlen(k_code_names[c]);
      if (len > best_len && has_prefix(s, n, k_code_names[c], len) && (len == n || s[len] == 'x')) {
        best_len = len;
        t.code = (uint8_t)c;
        t.bits = (uint8_t)(s[5] - '0');
      }
    }
    if (best_len == 0) return parse_error(s, n, "unknown float8/float6/float4 type name");
    if (parse_lanes_and_end(s, n, best_len, &t) != 0) return -1;
    *out = t;
    return 0;
  }
  for (size_t b = 0; b < sizeof(k_bases) / sizeof(k_bases[0]); ++b) {
    /* No base is a prefix of another, so at most one matches. */
    if (!has_prefix(s, n, k_bases[b].name, k_bases[b].len)) continue;
    size_t pos = k_bases[b].len;
    t.code = k_bases[b].code;
    t.bits = k_bases[b].default_bits;
    int64_t bits = parse_bounded(s, n, &pos, 255);
    if (bits < 0) return parse_error(s, n, "bits must be in 1..255");
    if (bits > 0) t.bits = (uint8_t)bits;
    if (parse_lanes_and_end(s, n, pos, &t) != 0) return -1;
    *out = t;
    return 0;
  }
  return parse_error(s, n, "unknown type name");
}

/* Append the decimal digits of v (at most 5) at buf[len]; returns the new length. */
static size_t append_uint(char* buf, size_t len, unsigned v) {
  char digits[8];
  int nd = 0;
  do {
    digits[nd++] = (char)('0' + v % 10);
    v /= 10;
  } while (v);
  while (nd) buf[len++] = digits[--nd];
  return len;
}

int tvm_ffi_dtype_format(DLDataType dtype, char* buf, size_t buf_size) {
  if (!buf) return tvm_ffi_raise("ValueError", "tvm_ffi_dtype_format: buffer is NULL");
  if (dtype.code == kDLOpaqueHandle && dtype.bits == 0 && dtype.lanes == 0) {
    if (buf_size < 5) return tvm_ffi_raise("ValueError", "tvm_ffi_dtype_format: buffer too small");
    memcpy(buf, "void", 5);
    return 4;
  }
  if (dtype.code >= NUM_CODE_NAMES || !k_code_names[dtype.code]) {
    return tvm_ffi_raise("ValueError", "cannot format data type with unknown type code %d",
                         (int)dtype.code);
  }
  /* Longest output: "float8_e4m3b11fnuz" + "x65535" = 24 characters. */
  char tmp[32];
  size_t len = strlen(k_code_names[dtype.code]);
  memcpy(tmp, k_code_names[dtype.code], len);
  if (dtype.code != kDLOpaqueHandle) {
    if (dtype.code < kDLFloat8_e3m4 && !(dtype.code == kDLBool && dtype.bits == 8)) {
      len = append_uint(tmp, len, dtype.bits);
    }
    if (dtype.lanes > 1) {
      tmp[len++] = 'x';
      len = append_uint(tmp, len, dtype.lanes);
    }
  }
  if (len + 1 > buf_size) {
    return tvm_ffi_raise("ValueError", "tvm_ffi_dtype_format: buffer of %zu bytes is too small",
                         buf_size);
  }
  memcpy(buf, tmp, len);
  buf[len] = '\0';
  return (int)len;
}

int TVMFFIDataTypeFromString(const TVMFFIByteArray* str, DLDataType* out) {
  if (!str) return tvm_ffi_raise("ValueError", "TVMFFIDataTypeFromString: str is NULL");
  return tvm_ffi_dtype_parse(str->data, str->size, out);
}

int TVMFFIDataTypeToString(const DLDataType* dtype, TVMFFIAny* out) {
  if (!dtype || !out) return tvm_ffi_raise("ValueError", "TVMFFIDataTypeToString: NULL argument");
  char buf[32];
  int n = tvm_ffi_dtype_format(*dtype, buf, sizeof(buf));
  if (n < 0) return -1;
  TVMFFIByteArray b = {buf, (size_t)n};
  return TVMFFIStringFromByteArray(&b, out);
}
