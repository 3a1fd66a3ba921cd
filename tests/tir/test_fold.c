/*
 * test_fold.c: the operator helpers of tvm/tir/op.h: constant folding of every operator (the
 * spec's Div/Mod/FloorDiv/FloorMod examples, wrap-around, floats), literal promotion, scalar
 * broadcast, handle operands and division by zero.
 */
#include <math.h>

#include "tir_check.h"

static tvm_tir_expr_obj* C(DLDataType t, int64_t v) { return tir_temp(tvm_tir_const_int(t, v)); }
static tvm_tir_expr_obj* F(DLDataType t, double v) { return tir_temp(tvm_tir_float_imm_new(t, v)); }
static tvm_tir_expr_obj* I(int64_t v) { return C(TVM_TIR_INT32, v); }
static tvm_tir_expr_obj* V(const char* name, DLDataType t) {
  tvm_tir_var_obj* v = tvm_tir_var_new(name, t);
  return v ? tir_temp(&v->expr) : NULL;
}
static tvm_tir_expr_obj* B(tvm_tir_kind k, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tir_temp(tvm_tir_binary(k, a, b));
}

/* The folded value of an integer constant (fails the check if not an IntImm of dtype). */
static int64_t int_value(const tvm_tir_expr_obj* e, const char* dtype, int line) {
  int64_t v = 0;
  if (!tvm_tir_as_const_int(e, &v) || strcmp(DT(e), dtype) != 0) {
    fprintf(stderr, "%s:%d: expected an IntImm of %s\n", __FILE__, line, dtype);
    g_test_failed_checks++;
  }
  return v;
}
#define IVAL(e, dtype) int_value((e), (dtype), __LINE__)
static double float_value(const tvm_tir_expr_obj* e, const char* dtype, int line) {
  if (tvm_tir_kind_of(e) != TVM_TIR_KIND_FloatImm || strcmp(DT(e), dtype) != 0) {
    fprintf(stderr, "%s:%d: expected a FloatImm of %s\n", __FILE__, line, dtype);
    g_test_failed_checks++;
    return NAN;
  }
  return ((const tvm_tir_float_imm_obj*)e)->value;
}
#define FVAL(e, dtype) float_value((e), (dtype), __LINE__)

TEST(spec_division_examples) {
  /* "5/2 evaluates to 2 and -5/2 similarly evaluates to -2", "-5 % 2 evaluates to -1". */
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Div, I(5), I(2)), "int32"), 2);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Div, I(-5), I(2)), "int32"), -2);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mod, I(-5), I(2)), "int32"), -1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mod, I(5), I(-2)), "int32"), 1); /* sign of x */
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_FloorDiv, I(-5), I(2)), "int32"), -3);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_FloorMod, I(-5), I(2)), "int32"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_FloorDiv, I(5), I(-2)), "int32"), -3);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_FloorMod, I(5), I(-2)), "int32"), -1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_FloorDiv, I(-6), I(3)), "int32"), -2);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_FloorMod, I(-6), I(3)), "int32"), 0);
  /* (a/b)*b + a%b == a for both pairs; the floor properties of the spec for N > 0. */
  for (int64_t x = -20; x <= 20; ++x) {
    for (int64_t n = -7; n <= 7; ++n) {
      if (n == 0) continue;
      int64_t q = IVAL(B(TVM_TIR_KIND_Div, I(x), I(n)), "int32");
      int64_t r = IVAL(B(TVM_TIR_KIND_Mod, I(x), I(n)), "int32");
      int64_t fq = IVAL(B(TVM_TIR_KIND_FloorDiv, I(x), I(n)), "int32");
      int64_t fr = IVAL(B(TVM_TIR_KIND_FloorMod, I(x), I(n)), "int32");
      CHECK(q * n + r == x && fq * n + fr == x);
      CHECK(q == x / n && r == x % n);
      if (n > 0) {
        CHECK(0 <= fr && fr < n);
        CHECK(IVAL(B(TVM_TIR_KIND_FloorDiv, I(x + n), I(n)), "int32") == fq + 1);
        CHECK(IVAL(B(TVM_TIR_KIND_FloorMod, I(x + n), I(n)), "int32") == fr);
      }
    }
  }
}

TEST(int_folding) {
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, I(40), I(2)), "int32"), 42);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Sub, I(40), I(50)), "int32"), -10);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mul, I(-6), I(7)), "int32"), -42);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Min, I(-6), I(7)), "int32"), -6);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Max, I(-6), I(7)), "int32"), 7);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Div, C(TVM_TIR_UINT32, 7), C(TVM_TIR_UINT32, 2)), "uint32"), 3);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Max, C(TVM_TIR_INT64, INT64_MIN), C(TVM_TIR_INT64, 0)), "int64"),
               0);
}

TEST(wrap_around) {
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_INT8, 127), C(TVM_TIR_INT8, 1)), "int8"), -128);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Sub, C(TVM_TIR_INT8, -128), C(TVM_TIR_INT8, 1)), "int8"), 127);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mul, C(TVM_TIR_INT8, 16), C(TVM_TIR_INT8, 16)), "int8"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Div, C(TVM_TIR_INT8, -128), C(TVM_TIR_INT8, -1)), "int8"), -128);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_UINT8, 255), C(TVM_TIR_UINT8, 1)), "uint8"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Sub, C(TVM_TIR_UINT8, 0), C(TVM_TIR_UINT8, 1)), "uint8"), 255);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_INT16, 32767), C(TVM_TIR_INT16, 1)), "int16"),
               -32768);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Sub, C(TVM_TIR_UINT16, 0), C(TVM_TIR_UINT16, 1)), "uint16"),
               65535);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mul, C(TVM_TIR_INT16, 300), C(TVM_TIR_INT16, 300)), "int16"),
               24464);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, I(INT32_MAX), I(1)), "int32"), INT32_MIN);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mul, I(65536), I(65536)), "int32"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Mul, I(65536), I(-32768)), "int32"), INT32_MIN);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Sub, C(TVM_TIR_UINT32, 0), C(TVM_TIR_UINT32, 1)), "uint32"),
               4294967295);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_INT64, INT64_MAX), C(TVM_TIR_INT64, 1)), "int64"),
               INT64_MIN);
  CHECK_EQ_INT(
      IVAL(B(TVM_TIR_KIND_Div, C(TVM_TIR_INT64, INT64_MIN), C(TVM_TIR_INT64, -1)), "int64"),
      INT64_MIN);
  CHECK_EQ_INT(
      IVAL(B(TVM_TIR_KIND_Mod, C(TVM_TIR_INT64, INT64_MIN), C(TVM_TIR_INT64, -1)), "int64"), 0);
  CHECK_EQ_INT(
      IVAL(B(TVM_TIR_KIND_FloorDiv, C(TVM_TIR_INT64, INT64_MIN), C(TVM_TIR_INT64, -1)), "int64"),
      INT64_MIN);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_BOOL, 1), C(TVM_TIR_BOOL, 1)), "bool"), 0);
  /* A uint64 result above INT64_MAX has no IntImm: left as a Sub node. */
  tvm_tir_expr_obj* u = B(TVM_TIR_KIND_Sub, C(TVM_TIR_UINT64, 0), C(TVM_TIR_UINT64, 1));
  CHECK(tvm_tir_kind_of(u) == TVM_TIR_KIND_Sub);
}

TEST(float_folding) {
  CHECK(FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_FLOAT64, 0.1), F(TVM_TIR_FLOAT64, 0.2)), "float64") ==
        0.1 + 0.2);
  CHECK(FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_FLOAT32, 0.1), F(TVM_TIR_FLOAT32, 0.2)), "float32") ==
        (double)(float)(0.1 + 0.2));
  CHECK(FVAL(B(TVM_TIR_KIND_Mul, F(TVM_TIR_FLOAT32, 3), F(TVM_TIR_FLOAT32, -2.5)), "float32") ==
        -7.5);
  CHECK(FVAL(B(TVM_TIR_KIND_Sub, F(TVM_TIR_FLOAT16, 1), F(TVM_TIR_FLOAT16, 0.25)), "float16") ==
        0.75);
  /* float16 has 11 significant bits: 1 + 2^-11 is a tie, rounded to even (1); 65504 + 32
   * overflows to infinity. */
  CHECK(FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_FLOAT16, 1), F(TVM_TIR_FLOAT16, 0x1p-11)), "float16") ==
        1.0);
  CHECK(FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_FLOAT16, 1), F(TVM_TIR_FLOAT16, 0x1.8p-10)),
             "float16") == 1.0 + 0x1p-9);
  CHECK(isinf(
      FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_FLOAT16, 65504), F(TVM_TIR_FLOAT16, 32)), "float16")));
  CHECK(FVAL(B(TVM_TIR_KIND_Mul, F(TVM_TIR_FLOAT16, 0x1p-14), F(TVM_TIR_FLOAT16, 0x1p-5)),
             "float16") == 0x1p-19);
  /* bfloat16 has 8: 1 + 3 * 2^-8 is a tie between 1 + 2^-7 and 1 + 2^-6, even wins. */
  CHECK(FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_BFLOAT16, 1), F(TVM_TIR_BFLOAT16, 3 * 0x1p-8)),
             "bfloat16") == 1.015625);
  CHECK(FVAL(B(TVM_TIR_KIND_Add, F(TVM_TIR_BFLOAT16, 1), F(TVM_TIR_BFLOAT16, 0x1p-8)),
             "bfloat16") == 1.0);
  /* Division follows IEEE 754 (no error for floats). */
  CHECK(isinf(FVAL(B(TVM_TIR_KIND_Div, F(TVM_TIR_FLOAT32, 1), F(TVM_TIR_FLOAT32, 0)), "float32")));
  CHECK(isnan(FVAL(B(TVM_TIR_KIND_Div, F(TVM_TIR_FLOAT32, 0), F(TVM_TIR_FLOAT32, 0)), "float32")));
  CHECK(FVAL(B(TVM_TIR_KIND_FloorDiv, F(TVM_TIR_FLOAT64, -5.5), F(TVM_TIR_FLOAT64, 2)),
             "float64") == -3);
  CHECK(FVAL(B(TVM_TIR_KIND_FloorMod, F(TVM_TIR_FLOAT64, -5.5), F(TVM_TIR_FLOAT64, 2)),
             "float64") == 0.5);
  CHECK(FVAL(B(TVM_TIR_KIND_Min, F(TVM_TIR_FLOAT64, -5.5), F(TVM_TIR_FLOAT64, 2)), "float64") ==
        -5.5);
  CHECK(FVAL(B(TVM_TIR_KIND_Max, F(TVM_TIR_FLOAT64, -5.5), F(TVM_TIR_FLOAT64, 2)), "float64") == 2);
  CHECK(FVAL(B(TVM_TIR_KIND_Div, F(TVM_TIR_FLOAT32, 1), F(TVM_TIR_FLOAT32, 3)), "float32") ==
        (double)(1.0f / 3.0f));
}

TEST(compare_and_logic_folding) {
  tvm_tir_expr_obj *t = C(TVM_TIR_BOOL, 1), *f = C(TVM_TIR_BOOL, 0), *nan = F(TVM_TIR_FLOAT32, NAN);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_LT, I(1), I(2)), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_LE, I(2), I(2)), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_GT, I(1), I(2)), "bool"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_GE, I(-1), I(2)), "bool"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_EQ, I(3), I(3)), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_NE, I(3), I(3)), "bool"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_LT, C(TVM_TIR_UINT8, 200), C(TVM_TIR_UINT8, 100)), "bool"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_EQ, nan, nan), "bool"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_NE, nan, nan), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_LT, F(TVM_TIR_FLOAT64, 0.5), F(TVM_TIR_FLOAT64, 1)), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_And, t, f), "bool"), 0);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_And, t, t), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Or, t, f), "bool"), 1);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Or, f, f), "bool"), 0);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_not(t)), "bool"), 0);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_not(f)), "bool"), 1);
  /* Literal 1 promotes to bool in logic. */
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_And, t, I(1)), "bool"), 1);
  EXPECT_ERROR("TypeError", tvm_tir_and(t, I(2)), "rule T-LOGIC", "literal 2 does not fit in bool");
  /* Not constant: nodes. */
  tvm_tir_expr_obj* c = V("c", TVM_TIR_BOOL);
  CHECK(tvm_tir_kind_of(B(TVM_TIR_KIND_And, c, t)) == TVM_TIR_KIND_And);
  CHECK(tvm_tir_kind_of(tir_temp(tvm_tir_not(c))) == TVM_TIR_KIND_Not);
  CHECK(tvm_tir_kind_of(B(TVM_TIR_KIND_LT, V("x", TVM_TIR_INT32), I(1))) == TVM_TIR_KIND_LT);
}

TEST(cast_folding) {
  tvm_tir_expr_obj* x = V("x", TVM_TIR_INT32);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_cast(TVM_TIR_INT8, I(300))), "int8"), 44);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_cast(TVM_TIR_UINT8, I(-1))), "uint8"), 255);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_cast(TVM_TIR_INT64, I(-7))), "int64"), -7);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_cast(TVM_TIR_BOOL, I(5))), "bool"), 1);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_cast(TVM_TIR_INT32, F(TVM_TIR_FLOAT32, 3.7))), "int32"), 3);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_cast(TVM_TIR_INT32, F(TVM_TIR_FLOAT32, -3.7))), "int32"), -3);
  CHECK(FVAL(tir_temp(tvm_tir_cast(TVM_TIR_FLOAT32, I(16777217))), "float32") == 16777216.0);
  CHECK(FVAL(tir_temp(tvm_tir_cast(TVM_TIR_FLOAT32, F(TVM_TIR_FLOAT64, 0.1))), "float32") ==
        (double)0.1f);
  /* Out of range / NaN: not folded, a Cast node (the value is implementation-defined). */
  CHECK(tvm_tir_kind_of(tir_temp(tvm_tir_cast(TVM_TIR_INT32, F(TVM_TIR_FLOAT64, 1e10)))) ==
        TVM_TIR_KIND_Cast);
  CHECK(tvm_tir_kind_of(tir_temp(tvm_tir_cast(TVM_TIR_INT32, F(TVM_TIR_FLOAT64, NAN)))) ==
        TVM_TIR_KIND_Cast);
  CHECK(tvm_tir_kind_of(tir_temp(tvm_tir_cast(TVM_TIR_FLOAT32, x))) == TVM_TIR_KIND_Cast);
  tvm_tir_expr_obj* same = tir_temp(tvm_tir_cast(TVM_TIR_INT32, x));
  CHECK(same == x); /* already int32 */
  EXPECT_ERROR("TypeError", tvm_tir_cast(TVM_TIR_INT64, V("h", TVM_TIR_HANDLE)), "rule T-CAST");
}

TEST(literal_promotion) {
  tvm_tir_expr_obj* x8 = V("x8", TVM_TIR_INT8);
  tvm_tir_expr_obj* x64 = V("x64", TVM_TIR_INT64);
  tvm_tir_expr_obj* x32 = V("x32", TVM_TIR_INT32);
  tvm_tir_expr_obj* f = V("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj* h16 = V("h16", TVM_TIR_FLOAT16);
  tvm_tir_expr_obj* v = V("v", tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 4));
  tvm_tir_expr_obj* e1 = B(TVM_TIR_KIND_Add, x8, I(5));
  if (EXPECT_OK(e1)) {
    CHECK_STR_EQ(DT(e1), "int8");
    CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e1)->b), "int8");
  }
  tvm_tir_expr_obj* e2 = B(TVM_TIR_KIND_Mul, I(3), x64); /* the literal may come first */
  if (EXPECT_OK(e2)) CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e2)->a), "int64");
  tvm_tir_expr_obj* e3 = B(TVM_TIR_KIND_Sub, f, I(2));
  if (EXPECT_OK(e3)) CHECK(FVAL(((tvm_tir_binary_obj*)e3)->b, "float32") == 2.0);
  tvm_tir_expr_obj* e4 = B(TVM_TIR_KIND_Add, h16, F(TVM_TIR_FLOAT32, 1.5));
  if (EXPECT_OK(e4)) CHECK(FVAL(((tvm_tir_binary_obj*)e4)->b, "float16") == 1.5);
  /* Both literals: the narrower converts to the wider; int converts to float. */
  CHECK(FVAL(B(TVM_TIR_KIND_Add, I(1), F(TVM_TIR_FLOAT32, 0.5)), "float32") == 1.5);
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_INT64, 1LL << 40), I(1)), "int64"),
               (1LL << 40) + 1);
  /* A vector operand broadcasts the literal, and a scalar of the same element type. */
  tvm_tir_expr_obj* e5 = B(TVM_TIR_KIND_Add, v, I(1));
  if (EXPECT_OK(e5)) {
    CHECK_STR_EQ(DT(e5), "int32x4");
    CHECK(tvm_tir_kind_of(((tvm_tir_binary_obj*)e5)->b) == TVM_TIR_KIND_Broadcast);
  }
  tvm_tir_expr_obj* e6 = B(TVM_TIR_KIND_Max, x32, v);
  if (EXPECT_OK(e6)) CHECK(tvm_tir_kind_of(((tvm_tir_binary_obj*)e6)->a) == TVM_TIR_KIND_Broadcast);
  tvm_tir_expr_obj* e7 = B(TVM_TIR_KIND_LT, x8, I(-128));
  if (EXPECT_OK(e7)) CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e7)->b), "int8");
  /* Literals that do not fit, and non-literal mismatches. */
  EXPECT_ERROR("TypeError", tvm_tir_add(x8, I(300)), "rule T-BINOP",
               "the literal 300 does not fit in int8", "a = x8 (int8)", "b = 300 (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_lt(x8, I(-129)), "rule T-CMP",
               "the literal -129 does not fit in int8");
  EXPECT_ERROR("TypeError", tvm_tir_add(V("u8", TVM_TIR_UINT8), I(-1)), "rule T-BINOP",
               "the literal -1 does not fit in uint8");
  CHECK_EQ_INT(IVAL(B(TVM_TIR_KIND_Add, C(TVM_TIR_UINT8, 1), I(-1)), "int32"),
               0); /* both literals */
  /* A float literal next to an integer makes it a float, as upstream (float_promotion) */
  tvm_tir_expr_obj* e8 = B(TVM_TIR_KIND_Add, x32, F(TVM_TIR_FLOAT32, 0.5));
  if (EXPECT_OK(e8)) {
    CHECK_STR_EQ(DT(e8), "float32");
    CHECK(tvm_tir_kind_of(((tvm_tir_binary_obj*)e8)->a) == TVM_TIR_KIND_Cast);
  }
  EXPECT_ERROR("TypeError", tvm_tir_add(V("c", TVM_TIR_BOOL), F(TVM_TIR_FLOAT32, 0.5)),
               "rule T-BINOP", "cannot be converted to bool implicitly",
               "b = T.float32(0.5) (float32)");
  EXPECT_ERROR("TypeError", tvm_tir_add(h16, F(TVM_TIR_FLOAT64, 1e10)), "rule T-FLOATIMM",
               "float16");
  EXPECT_ERROR("TypeError", tvm_tir_add(x32, V("b", TVM_TIR_BOOL)), "rule T-BINOP", "same dtype",
               "a = x32 (int32)", "b = b (bool)");
  /* Select promotes its values; its condition accepts a literal 0/1. */
  tvm_tir_expr_obj* s = tir_temp(tvm_tir_select(I(1), x8, I(3)));
  if (EXPECT_OK(s)) CHECK_STR_EQ(DT(s), "int8");
  EXPECT_ERROR("TypeError", tvm_tir_select(I(2), x8, x8), "rule T-SELECT", "condition = 2 (int32)");
  /* const_int / const_float */
  tvm_tir_expr_obj* c4 = C(tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4), 1);
  if (EXPECT_OK(c4))
    CHECK(tvm_tir_kind_of(c4) == TVM_TIR_KIND_Broadcast && !strcmp(DT(c4), "float32x4"));
  tvm_tir_expr_obj* ci = tir_temp(tvm_tir_const_float(TVM_TIR_INT64, 4.0));
  CHECK_EQ_INT(IVAL(ci, "int64"), 4);
  EXPECT_ERROR("TypeError", tvm_tir_const_float(TVM_TIR_INT32, 2.5), "rule T-INTIMM", "2.5");
  EXPECT_ERROR("TypeError", tvm_tir_const_int(TVM_TIR_HANDLE, 0), "no constant of dtype handle");
  EXPECT_ERROR("TypeError", tvm_tir_const_int(TVM_TIR_INT8, 1000), "rule T-INTIMM", "1000");
}

/* An error a caller left raised is not the helpers' own failure: a cast that does not fold is
 * made, a literal that converts converts, one that does not fit raises its TypeError. */
TEST(stale_error_is_not_theirs) {
  tvm_tir_expr_obj* x8 = V("x8", TVM_TIR_INT8);
  tvm_ffi_raise("StaleError", "left by an earlier call");
  tvm_tir_expr_obj* c = tir_temp(tvm_tir_cast(TVM_TIR_FLOAT32, x8));
  tvm_tir_expr_obj* s = tir_temp(tvm_tir_add(x8, I(5)));
  CHECK_RAISED("StaleError", "left by an earlier call");
  CHECK(c && tvm_tir_kind_of(c) == TVM_TIR_KIND_Cast);
  CHECK(s && strcmp(DT(s), "int8") == 0);
  tvm_ffi_raise("StaleError", "left by an earlier call");
  CHECK(tvm_tir_add(x8, I(300)) == NULL);
  CHECK_RAISED("TypeError", "the literal 300 does not fit in int8");
}

/* Integer operands of different widths or signedness: upstream's rule (BinaryOpMatchTypes),
 * the narrower cast to the wider type, at equal widths the signed one to unsigned. */
TEST(integer_width_promotion) {
  tvm_tir_expr_obj* x32 = V("x32", TVM_TIR_INT32);
  tvm_tir_expr_obj* x64 = V("x64", TVM_TIR_INT64);
  tvm_tir_expr_obj* u32 = V("u32", TVM_TIR_UINT32);
  tvm_tir_expr_obj* u8 = V("u8", TVM_TIR_UINT8);
  tvm_tir_expr_obj* v = V("v", tvm_tir_dtype_with_lanes(TVM_TIR_INT64, 4));
  tvm_tir_expr_obj* e1 = B(TVM_TIR_KIND_Add, x64, x32); /* i * 4 + j, i int64 */
  if (EXPECT_OK(e1)) {
    CHECK_STR_EQ(DT(e1), "int64");
    CHECK(tvm_tir_kind_of(((tvm_tir_binary_obj*)e1)->b) == TVM_TIR_KIND_Cast);
    CHECK(((tvm_tir_binary_obj*)e1)->a == x64);
  }
  tvm_tir_expr_obj* e2 = B(TVM_TIR_KIND_Mul, x32, x64); /* either order */
  if (EXPECT_OK(e2)) CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e2)->a), "int64");
  tvm_tir_expr_obj* e3 = B(TVM_TIR_KIND_Sub, x32, u32); /* equal widths: unsigned */
  if (EXPECT_OK(e3)) CHECK_STR_EQ(DT(e3), "uint32");
  tvm_tir_expr_obj* e4 = B(TVM_TIR_KIND_Add, u8, x32); /* a wider signed wins */
  if (EXPECT_OK(e4)) CHECK_STR_EQ(DT(e4), "int32");
  tvm_tir_expr_obj* e5 = B(TVM_TIR_KIND_LT, x64, x32); /* comparisons too */
  if (EXPECT_OK(e5)) CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e5)->b), "int64");
  tvm_tir_expr_obj* e6 = B(TVM_TIR_KIND_Add, v, x32); /* a scalar widened and broadcast */
  if (EXPECT_OK(e6)) {
    CHECK_STR_EQ(DT(e6), "int64x4");
    CHECK(tvm_tir_kind_of(((tvm_tir_binary_obj*)e6)->b) == TVM_TIR_KIND_Broadcast);
  }
  tvm_tir_expr_obj* e7 = B(TVM_TIR_KIND_Max, C(TVM_TIR_INT64, 3), x32); /* a literal converts */
  if (EXPECT_OK(e7)) CHECK_STR_EQ(DT(e7), "int32");
  /* Bools are not promoted: the mismatch stays an error. */
  EXPECT_ERROR("TypeError", tvm_tir_add(x32, V("c", TVM_TIR_BOOL)), "rule T-BINOP", "same dtype");
}

/* A float and an integer, or two floats of different widths (upstream's BinaryOpMatchTypes, as
 * `A[i] * i + j` in its fuse_tir tests): the integer is cast to the float's type, the narrower
 * float to the wider; the values as computed in that type. */
TEST(float_promotion) {
  tvm_tir_expr_obj* f = V("f", TVM_TIR_FLOAT32);
  tvm_tir_expr_obj* i64 = V("i", TVM_TIR_INT64);
  tvm_tir_expr_obj* h = V("h", TVM_TIR_FLOAT16);
  tvm_tir_expr_obj* e1 = B(TVM_TIR_KIND_Mul, f, i64);
  if (EXPECT_OK(e1)) {
    CHECK_STR_EQ(DT(e1), "float32");
    tvm_tir_expr_obj* cb = ((tvm_tir_binary_obj*)e1)->b;
    CHECK(tvm_tir_kind_of(cb) == TVM_TIR_KIND_Cast && ((tvm_tir_cast_obj*)cb)->value == i64);
    CHECK(((tvm_tir_binary_obj*)e1)->a == f);
  }
  tvm_tir_expr_obj* e2 = B(TVM_TIR_KIND_LT, i64, f); /* either order; comparisons too */
  if (EXPECT_OK(e2)) {
    CHECK_STR_EQ(DT(e2), "bool");
    CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e2)->a), "float32");
  }
  tvm_tir_expr_obj* e3 = B(TVM_TIR_KIND_Add, h, f); /* float16 widened to float32 */
  if (EXPECT_OK(e3)) {
    CHECK_STR_EQ(DT(e3), "float32");
    CHECK_STR_EQ(DT(((tvm_tir_binary_obj*)e3)->a), "float32");
  }
  tvm_tir_expr_obj* v = V("v", tvm_tir_dtype_with_lanes(TVM_TIR_FLOAT32, 4));
  tvm_tir_expr_obj* e4 = B(TVM_TIR_KIND_Add, v, V("j", TVM_TIR_INT32)); /* cast, then broadcast */
  if (EXPECT_OK(e4)) {
    CHECK_STR_EQ(DT(e4), "float32x4");
    tvm_tir_expr_obj* bb = ((tvm_tir_binary_obj*)e4)->b;
    CHECK(tvm_tir_kind_of(bb) == TVM_TIR_KIND_Broadcast);
  }
  /* A folded cast of a constant: 2.5 * int64 3 is 7.5 in float32 */
  tvm_tir_expr_obj* e5 = B(TVM_TIR_KIND_Mul, C(TVM_TIR_FLOAT32, 2), i64);
  if (EXPECT_OK(e5)) CHECK_STR_EQ(DT(e5), "float32");
  /* No common type: bfloat16 with float16, bool with float */
  EXPECT_ERROR("TypeError", tvm_tir_add(V("b", TVM_TIR_BFLOAT16), h), "rule T-BINOP",
               "same dtype");
  EXPECT_ERROR("TypeError", tvm_tir_mul(f, V("c", TVM_TIR_BOOL)), "rule T-BINOP", "same dtype");
}

TEST(handle_operands) {
  tvm_tir_expr_obj* h = V("h", TVM_TIR_HANDLE);
  EXPECT_ERROR("TypeError", tvm_tir_add(h, I(1)), "Add: operands must not be handles",
               "rule T-BINOP", "a = h (handle)", "b = 1 (int32)");
  EXPECT_ERROR("TypeError", tvm_tir_mul(I(2), h), "rule T-BINOP", "handles");
  EXPECT_ERROR("TypeError", tvm_tir_lt(h, h), "LT: operands must not be handles", "rule T-CMP");
  EXPECT_ERROR("TypeError", tvm_tir_neg(h), "rule T-BINOP", "handles");
  /* Select of handles is fine (no arithmetic). */
  tvm_tir_expr_obj* s = tir_temp(tvm_tir_select(C(TVM_TIR_BOOL, 1), h, h));
  EXPECT_OK(s);
}

TEST(division_by_zero) {
  tvm_tir_expr_obj* x = V("x", TVM_TIR_INT32);
  EXPECT_ERROR("ValueError", tvm_tir_div(x, I(0)), "Div: division by a constant zero", "a = x");
  EXPECT_ERROR("ValueError", tvm_tir_mod(I(7), I(0)), "Mod: division by a constant zero");
  EXPECT_ERROR("ValueError", tvm_tir_floordiv(x, C(TVM_TIR_INT64, 0)),
               "FloorDiv: division by a constant zero");
  EXPECT_ERROR("ValueError", tvm_tir_floormod(C(TVM_TIR_UINT8, 3), C(TVM_TIR_UINT8, 0)),
               "FloorMod");
  /* Dividing by a non-constant is not folded. */
  CHECK(tvm_tir_kind_of(B(TVM_TIR_KIND_Div, I(7), x)) == TVM_TIR_KIND_Div);
}

TEST(neg_and_if_then_else) {
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_neg(I(5))), "int32"), -5);
  CHECK(FVAL(tir_temp(tvm_tir_neg(F(TVM_TIR_FLOAT32, 2.5))), "float32") == -2.5);
  tvm_tir_expr_obj* x = V("x", TVM_TIR_INT32);
  tvm_tir_expr_obj* n = tir_temp(tvm_tir_neg(x));
  if (EXPECT_OK(n)) CHECK(tvm_tir_kind_of(n) == TVM_TIR_KIND_Sub);
  tvm_tir_expr_obj* c = V("c", TVM_TIR_BOOL);
  tvm_tir_expr_obj* ite = tir_temp(tvm_tir_if_then_else(c, x, I(0)));
  if (EXPECT_OK(ite)) {
    CHECK(tvm_tir_kind_of(ite) == TVM_TIR_KIND_Call);
    CHECK(tvm_tir_is_builtin(((tvm_tir_call_obj*)ite)->op, TVM_TIR_BUILTIN_if_then_else));
    CHECK_STR_EQ(DT(ite), "int32");
  }
  CHECK(tir_temp(tvm_tir_if_then_else(C(TVM_TIR_BOOL, 1), x, I(0))) == x);
  CHECK_EQ_INT(IVAL(tir_temp(tvm_tir_if_then_else(I(0), x, I(9))), "int32"), 9);
  EXPECT_ERROR("TypeError", tvm_tir_if_then_else(x, x, x), "rule T-CALL", "bool scalar");
}

int main(void) {
  RUN(spec_division_examples);
  RUN(int_folding);
  RUN(wrap_around);
  RUN(float_folding);
  RUN(compare_and_logic_folding);
  RUN(cast_folding);
  RUN(literal_promotion);
  RUN(integer_width_promotion);
  RUN(float_promotion);
  RUN(stale_error_is_not_theirs);
  RUN(handle_operands);
  RUN(division_by_zero);
  RUN(neg_and_if_then_else);
  tir_release_temps();
  return test_summary();
}
