/*
 * test_interp.c: the reference interpreter (tvm/tir/interp.h), expressions and values: integer
 * wrap-around, division rules, float16/bfloat16/float32 rounding, casts, laziness, builtins,
 * tir.ret and recursion. Statements, buffers and arguments: test_interp_stmt.c.
 */
#include "test_interp.h"

#include <math.h>

/* ---- Integers ----------------------------------------------------------------------------- */
TEST(integer_wrap_around) {
  struct {
    DLDataType t;
    int64_t x, y, add, sub, mul;
  } cases[] = {
      {TVM_TIR_INT8, 127, 1, -128, 126, 127},
      {TVM_TIR_INT8, -128, 3, -125, 125, -128},
      {TVM_TIR_INT16, 32767, 2, -32767, 32765, -2},
      {TVM_TIR_INT32, INT32_MAX, 1, INT32_MIN, INT32_MAX - 1, INT32_MAX},
      {TVM_TIR_INT32, 65536, 65536, 131072, 0, 0},
      {TVM_TIR_INT64, INT64_MAX, 1, INT64_MIN, INT64_MAX - 1, INT64_MAX},
      {TVM_TIR_UINT8, 0, 1, 1, 255, 0},
      {TVM_TIR_UINT8, 200, 100, 44, 100, 32},
      {TVM_TIR_UINT16, 65535, 65535, 65534, 0, 1},
      {TVM_TIR_UINT32, 4000000000, 1000000000, 705032704, 3000000000, 2643460096},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    tvm_tir_kind kinds[] = {TVM_TIR_KIND_Add, TVM_TIR_KIND_Sub, TVM_TIR_KIND_Mul};
    int64_t expected[] = {cases[c].add, cases[c].sub, cases[c].mul};
    for (int k = 0; k < 3; ++k) {
      tvm_tir_var_obj* x = tvm_tir_var("x", cases[c].t);
      tvm_tir_var_obj* y = tvm_tir_var("y", cases[c].t);
      int64_t r =
          EVAL_I(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_binary_take(kinds[k], ref(x), ref(y)),
                 I(cases[c].x), I(cases[c].y));
      if (r != expected[k]) {
        fprintf(stderr, "  case %zu op %d: got %lld, expected %lld\n", c, k, (long long)r,
                (long long)expected[k]);
      }
      CHECK_EQ_INT(r, expected[k]);
      RELEASE(x, y);
    }
  }
}

/* The spec's comparison of Div, Mod, FloorDiv and FloorMod (5 / 2, -5 / 2, -5 % 2, ...). */
TEST(division_rules) {
  struct {
    int64_t a, b, div, mod, fdiv, fmod;
  } cases[] = {
      {5, 2, 2, 1, 2, 1},
      {-5, 2, -2, -1, -3, 1},
      {5, -2, -2, 1, -3, -1},
      {-5, -2, 2, -1, 2, -1},
      {6, 3, 2, 0, 2, 0},
      {-6, 3, -2, 0, -2, 0},
      {INT32_MIN, -1, INT32_MIN, 0, INT32_MIN, 0},
  };
  tvm_tir_kind kinds[] = {TVM_TIR_KIND_Div, TVM_TIR_KIND_Mod, TVM_TIR_KIND_FloorDiv,
                          TVM_TIR_KIND_FloorMod};
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    int64_t expected[] = {cases[c].div, cases[c].mod, cases[c].fdiv, cases[c].fmod};
    for (int k = 0; k < 4; ++k) {
      tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_INT32);
      tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_INT32);
      int64_t r =
          EVAL_I(tvm_tir_list_take(ref(a), ref(b)), tvm_tir_binary_take(kinds[k], ref(a), ref(b)),
                 I(cases[c].a), I(cases[c].b));
      CHECK_EQ_INT(r, expected[k]);
      RELEASE(a, b);
    }
  }
  /* Unsigned operands divide as unsigned. */
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_UINT32);
  tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_UINT32);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(a), ref(b)), tvm_tir_floordiv_take(ref(a), ref(b)),
                      I(4000000000), I(7)),
               571428571);
  RELEASE(a, b);
}

TEST(integer_division_by_zero) {
  tvm_tir_kind kinds[] = {TVM_TIR_KIND_Div, TVM_TIR_KIND_Mod, TVM_TIR_KIND_FloorDiv,
                          TVM_TIR_KIND_FloorMod};
  for (int k = 0; k < 4; ++k) {
    tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_INT32);
    tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_INT32);
    EVAL_ERR("ValueError", "division by zero", tvm_tir_list_take(ref(a), ref(b)),
             tvm_tir_binary_take(kinds[k], ref(a), ref(b)), I(7), I(0));
    RELEASE(a, b);
  }
  /* Float division by zero follows IEEE 754. */
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT32);
  double r = EVAL_F(tvm_tir_list_take(ref(x)), tvm_tir_div_take(tvm_tir_f32(1), ref(x)), F(0));
  CHECK(isinf(r) && r > 0);
  RELEASE(x);
}

TEST(min_max_compare) {
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_UINT32);
  tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_UINT32);
  /* 4e9 is large as uint32 (it would be negative as int32). */
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(a), ref(b)), tvm_tir_max_take(ref(a), ref(b)),
                      I(4000000000), I(1)),
               4000000000);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(a), ref(b)), tvm_tir_lt_take(ref(a), ref(b)),
                      I(4000000000), I(1)),
               0);
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT8);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT8);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_min_take(ref(x), ref(y)), I(-3), I(2)), -3);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_ge_take(ref(x), ref(y)), I(-3), I(2)), 0);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_ne_take(ref(x), ref(y)), I(2), I(2)), 0);
  /* Comparisons with NaN are false, except != */
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(f)), tvm_tir_eq_take(ref(f), ref(f)), F(NAN)), 0);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(f)), tvm_tir_ne_take(ref(f), ref(f)), F(NAN)), 1);
  RELEASE(a, b, x, y, f);
}

TEST(bitwise_and_shifts) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT8);
  tvm_tir_var_obj* u = tvm_tir_var("u", TVM_TIR_UINT8);
  tvm_tir_var_obj* s = tvm_tir_var("s", TVM_TIR_INT8);
  /* Arithmetic shift for signed, logical for unsigned. */
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x), ref(s)),
             tvm_tir_call_take(TVM_TIR_INT8, "tir.shift_right", ref(x), ref(s)), I(-8), I(1)),
      -4);
  tvm_tir_var_obj* su = tvm_tir_var("su", TVM_TIR_UINT8);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(u), ref(su)),
             tvm_tir_call_take(TVM_TIR_UINT8, "tir.shift_right", ref(u), ref(su)), I(248), I(1)),
      124);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x), ref(s)),
             tvm_tir_call_take(TVM_TIR_INT8, "tir.shift_left", ref(x), ref(s)), I(100), I(1)),
      -56);
  EVAL_ERR("ValueError", "shift amount 8", tvm_tir_list_take(ref(x), ref(s)),
           tvm_tir_call_take(TVM_TIR_INT8, "tir.shift_left", ref(x), ref(s)), I(1), I(8));
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(u), ref(su)),
                      tvm_tir_call_take(TVM_TIR_UINT8, "tir.bitwise_xor", ref(u), ref(su)), I(0xF0),
                      I(0xFF)),
               0x0F);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(u)),
                      tvm_tir_call_take(TVM_TIR_UINT8, "tir.bitwise_not", ref(u)), I(1)),
               254);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_call_take(TVM_TIR_INT8, "tir.popcount", ref(x)), I(-1)),
               8);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(u)), tvm_tir_call_take(TVM_TIR_UINT8, "tir.clz", ref(u)), I(1)),
      7);
  EVAL_ERR("ValueError", "tir.clz", tvm_tir_list_take(ref(u)),
           tvm_tir_call_take(TVM_TIR_UINT8, "tir.clz", ref(u)), I(0));
  RELEASE(x, u, s, su);
}

/* ---- Floats ------------------------------------------------------------------------------- */
TEST(float16_bfloat16_rounding) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT16);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_FLOAT16);
  /* ulp(1) = 2^-10: a half-ulp tie rounds to even. */
  CHECK(EVAL_F(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_add_take(ref(x), ref(y)), F(1.0),
               F(ldexp(1, -11))) == 1.0);
  CHECK(EVAL_F(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_add_take(ref(x), ref(y)), F(1.0),
               F(3 * ldexp(1, -11))) == 1.0 + ldexp(1, -9));
  /* Overflow past the largest float16 (65504) gives inf. */
  CHECK(isinf(EVAL_F(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_add_take(ref(x), ref(y)), F(65504),
                     F(32))));
  /* (x * y) rounds after the multiplication, before the addition. */
  tvm_tir_var_obj* z = tvm_tir_var("z", TVM_TIR_FLOAT16);
  double r = EVAL_F(tvm_tir_list_take(ref(x), ref(y), ref(z)),
                    tvm_tir_add_take(tvm_tir_mul_take(ref(x), ref(y)), ref(z)),
                    F(1 + ldexp(1, -10)), F(1 + ldexp(1, -10)), F(-1));
  CHECK(r == ldexp(1, -9)); /* (1 + 2^-9 + 2^-20 rounds to 1 + 2^-9) - 1 */
  tvm_tir_var_obj* a = tvm_tir_var("a", TVM_TIR_BFLOAT16);
  tvm_tir_var_obj* b = tvm_tir_var("b", TVM_TIR_BFLOAT16);
  CHECK(EVAL_F(tvm_tir_list_take(ref(a), ref(b)), tvm_tir_add_take(ref(a), ref(b)), F(1.0),
               F(ldexp(1, -8))) == 1.0);
  CHECK(EVAL_F(tvm_tir_list_take(ref(a), ref(b)), tvm_tir_add_take(ref(a), ref(b)), F(1.0),
               F(3 * ldexp(1, -8))) == 1.0 + ldexp(1, -6));
  /* A float16 argument is rounded to float16 on entry. */
  CHECK(EVAL_F(tvm_tir_list_take(ref(x)),
               tvm_tir_mul_take(ref(x), tvm_tir_const_float(TVM_TIR_FLOAT16, 1)),
               F(0.1)) == 0.0999755859375);
  RELEASE(x, y, z, a, b);
}

TEST(float32_computed_in_float) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_FLOAT32);
  CHECK(EVAL_F(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_div_take(ref(x), ref(y)), F(1), F(3)) ==
        (double)(1.0f / 3.0f));
  /* 16777216 + 1 is not representable in float. */
  CHECK(EVAL_F(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_add_take(ref(x), ref(y)), F(16777216),
               F(1)) == 16777216.0);
  CHECK(EVAL_F(tvm_tir_list_take(ref(x)), tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.exp", ref(x)),
               F(0.7)) == (double)expf(0.7f));
  tvm_tir_var_obj* d = tvm_tir_var("d", TVM_TIR_FLOAT64);
  CHECK(EVAL_F(tvm_tir_list_take(ref(d)), tvm_tir_call_take(TVM_TIR_FLOAT64, "tir.exp", ref(d)),
               F(0.7)) == exp(0.7));
  /* FloorDiv / FloorMod on floats. */
  CHECK(EVAL_F(tvm_tir_list_take(ref(x), ref(y)), tvm_tir_floormod_take(ref(x), ref(y)), F(-5.5),
               F(2)) == 0.5);
  RELEASE(x, y, d);
}

TEST(math_builtins) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_FLOAT64);
#define MATH(name, in, expected)                                                            \
  CHECK(EVAL_F(tvm_tir_list_take(ref(x)), tvm_tir_call_take(TVM_TIR_FLOAT64, name, ref(x)), \
               F(in)) == (expected))
  MATH("tir.sqrt", 2.0, sqrt(2.0));
  MATH("tir.rsqrt", 4.0, 0.5);
  MATH("tir.log", 2.0, log(2.0));
  MATH("tir.tanh", 0.5, tanh(0.5));
  MATH("tir.sigmoid", 0.0, 0.5);
  MATH("tir.erf", 0.5, erf(0.5));
  MATH("tir.floor", -2.5, -3.0);
  MATH("tir.ceil", -2.5, -2.0);
  MATH("tir.round", 2.5, 3.0); /* halfway cases away from zero, like C round() */
  MATH("tir.round", -2.5, -3.0);
  MATH("tir.nearbyint", 2.5, 2.0); /* halfway cases to even */
  MATH("tir.trunc", -2.7, -2.0);
  MATH("tir.fabs", -1.5, 1.5);
#undef MATH
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_FLOAT64);
  CHECK(EVAL_F(tvm_tir_list_take(ref(x), ref(y)),
               tvm_tir_call_take(TVM_TIR_FLOAT64, "tir.pow", ref(x), ref(y)), F(2), F(10)) == 1024);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_call_take(TVM_TIR_BOOL, "tir.isnan", ref(x)), F(NAN)),
               1);
  /* float32 -> int32 bits */
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(f)),
                      tvm_tir_call_take(TVM_TIR_INT32, "tir.reinterpret", ref(f)), F(1.0)),
               0x3f800000);
  RELEASE(x, y, f);
}

/* ---- Casts -------------------------------------------------------------------------------- */
TEST(casts) {
  tvm_tir_var_obj* f = tvm_tir_var("f", TVM_TIR_FLOAT32);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(f)), tvm_tir_cast_take(TVM_TIR_INT32, ref(f)), F(-2.7)),
               -2);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(f)), tvm_tir_cast_take(TVM_TIR_INT32, ref(f)), F(2.7)),
               2);
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(f)), tvm_tir_cast_take(TVM_TIR_UINT8, ref(f)), F(255.9)), 255);
  /* Out of range (undefined in C) is an error. */
  EVAL_ERR("ValueError", "does not fit int32", tvm_tir_list_take(ref(f)),
           tvm_tir_cast_take(TVM_TIR_INT32, ref(f)), F(3e9));
  EVAL_ERR("ValueError", "does not fit uint8", tvm_tir_list_take(ref(f)),
           tvm_tir_cast_take(TVM_TIR_UINT8, ref(f)), F(-1));
  EVAL_ERR("ValueError", "does not fit", tvm_tir_list_take(ref(f)),
           tvm_tir_cast_take(TVM_TIR_INT64, ref(f)), F(NAN));
  /* Integers truncate / sign-extend. */
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(i)), tvm_tir_cast_take(TVM_TIR_UINT8, ref(i)), I(300)),
               44);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(i)), tvm_tir_cast_take(TVM_TIR_INT8, ref(i)), I(200)),
               -56);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_INT8);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(c)), tvm_tir_cast_take(TVM_TIR_UINT16, ref(c)), I(-1)),
               65535);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(c)), tvm_tir_cast_take(TVM_TIR_INT64, ref(c)), I(-1)),
               -1);
  /* To bool: any non-zero value is true. */
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(i)), tvm_tir_cast_take(TVM_TIR_BOOL, ref(i)), I(2)), 1);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(f)), tvm_tir_cast_take(TVM_TIR_BOOL, ref(f)), F(0.25)),
               1);
  /* int64 -> float32 rounds once (2^53 + 1 is not a double either). */
  tvm_tir_var_obj* l = tvm_tir_var("l", TVM_TIR_INT64);
  CHECK(EVAL_F(tvm_tir_list_take(ref(l)), tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(l)),
               I((1LL << 53) + 1)) == (double)(float)((1LL << 53) + 1));
  CHECK(EVAL_F(tvm_tir_list_take(ref(f)), tvm_tir_cast_take(TVM_TIR_FLOAT16, ref(f)), F(65519)) ==
        65504);
  CHECK(isinf(
      EVAL_F(tvm_tir_list_take(ref(f)), tvm_tir_cast_take(TVM_TIR_FLOAT16, ref(f)), F(65520))));
  RELEASE(f, i, c, l);
}

/* ---- Laziness ----------------------------------------------------------------------------- */
TEST(select_is_strict_if_then_else_is_lazy) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  /* Select evaluates both sides: 10 / x fails for x = 0 even though it is not selected. */
  EVAL_ERR("ValueError", "division by zero", tvm_tir_list_take(ref(x)),
           tvm_tir_select_take(tvm_tir_gt_take(ref(x), tvm_tir_int(0)),
                               tvm_tir_div_take(tvm_tir_int(10), ref(x)), tvm_tir_int(-1)),
           I(0));
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x)),
             tvm_tir_select_take(tvm_tir_gt_take(ref(x), tvm_tir_int(0)),
                                 tvm_tir_div_take(tvm_tir_int(10), ref(x)), tvm_tir_int(-1)),
             I(5)),
      2);
  /* tir.if_then_else evaluates only the chosen side. */
  tvm_tir_expr_obj* cond = tvm_tir_gt_take(ref(x), tvm_tir_int(0));
  tvm_tir_expr_obj* q = tvm_tir_div_take(tvm_tir_int(10), ref(x));
  tvm_tir_expr_obj* m1 = tvm_tir_int(-1);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)), tvm_tir_if_then_else(cond, q, m1), I(0)), -1);
  RELEASE(cond, q, m1);
  /* Vector Select picks per lane: x = 0 gives [0, 1, 2, 3] < 2 ? ramp : 0 = [0, 1, 0, 0]. */
  tvm_tir_expr_obj* r = tvm_tir_ramp_take(ref(x), tvm_tir_int(1), 4);
  void* sel =
      tvm_tir_select_take(tvm_tir_lt_take(ref(r), tvm_tir_broadcast_take(tvm_tir_int(2), 4)),
                          ref(r), tvm_tir_broadcast_take(tvm_tir_int(0), 4));
  void* low = tvm_tir_call_take(tvm_tir_dtype_with_lanes(TVM_TIR_INT32, 2), "tir.vectorlow", sel);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_call_take(TVM_TIR_INT32, "tir.vectorhigh", low), I(0)),
               1);
  RELEASE(x, r);
}

TEST(and_or_short_circuit) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  /* x != 0 and 10 / x > 1: for x = 0 the division is never evaluated. */
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_and_take(tvm_tir_ne_take(ref(x), tvm_tir_int(0)),
                                       tvm_tir_gt_take(tvm_tir_div_take(tvm_tir_int(10), ref(x)),
                                                       tvm_tir_int(1))),
                      I(0)),
               0);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_or_take(tvm_tir_eq_take(ref(x), tvm_tir_int(0)),
                                      tvm_tir_gt_take(tvm_tir_div_take(tvm_tir_int(10), ref(x)),
                                                      tvm_tir_int(1))),
                      I(0)),
               1);
  /* When the left side does not decide, the right one is evaluated (and may fail). */
  EVAL_ERR(
      "ValueError", "division by zero", tvm_tir_list_take(ref(x)),
      tvm_tir_and_take(tvm_tir_eq_take(ref(x), tvm_tir_int(0)),
                       tvm_tir_gt_take(tvm_tir_div_take(tvm_tir_int(10), ref(x)), tvm_tir_int(1))),
      I(0));
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_not_take(tvm_tir_eq_take(ref(x), tvm_tir_int(0))), I(3)),
               1);
  RELEASE(x);
}

/* ---- Let, ret, calls ---------------------------------------------------------------------- */
TEST(let_and_ret) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                      tvm_tir_let_take(ref(t), tvm_tir_mul_take(ref(x), ref(x)),
                                       tvm_tir_add_take(ref(t), ref(t))),
                      I(7)),
               98);
  /* tir.ret stops the function: the loop returns at i == 3 and the store after it never runs. */
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(10),
                          tvm_tir_if_take(tvm_tir_eq_take(ref(i), tvm_tir_int(3)),
                                          ret_take(tvm_tir_mul_take(ref(i), ref(x))), NULL)),
      ret_take(tvm_tir_int(-1)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(x)), body);
  TVMFFIAny out;
  if (EXPECT_OK(f)) {
    CHECK_OK(tvm_tir_interp_run(f, NULL, (TVMFFIAny[]){I(10)}, 1, &out));
    CHECK_EQ_INT(out.type_index, kTVMFFIInt);
    CHECK_EQ_INT(out.v_int64, 30);
  }
  /* A function without tir.ret returns None; a float ret returns a float, a bool a bool. */
  void* g = tvm_tir_func_take("g", NULL, tvm_tir_evaluate_take(tvm_tir_int(0)));
  if (EXPECT_OK(g)) {
    CHECK_OK(tvm_tir_interp_run(g, NULL, NULL, 0, &out));
    CHECK_EQ_INT(out.type_index, kTVMFFINone);
  }
  void* h = ret_func_take(tvm_tir_list_take(ref(x)), tvm_tir_lt_take(ref(x), tvm_tir_int(3)));
  if (EXPECT_OK(h)) {
    CHECK_OK(tvm_tir_interp_run(h, NULL, (TVMFFIAny[]){I(1)}, 1, &out));
    CHECK_EQ_INT(out.type_index, kTVMFFIBool);
    CHECK_EQ_INT(out.v_int64, 1);
  }
  tvm_tir_var_obj* fx = tvm_tir_var("fx", TVM_TIR_FLOAT32);
  void* k = ret_func_take(tvm_tir_list_take(ref(fx)), tvm_tir_mul_take(ref(fx), tvm_tir_f32(2)));
  if (EXPECT_OK(k)) {
    CHECK_OK(tvm_tir_interp_run(k, NULL, (TVMFFIAny[]){F(1.25)}, 1, &out));
    CHECK_EQ_INT(out.type_index, kTVMFFIFloat);
    CHECK(out.v_float64 == 2.5);
  }
  RELEASE(fx, k);
  RELEASE(f, g, h, x, t, i);
}

TEST(recursion_through_global_vars) {
  /* fact(n) = if_then_else(n <= 1, 1, n * fact(n - 1)) */
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("fact");
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT64);
  void* rec = tvm_tir_call_global_takev(TVM_TIR_INT64, ref(gv), 1,
                                        (void*[]){tvm_tir_sub_take(ref(n), tvm_tir_i64(1))});
  tvm_tir_expr_obj* cond = tvm_tir_le_take(ref(n), tvm_tir_i64(1));
  tvm_tir_expr_obj* one = tvm_tir_i64(1);
  tvm_tir_expr_obj* prod = tvm_tir_mul_take(ref(n), rec);
  void* fact =
      ret_func_named_take("fact", tvm_tir_list_take(ref(n)),
                          cond && one && prod ? tvm_tir_if_then_else(cond, one, prod) : NULL);
  RELEASE(cond, one, prod);
  void* mod = tvm_tir_module_take(ref(fact));
  TVMFFIAny out;
  if (EXPECT_OK(mod)) {
    CHECK_OK(tvm_tir_interp_run(mod, "fact", (TVMFFIAny[]){I(20)}, 1, &out));
    CHECK_EQ_INT(out.v_int64, 2432902008176640000LL);
    /* A PrimFunc run alone calls itself through its global_symbol. */
    CHECK_OK(tvm_tir_interp_run(fact, NULL, (TVMFFIAny[]){I(5)}, 1, &out));
    CHECK_EQ_INT(out.v_int64, 120);
    CHECK(tvm_tir_interp_run(mod, "nope", NULL, 0, &out) != 0);
    CHECK_RAISED("ValueError", "no function 'nope'");
  }
  /* fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2), with IfThenElse statements. */
  tvm_tir_global_var_obj* fg = tvm_tir_global_var_new("fib");
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* body = tvm_tir_if_take(
      tvm_tir_lt_take(ref(k), tvm_tir_int(2)), ret_take(ref(k)),
      ret_take(tvm_tir_add_take(
          tvm_tir_call_global_takev(TVM_TIR_INT32, ref(fg), 1,
                                    (void*[]){tvm_tir_sub_take(ref(k), tvm_tir_int(1))}),
          tvm_tir_call_global_takev(TVM_TIR_INT32, ref(fg), 1,
                                    (void*[]){tvm_tir_sub_take(ref(k), tvm_tir_int(2))}))));
  void* fib = tvm_tir_func_take("fib", tvm_tir_list_take(ref(k)), body);
  /* loop(n) = loop(n + 1): too deep. */
  tvm_tir_global_var_obj* lg = tvm_tir_global_var_new("loop");
  void* loop = ret_func_named_take(
      "loop", tvm_tir_list_take(ref(k)),
      tvm_tir_call_global_takev(TVM_TIR_INT32, ref(lg), 1,
                                (void*[]){tvm_tir_add_take(ref(k), tvm_tir_int(1))}));
  void* mod2 = tvm_tir_module_take(ref(fib), ref(loop), ref(fact));
  if (EXPECT_OK(mod2)) {
    CHECK_OK(tvm_tir_interp_run(mod2, "fib", (TVMFFIAny[]){I(15)}, 1, &out));
    CHECK_EQ_INT(out.v_int64, 610);
    CHECK(tvm_tir_interp_run(mod2, "loop", (TVMFFIAny[]){I(0)}, 1, &out) != 0);
    CHECK_RAISED("RuntimeError", "maximum call depth");
  }
  /* A call to a function missing from the module. */
  tvm_tir_global_var_obj* missing = tvm_tir_global_var_new("missing");
  void* caller = ret_func_named_take(
      "caller", NULL, tvm_tir_call_global_takev(TVM_TIR_INT32, ref(missing), 0, NULL));
  void* mod3 = tvm_tir_module_take(ref(caller));
  if (EXPECT_OK(mod3)) {
    CHECK(tvm_tir_interp_run(mod3, "caller", NULL, 0, &out) != 0);
    CHECK_RAISED("RuntimeError", "call to 'missing'");
  }
  RELEASE(gv, n, fact, mod, fg, k, fib, lg, loop, mod2, missing, caller, mod3);
}

TEST(unsupported_and_unbound) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* free_var = tvm_tir_var("free_var", TVM_TIR_INT32);
  EVAL_ERR("RuntimeError", "unbound variable 'free_var'", tvm_tir_list_take(ref(x)),
           tvm_tir_add_take(ref(x), ref(free_var)), I(1));
  EVAL_ERR("RuntimeError", "unknown external function 'my_func'", tvm_tir_list_take(ref(x)),
           tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("my_func"), ref(x)),
           I(1));
  EVAL_ERR("NotImplementedError", "tir.undef", tvm_tir_list_take(ref(x)),
           tvm_tir_add_take(ref(x), tvm_tir_call_takev(TVM_TIR_INT32, "tir.undef", 0, NULL)), I(1));
  /* tir.likely and tir.tvm_thread_invariant are the identity, tir.assume does not evaluate
   * its argument. */
  CHECK_EQ_INT(
      EVAL_I(tvm_tir_list_take(ref(x)),
             tvm_tir_call_take(TVM_TIR_BOOL, "tir.likely", tvm_tir_gt_take(ref(x), tvm_tir_int(0))),
             I(1)),
      1);
  for (int64_t v = -1; v <= 1; v += 2) {
    CHECK_EQ_INT(EVAL_I(tvm_tir_list_take(ref(x)),
                        tvm_tir_call_take(TVM_TIR_BOOL, "tir.tvm_thread_invariant",
                                          tvm_tir_gt_take(ref(x), tvm_tir_int(0))),
                        I(v)),
                 v > 0);
  }
  void* body = tvm_tir_seq_take(
      tvm_tir_evaluate_take(tvm_tir_call_take(
          TVM_TIR_BOOL, "tir.assume",
          tvm_tir_gt_take(tvm_tir_div_take(tvm_tir_int(1), ref(x)), tvm_tir_int(0)))),
      ret_take(ref(x)));
  void* f = tvm_tir_func_take("f", tvm_tir_list_take(ref(x)), body);
  TVMFFIAny out;
  if (EXPECT_OK(f)) {
    CHECK_OK(tvm_tir_interp_run(f, NULL, (TVMFFIAny[]){I(0)}, 1, &out));
    CHECK_EQ_INT(out.v_int64, 0);
  }
  CHECK(tvm_tir_interp_run(x, NULL, NULL, 0, &out) != 0);
  CHECK_RAISED("TypeError", "expected a PrimFunc or an IRModule");
  RELEASE(x, free_var, f);
}

int main(void) {
  RUN(integer_wrap_around);
  RUN(division_rules);
  RUN(integer_division_by_zero);
  RUN(min_max_compare);
  RUN(bitwise_and_shifts);
  RUN(float16_bfloat16_rounding);
  RUN(float32_computed_in_float);
  RUN(math_builtins);
  RUN(casts);
  RUN(select_is_strict_if_then_else_is_lazy);
  RUN(and_or_short_circuit);
  RUN(let_and_ret);
  RUN(recursion_through_global_vars);
  RUN(unsupported_and_unbound);
  tir_release_temps();
  return test_summary();
}
