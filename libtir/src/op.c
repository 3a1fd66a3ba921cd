/*
 * op.c: operator helpers: literal promotion, scalar broadcast and constant folding in front of
 * the node constructors (the rules are documented in tvm/tir/op.h).
 */
#include <math.h>
#include <stdio.h>

#include "internal.h"

/* ---- Arithmetic on constants --------------------------------------------------------------- */
int64_t tvm_tir__wrap_int(DLDataType t, uint64_t bits) {
  if (t.bits >= 64) return (int64_t)bits;
  uint64_t mask = ((uint64_t)1 << t.bits) - 1, u = bits & mask;
  if (t.code == kDLInt && t.bits > 1 && ((u >> (t.bits - 1)) & 1)) u |= ~mask;
  return (int64_t)u;
}

/* Round to nearest even with `precision` significant bits, normals down to 2^emin, overflow to
 * infinity above maxv. */
static double round_to(double v, int precision, int emin, double maxv) {
  if (!isfinite(v) || v == 0) return v;
  double a = fabs(v);
  int e;
  frexp(a, &e); /* a in [2^(e-1), 2^e) */
  int exp = e - 1 < emin ? emin : e - 1;
  double quantum = ldexp(1.0, exp - (precision - 1));
  double r = nearbyint(a / quantum) * quantum;
  return copysign(r > maxv ? INFINITY : r, v);
}

double tvm_tir__round_float(DLDataType t, double v) {
  if (t.code == kDLBfloat) return round_to(v, 8, -126, 3.38953138925153547590470800371487866880e38);
  if (t.bits == 16) return round_to(v, 11, -14, 65504.0);
  if (t.bits == 32) return (double)(float)v;
  return v;
}

/* Integer folds on int64 values of one Int/UInt type; *out gets the two's complement bits.
 * Division by zero is rejected before folding. */
typedef uint64_t (*int_fold_fn)(int64_t a, int64_t b);
static uint64_t i_add(int64_t a, int64_t b) { return (uint64_t)a + (uint64_t)b; }
static uint64_t i_sub(int64_t a, int64_t b) { return (uint64_t)a - (uint64_t)b; }
static uint64_t i_mul(int64_t a, int64_t b) { return (uint64_t)a * (uint64_t)b; }
static uint64_t i_div(int64_t a, int64_t b) {
  return b == -1 ? (uint64_t)0 - (uint64_t)a : (uint64_t)(a / b); /* INT64_MIN / -1 wraps */
}
static uint64_t i_mod(int64_t a, int64_t b) { return b == -1 ? 0 : (uint64_t)(a % b); }
static uint64_t i_floordiv(int64_t a, int64_t b) {
  if (b == -1) return (uint64_t)0 - (uint64_t)a;
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return (uint64_t)q;
}
static uint64_t i_floormod(int64_t a, int64_t b) {
  if (b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return (uint64_t)r;
}
static uint64_t i_min(int64_t a, int64_t b) { return (uint64_t)(a < b ? a : b); }
static uint64_t i_max(int64_t a, int64_t b) { return (uint64_t)(a > b ? a : b); }
static uint64_t i_eq(int64_t a, int64_t b) { return a == b; }
static uint64_t i_ne(int64_t a, int64_t b) { return a != b; }
static uint64_t i_lt(int64_t a, int64_t b) { return a < b; }
static uint64_t i_le(int64_t a, int64_t b) { return a <= b; }
static uint64_t i_gt(int64_t a, int64_t b) { return a > b; }
static uint64_t i_ge(int64_t a, int64_t b) { return a >= b; }
static uint64_t i_and(int64_t a, int64_t b) { return a && b; }
static uint64_t i_or(int64_t a, int64_t b) { return a || b; }

typedef double (*float_fold_fn)(double a, double b);
static double f_add(double a, double b) { return a + b; }
static double f_sub(double a, double b) { return a - b; }
static double f_mul(double a, double b) { return a * b; }
static double f_div(double a, double b) { return a / b; }
static double f_floordiv(double a, double b) { return floor(a / b); }
static double f_floormod(double a, double b) { return a - floor(a / b) * b; }
static double f_min(double a, double b) { return a < b ? a : b; }
static double f_max(double a, double b) { return a > b ? a : b; }
static double f_eq(double a, double b) { return a == b; }
static double f_ne(double a, double b) { return a != b; }
static double f_lt(double a, double b) { return a < b; }
static double f_le(double a, double b) { return a <= b; }
static double f_gt(double a, double b) { return a > b; }
static double f_ge(double a, double b) { return a >= b; }

/* Folding of each binary kind (a kind without an entry is never folded). */
static const struct {
  bool divides; /* integer division by a constant zero is an error */
  int_fold_fn i;
  float_fold_fn f; /* NULL: not defined on floats */
} k_fold[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_Add] = {false, i_add, f_add},
    [TVM_TIR_KIND_Sub] = {false, i_sub, f_sub},
    [TVM_TIR_KIND_Mul] = {false, i_mul, f_mul},
    [TVM_TIR_KIND_Div] = {true, i_div, f_div},
    [TVM_TIR_KIND_Mod] = {true, i_mod, NULL},
    [TVM_TIR_KIND_FloorDiv] = {true, i_floordiv, f_floordiv},
    [TVM_TIR_KIND_FloorMod] = {true, i_floormod, f_floormod},
    [TVM_TIR_KIND_Min] = {false, i_min, f_min},
    [TVM_TIR_KIND_Max] = {false, i_max, f_max},
    [TVM_TIR_KIND_EQ] = {false, i_eq, f_eq},
    [TVM_TIR_KIND_NE] = {false, i_ne, f_ne},
    [TVM_TIR_KIND_LT] = {false, i_lt, f_lt},
    [TVM_TIR_KIND_LE] = {false, i_le, f_le},
    [TVM_TIR_KIND_GT] = {false, i_gt, f_gt},
    [TVM_TIR_KIND_GE] = {false, i_ge, f_ge},
    [TVM_TIR_KIND_And] = {false, i_and, NULL},
    [TVM_TIR_KIND_Or] = {false, i_or, NULL},
};

/* ---- Constants ----------------------------------------------------------------------------- */
/* A scalar constant broadcast to dtype's lanes (takes the scalar). */
static tvm_tir_expr_obj* broadcast_take(tvm_tir_expr_obj* scalar, int lanes) {
  if (!scalar || lanes == 1) return scalar;
  tvm_tir_expr_obj* b = tvm_tir_broadcast_new(scalar, lanes);
  tvm_ffi_release(scalar);
  return b;
}

static __attribute__((noinline)) tvm_tir_expr_obj* const_int_slow(DLDataType dtype,
                                                                  int64_t value);

tvm_tir_expr_obj* tvm_tir_const_int(DLDataType dtype, int64_t value) {
  /* A scalar integer (the usual constant) is its own element type and needs no broadcast. */
  if (dtype.lanes == 1 && tvm_tir_dtype_is_integer(dtype)) return tvm_tir_int_imm_new(dtype, value);
  return const_int_slow(dtype, value);
}

static tvm_tir_expr_obj* const_int_slow(DLDataType dtype, int64_t value) {
  DLDataType elem = tvm_tir_dtype_element(dtype);
  tvm_tir_expr_obj* c;
  if (tvm_tir_dtype_is_integer(elem)) {
    c = tvm_tir_int_imm_new(elem, value);
  } else if (tvm_tir_dtype_is_floating(elem)) {
    c = tvm_tir_float_imm_new(elem, (double)value);
  } else {
    char what[96];
    snprintf(what, sizeof(what), "no constant of dtype %s", tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_INTIMM, "IntImm", what, NULL);
  }
  return broadcast_take(c, dtype.lanes);
}

tvm_tir_expr_obj* tvm_tir_const_float(DLDataType dtype, double value) {
  DLDataType elem = tvm_tir_dtype_element(dtype);
  tvm_tir_expr_obj* c;
  char what[128];
  if (tvm_tir_dtype_is_floating(elem)) {
    c = tvm_tir_float_imm_new(elem, value);
  } else if (tvm_tir_dtype_is_integer(elem)) {
    if (!(value == trunc(value) && fabs(value) < 9.2e18)) {
      snprintf(what, sizeof(what), "%.17g is not an integer value of %s", value,
               tvm_tir_dtype_str(dtype).s);
      return tvm_tir__type_error(TVM_TIR_RULE_T_INTIMM, "IntImm", what, NULL);
    }
    c = tvm_tir_int_imm_new(elem, (int64_t)value);
  } else {
    snprintf(what, sizeof(what), "no constant of dtype %s", tvm_tir_dtype_str(dtype).s);
    return tvm_tir__type_error(TVM_TIR_RULE_T_FLOATIMM, "FloatImm", what, NULL);
  }
  return broadcast_take(c, dtype.lanes);
}

/* ---- Operand matching ---------------------------------------------------------------------- */
static bool is_literal(const void* e) { return TIR_IS(e, IntImm) || TIR_IS(e, FloatImm); }

/* Whether t is an integer (not bool) and u a float: upstream casts the integer operand to u. */
static bool int_next_to_float(DLDataType t, DLDataType u) {
  return tvm_tir_dtype_is_integer(t) && t.bits > 1 && tvm_tir_dtype_is_floating(u);
}

/* Whether a literal of type a should be the conversion target of a literal of type b. */
static bool wider(DLDataType a, DLDataType b) {
  bool fa = tvm_tir_dtype_is_floating(a), fb = tvm_tir_dtype_is_floating(b);
  if (fa != fb) return fa;
  return a.bits >= b.bits;
}

/* The literal lit (one of the operands a, b) converted to target's type (a new reference), or
 * NULL with a TypeError naming rule and showing both operands. */
/* A literal's value as a constant of the 16-bit float type elem is rounded to that type (what
 * the operation computes with, and what prints back as the same text); wider floats keep the
 * double, as upstream. A value out of the type's range stays as it is, for the constructor to
 * reject (T-FLOATIMM). */
static double literal_value(DLDataType elem, double v) {
  if (elem.bits != 16 || !isfinite(v)) return v;
  double r = tvm_tir__round_float(elem, v);
  return isfinite(r) ? r : v; /* out of range: kept for the constructor's range check */
}

static tvm_tir_expr_obj* convert_literal(tvm_tir_expr_obj* lit, DLDataType target,
                                         tvm_tir_rule rule, const char* node, const char* an,
                                         tvm_tir_expr_obj* a, const char* bn, tvm_tir_expr_obj* b) {
  DLDataType elem = tvm_tir_dtype_element(target);
  char what[160];
  tvm_tir_expr_obj* c = NULL;
  uint64_t mark = tvm_ffi_error_mark();
  if (TIR_IS(lit, IntImm)) {
    int64_t v = ((tvm_tir_int_imm_obj*)lit)->value;
    if (tvm_tir_dtype_is_integer(elem) && tvm_tir_dtype_int_fits(elem, v)) {
      c = tvm_tir_int_imm_new(elem, v);
    } else if (tvm_tir_dtype_is_floating(elem)) {
      c = tvm_tir_float_imm_new(elem, literal_value(elem, (double)v));
    } else {
      snprintf(what, sizeof(what), "the literal %lld does not fit in %s", (long long)v,
               tvm_tir_dtype_str(elem).s);
    }
  } else {
    double v = ((tvm_tir_float_imm_obj*)lit)->value;
    if (tvm_tir_dtype_is_floating(elem)) {
      c = tvm_tir_float_imm_new(elem, literal_value(elem, v));
    } else {
      snprintf(what, sizeof(what), "the float literal %.17g cannot be converted to %s implicitly",
               v, tvm_tir_dtype_str(elem).s);
    }
  }
  if (!c && !tvm_ffi_error_raised_since(mark)) {
    return tvm_tir__type_error(rule, node, what, an, a, bn, b, NULL);
  }
  return broadcast_take(c, target.lanes);
}

/*
 * Bring a and b to one dtype for operator `node` of rule (see op.h); *oa and *ob receive new
 * references. check_handle rejects handle operands (arithmetic and comparisons).
 */
static __attribute__((noinline)) int match_operands_slow(
    tvm_tir_rule rule, const char* node, bool check_handle, const char* an, tvm_tir_expr_obj* a,
    const char* bn, tvm_tir_expr_obj* b, tvm_tir_expr_obj** oa, tvm_tir_expr_obj** ob);

static inline int match_operands(tvm_tir_rule rule, const char* node, bool check_handle,
                                 const char* an, tvm_tir_expr_obj* a, const char* bn,
                                 tvm_tir_expr_obj* b, tvm_tir_expr_obj** oa,
                                 tvm_tir_expr_obj** ob) {
  /* The common case, one dtype (not a handle where that is checked), without a call: the same
   * outcome as match_operands_slow's first two steps. */
  if (__builtin_expect(tvm_tir_dtype_equal(a->dtype, b->dtype) &&
                           !(check_handle && tvm_tir_dtype_is_handle_code(a->dtype)),
                       1)) {
    *oa = tir_expr_retain(a);
    *ob = tir_expr_retain(b);
    return 0;
  }
  return match_operands_slow(rule, node, check_handle, an, a, bn, b, oa, ob);
}

/* The type upstream's BinaryOpMatchTypes gives two non-literal operands of different types
 * (docs/tir-decisions.md), lanes aside: of two integers (bool excluded) the wider, at equal
 * widths the unsigned; of a float and an integer the float; of two floats the wider. False
 * where there is none (bool, handles, float16 with bfloat16). */
static bool common_type(DLDataType ta, DLDataType tb, DLDataType* t) {
  bool ia = tvm_tir_dtype_is_integer(ta) && ta.bits > 1;
  bool ib = tvm_tir_dtype_is_integer(tb) && tb.bits > 1;
  bool fa = tvm_tir_dtype_is_floating(ta), fb = tvm_tir_dtype_is_floating(tb);
  if (ia && ib) {
    *t = ta.bits > tb.bits ? ta : tb.bits > ta.bits ? tb : ta.code == (uint8_t)kDLUInt ? ta : tb;
  } else if (int_next_to_float(ta, tb) || int_next_to_float(tb, ta)) {
    *t = fa ? ta : tb;
  } else if (fa && fb && ta.bits != tb.bits) {
    *t = ta.bits > tb.bits ? ta : tb;
  } else {
    return false;
  }
  return true;
}

static int match_operands_slow(tvm_tir_rule rule, const char* node, bool check_handle,
                               const char* an, tvm_tir_expr_obj* a, const char* bn,
                               tvm_tir_expr_obj* b, tvm_tir_expr_obj** oa,
                               tvm_tir_expr_obj** ob) {
  *oa = *ob = NULL;
  DLDataType ta = a->dtype, tb = b->dtype;
  if (check_handle && (tvm_tir_dtype_is_handle_code(ta) || tvm_tir_dtype_is_handle_code(tb))) {
    tvm_tir__type_error(rule, node, "operands must not be handles", an, a, bn, b, NULL);
    return -1;
  }
  if (tvm_tir_dtype_equal(ta, tb)) {
    *oa = tir_expr_retain(a);
    *ob = tir_expr_retain(b);
    return 0;
  }
  bool la = is_literal(a), lb = is_literal(b);
  if (la != lb && int_next_to_float(la ? tb : ta, la ? ta : tb)) {
    la = lb = false; /* `i * 0.5`: i becomes a float, as next to a float operand */
  }
  if (lb && (!la || wider(ta, tb))) {
    *ob = convert_literal(b, ta, rule, node, an, a, bn, b);
    if (!*ob) return -1;
    *oa = tir_expr_retain(a);
    return 0;
  }
  if (la) {
    *oa = convert_literal(a, tb, rule, node, an, a, bn, b);
    if (!*oa) return -1;
    *ob = tir_expr_retain(b);
    return 0;
  }
  if (ta.code == tb.code && ta.bits == tb.bits && (ta.lanes == 1 || tb.lanes == 1)) {
    *oa = ta.lanes == 1 ? tvm_tir_broadcast_new(a, tb.lanes) : tir_expr_retain(a);
    *ob = tb.lanes == 1 ? tvm_tir_broadcast_new(b, ta.lanes) : tir_expr_retain(b);
    if (*oa && *ob) return 0;
    tvm_ffi_release(*oa);
    tvm_ffi_release(*ob);
    *oa = *ob = NULL;
    return -1;
  }
  /* Operands of different types (not literals): upstream's BinaryOpMatchTypes casts one to the
   * other's type (common_type); a scalar next to a vector is broadcast first, as there. */
  DLDataType t;
  if (common_type(ta, tb, &t) && (ta.lanes == tb.lanes || ta.lanes == 1 || tb.lanes == 1)) {
    t.lanes = ta.lanes > tb.lanes ? ta.lanes : tb.lanes;
    DLDataType sa = t, sb = t;
    sa.lanes = ta.lanes;
    sb.lanes = tb.lanes;
    tvm_tir_expr_obj* ca = tvm_tir_dtype_equal(sa, ta) ? tir_expr_retain(a) : tvm_tir_cast(sa, a);
    tvm_tir_expr_obj* cb = !ca                          ? NULL
                           : tvm_tir_dtype_equal(sb, tb) ? tir_expr_retain(b)
                                                         : tvm_tir_cast(sb, b);
    if (ca && cb) {
      *oa = sa.lanes == t.lanes ? tir_expr_retain(ca) : tvm_tir_broadcast_new(ca, t.lanes);
      *ob = sb.lanes == t.lanes ? tir_expr_retain(cb) : tvm_tir_broadcast_new(cb, t.lanes);
    }
    tvm_ffi_release(ca);
    tvm_ffi_release(cb);
    if (*oa && *ob) return 0;
    tvm_ffi_release(*oa);
    tvm_ffi_release(*ob);
    *oa = *ob = NULL;
    return -1;
  }
  tvm_tir__type_error(rule, node, "operands must have the same dtype", an, a, bn, b, NULL);
  return -1;
}

static __attribute__((noinline)) bool bad_operand_slow(const void* e, const char* node,
                                                      const char* field) {
  if (!e) {
    tvm_tir__null_arg(node, field);
    return true;
  }
  return tvm_tir__check_kind(e, TVM_TIR_KIND_PrimExpr, node, field) != 0;
}
/* (The usual operand, a PrimExpr, passes without a call.) */
static inline bool bad_operand(const void* e, const char* node, const char* field) {
  if (__builtin_expect(e && tir_is(e, TVM_TIR_KIND_PrimExpr), 1)) return false;
  return bad_operand_slow(e, node, field);
}

/* An operand that must be bool (a condition, an operand of And/Or): an integer literal 0 or 1
 * converts to bool; anything else is returned as is (the constructor checks it). New
 * reference, or NULL with a TypeError naming rule. */
static tvm_tir_expr_obj* as_bool(tvm_tir_expr_obj* e, tvm_tir_rule rule, const char* node,
                                 const char* name) {
  if (TIR_IS(e, IntImm) && !tvm_tir_dtype_is_bool(e->dtype)) {
    int64_t v = ((tvm_tir_int_imm_obj*)e)->value;
    if (v == 0 || v == 1) return tvm_tir_int_imm_new(TVM_TIR_BOOL, v);
    char what[96];
    snprintf(what, sizeof(what), "the literal %lld does not fit in bool", (long long)v);
    return tvm_tir__type_error(rule, node, what, name, e, NULL);
  }
  return tir_expr_retain(e);
}

/* ---- Binary operators ---------------------------------------------------------------------- */
/* Fold a op b for constant scalar operands of one dtype; NULL (no error) when not foldable. */
static tvm_tir_expr_obj* fold_binary(tvm_tir_kind kind, const tvm_tir_expr_obj* a,
                                     const tvm_tir_expr_obj* b, bool* failed) {
  DLDataType t = a->dtype;
  unsigned char klass = tvm_tir__binop_class[kind];
  DLDataType rt = klass == CMP ? TVM_TIR_BOOL : t;
  if (TIR_IS(a, IntImm) && TIR_IS(b, IntImm) && k_fold[kind].i) {
    int64_t x = ((const tvm_tir_int_imm_obj*)a)->value, y = ((const tvm_tir_int_imm_obj*)b)->value;
    int64_t r =
        klass != ARITH ? (int64_t)k_fold[kind].i(x, y) : tvm_tir__wrap_int(t, k_fold[kind].i(x, y));
    if (!tvm_tir_dtype_int_fits(rt, r)) return NULL; /* a UInt64 result above INT64_MAX */
    tvm_tir_expr_obj* c = tvm_tir_int_imm_new(rt, r);
    *failed = !c;
    return c;
  }
  if (TIR_IS(a, FloatImm) && TIR_IS(b, FloatImm) && k_fold[kind].f) {
    double x = ((const tvm_tir_float_imm_obj*)a)->value,
           y = ((const tvm_tir_float_imm_obj*)b)->value;
    double r = k_fold[kind].f(x, y);
    tvm_tir_expr_obj* c = klass == CMP ? tvm_tir_int_imm_new(rt, (int64_t)r)
                                       : tvm_tir_float_imm_new(t, tvm_tir__round_float(t, r));
    *failed = !c;
    return c;
  }
  return NULL;
}

tvm_tir_expr_obj* tvm_tir_binary(tvm_tir_kind kind, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  if (kind < 0 || kind >= TVM_TIR_KIND_COUNT || tvm_tir__binop_class[kind] == TIR_NOT_BINOP) {
    tvm_ffi_raise("ValueError", "tvm_tir_binary: %s is not a binary operator",
                  tvm_tir_kind_name(kind));
    return NULL;
  }
  const char* node = tvm_tir_kind_name(kind);
  if (bad_operand(a, node, "a") || bad_operand(b, node, "b")) return NULL;
  tvm_tir_expr_obj *x, *y;
  unsigned char klass = tvm_tir__binop_class[kind];
  bool logic = klass == LOGIC;
  if (logic) { /* bool operands: literals 0/1 become bool first */
    tvm_tir_expr_obj* ba = as_bool(a, TVM_TIR_RULE_T_LOGIC, node, "a");
    tvm_tir_expr_obj* bb = ba ? as_bool(b, TVM_TIR_RULE_T_LOGIC, node, "b") : NULL;
    int rc = bb ? match_operands(TVM_TIR_RULE_T_LOGIC, node, false, "a", ba, "b", bb, &x, &y) : -1;
    tvm_ffi_release(ba);
    tvm_ffi_release(bb);
    if (rc != 0) return NULL;
  } else if (match_operands(klass == ARITH ? TVM_TIR_RULE_T_BINOP : TVM_TIR_RULE_T_CMP, node, true,
                            "a", a, "b", b, &x, &y) != 0) {
    return NULL;
  }
  tvm_tir_expr_obj* r = NULL;
  bool failed = false;
  if (logic && !tvm_tir_dtype_is_bool(x->dtype)) {
    r = tvm_tir_binary_new(kind, x, y); /* raises T-LOGIC; nothing to fold */
    failed = !r;
  } else if (k_fold[kind].divides && TIR_IS(y, IntImm) && ((tvm_tir_int_imm_obj*)y)->value == 0) {
    tvm_ffi_strbuf a_text = {0};
    tvm_tir__text(&a_text, x);
    tvm_ffi_raise("ValueError", "%s: division by a constant zero: a = %s, b = 0 (%s)", node,
                  tvm_ffi_strbuf_cstr(&a_text), tvm_tir_dtype_str(x->dtype).s);
    tvm_ffi_strbuf_free(&a_text);
    failed = true;
  } else {
    r = fold_binary(kind, x, y, &failed);
    if (!r && !failed) {
      /* x and y passed match_operands (and, logical, the bool test above): the node takes
       * them as they are. */
      r = tvm_tir__binary_take(kind, x, y);
      x = y = NULL;
    }
  }
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  return failed ? NULL : r;
}

tvm_tir_expr_obj* tvm_tir_add(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Add, a, b);
}
tvm_tir_expr_obj* tvm_tir_sub(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Sub, a, b);
}
tvm_tir_expr_obj* tvm_tir_mul(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Mul, a, b);
}
tvm_tir_expr_obj* tvm_tir_div(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Div, a, b);
}
tvm_tir_expr_obj* tvm_tir_mod(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Mod, a, b);
}
tvm_tir_expr_obj* tvm_tir_floordiv(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_FloorDiv, a, b);
}
tvm_tir_expr_obj* tvm_tir_floormod(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_FloorMod, a, b);
}
tvm_tir_expr_obj* tvm_tir_min(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Min, a, b);
}
tvm_tir_expr_obj* tvm_tir_max(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Max, a, b);
}
tvm_tir_expr_obj* tvm_tir_eq(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_EQ, a, b);
}
tvm_tir_expr_obj* tvm_tir_ne(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_NE, a, b);
}
tvm_tir_expr_obj* tvm_tir_lt(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_LT, a, b);
}
tvm_tir_expr_obj* tvm_tir_le(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_LE, a, b);
}
tvm_tir_expr_obj* tvm_tir_gt(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_GT, a, b);
}
tvm_tir_expr_obj* tvm_tir_ge(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_GE, a, b);
}
tvm_tir_expr_obj* tvm_tir_and(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_And, a, b);
}
tvm_tir_expr_obj* tvm_tir_or(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return tvm_tir_binary(TVM_TIR_KIND_Or, a, b);
}

tvm_tir_expr_obj* tvm_tir_not(tvm_tir_expr_obj* a) {
  if (bad_operand(a, "Not", "a")) return NULL;
  if (TIR_IS(a, IntImm) && tvm_tir_dtype_is_bool(a->dtype)) {
    return tvm_tir_int_imm_new(TVM_TIR_BOOL, !((tvm_tir_int_imm_obj*)a)->value);
  }
  return tvm_tir_not_new(a);
}

tvm_tir_expr_obj* tvm_tir_neg(tvm_tir_expr_obj* a) {
  if (bad_operand(a, "Neg", "a")) return NULL;
  if (tvm_tir_dtype_is_handle_code(a->dtype)) {
    return tvm_tir__type_error(TVM_TIR_RULE_T_BINOP, "Sub", "operands must not be handles", "a", a,
                               NULL);
  }
  tvm_tir_expr_obj* zero = tvm_tir_const_int(a->dtype, 0);
  if (!zero) return NULL;
  tvm_tir_expr_obj* r = tvm_tir_sub(zero, a);
  tvm_ffi_release(zero);
  return r;
}

/* ---- Cast ---------------------------------------------------------------------------------- */
/* The Float/BFloat types FloatImm supports (float16/32/64, bfloat16). */
static bool float_max_ok(DLDataType t) {
  return (t.code == kDLFloat && (t.bits == 16 || t.bits == 32 || t.bits == 64)) ||
         (t.code == kDLBfloat && t.bits == 16);
}

/* The constant value cast to scalar dtype t, or NULL without error when it cannot be folded. */
static tvm_tir_expr_obj* fold_cast(DLDataType t, const tvm_tir_expr_obj* v) {
  if (t.lanes != 1) return NULL;
  if (TIR_IS(v, IntImm)) {
    int64_t x = ((const tvm_tir_int_imm_obj*)v)->value;
    if (tvm_tir_dtype_is_bool(t)) return tvm_tir_int_imm_new(t, x != 0);
    if (tvm_tir_dtype_is_integer(t)) {
      int64_t r = tvm_tir__wrap_int(t, (uint64_t)x);
      return tvm_tir_dtype_int_fits(t, r) ? tvm_tir_int_imm_new(t, r) : NULL;
    }
    /* A uint64 value is below 2^63 (IntImm's range), so the conversion is exact in sign. */
    if (tvm_tir_dtype_is_floating(t) && float_max_ok(t)) {
      return tvm_tir_float_imm_new(t, tvm_tir__round_float(t, (double)x));
    }
    return NULL;
  }
  if (TIR_IS(v, FloatImm)) {
    double x = ((const tvm_tir_float_imm_obj*)v)->value;
    if (tvm_tir_dtype_is_bool(t)) return tvm_tir_int_imm_new(t, x != 0);
    if (tvm_tir_dtype_is_integer(t)) {
      /* C truncation; NaN, infinities and values outside the target are left unfolded. */
      if (!isfinite(x)) return NULL;
      double tr = trunc(x);
      if (tr < (double)tvm_tir_dtype_min_int(t) || tr >= 9.2233720368547758e18 ||
          !tvm_tir_dtype_int_fits(t, (int64_t)tr)) {
        return NULL;
      }
      return tvm_tir_int_imm_new(t, (int64_t)tr);
    }
    if (tvm_tir_dtype_is_floating(t) && float_max_ok(t)) {
      return tvm_tir_float_imm_new(t, tvm_tir__round_float(t, x));
    }
  }
  return NULL;
}

tvm_tir_expr_obj* tvm_tir_cast(DLDataType dtype, tvm_tir_expr_obj* value) {
  if (bad_operand(value, "Cast", "value")) return NULL;
  if (tvm_tir_dtype_equal(dtype, value->dtype)) return tir_expr_retain(value);
  uint64_t mark = tvm_ffi_error_mark();
  tvm_tir_expr_obj* c = fold_cast(dtype, value);
  if (c || tvm_ffi_error_raised_since(mark)) return c;
  return tvm_tir_cast_new(dtype, value);
}

/* ---- Select, if_then_else, builtin calls --------------------------------------------------- */
tvm_tir_expr_obj* tvm_tir_select(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* true_value,
                                 tvm_tir_expr_obj* false_value) {
  if (bad_operand(condition, "Select", "condition") ||
      bad_operand(true_value, "Select", "true_value") ||
      bad_operand(false_value, "Select", "false_value")) {
    return NULL;
  }
  tvm_tir_expr_obj *c = as_bool(condition, TVM_TIR_RULE_T_SELECT, "Select", "condition"), *t, *f;
  if (!c) return NULL;
  if (match_operands(TVM_TIR_RULE_T_SELECT, "Select", false, "true_value", true_value,
                     "false_value", false_value, &t, &f) != 0) {
    tvm_ffi_release(c);
    return NULL;
  }
  tvm_tir_expr_obj* r = tvm_tir_select_new(c, t, f);
  tvm_ffi_release(c);
  tvm_ffi_release(t);
  tvm_ffi_release(f);
  return r;
}

tvm_tir_expr_obj* tvm_tir_call_builtin(DLDataType dtype, tvm_tir_builtin id,
                                       tvm_tir_expr_obj* const* args, int64_t num_args) {
  for (int64_t i = 0; i < num_args; ++i) {
    char field[32];
    snprintf(field, sizeof(field), "args[%lld]", (long long)i);
    if (bad_operand(args[i], "Call", field)) return NULL;
  }
  tvm_tir_op_obj* op = tvm_tir_builtin_op(id);
  void* arr = op ? tvm_ffi_array_of_objects((void* const*)args, num_args) : NULL;
  tvm_tir_expr_obj* r = arr ? tvm_tir_call_new(dtype, op, arr) : NULL;
  tvm_ffi_release(arr);
  tvm_ffi_release(op);
  return r;
}

tvm_tir_expr_obj* tvm_tir_if_then_else(tvm_tir_expr_obj* condition, tvm_tir_expr_obj* true_value,
                                       tvm_tir_expr_obj* false_value) {
  static const char node[] = "if_then_else";
  if (bad_operand(condition, node, "condition") || bad_operand(true_value, node, "true_value") ||
      bad_operand(false_value, node, "false_value")) {
    return NULL;
  }
  tvm_tir_expr_obj *c = as_bool(condition, TVM_TIR_RULE_T_CALL, node, "condition"), *t, *f;
  if (!c) return NULL;
  tvm_tir_expr_obj* r = NULL;
  if (!tvm_tir_dtype_is_bool(c->dtype) || c->dtype.lanes != 1) {
    tvm_tir__type_error(TVM_TIR_RULE_T_CALL, node, "the condition must be a bool scalar",
                        "condition", c, NULL);
  } else if (match_operands(TVM_TIR_RULE_T_CALL, node, false, "true_value", true_value,
                            "false_value", false_value, &t, &f) == 0) {
    if (TIR_IS(c, IntImm)) {
      r = tir_expr_retain(((tvm_tir_int_imm_obj*)c)->value ? t : f);
    } else {
      tvm_tir_expr_obj* args[3] = {c, t, f};
      r = tvm_tir_call_builtin(t->dtype, TVM_TIR_BUILTIN_if_then_else, args, 3);
    }
    tvm_ffi_release(t);
    tvm_ffi_release(f);
  }
  tvm_ffi_release(c);
  return r;
}
