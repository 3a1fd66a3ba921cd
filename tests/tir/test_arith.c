/*
 * test_arith.c: integer bound analysis, the simplifier and the prover (tvm/tir/arith.h),
 * including random affine expressions whose simplified form is checked against the original by
 * evaluating both at random points of the variables' ranges.
 */
#include <stdlib.h>
#include <tvm/tir/arith.h>

#include "tir_check.h"

/* ffi.Map {v[i]: Range(lo[i], ext[i])}. */
static void* ranges_of(int n, tvm_tir_var_obj* const* v, const int64_t* lo, const int64_t* ext) {
  TVMFFIAny keys[8], vals[8];
  void* rs[8];
  for (int i = 0; i < n; ++i) {
    rs[i] = tvm_tir_range_take(tvm_tir_int(lo[i]), tvm_tir_int(ext[i]));
    keys[i] = tvm_ffi_any_obj(v[i]);
    vals[i] = tvm_ffi_any_obj(rs[i]);
  }
  void* m = tvm_ffi_map_new(keys, vals, n);
  for (int i = 0; i < n; ++i) tvm_ffi_release(rs[i]);
  return m;
}

static bool bound_is(tvm_tir_expr_obj* e, void* ranges, int64_t lo, int64_t hi) {
  int64_t a = 0, b = 0;
  bool ok = e && tvm_tir_const_int_bound(e, ranges, &a, &b) == 0 && a == lo && b == hi;
  if (!ok) fprintf(stderr, "  bound: got [%lld, %lld], want [%lld, %lld]\n", (long long)a,
                   (long long)b, (long long)lo, (long long)hi);
  tvm_ffi_release(e);
  return ok;
}

TEST(const_int_bound) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  tvm_tir_var_obj* vs[] = {x, y};
  void* r = ranges_of(2, vs, (int64_t[]){0, -4}, (int64_t[]){16, 8}); /* x in [0,16), y in [-4,4) */
  void* X = x;
  void* Y = y;
#define R(o) tvm_tir_ref(o)
  CHECK(bound_is(tvm_tir_int(7), r, 7, 7));
  CHECK(bound_is(R(X), r, 0, 15));
  CHECK(bound_is(tvm_tir_add_take(tvm_tir_mul_take(R(X), tvm_tir_int(4)), tvm_tir_int(3)), r, 3, 63));
  CHECK(bound_is(tvm_tir_sub_take(R(X), R(Y)), r, -3, 19));
  CHECK(bound_is(tvm_tir_mul_take(R(X), R(Y)), r, -60, 45));
  CHECK(bound_is(tvm_tir_floordiv_take(R(X), tvm_tir_int(4)), r, 0, 3));
  CHECK(bound_is(tvm_tir_floordiv_take(R(Y), tvm_tir_int(4)), r, -1, 0));
  CHECK(bound_is(tvm_tir_div_take(R(Y), tvm_tir_int(4)), r, -1, 0)); /* truncation */
  CHECK(bound_is(tvm_tir_floormod_take(R(Y), tvm_tir_int(8)), r, 0, 7));
  CHECK(bound_is(tvm_tir_floormod_take(R(X), tvm_tir_int(32)), r, 0, 15));
  CHECK(bound_is(tvm_tir_mod_take(R(Y), tvm_tir_int(3)), r, -2, 2));
  CHECK(bound_is(tvm_tir_min_take(R(X), tvm_tir_int(10)), r, 0, 10));
  CHECK(bound_is(tvm_tir_max_take(R(X), R(Y)), r, 0, 15));
  CHECK(bound_is(tvm_tir_cast_take(TVM_TIR_INT64, R(X)), r, 0, 15));
  CHECK(bound_is(tvm_tir_cast_take(TVM_TIR_INT8, tvm_tir_mul_take(R(X), tvm_tir_int(100))), r,
                 -128, 127));
  CHECK(bound_is(tvm_tir_select_take(tvm_tir_lt_take(R(X), R(Y)), R(X), tvm_tir_int(20)), r, 0, 20));
  CHECK(bound_is(tvm_tir_lt_take(R(X), R(Y)), r, 0, 1));
  tvm_tir_var_obj* t = tvm_tir_var("t", TVM_TIR_INT32);
  CHECK(bound_is(tvm_tir_let_take(R(t), tvm_tir_add_take(R(X), tvm_tir_int(1)),
                                  tvm_tir_mul_take(R(t), tvm_tir_int(2))),
                 r, 2, 32));
  /* Unknown variables range over their dtype; overflow gives the dtype's range. */
  tvm_tir_var_obj* z = tvm_tir_var("z", TVM_TIR_INT32);
  tvm_tir_var_obj* u = tvm_tir_var("u", TVM_TIR_UINT8);
  tvm_tir_var_obj* s = tvm_tir_size_var_new("s", TVM_TIR_INT64);
  CHECK(bound_is(R(z), r, INT32_MIN, INT32_MAX));
  CHECK(bound_is(R(u), NULL, 0, 255));
  CHECK(bound_is(R(s), NULL, 0, INT64_MAX));
  CHECK(bound_is(tvm_tir_add_take(R(z), tvm_tir_int(1)), r, INT32_MIN, INT32_MAX));
  CHECK(bound_is(tvm_tir_floordiv_take(R(X), R(Y)), r, INT32_MIN, INT32_MAX)); /* y spans 0 */
  /* Errors */
  int64_t a, b;
  tvm_tir_expr_obj* f = tvm_tir_f32(1);
  CHECK_EQ_INT(tvm_tir_const_int_bound(f, NULL, &a, &b), -1);
  CHECK_RAISED("TypeError", "Int/UInt");
  CHECK_EQ_INT(tvm_tir_const_int_bound(&x->expr, x, &a, &b), -1);
  CHECK_RAISED("TypeError", "ranges");
#undef R
  RELEASE(x, y, r, t, z, u, s, f);
}

/* Simplify e (consumed) and compare structurally with want (consumed). */
static bool simplifies_to(tvm_tir_expr_obj* e, void* ranges, tvm_tir_expr_obj* want) {
  tvm_tir_expr_obj* s = e ? tvm_tir_simplify_expr(e, ranges) : NULL;
  bool ok = false;
  if (s && want) {
    TVMFFIAny a = tvm_ffi_any_obj(s), b = tvm_ffi_any_obj(want);
    ok = tvm_ffi_structural_equal(&a, &b, false, NULL, NULL) == 1 &&
         tvm_tir_dtype_equal(s->dtype, e->dtype);
    if (!ok) {
      tvm_ffi_strbuf t = {0};
      TVMFFIAny sv = tvm_ffi_any_obj(s);
      tvm_ffi_json_save(&sv, &t);
      fprintf(stderr, "  simplified to: %s\n", tvm_ffi_strbuf_cstr(&t));
      tvm_ffi_strbuf_free(&t);
    }
  }
  if (!s) tvm_ffi_error_clear();
  RELEASE(e, s, want);
  return ok;
}

TEST(simplify_rules) {
  tvm_tir_var_obj* x = tvm_tir_var("x", TVM_TIR_INT32);
  tvm_tir_var_obj* y = tvm_tir_var("y", TVM_TIR_INT32);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* vs[] = {x, y, i};
  void* r = ranges_of(3, vs, (int64_t[]){0, 0, 0}, (int64_t[]){64, 4, 16});
#define R(o) tvm_tir_ref(o)
  /* Affine forms: cancellation, combination, constant folding, ordering. */
  CHECK(simplifies_to(tvm_tir_sub_take(tvm_tir_add_take(R(x), tvm_tir_int(1)), R(x)), r,
                      tvm_tir_int(1)));
  CHECK(simplifies_to(
      tvm_tir_add_take(tvm_tir_mul_take(R(x), tvm_tir_int(4)), tvm_tir_mul_take(R(x), tvm_tir_int(2))),
      r, tvm_tir_mul_take(R(x), tvm_tir_int(6))));
  CHECK(simplifies_to(tvm_tir_add_take(R(y), R(x)), r, tvm_tir_add_take(R(x), R(y))));
  CHECK(simplifies_to(
      tvm_tir_add_take(tvm_tir_sub_take(tvm_tir_int(3), R(y)), tvm_tir_mul_take(tvm_tir_int(2), R(x))),
      r, tvm_tir_add_take(tvm_tir_sub_take(tvm_tir_mul_take(R(x), tvm_tir_int(2)), R(y)),
                          tvm_tir_int(3))));
  CHECK(simplifies_to(tvm_tir_mul_take(tvm_tir_add_take(R(x), tvm_tir_int(1)), tvm_tir_int(3)), r,
                      tvm_tir_add_take(tvm_tir_mul_take(R(x), tvm_tir_int(3)), tvm_tir_int(3))));
  CHECK(simplifies_to(tvm_tir_sub_take(tvm_tir_int(0), R(x)), r,
                      tvm_tir_mul_take(R(x), tvm_tir_int(-1))));
  /* Region extent of the buffer rules: (i*4 + 3) - i*4 + 1 == 4 */
  CHECK(simplifies_to(
      tvm_tir_add_take(tvm_tir_sub_take(tvm_tir_add_take(tvm_tir_mul_take(R(i), tvm_tir_int(4)),
                                                         tvm_tir_int(3)),
                                        tvm_tir_mul_take(R(i), tvm_tir_int(4))),
                       tvm_tir_int(1)),
      r, tvm_tir_int(4)));
  /* FloorDiv / FloorMod identities (y in [0, 4)). */
  CHECK(simplifies_to(
      tvm_tir_floordiv_take(tvm_tir_add_take(tvm_tir_mul_take(R(x), tvm_tir_int(4)), R(y)),
                            tvm_tir_int(4)),
      r, R(x)));
  CHECK(simplifies_to(
      tvm_tir_floormod_take(tvm_tir_add_take(tvm_tir_mul_take(R(x), tvm_tir_int(4)), R(y)),
                            tvm_tir_int(4)),
      r, R(y)));
  CHECK(simplifies_to(tvm_tir_floordiv_take(R(y), tvm_tir_int(4)), r, tvm_tir_int(0)));
  CHECK(simplifies_to(tvm_tir_floormod_take(R(y), tvm_tir_int(4)), r, R(y)));
  CHECK(simplifies_to(tvm_tir_floormod_take(tvm_tir_add_take(R(y), tvm_tir_int(4)), tvm_tir_int(4)),
                      r, R(y)));
  CHECK(simplifies_to(
      tvm_tir_floordiv_take(tvm_tir_floordiv_take(R(x), tvm_tir_int(2)), tvm_tir_int(3)), r,
      tvm_tir_floordiv_take(R(x), tvm_tir_int(6))));
  CHECK(simplifies_to(
      tvm_tir_floordiv_take(tvm_tir_add_take(tvm_tir_mul_take(R(x), tvm_tir_int(8)), tvm_tir_int(5)),
                            tvm_tir_int(4)),
      r, tvm_tir_add_take(tvm_tir_mul_take(R(x), tvm_tir_int(2)), tvm_tir_int(1))));
  /* floordiv(x, 4) where x may be >= 4 stays. */
  CHECK(simplifies_to(tvm_tir_floordiv_take(R(x), tvm_tir_int(4)), r,
                      tvm_tir_floordiv_take(R(x), tvm_tir_int(4))));
  /* Truncating Div/Mod of non-negative values behave as floor. */
  CHECK(simplifies_to(tvm_tir_mod_take(R(y), tvm_tir_int(8)), r, R(y)));
  /* Comparisons decided by bounds, others kept. */
  CHECK(simplifies_to(tvm_tir_lt_take(R(i), tvm_tir_int(16)), r, tvm_tir_bool(true)));
  CHECK(simplifies_to(tvm_tir_ge_take(R(i), tvm_tir_int(16)), r, tvm_tir_bool(false)));
  CHECK(simplifies_to(tvm_tir_le_take(R(y), tvm_tir_add_take(R(y), R(x))), r, tvm_tir_bool(true)));
  CHECK(simplifies_to(tvm_tir_lt_take(R(x), tvm_tir_int(8)), r,
                      tvm_tir_lt_take(R(x), tvm_tir_int(8))));
  CHECK(simplifies_to(tvm_tir_and_take(tvm_tir_lt_take(R(i), tvm_tir_int(16)),
                                       tvm_tir_lt_take(R(x), tvm_tir_int(8))),
                      r, tvm_tir_lt_take(R(x), tvm_tir_int(8))));
  CHECK(simplifies_to(tvm_tir_min_take(R(x), tvm_tir_add_take(R(x), tvm_tir_int(1))), r, R(x)));
  CHECK(simplifies_to(tvm_tir_max_take(R(y), tvm_tir_int(8)), r, tvm_tir_int(8)));
  CHECK(simplifies_to(tvm_tir_select_take(tvm_tir_lt_take(R(i), tvm_tir_int(16)), R(x), R(y)), r,
                      R(x)));
  /* tir.if_then_else folds like Select once its condition is known (pooling's ceil_mode dims
   * are one, evaluated at run time by substituting the shape's values); an unknown one stays. */
  {
    tvm_tir_expr_obj* c = tvm_tir_lt_take(R(i), tvm_tir_int(16));
    CHECK(simplifies_to(tvm_tir_if_then_else(c, (tvm_tir_expr_obj*)x, (tvm_tir_expr_obj*)y), r,
                        R(x)));
    tvm_ffi_release(c);
    c = tvm_tir_ge_take(R(i), tvm_tir_int(16));
    CHECK(simplifies_to(tvm_tir_if_then_else(c, (tvm_tir_expr_obj*)x, (tvm_tir_expr_obj*)y), r,
                        R(y)));
    tvm_ffi_release(c);
    c = tvm_tir_lt_take(R(x), tvm_tir_int(8));
    tvm_tir_expr_obj* ite = tvm_tir_if_then_else(c, (tvm_tir_expr_obj*)x, (tvm_tir_expr_obj*)y);
    CHECK(simplifies_to(R(ite), r, ite));
    tvm_ffi_release(c);
  }
  /* Inside other expressions: indices of a load. */
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 64);
  CHECK(simplifies_to(
      tvm_tir_load_take(R(A), tvm_tir_sub_take(tvm_tir_add_take(R(x), tvm_tir_int(1)), tvm_tir_int(1))),
      r, tvm_tir_load_take(R(A), R(x))));
  /* UInt: no negative coefficients; cancellation still works. */
  tvm_tir_var_obj* u = tvm_tir_var("u", TVM_TIR_UINT32);
  tvm_tir_var_obj* w = tvm_tir_var("w", TVM_TIR_UINT32);
  CHECK(simplifies_to(tvm_tir_sub_take(tvm_tir_add_take(R(u), tvm_tir_const(TVM_TIR_UINT32, 1)), R(u)),
                      NULL, tvm_tir_const(TVM_TIR_UINT32, 1)));
  CHECK(simplifies_to(tvm_tir_sub_take(R(u), R(w)), NULL, tvm_tir_sub_take(R(u), R(w))));
  CHECK(simplifies_to(tvm_tir_sub_take(tvm_tir_const(TVM_TIR_UINT32, 0), R(u)), NULL,
                      tvm_tir_sub_take(tvm_tir_const(TVM_TIR_UINT32, 0), R(u))));
  RELEASE(u, w);
  /* Equal pure sub-expressions cancel; impure calls do not. */
  tvm_tir_buffer_obj* I = tvm_tir_buffer_decl("I", TVM_TIR_INT32, 64);
  tvm_tir_expr_obj* ld = tvm_tir_load_take(R(I), R(x));
  CHECK(simplifies_to(tvm_tir_sub_take(R(ld), tvm_tir_load_take(R(I), R(x))), r, tvm_tir_int(0)));
  tvm_tir_op_obj* opaque = tvm_tir_op_register("test.opaque_rand", 0, TVM_TIR_EFFECT_OPAQUE);
  tvm_tir_expr_obj* call0 = tvm_tir_call_new(TVM_TIR_INT32, opaque, NULL);
  tvm_tir_expr_obj* call1 = tvm_tir_call_new(TVM_TIR_INT32, opaque, NULL);
  tvm_tir_expr_obj* diff = call0 && call1 ? tvm_tir_sub(call0, call1) : NULL;
  tvm_tir_expr_obj* sd = diff ? tvm_tir_simplify_expr(diff, r) : NULL;
  CHECK(sd && tvm_tir_kind_of(sd) == TVM_TIR_KIND_Sub);
  RELEASE(I, ld, opaque, call0, call1, diff, sd);
  /* Unchanged expressions come back as the same object. */
  tvm_tir_expr_obj* e = tvm_tir_add_take(R(x), R(y));
  tvm_tir_expr_obj* s = tvm_tir_simplify_expr(e, r);
  CHECK(s == e);
  /* Prover */
  tvm_tir_expr_obj* c1 = tvm_tir_lt_take(tvm_tir_add_take(tvm_tir_mul_take(R(i), tvm_tir_int(4)), R(y)),
                                         tvm_tir_int(64));
  tvm_tir_expr_obj* c2 = tvm_tir_lt_take(R(x), tvm_tir_int(63));
  CHECK_EQ_INT(tvm_tir_prove(c1, r), 1);
  CHECK_EQ_INT(tvm_tir_prove(c2, r), 0);
  CHECK_EQ_INT(tvm_tir_prove(c1, NULL), 0);
  /* An error the caller left raised is set aside: the same answers, and it is still raised
   * after (the simplifier read it as its own failure before). */
  tvm_ffi_raise("StaleError", "left by an earlier call");
  CHECK_EQ_INT(tvm_tir_prove(c1, r), 1);
  CHECK_RAISED("StaleError", "left by an earlier call");
  tvm_ffi_raise("StaleError", "left by an earlier call");
  tvm_tir_expr_obj* one = tvm_tir_simplify_expr(c1, r);
  CHECK(one && tvm_tir_kind_of(one) == TVM_TIR_KIND_IntImm);
  CHECK_RAISED("StaleError", "left by an earlier call");
  RELEASE(one);
#undef R
  RELEASE(x, y, i, r, A, e, s, c1, c2);
}

/* ---- Random affine expressions --------------------------------------------------------------- */
#define NV 3
static tvm_tir_var_obj* g_vars[NV];
static int64_t g_lo[NV] = {0, -8, 0}, g_ext[NV] = {32, 16, 5};

static uint64_t g_rng = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void) {
  g_rng ^= g_rng << 13;
  g_rng ^= g_rng >> 7;
  g_rng ^= g_rng << 17;
  return g_rng;
}
static int64_t rnd_in(int64_t lo, int64_t hi) { return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1)); }

static tvm_tir_expr_obj* gen(int depth) {
  if (depth == 0 || rnd() % 4 == 0) {
    if (rnd() % 3 == 0) return tvm_tir_int(rnd_in(-9, 9));
    return (tvm_tir_expr_obj*)tvm_tir_ref(g_vars[rnd() % NV]);
  }
  switch (rnd() % 11) {
    case 9: return tvm_tir_div_take(gen(depth - 1), tvm_tir_int(rnd_in(1, 8)));
    case 10: return tvm_tir_mod_take(gen(depth - 1), tvm_tir_int(rnd_in(1, 8)));
    case 0: return tvm_tir_add_take(gen(depth - 1), gen(depth - 1));
    case 1: return tvm_tir_sub_take(gen(depth - 1), gen(depth - 1));
    case 2: return tvm_tir_mul_take(gen(depth - 1), tvm_tir_int(rnd_in(-4, 4)));
    case 3: return tvm_tir_floordiv_take(gen(depth - 1), tvm_tir_int(rnd_in(1, 8)));
    case 4: return tvm_tir_floormod_take(gen(depth - 1), tvm_tir_int(rnd_in(1, 8)));
    case 5: return tvm_tir_min_take(gen(depth - 1), gen(depth - 1));
    case 6: return tvm_tir_max_take(gen(depth - 1), gen(depth - 1));
    case 7: return tvm_tir_mul_take(gen(depth - 1), gen(0));
    default:
      return tvm_tir_select_take(tvm_tir_lt_take(gen(depth - 1), gen(depth - 1)), gen(depth - 1),
                                 gen(depth - 1));
  }
}

/* A tiny evaluator of integer expressions (floor semantics as the spec's FloorDiv/FloorMod). */
static int64_t fdiv(int64_t a, int64_t b) { return a / b - ((a % b != 0) && ((a < 0) != (b < 0))); }
static int64_t eval(const tvm_tir_expr_obj* e, const int64_t* val, bool* ok) {
  int64_t v;
  if (tvm_tir_as_const_int(e, &v)) return v;
  for (int i = 0; i < NV; ++i) {
    if ((const void*)e == g_vars[i]) return val[i];
  }
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_Select) {
    const tvm_tir_select_obj* s = (const tvm_tir_select_obj*)e;
    return eval(s->condition, val, ok) ? eval(s->true_value, val, ok) : eval(s->false_value, val, ok);
  }
  const tvm_tir_binary_obj* b = (const tvm_tir_binary_obj*)e;
  int64_t x = eval(b->a, val, ok), y = eval(b->b, val, ok);
  switch (k) {
    case TVM_TIR_KIND_Add: return x + y;
    case TVM_TIR_KIND_Sub: return x - y;
    case TVM_TIR_KIND_Mul: return x * y;
    case TVM_TIR_KIND_FloorDiv: return fdiv(x, y);
    case TVM_TIR_KIND_FloorMod: return x - fdiv(x, y) * y;
    case TVM_TIR_KIND_Div: return x / y;
    case TVM_TIR_KIND_Mod: return x % y;
    case TVM_TIR_KIND_Min: return x < y ? x : y;
    case TVM_TIR_KIND_Max: return x > y ? x : y;
    case TVM_TIR_KIND_LT: return x < y;
    case TVM_TIR_KIND_LE: return x <= y;
    case TVM_TIR_KIND_GT: return x > y;
    case TVM_TIR_KIND_GE: return x >= y;
    case TVM_TIR_KIND_EQ: return x == y;
    case TVM_TIR_KIND_NE: return x != y;
    case TVM_TIR_KIND_And: return x && y;
    case TVM_TIR_KIND_Or: return x || y;
    default: *ok = false; return 0;
  }
}

TEST(random_affine_agree) {
  g_vars[0] = tvm_tir_var("a", TVM_TIR_INT32);
  g_vars[1] = tvm_tir_var("b", TVM_TIR_INT32);
  g_vars[2] = tvm_tir_var("c", TVM_TIR_INT32);
  void* r = ranges_of(NV, g_vars, g_lo, g_ext);
  int simplified = 0;
  for (int n = 0; n < 400; ++n) {
    tvm_tir_expr_obj* e = gen(4);
    if (!EXPECT_OK(e)) break;
    tvm_tir_expr_obj* s = tvm_tir_simplify_expr(e, r);
    if (!EXPECT_OK(s)) {
      tvm_ffi_release(e);
      break;
    }
    simplified += s != e;
    CHECK(tvm_tir_dtype_equal(s->dtype, e->dtype));
    int64_t blo, bhi;
    CHECK_OK(tvm_tir_const_int_bound(e, r, &blo, &bhi));
    for (int t = 0; t < 20; ++t) {
      int64_t val[NV];
      for (int i = 0; i < NV; ++i) val[i] = rnd_in(g_lo[i], g_lo[i] + g_ext[i] - 1);
      bool ok = true;
      int64_t want = eval(e, val, &ok), got = eval(s, val, &ok);
      CHECK(ok);
      if (want != got) {
        fprintf(stderr, "  expression %d, a=%lld b=%lld c=%lld: original %lld, simplified %lld\n",
                n, (long long)val[0], (long long)val[1], (long long)val[2], (long long)want,
                (long long)got);
        CHECK(want == got);
        t = 20;
      }
      CHECK(want >= blo && want <= bhi);
    }
    RELEASE(e, s);
  }
  CHECK(simplified > 100);
  RELEASE(r, g_vars[0], g_vars[1], g_vars[2]);
}

/* Clamps nested 40 deep (strided_slice's inferred extents nest min, max and select): the
 * simplifier must not simplify an already simplified operand again at every level, which took
 * time exponential in the depth (2^40 here). The result still agrees with the original. */
TEST(nested_clamps_simplify_once) {
  g_vars[0] = tvm_tir_var("a", TVM_TIR_INT32);
  g_vars[1] = tvm_tir_var("b", TVM_TIR_INT32);
  g_vars[2] = tvm_tir_var("c", TVM_TIR_INT32);
  tvm_tir_expr_obj* e = (tvm_tir_expr_obj*)tvm_tir_ref(g_vars[1]);
  for (int d = 0; d < 40; ++d) { /* e = min(max(e + 1, a - d), select(c < d, c + 9, 9)) */
    tvm_tir_expr_obj* c9 = tvm_tir_add_take(tvm_tir_ref(g_vars[2]), tvm_tir_int(9));
    tvm_tir_expr_obj* hi = tvm_tir_select_take(
        tvm_tir_lt_take(tvm_tir_ref(g_vars[2]), tvm_tir_int(d % 7)), c9, tvm_tir_int(9));
    tvm_tir_expr_obj* lo = tvm_tir_sub_take(tvm_tir_ref(g_vars[0]), tvm_tir_int(d));
    e = tvm_tir_min_take(tvm_tir_max_take(tvm_tir_add_take(e, tvm_tir_int(1)), lo), hi);
    if (!EXPECT_OK(e)) return;
  }
  tvm_tir_expr_obj* s = tvm_tir_simplify_expr(e, NULL);
  if (EXPECT_OK(s)) {
    for (int t = 0; t < 50; ++t) {
      int64_t val[NV] = {rnd_in(0, 20), rnd_in(-30, 30), rnd_in(-10, 10)};
      bool ok = true;
      CHECK(eval(e, val, &ok) == eval(s, val, &ok));
      CHECK(ok);
    }
  }
  RELEASE(e, s, g_vars[0], g_vars[1], g_vars[2]);
}

/* Loads from two different buffers are different values even when the buffers look alike
 * (a Buffer defines its data variable, so structural equality would call them equal). */
TEST(distinct_buffers_are_not_merged) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_INT32, 16);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_expr_obj* sum = tvm_tir_add_take(tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)),
                                           tvm_tir_load_take(tvm_tir_ref(B), tvm_tir_ref(i)));
  tvm_tir_expr_obj* simp = tvm_tir_simplify_expr(sum, NULL);
  CHECK(simp != NULL);
  CHECK(tvm_tir_kind_of(simp) == TVM_TIR_KIND_Add);
  tvm_tir_expr_obj* twice = tvm_tir_sub_take(tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)),
                                             tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)));
  tvm_tir_expr_obj* zero = tvm_tir_simplify_expr(twice, NULL);
  CHECK(zero != NULL && tvm_tir_kind_of(zero) == TVM_TIR_KIND_IntImm);
  tvm_tir_expr_obj* diff = tvm_tir_sub_take(tvm_tir_load_take(tvm_tir_ref(A), tvm_tir_ref(i)),
                                            tvm_tir_load_take(tvm_tir_ref(B), tvm_tir_ref(i)));
  tvm_tir_expr_obj* kept = tvm_tir_simplify_expr(diff, NULL);
  CHECK(kept != NULL && tvm_tir_kind_of(kept) == TVM_TIR_KIND_Sub);
  tvm_ffi_release(kept);
  tvm_ffi_release(diff);
  tvm_ffi_release(zero);
  tvm_ffi_release(twice);
  tvm_ffi_release(simp);
  tvm_ffi_release(sum);
  tvm_ffi_release(i);
  tvm_ffi_release(B);
  tvm_ffi_release(A);
}

int main(void) {
  RUN(const_int_bound);
  RUN(simplify_rules);
  RUN(random_affine_agree);
  RUN(nested_clamps_simplify_once);
  RUN(distinct_buffers_are_not_merged);
  tir_release_temps();
  return test_summary();
}
