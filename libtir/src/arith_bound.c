/*
 * arith_bound.c: constant integer bounds of expressions (interval arithmetic), one rule per kind
 * in a table indexed by kind. Intervals are computed on mathematical integers with int64
 * saturation; a result outside the expression's dtype becomes the whole dtype range (the value
 * may have wrapped).
 */
#include "arith_internal.h"

typedef struct {
  int64_t lo, hi;
} ival;
typedef ival (*bound_fn)(const tir_arith_ctx* c, const tvm_tir_expr_obj* e);

static ival bound(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival r;
  tvm_tir__bound(c, e, &r.lo, &r.hi);
  return r;
}

static ival dtype_range(DLDataType t) {
  if (!tvm_tir_dtype_is_integer(t) || t.lanes != 1) return (ival){INT64_MIN, INT64_MAX};
  return (ival){tvm_tir_dtype_min_int(t), tvm_tir_dtype_max_int(t)};
}

static ival of_corners(__int128 a, __int128 b, __int128 c, __int128 d) {
  __int128 lo = a, hi = a;
  __int128 v[3] = {b, c, d};
  for (int i = 0; i < 3; ++i) {
    if (v[i] < lo) lo = v[i];
    if (v[i] > hi) hi = v[i];
  }
  return (ival){tir_sat(lo), tir_sat(hi)};
}

static ival b_int_imm(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  (void)c;
  int64_t v = ((const tvm_tir_int_imm_obj*)e)->value;
  return (ival){v, v};
}

static ival b_var(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  for (const tir_let_bound* l = c->lets; l; l = l->next) {
    if (l->var == e) return (ival){l->lo, l->hi};
  }
  ival r = dtype_range(e->dtype);
  if (TIR_IS(e, SizeVar) && r.lo < 0) r.lo = 0;
  if (!c->ranges || c->depth >= 8) return r;
  TVMFFIAny key = tvm_ffi_any_obj(e);
  const TVMFFIAny* v = tvm_ffi_map_get(c->ranges, &key);
  const tvm_tir_range_obj* range = v ? tvm_ffi_any_as_object(v, tvm_tir_type_index(TVM_TIR_KIND_Range)) : NULL;
  if (!range || !range->extent || !range->min) return r;
  tir_arith_ctx inner = *c;
  inner.depth++;
  inner.lets = NULL; /* range expressions live outside any Let of the expression */
  ival mn = bound(&inner, range->min), ext = bound(&inner, range->extent);
  if (ext.hi < 1) return r; /* an empty range says nothing usable */
  __int128 hi = (__int128)mn.hi + ext.hi - 1;
  ival out = {mn.lo > r.lo ? mn.lo : r.lo, tir_sat(hi) < r.hi ? tir_sat(hi) : r.hi};
  return out.lo <= out.hi ? out : r;
}

static const tvm_tir_binary_obj* bin(const tvm_tir_expr_obj* e) {
  return (const tvm_tir_binary_obj*)e;
}

static ival b_add(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  return (ival){tir_sat((__int128)a.lo + b.lo), tir_sat((__int128)a.hi + b.hi)};
}
static ival b_sub(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  return (ival){tir_sat((__int128)a.lo - b.hi), tir_sat((__int128)a.hi - b.lo)};
}
static ival b_mul(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  return of_corners((__int128)a.lo * b.lo, (__int128)a.lo * b.hi, (__int128)a.hi * b.lo,
                    (__int128)a.hi * b.hi);
}

static __int128 div128(__int128 a, __int128 b, bool floor) {
  __int128 q = a / b;
  if (floor && a % b != 0 && ((a < 0) != (b < 0))) q -= 1;
  return q;
}
/* Division is monotone in each argument on a box whose divisor interval excludes 0, so the
 * extremes are at the corners. */
static ival divide(const tir_arith_ctx* c, const tvm_tir_expr_obj* e, bool floor) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  if (b.lo <= 0 && b.hi >= 0) return dtype_range(e->dtype);
  return of_corners(div128(a.lo, b.lo, floor), div128(a.lo, b.hi, floor),
                    div128(a.hi, b.lo, floor), div128(a.hi, b.hi, floor));
}
static ival b_div(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) { return divide(c, e, false); }
static ival b_floordiv(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  return divide(c, e, true);
}

static ival b_floormod(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  if (b.lo <= 0) return dtype_range(e->dtype);
  if (a.lo >= 0 && a.hi < b.lo) return a; /* a < b: the value itself */
  return (ival){0, a.lo >= 0 && a.hi < b.hi - 1 ? a.hi : b.hi - 1};
}
static ival b_mod(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  if (b.lo <= 0) return dtype_range(e->dtype);
  int64_t m = b.hi - 1; /* truncated remainder: |r| < b, sign of a */
  if (a.lo >= 0) return a.hi < b.lo ? a : (ival){0, a.hi < m ? a.hi : m};
  if (a.hi <= 0) return (ival){a.lo > -m ? a.lo : -m, 0};
  return (ival){-m, m};
}

static ival b_min(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  return (ival){a.lo < b.lo ? a.lo : b.lo, a.hi < b.hi ? a.hi : b.hi};
}
static ival b_max(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  ival a = bound(c, bin(e)->a), b = bound(c, bin(e)->b);
  return (ival){a.lo > b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

static ival b_bool(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  (void)c;
  (void)e;
  return (ival){0, 1};
}

static ival b_cast(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  const tvm_tir_expr_obj* v = ((const tvm_tir_cast_obj*)e)->value;
  ival target = dtype_range(e->dtype);
  if (tvm_tir_dtype_is_bool(e->dtype)) return (ival){0, 1};
  if (!tvm_tir_dtype_is_index(v->dtype)) return target;
  ival r = bound(c, v);
  return r.lo >= target.lo && r.hi <= target.hi ? r : target;
}

static ival b_select(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  const tvm_tir_select_obj* s = (const tvm_tir_select_obj*)e;
  ival a = bound(c, s->true_value), b = bound(c, s->false_value);
  return (ival){a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi};
}

static ival b_let(const tir_arith_ctx* c, const tvm_tir_expr_obj* e) {
  const tvm_tir_let_obj* l = (const tvm_tir_let_obj*)e;
  ival v = bound(c, l->value);
  tir_let_bound lb = {l->var, v.lo, v.hi, c->lets};
  tir_arith_ctx inner = *c;
  inner.lets = &lb;
  return bound(&inner, l->body);
}

static const bound_fn k_bound[TVM_TIR_KIND_COUNT] = {
    [TVM_TIR_KIND_IntImm] = b_int_imm,     [TVM_TIR_KIND_Var] = b_var,
    [TVM_TIR_KIND_SizeVar] = b_var,        [TVM_TIR_KIND_Add] = b_add,
    [TVM_TIR_KIND_Sub] = b_sub,            [TVM_TIR_KIND_Mul] = b_mul,
    [TVM_TIR_KIND_Div] = b_div,            [TVM_TIR_KIND_Mod] = b_mod,
    [TVM_TIR_KIND_FloorDiv] = b_floordiv,  [TVM_TIR_KIND_FloorMod] = b_floormod,
    [TVM_TIR_KIND_Min] = b_min,            [TVM_TIR_KIND_Max] = b_max,
    [TVM_TIR_KIND_EQ] = b_bool,            [TVM_TIR_KIND_NE] = b_bool,
    [TVM_TIR_KIND_LT] = b_bool,            [TVM_TIR_KIND_LE] = b_bool,
    [TVM_TIR_KIND_GT] = b_bool,            [TVM_TIR_KIND_GE] = b_bool,
    [TVM_TIR_KIND_And] = b_bool,           [TVM_TIR_KIND_Or] = b_bool,
    [TVM_TIR_KIND_Not] = b_bool,           [TVM_TIR_KIND_Cast] = b_cast,
    [TVM_TIR_KIND_Select] = b_select,      [TVM_TIR_KIND_Let] = b_let,
};

void tvm_tir__bound(const tir_arith_ctx* c, const tvm_tir_expr_obj* e, int64_t* lo, int64_t* hi) {
  ival range = dtype_range(e->dtype);
  ival r = range;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k >= 0 && k_bound[k] && tvm_tir_dtype_is_index(e->dtype)) r = k_bound[k](c, e);
  if (r.lo < range.lo || r.hi > range.hi || r.lo > r.hi) r = range; /* may have wrapped */
  *lo = r.lo;
  *hi = r.hi;
}

int tvm_tir_const_int_bound(const tvm_tir_expr_obj* expr, const void* ranges, int64_t* out_min,
                            int64_t* out_max) {
  if (!expr) {
    tvm_tir__null_arg("tvm_tir_const_int_bound", "expr");
    return -1;
  }
  if (!tvm_tir_is_expr(expr) || !tvm_tir_dtype_is_index(expr->dtype)) {
    return tvm_ffi_raise("TypeError",
                         "tvm_tir_const_int_bound: expected a scalar Int/UInt expression");
  }
  if (ranges && tvm_ffi_type_index(ranges) != kTVMFFIMap &&
      tvm_ffi_type_index(ranges) != kTVMFFIDict) {
    return tvm_ffi_raise("TypeError",
                         "tvm_tir_const_int_bound: ranges must be an ffi.Map<Var, Range> or NULL");
  }
  tir_arith_ctx c = {ranges, NULL, 0};
  tvm_tir__bound(&c, expr, out_min, out_max);
  return 0;
}
