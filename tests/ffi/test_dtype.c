/* test_dtype.c: DLDataType parsing and printing (dtype.c) and the dtype global functions. */
#include "test_util.h"

static DLDataType parse_ok(const char* s) {
  DLDataType t = tvm_ffi_dtype(255, 255, 255);
  CHECK_OK(tvm_ffi_dtype_parse(s, strlen(s), &t));
  return t;
}

#define CHECK_DTYPE(t, c, b, l)        \
  do {                                 \
    DLDataType t_ = (t);               \
    CHECK_EQ_INT(t_.code, (c));        \
    CHECK_EQ_INT(t_.bits, (b));        \
    CHECK_EQ_INT(t_.lanes, (l));       \
  } while (0)

/* Format through the ABI (owned string value) and compare. */
static void check_to_string(DLDataType t, const char* expected) {
  TVMFFIAny out = tvm_ffi_any_none();
  CHECK_OK(TVMFFIDataTypeToString(&t, &out));
  TVMFFIByteArray b = {"", 0};
  CHECK(tvm_ffi_any_as_bytes(&out, &b));
  char buf[64];
  snprintf(buf, sizeof(buf), "%.*s", (int)b.size, b.data);
  CHECK_STR_EQ(buf, expected);
  tvm_ffi_any_release(&out);
}

TEST(parse_defaults_and_special) {
  CHECK_DTYPE(parse_ok(""), kDLOpaqueHandle, 0, 0);
  CHECK_DTYPE(parse_ok("void"), kDLOpaqueHandle, 0, 0);
  CHECK_DTYPE(parse_ok("int"), kDLInt, 32, 1);
  CHECK_DTYPE(parse_ok("uint"), kDLUInt, 32, 1);
  CHECK_DTYPE(parse_ok("float"), kDLFloat, 32, 1);
  CHECK_DTYPE(parse_ok("bfloat"), kDLBfloat, 16, 1);
  CHECK_DTYPE(parse_ok("bool"), kDLBool, 8, 1);
  CHECK_DTYPE(parse_ok("handle"), kDLOpaqueHandle, 64, 1);
  CHECK_DTYPE(parse_ok("complex"), kDLComplex, 64, 1);
  CHECK_DTYPE(parse_ok("intx4"), kDLInt, 32, 4);
}

TEST(parse_bits_and_lanes) {
  CHECK_DTYPE(parse_ok("int8"), kDLInt, 8, 1);
  CHECK_DTYPE(parse_ok("int64"), kDLInt, 64, 1);
  CHECK_DTYPE(parse_ok("uint1"), kDLUInt, 1, 1);
  CHECK_DTYPE(parse_ok("float16"), kDLFloat, 16, 1);
  CHECK_DTYPE(parse_ok("float8"), kDLFloat, 8, 1);
  CHECK_DTYPE(parse_ok("bfloat16"), kDLBfloat, 16, 1);
  CHECK_DTYPE(parse_ok("int32x4"), kDLInt, 32, 4);
  CHECK_DTYPE(parse_ok("float16x4"), kDLFloat, 16, 4);
  CHECK_DTYPE(parse_ok("boolx4"), kDLBool, 8, 4);
  CHECK_DTYPE(parse_ok("bool1"), kDLBool, 1, 1);
  CHECK_DTYPE(parse_ok("uint255x65535"), kDLUInt, 255, 65535);
  CHECK_DTYPE(parse_ok("complex128x2"), kDLComplex, 128, 2);
}

TEST(parse_named_floats) {
  static const struct {
    const char* name;
    int code, bits;
  } cases[] = {
      {"float8_e3m4", kDLFloat8_e3m4, 8},       {"float8_e4m3", kDLFloat8_e4m3, 8},
      {"float8_e4m3b11fnuz", kDLFloat8_e4m3b11fnuz, 8},
      {"float8_e4m3fn", kDLFloat8_e4m3fn, 8},   {"float8_e4m3fnuz", kDLFloat8_e4m3fnuz, 8},
      {"float8_e5m2", kDLFloat8_e5m2, 8},       {"float8_e5m2fnuz", kDLFloat8_e5m2fnuz, 8},
      {"float8_e8m0fnu", kDLFloat8_e8m0fnu, 8}, {"float6_e2m3fn", kDLFloat6_e2m3fn, 6},
      {"float6_e3m2fn", kDLFloat6_e3m2fn, 6},   {"float4_e2m1fn", kDLFloat4_e2m1fn, 4},
  };
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    CHECK_DTYPE(parse_ok(cases[i].name), cases[i].code, cases[i].bits, 1);
    char with_lanes[64];
    snprintf(with_lanes, sizeof(with_lanes), "%sx2", cases[i].name);
    CHECK_DTYPE(parse_ok(with_lanes), cases[i].code, cases[i].bits, 2);
    /* Printing gives the name back, and the string parses to the same value. */
    check_to_string(tvm_ffi_dtype((uint8_t)cases[i].code, (uint8_t)cases[i].bits, 1),
                    cases[i].name);
    check_to_string(tvm_ffi_dtype((uint8_t)cases[i].code, (uint8_t)cases[i].bits, 2), with_lanes);
  }
}

TEST(to_string_forms) {
  check_to_string(tvm_ffi_dtype(kDLInt, 32, 1), "int32");
  check_to_string(tvm_ffi_dtype(kDLInt, 32, 4), "int32x4");
  check_to_string(tvm_ffi_dtype(kDLUInt, 8, 1), "uint8");
  check_to_string(tvm_ffi_dtype(kDLUInt, 1, 1), "uint1");
  check_to_string(tvm_ffi_dtype(kDLFloat, 16, 4), "float16x4");
  check_to_string(tvm_ffi_dtype(kDLBfloat, 16, 1), "bfloat16");
  check_to_string(tvm_ffi_dtype(kDLBool, 8, 1), "bool");
  check_to_string(tvm_ffi_dtype(kDLBool, 8, 4), "boolx4");
  check_to_string(tvm_ffi_dtype(kDLBool, 1, 1), "bool1");
  check_to_string(tvm_ffi_dtype(kDLOpaqueHandle, 64, 1), "handle");
  check_to_string(tvm_ffi_dtype(kDLOpaqueHandle, 0, 0), "void"); /* upstream prints "" */
  check_to_string(tvm_ffi_dtype(kDLComplex, 64, 1), "complex64");
  check_to_string(tvm_ffi_dtype(kDLComplex, 128, 1), "complex128");
  check_to_string(tvm_ffi_dtype(kDLFloat4_e2m1fn, 4, 2), "float4_e2m1fnx2");
  check_to_string(tvm_ffi_dtype(kDLUInt, 255, 65535), "uint255x65535");
  check_to_string(tvm_ffi_dtype(kDLFloat8_e4m3b11fnuz, 8, 65535), "float8_e4m3b11fnuzx65535");
}

TEST(round_trips) {
  static const char* const forms[] = {
      "void", "int8", "int16", "int32", "int64", "uint1", "uint8", "uint64", "float16",
      "float32", "float64", "bfloat16", "bool", "boolx4", "handle", "int32x4", "float16x4",
      "uint8x16", "complex64", "complex128", "float8_e4m3fnx4", "float4_e2m1fnx2", "float6_e3m2fn",
  };
  for (size_t i = 0; i < sizeof(forms) / sizeof(forms[0]); ++i) {
    TVMFFIByteArray in = {forms[i], strlen(forms[i])};
    DLDataType t;
    CHECK_OK(TVMFFIDataTypeFromString(&in, &t));
    check_to_string(t, forms[i]);
    char buf[32];
    int n = tvm_ffi_dtype_format(t, buf, sizeof(buf));
    CHECK_EQ_INT(n, strlen(forms[i]));
    CHECK_STR_EQ(buf, forms[i]);
  }
}

TEST(bad_strings) {
  static const char* const bad[] = {
      "int0",  "int32x", "int32x0", "int99999999999", "int256", "int32x65536", "int32x99999999999",
      "int32y", "int32 ", " int32", "float32x4x4", "floatx", "hello", "i", "handle64", "handlex2",
      "voidx", "float8_e4m3fnx", "float8_e9m9", "float8_", "float8_e4m3fnuzz", "bool8x0", "x4",
      "Int32", "uint-8", "int+8", "float32\n",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); ++i) {
    DLDataType t;
    TVMFFIByteArray in = {bad[i], strlen(bad[i])};
    CHECK_EQ_INT(TVMFFIDataTypeFromString(&in, &t), -1);
    char quoted[64];
    snprintf(quoted, sizeof(quoted), "`%s`", bad[i]);
    void* e = tvm_ffi_error_take();
    CHECK(e != NULL);
    if (e) {
      CHECK_STR_EQ(tvm_ffi_error_kind(e), "ValueError");
      CHECK_STR_CONTAINS(tvm_ffi_error_message(e), quoted);
      tvm_ffi_release(e);
    }
  }
  /* Parsing is bounded by the length: the text after n is not read. */
  DLDataType t;
  CHECK_OK(tvm_ffi_dtype_parse("int8junk", 4, &t));
  CHECK_DTYPE(t, kDLInt, 8, 1);
  CHECK_EQ_INT(tvm_ffi_dtype_parse("int32", 3 + 1, &t), 0);
  CHECK_DTYPE(t, kDLInt, 3, 1);
  /* Embedded NUL is junk. */
  CHECK_EQ_INT(tvm_ffi_dtype_parse("int8\0", 5, &t), -1);
  CHECK_RAISED("ValueError", "trailing");
  /* Specific reasons. */
  CHECK_EQ_INT(tvm_ffi_dtype_parse("int0", 4, &t), -1);
  CHECK_RAISED("ValueError", "bits must be in 1..255");
  CHECK_EQ_INT(tvm_ffi_dtype_parse("int32x0", 7, &t), -1);
  CHECK_RAISED("ValueError", "lanes must be in 1..65535");
  CHECK_EQ_INT(tvm_ffi_dtype_parse("int32x", 6, &t), -1);
  CHECK_RAISED("ValueError", "expected lane count digits");
  /* A very long string is quoted truncated. */
  char longs[300];
  memset(longs, 'q', sizeof(longs));
  CHECK_EQ_INT(tvm_ffi_dtype_parse(longs, sizeof(longs), &t), -1);
  CHECK_RAISED("ValueError", "qqq...`");
}

TEST(null_arguments) {
  DLDataType t;
  CHECK_EQ_INT(TVMFFIDataTypeFromString(NULL, &t), -1);
  CHECK_RAISED("ValueError", "NULL");
  TVMFFIByteArray in = {"int8", 4};
  CHECK_EQ_INT(TVMFFIDataTypeFromString(&in, NULL), -1);
  CHECK_RAISED("ValueError", "NULL");
  TVMFFIByteArray nul = {NULL, 3};
  CHECK_EQ_INT(TVMFFIDataTypeFromString(&nul, &t), -1);
  CHECK_RAISED("ValueError", "NULL");
  TVMFFIByteArray empty = {NULL, 0};
  CHECK_OK(TVMFFIDataTypeFromString(&empty, &t));
  CHECK_DTYPE(t, kDLOpaqueHandle, 0, 0);
  TVMFFIAny out;
  CHECK_EQ_INT(TVMFFIDataTypeToString(NULL, &out), -1);
  CHECK_RAISED("ValueError", "NULL");
  CHECK_EQ_INT(TVMFFIDataTypeToString(&t, NULL), -1);
  CHECK_RAISED("ValueError", "NULL");
}

TEST(format_errors) {
  char buf[32];
  CHECK_EQ_INT(tvm_ffi_dtype_format(tvm_ffi_dtype(42, 32, 1), buf, sizeof(buf)), -1);
  CHECK_RAISED("ValueError", "unknown type code 42");
  CHECK_EQ_INT(tvm_ffi_dtype_format(tvm_ffi_dtype(200, 32, 1), buf, sizeof(buf)), -1);
  CHECK_RAISED("ValueError", "unknown type code 200");
  CHECK_EQ_INT(tvm_ffi_dtype_format(tvm_ffi_dtype(kDLInt, 32, 4), buf, 7), -1);
  CHECK_RAISED("ValueError", "too small");
  CHECK_EQ_INT(tvm_ffi_dtype_format(tvm_ffi_dtype(kDLInt, 32, 4), buf, 8), 7);
  CHECK_STR_EQ(buf, "int32x4");
  CHECK_EQ_INT(tvm_ffi_dtype_format(tvm_ffi_dtype(kDLOpaqueHandle, 0, 0), buf, 4), -1);
  CHECK_RAISED("ValueError", "too small");
  CHECK_EQ_INT(tvm_ffi_dtype_format(tvm_ffi_dtype(kDLInt, 32, 1), NULL, 32), -1);
  CHECK_RAISED("ValueError", "NULL");
  DLDataType bad = tvm_ffi_dtype(99, 8, 1);
  TVMFFIAny out = tvm_ffi_any_none();
  CHECK_EQ_INT(TVMFFIDataTypeToString(&bad, &out), -1);
  CHECK_RAISED("ValueError", "unknown type code 99");
  CHECK(tvm_ffi_any_is_none(&out));
}

TEST(dtype_bytes) {
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLFloat, 32, 1)), 4);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLFloat, 16, 4)), 8);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLBool, 8, 1)), 1);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLUInt, 1, 1)), 1);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLFloat4_e2m1fn, 4, 2)), 1);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLFloat4_e2m1fn, 4, 3)), 2);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLUInt, 255, 65535)), (255 * 65535 + 7) / 8);
  CHECK_EQ_INT(tvm_ffi_dtype_bytes(tvm_ffi_dtype(kDLOpaqueHandle, 0, 0)), 0);
}

TEST(globals) {
  TVMFFIAny arg = tvm_ffi_any_raw_str("float16x4");
  TVMFFIAny r;
  CHECK_OK(tvm_ffi_global_call("ffi.DataTypeFromString", &arg, 1, &r));
  CHECK_EQ_INT(r.type_index, kTVMFFIDataType);
  CHECK_DTYPE(r.v_dtype, kDLFloat, 16, 4);
  TVMFFIAny back;
  CHECK_OK(tvm_ffi_global_call("ffi.DataTypeToString", &r, 1, &back));
  TVMFFIByteArray b;
  CHECK(tvm_ffi_any_as_bytes(&back, &b));
  CHECK(b.size == 9 && memcmp(b.data, "float16x4", 9) == 0);
  tvm_ffi_any_release(&back);

  TVMFFIAny bad = tvm_ffi_any_raw_str("int0");
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.DataTypeFromString", &bad, 1, &r), -1);
  CHECK_RAISED("ValueError", "`int0`");
  TVMFFIAny not_str = tvm_ffi_any_int(3);
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.DataTypeFromString", &not_str, 1, &r), -1);
  CHECK_RAISED("TypeError", "ffi.DataTypeFromString");
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.DataTypeToString", &not_str, 1, &r), -1);
  CHECK_RAISED("TypeError", "expected DataType");
  CHECK_EQ_INT(tvm_ffi_global_call("ffi.DataTypeToString", NULL, 0, &r), -1);
  CHECK_RAISED("TypeError", "expects 1 argument");
}

int main(void) {
  RUN(parse_defaults_and_special);
  RUN(parse_bits_and_lanes);
  RUN(parse_named_floats);
  RUN(to_string_forms);
  RUN(round_trips);
  RUN(bad_strings);
  RUN(null_arguments);
  RUN(format_errors);
  RUN(dtype_bytes);
  RUN(globals);
  return test_summary();
}
