/* test_dtype.c: TIR datatypes: constructors, predicates, ranges, TIR spelling. */
#include "test_util.h"
#include "tir_testing.h"

static void check_roundtrip(const char* text, DLDataType expected) {
  DLDataType t;
  CHECK_OK(tvm_tir_dtype_parse(text, strlen(text), &t));
  CHECK(tvm_tir_dtype_equal(t, expected));
  CHECK_STR_EQ(tvm_tir_dtype_str(expected).s, text);
}

TEST(spelling) {
  check_roundtrip("bool", tvm_ffi_dtype(kDLUInt, 1, 1));
  check_roundtrip("boolx8", tvm_ffi_dtype(kDLUInt, 1, 8));
  /* DLPack's 8-bit bool is not TIR's bool: its width is spelled. */
  check_roundtrip("bool8", tvm_ffi_dtype(kDLBool, 8, 1));
  check_roundtrip("bool8x4", tvm_ffi_dtype(kDLBool, 8, 4));
  check_roundtrip("handle", tvm_ffi_dtype(kDLOpaqueHandle, 64, 1));
  check_roundtrip("void", tvm_ffi_dtype(kDLOpaqueHandle, 0, 0));
  check_roundtrip("int8", TVM_TIR_INT8);
  check_roundtrip("int16", TVM_TIR_INT16);
  check_roundtrip("int32", TVM_TIR_INT32);
  check_roundtrip("int64", TVM_TIR_INT64);
  check_roundtrip("uint8", TVM_TIR_UINT8);
  check_roundtrip("uint64", TVM_TIR_UINT64);
  check_roundtrip("float16", TVM_TIR_FLOAT16);
  check_roundtrip("float32", TVM_TIR_FLOAT32);
  check_roundtrip("float64", TVM_TIR_FLOAT64);
  check_roundtrip("bfloat16", TVM_TIR_BFLOAT16);
  check_roundtrip("float32x4", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  check_roundtrip("int8x64", tvm_tir_dtype_with_lanes(TVM_TIR_INT8, 64));
  CHECK(tvm_tir_dtype_equal(TVM_TIR_BOOL, tvm_ffi_dtype(kDLUInt, 1, 1)));
  DLDataType t;
  CHECK(tvm_tir_dtype_parse("boolean", 7, &t) != 0);
  CHECK_RAISED("ValueError", "boolean");
  CHECK(tvm_tir_dtype_parse("boolx", 5, &t) != 0);
  CHECK_RAISED("ValueError", "lane");
  /* A custom code has no name but still prints (and raises nothing). */
  CHECK_STR_EQ(tvm_tir_dtype_str(tvm_ffi_dtype(150, 8, 1)).s, "dtype(code=150, bits=8, lanes=1)");
  CHECK(!tvm_ffi_error_pending());
}

TEST(predicates) {
  CHECK(tvm_tir_dtype_is_bool(TVM_TIR_BOOL));
  CHECK(tvm_tir_dtype_is_bool(tvm_tir_dtype_with_lanes(TVM_TIR_BOOL, 4)));
  CHECK(!tvm_tir_dtype_is_bool(TVM_TIR_UINT8));
  CHECK(tvm_tir_dtype_is_integer(TVM_TIR_BOOL));
  CHECK(tvm_tir_dtype_is_index(TVM_TIR_INT64));
  CHECK(!tvm_tir_dtype_is_index(tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 4)));
  CHECK(tvm_tir_dtype_is_floating(TVM_TIR_BFLOAT16) && !tvm_tir_dtype_is_float(TVM_TIR_BFLOAT16));
  CHECK(tvm_tir_dtype_is_handle(TVM_TIR_HANDLE) && !tvm_tir_dtype_is_void(TVM_TIR_HANDLE));
  CHECK(tvm_tir_dtype_is_void(TVM_TIR_VOID) && !tvm_tir_dtype_is_handle(TVM_TIR_VOID));
  CHECK(tvm_tir_dtype_is_handle_code(TVM_TIR_VOID));
  CHECK(tvm_tir_dtype_is_scalar(TVM_TIR_FLOAT32) && !tvm_tir_dtype_is_scalar(TVM_TIR_HANDLE));
  CHECK(tvm_tir_dtype_is_vector(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT16, 8)));
  CHECK(tvm_tir_dtype_equal(tvm_tir_dtype_element(tvm_tir_dtype_with_lanes(TVM_TIR_INT8, 16)),
                            TVM_TIR_INT8));
}

TEST(ranges) {
  CHECK_EQ_INT(tvm_tir_dtype_min_int(TVM_TIR_INT8), -128);
  CHECK_EQ_INT(tvm_tir_dtype_max_int(TVM_TIR_INT8), 127);
  CHECK_EQ_INT(tvm_tir_dtype_max_int(TVM_TIR_UINT16), 65535);
  CHECK_EQ_INT(tvm_tir_dtype_min_int(TVM_TIR_UINT16), 0);
  CHECK_EQ_INT(tvm_tir_dtype_min_int(TVM_TIR_INT64), INT64_MIN);
  CHECK_EQ_INT(tvm_tir_dtype_max_int(TVM_TIR_UINT64), INT64_MAX);
  CHECK_EQ_INT(tvm_tir_dtype_max_int(TVM_TIR_BOOL), 1);
  CHECK_EQ_INT(tvm_tir_dtype_max_int(tvm_tir_dtype_int(1)), 1);
  CHECK_EQ_INT(tvm_tir_dtype_min_int(tvm_tir_dtype_int(1)), 0);
  CHECK(tvm_tir_dtype_int_fits(TVM_TIR_INT32, INT32_MIN));
  CHECK(!tvm_tir_dtype_int_fits(TVM_TIR_INT32, (int64_t)INT32_MAX + 1));
}

/* The version string is libtir/VERSION's first line (MAJOR.MINOR.PATCH). */
TEST(version) {
  char want[64] = {0};
  FILE* f = fopen(TVM_TEST_TIR_VERSION_FILE, "r");
  CHECK(f != NULL);
  if (!f) return;
  CHECK(fgets(want, sizeof(want), f) != NULL);
  fclose(f);
  want[strcspn(want, "\r\n")] = '\0';
  CHECK(strlen(want) >= 5);
  CHECK_STR_EQ(tvm_tir_version(), want);
}

int main(void) {
  RUN(spelling);
  RUN(predicates);
  RUN(ranges);
  RUN(version);
  return test_summary();
}
