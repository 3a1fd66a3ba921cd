/*
 * arith_simplify.c: the expression simplifier and prover (tvm/tir/arith.h).
 *
 * The simplifier is a tvm_tir_mutator (visit.c) whose per-kind table holds the rules below;
 * kinds without a rule get their children simplified. Scalar integer Add/Sub/Mul (and anything
 * reached through them) go through a linear form sum(coef_i * atom_i) + c0, where an atom is a
 * simplified non-affine sub-expression; atoms are merged when they are the same object or
 * structurally equal. Bounds come from arith_bound.c.
 */
#include <stdlib.h>
#include <string.h>

#include <tvm/tir/visit.h>

#include "arith_internal.h"

typedef struct {
  tvm_tir_mutator m; /* first: the callbacks get the state through their mutator pointer */
  tir_arith_ctx ctx;
} simp_state;

typedef struct {
  tvm_tir_expr_obj* atom; /* owned */
  int64_t coef;
  int64_t order; /* first appearance */
} term;

typedef struct {
  term* t;
  int64_t n, cap, next_order;
  int64_t c0;
  bool bad; /* overflow or allocation failure: do not use */
} lin;

static tvm_tir_expr_obj* simp(simp_state* s, const tvm_tir_expr_obj* e) {
  return tvm_tir_mutate(&s->m, e);
}

static void lin_free(lin* l) {
  for (int64_t i = 0; i < l->n; ++i) tvm_ffi_release(l->t[i].atom);
  tvm_ffi_free(l->t);
  memset(l, 0, sizeof(*l));
}

/* A call that is not pure (or calls another function): two such calls may differ. */
static int find_impure_call(const void* obj, void* ctx) {
  (void)ctx;
  if (!TIR_IS(obj, Call)) return 0;
  const void* op = ((const tvm_tir_call_obj*)obj)->op;
  if (!TIR_IS(op, Op)) return 1;
  int32_t effect = ((const tvm_tir_op_obj*)op)->call_effect_kind;
  return effect != TVM_TIR_EFFECT_PURE && effect != TVM_TIR_EFFECT_EXPR_ANNOTATION;
}

/*
 * Value equality of two sub-expressions: the same node kind with equal fields, where variables
 * and buffers are equal only to themselves. Structural equality is the wrong tool here: it
 * treats a Buffer as the definition site of its data variable, so A[i] and B[i] over two
 * different buffers would compare equal. Fields ignored by structural equality (names, spans)
 * are skipped. Too deep an expression compares unequal, which only loses a simplification.
 */
static bool deep_equal_any(const TVMFFIAny* a, const TVMFFIAny* b, int depth);

static bool deep_equal(const void* a, const void* b, int depth) {
  if (a == b) return true;
  if (!a || !b || depth > 1000) return false;
  int32_t t = tvm_ffi_type_index(a);
  if (t != tvm_ffi_type_index(b) || tvm_tir_is(a, TVM_TIR_KIND_Var) ||
      tvm_tir_is(a, TVM_TIR_KIND_Buffer)) {
    return false;
  }
  if (t == kTVMFFIArray || t == kTVMFFIList) {
    int64_t n = tvm_ffi_seq_size(a);
    if (n != tvm_ffi_seq_size(b)) return false;
    for (int64_t i = 0; i < n; ++i) {
      if (!deep_equal_any(tvm_ffi_seq_at(a, i), tvm_ffi_seq_at(b, i), depth + 1)) return false;
    }
    return true;
  }
  if (t == kTVMFFIStr || t == kTVMFFIBytes) {
    TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
    return tvm_ffi_any_equal(&x, &y);
  }
  if (t < kTVMFFIDynObjectBegin) return false; /* maps, tensors, ...: not in index math */
  const TVMFFIFieldInfo* const* fields;
  int32_t nf = tvm_ffi_type_all_fields(t, &fields);
  for (int32_t i = 0; i < nf; ++i) {
    if (fields[i]->flags & kTVMFFIFieldFlagBitMaskSEqHashIgnore) continue;
    TVMFFIAny x, y;
    if (tvm_ffi_field_get(a, fields[i], &x) != 0) {
      tvm_ffi_error_clear();
      return false;
    }
    if (tvm_ffi_field_get(b, fields[i], &y) != 0) {
      tvm_ffi_error_clear();
      tvm_ffi_any_release(&x);
      return false;
    }
    bool eq = deep_equal_any(&x, &y, depth + 1);
    tvm_ffi_any_release(&x);
    tvm_ffi_any_release(&y);
    if (!eq) return false;
  }
  return true;
}

static bool deep_equal_any(const TVMFFIAny* a, const TVMFFIAny* b, int depth) {
  if (a->type_index >= kTVMFFIStaticObjectBegin && b->type_index >= kTVMFFIStaticObjectBegin) {
    return deep_equal(a->v_obj, b->v_obj, depth);
  }
  return tvm_ffi_any_equal(a, b);
}

/* Whether two sub-expressions always have the same value: the same object, or equal as values
 * (deep_equal) without impure calls. */
static bool same_expr(const void* a, const void* b) {
  if (a == b) return true;
  if (tvm_tir_kind_of(a) != tvm_tir_kind_of(b) || tvm_tir_is_var(a)) return false;
  return deep_equal(a, b, 0) && tvm_tir__walk(a, false, find_impure_call, NULL) == 0;
}

/* l += coef * atom (atom borrowed). */
static void lin_add_term(lin* l, tvm_tir_expr_obj* atom, int64_t coef) {
  for (int64_t i = 0; i < l->n; ++i) {
    if (same_expr(l->t[i].atom, atom)) {
      if (__builtin_add_overflow(l->t[i].coef, coef, &l->t[i].coef)) l->bad = true;
      return;
    }
  }
  if (l->n == l->cap) {
    int64_t cap = l->cap ? l->cap * 2 : 8;
    term* t = tvm_ffi_realloc(l->t, (size_t)cap * sizeof(term));
    if (!t) {
      tvm_ffi_error_clear();
      l->bad = true;
      return;
    }
    l->t = t;
    l->cap = cap;
  }
  tvm_ffi_retain(atom);
  l->t[l->n++] = (term){atom, coef, l->next_order++};
}

static void lin_add_const(lin* l, int64_t v, int64_t scale) {
  int64_t p;
  if (__builtin_mul_overflow(v, scale, &p) || __builtin_add_overflow(l->c0, p, &l->c0)) {
    l->bad = true;
  }
}

static bool as_int(const void* e, int64_t* v) {
  if (!TIR_IS(e, IntImm)) return false;
  *v = ((const tvm_tir_int_imm_obj*)e)->value;
  return true;
}

/* e simplified, or e itself (retained) when s is NULL. */
static tvm_tir_expr_obj* simp_or_keep(simp_state* s, const tvm_tir_expr_obj* e) {
  return s ? simp(s, e) : tir_expr_retain((tvm_tir_expr_obj*)e);
}

/* l += scale * e, for a scalar integer expression e whose non-affine parts are simplified into
 * atoms; with s NULL, e is already simplified and they are taken as they are (simplifying them
 * again would cost time exponential in the nesting of min, max and select). */
static void to_lin(simp_state* s, const tvm_tir_expr_obj* e, int64_t scale, lin* l) {
  if (l->bad) return;
  int64_t v;
  if (as_int(e, &v)) return lin_add_const(l, v, scale);
  tvm_tir_kind k = tvm_tir_kind_of(e);
  const tvm_tir_binary_obj* b = (const tvm_tir_binary_obj*)e;
  if (k == TVM_TIR_KIND_Add || k == TVM_TIR_KIND_Sub) {
    to_lin(s, b->a, scale, l);
    if (k == TVM_TIR_KIND_Sub && scale == INT64_MIN) l->bad = true;
    return to_lin(s, b->b, k == TVM_TIR_KIND_Add ? scale : -scale, l);
  }
  tvm_tir_expr_obj* r = NULL;
  if (k == TVM_TIR_KIND_Mul) {
    tvm_tir_expr_obj* sa = simp_or_keep(s, b->a);
    tvm_tir_expr_obj* sb = sa ? simp_or_keep(s, b->b) : NULL;
    int64_t c;
    bool ca = sb && as_int(sa, &c), cb = !ca && sb && as_int(sb, &c);
    if (ca || cb) {
      int64_t sc;
      if (__builtin_mul_overflow(scale, c, &sc)) {
        l->bad = true;
      } else {
        to_lin(s, ca ? sb : sa, sc, l);
      }
      tvm_ffi_release(sa);
      tvm_ffi_release(sb);
      return;
    }
    if (sb) r = (sa == b->a && sb == b->b) ? tir_expr_retain((tvm_tir_expr_obj*)e)
                                           : tvm_tir_mul(sa, sb);
    tvm_ffi_release(sa);
    tvm_ffi_release(sb);
  } else {
    r = simp_or_keep(s, e);
  }
  if (!r) {
    l->bad = true;
    return;
  }
  /* A rule may have produced an affine combination (already simplified): merge it. */
  tvm_tir_kind rk = tvm_tir_kind_of(r);
  const tvm_tir_binary_obj* rb = (const tvm_tir_binary_obj*)r;
  int64_t c, sc;
  if (r != e && (rk == TVM_TIR_KIND_IntImm || rk == TVM_TIR_KIND_Add || rk == TVM_TIR_KIND_Sub)) {
    to_lin(s, r, scale, l);
  } else if (rk == TVM_TIR_KIND_Mul && as_int(rb->b, &c)) {
    if (__builtin_mul_overflow(scale, c, &sc)) {
      l->bad = true;
    } else {
      lin_add_term(l, rb->a, sc);
    }
  } else {
    lin_add_term(l, r, scale);
  }
  tvm_ffi_release(r);
}

/* Variables first, by name, then first appearance; other atoms by first appearance. */
static int term_cmp(const void* pa, const void* pb) {
  const term *a = pa, *b = pb;
  bool va = tvm_tir_is_var(a->atom), vb = tvm_tir_is_var(b->atom);
  if (va != vb) return va ? -1 : 1;
  if (va) {
    int c = strcmp(tvm_tir_var_name((const tvm_tir_var_obj*)a->atom),
                   tvm_tir_var_name((const tvm_tir_var_obj*)b->atom));
    if (c) return c;
  }
  return a->order < b->order ? -1 : a->order > b->order;
}

/* Consume x and y; NULL-propagating. */
static tvm_tir_expr_obj* take2(tvm_tir_expr_obj* (*f)(tvm_tir_expr_obj*, tvm_tir_expr_obj*),
                               tvm_tir_expr_obj* x, tvm_tir_expr_obj* y) {
  tvm_tir_expr_obj* r = x && y ? f(x, y) : NULL;
  tvm_ffi_release(x);
  tvm_ffi_release(y);
  return r;
}

/* coef * atom with coef != 0 (new reference). */
static tvm_tir_expr_obj* scaled(tvm_tir_expr_obj* atom, int64_t coef) {
  if (coef == 1) return tir_expr_retain(atom);
  return take2(tvm_tir_mul, tir_expr_retain(atom), tvm_tir_const_int(atom->dtype, coef));
}

/* The expression of a linear form (NULL + error when a constant does not fit the dtype). */
static tvm_tir_expr_obj* from_lin(lin* l, DLDataType dtype) {
  if (l->n > 1) qsort(l->t, (size_t)l->n, sizeof(term), term_cmp);
  tvm_tir_expr_obj* acc = NULL;
  for (int64_t i = 0; i < l->n; ++i) {
    if (l->t[i].coef <= 0) continue;
    tvm_tir_expr_obj* t = scaled(l->t[i].atom, l->t[i].coef);
    acc = acc ? take2(tvm_tir_add, acc, t) : t;
    if (!acc) return NULL;
  }
  for (int64_t i = 0; i < l->n; ++i) {
    int64_t c = l->t[i].coef;
    if (c >= 0) continue;
    if (!acc) {
      acc = scaled(l->t[i].atom, c);
    } else if (c == INT64_MIN) {
      tvm_ffi_release(acc);
      tvm_ffi_raise("ValueError", "coefficient out of range");
      return NULL;
    } else {
      acc = take2(tvm_tir_sub, acc, scaled(l->t[i].atom, -c));
    }
    if (!acc) return NULL;
  }
  if (!acc) return tvm_tir_const_int(dtype, l->c0);
  if (l->c0 > 0) return take2(tvm_tir_add, acc, tvm_tir_const_int(dtype, l->c0));
  if (l->c0 < 0 && l->c0 != INT64_MIN) {
    return take2(tvm_tir_sub, acc, tvm_tir_const_int(dtype, -l->c0));
  }
  if (l->c0 == INT64_MIN) {
    tvm_ffi_release(acc);
    tvm_ffi_raise("ValueError", "constant out of range");
    return NULL;
  }
  return acc;
}

/* Bounds of a linear form from the bounds of its atoms. */
static void lin_bound(simp_state* s, const lin* l, int64_t* lo, int64_t* hi) {
  __int128 a = l->c0, b = l->c0;
  for (int64_t i = 0; i < l->n; ++i) {
    int64_t x, y;
    tvm_tir__bound(&s->ctx, l->t[i].atom, &x, &y);
    __int128 p = (__int128)x * l->t[i].coef, q = (__int128)y * l->t[i].coef;
    a += p < q ? p : q;
    b += p < q ? q : p;
  }
  *lo = tir_sat(a);
  *hi = tir_sat(b);
}

static bool is_index(const void* e) { return tvm_tir_dtype_is_index(tvm_tir_expr_dtype(e)); }

/* node itself instead of a structurally equal rebuild r (consumed), so that unchanged
 * expressions come back as the same object. */
static void* settle(const void* node, void* r) {
  if (r && r != node && same_expr(r, node)) {
    tvm_ffi_release(r);
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  return r;
}

/* ---- Rules ----------------------------------------------------------------------------------- */
static void* keep(tvm_tir_mutator* m, const void* node) {
  (void)m;
  tvm_ffi_retain((void*)node);
  return (void*)node;
}

/* Add, Sub, Mul of scalar integers: through the linear form. */
static void* s_affine(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_expr_obj* e = node;
  if (!is_index(e)) return tvm_tir_mutate_children(m, node);
  lin l = {0};
  if (tvm_tir_kind_of(e) == TVM_TIR_KIND_Mul) {
    /* to_lin of a non-constant product would call back here through simp: split it first. */
    const tvm_tir_binary_obj* b = node;
    tvm_tir_expr_obj* sa = simp(s, b->a);
    tvm_tir_expr_obj* sb = sa ? simp(s, b->b) : NULL;
    int64_t c;
    void* r = NULL;
    if (sb && !as_int(sa, &c) && !as_int(sb, &c)) {
      r = (sa == b->a && sb == b->b) ? keep(m, node) : tvm_tir_mul(sa, sb);
    } else if (sb) {
      tvm_tir_expr_obj* t = take2(tvm_tir_mul, tir_expr_retain(sa), tir_expr_retain(sb));
      if (t) to_lin(NULL, t, 1, &l);
      tvm_ffi_release(t);
      if (!t) l.bad = true;
    }
    tvm_ffi_release(sa);
    tvm_ffi_release(sb);
    if (!sb || r) {
      lin_free(&l);
      return r;
    }
  } else {
    to_lin(s, e, 1, &l);
  }
  if (tvm_ffi_error_pending()) {
    lin_free(&l);
    return NULL;
  }
  void* r = l.bad ? NULL : from_lin(&l, e->dtype);
  lin_free(&l);
  if (!r) {
    tvm_ffi_error_clear(); /* no canonical form (overflow, a constant out of range): keep */
    return tvm_tir_mutate_children(m, node);
  }
  return settle(node, r);
}

/* a op b with folding (the raw constructor when folding refuses, e.g. division by zero). */
static tvm_tir_expr_obj* make_bin(tvm_tir_kind k, tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  tvm_tir_expr_obj* r = tvm_tir_binary(k, a, b);
  if (!r) {
    tvm_ffi_error_clear();
    r = tvm_tir_binary_new(k, a, b);
  }
  return r;
}

static void* rebuild_bin(const void* node, tvm_tir_expr_obj* sa, tvm_tir_expr_obj* sb) {
  const tvm_tir_binary_obj* b = node;
  void* r = NULL;
  if (sa && sb) {
    r = (sa == b->a && sb == b->b) ? keep(NULL, node)
                                    : make_bin(tvm_tir_kind_of(node), sa, sb);
  }
  tvm_ffi_release(sa);
  tvm_ffi_release(sb);
  return r;
}

/* Bounds of sa - sb through the linear form; false when it has none. */
static bool diff_bound(simp_state* s, tvm_tir_expr_obj* sa, tvm_tir_expr_obj* sb, int64_t* lo,
                       int64_t* hi) {
  lin l = {0};
  to_lin(NULL, sa, 1, &l);
  to_lin(NULL, sb, -1, &l);
  bool ok = !l.bad && !tvm_ffi_error_pending();
  if (ok) lin_bound(s, &l, lo, hi);
  lin_free(&l);
  if (!ok) tvm_ffi_error_clear();
  return ok;
}

/* FloorDiv, FloorMod, and Div, Mod of a non-negative dividend, by a positive constant. */
static void* s_division(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_binary_obj* b = node;
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (!is_index(node)) return tvm_tir_mutate_children(m, node);
  tvm_tir_expr_obj* sa = simp(s, b->a);
  tvm_tir_expr_obj* sb = sa ? simp(s, b->b) : NULL;
  int64_t c, lo, hi;
  if (!sb || !as_int(sb, &c) || c <= 0) return rebuild_bin(node, sa, sb);
  bool is_div = k == TVM_TIR_KIND_FloorDiv || k == TVM_TIR_KIND_Div;
  if (k == TVM_TIR_KIND_Div || k == TVM_TIR_KIND_Mod) {
    tvm_tir__bound(&s->ctx, sa, &lo, &hi);
    if (lo < 0) return rebuild_bin(node, sa, sb); /* truncation differs from floor */
  }
  lin a = {0}, q = {0}, r = {0};
  to_lin(NULL, sa, 1, &a);
  for (int64_t i = 0; i < a.n; ++i) {
    if (a.t[i].coef % c == 0) {
      lin_add_term(&q, a.t[i].atom, a.t[i].coef / c);
    } else {
      lin_add_term(&r, a.t[i].atom, a.t[i].coef);
    }
  }
  q.c0 = tir_floordiv(a.c0, c);
  r.c0 = tir_floormod(a.c0, c);
  void* out = NULL;
  if (a.bad || q.bad || r.bad || tvm_ffi_error_pending()) goto fallback;
  /* a = c * q + r exactly, so a // c = q + r // c and a % c = r % c. */
  lin_bound(s, &r, &lo, &hi);
  int64_t k0 = tir_floordiv(lo, c);
  if (lo > INT64_MIN && hi < INT64_MAX && k0 == tir_floordiv(hi, c)) {
    /* r // c is the constant k0 */
    if (is_div) {
      lin_add_const(&q, k0, 1);
      out = q.bad ? NULL : from_lin(&q, b->expr.dtype);
    } else {
      lin_add_const(&r, -k0, c);
      out = r.bad ? NULL : from_lin(&r, b->expr.dtype);
    }
  } else {
    tvm_tir_expr_obj* re = from_lin(&r, b->expr.dtype);
    tvm_tir_expr_obj* inner = NULL;
    const tvm_tir_binary_obj* rb = (const tvm_tir_binary_obj*)re;
    int64_t c2, cc;
    if (re && is_div && TIR_IS(re, FloorDiv) && as_int(rb->b, &c2) && c2 > 0 &&
        !__builtin_mul_overflow(c, c2, &cc)) {
      /* floordiv(floordiv(x, c2), c) = floordiv(x, c2 * c) */
      inner = take2(tvm_tir_floordiv, tir_expr_retain(rb->a), tvm_tir_const_int(b->expr.dtype, cc));
    } else if (re) {
      tvm_tir_expr_obj* ce = tvm_tir_const_int(b->expr.dtype, c);
      inner = ce ? make_bin(is_div ? TVM_TIR_KIND_FloorDiv : TVM_TIR_KIND_FloorMod, re, ce) : NULL;
      tvm_ffi_release(ce);
    }
    tvm_ffi_release(re);
    if (inner && is_div) {
      lin_add_term(&q, inner, 1);
      out = q.bad ? NULL : from_lin(&q, b->expr.dtype);
    } else {
      out = inner ? tir_expr_retain(inner) : NULL;
    }
    tvm_ffi_release(inner);
  }
fallback:
  lin_free(&a);
  lin_free(&q);
  lin_free(&r);
  if (out) {
    tvm_ffi_release(sa);
    tvm_ffi_release(sb);
    return settle(node, out);
  }
  tvm_ffi_error_clear();
  return rebuild_bin(node, sa, sb);
}

static void* s_minmax(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_binary_obj* b = node;
  tvm_tir_expr_obj* sa = simp(s, b->a);
  tvm_tir_expr_obj* sb = sa ? simp(s, b->b) : NULL;
  int64_t lo, hi;
  if (sb && is_index(node) && (same_expr(sa, sb) || diff_bound(s, sa, sb, &lo, &hi))) {
    bool is_min = tvm_tir_kind_of(node) == TVM_TIR_KIND_Min;
    tvm_tir_expr_obj* pick = NULL;
    if (same_expr(sa, sb)) {
      pick = sa;
    } else if (hi <= 0) {
      pick = is_min ? sa : sb; /* a <= b */
    } else if (lo >= 0) {
      pick = is_min ? sb : sa; /* a >= b */
    }
    if (pick) {
      tir_expr_retain(pick);
      tvm_ffi_release(sa);
      tvm_ffi_release(sb);
      return pick;
    }
  }
  return rebuild_bin(node, sa, sb);
}

static void* s_compare(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_binary_obj* b = node;
  tvm_tir_expr_obj* sa = simp(s, b->a);
  tvm_tir_expr_obj* sb = sa ? simp(s, b->b) : NULL;
  int64_t lo, hi;
  if (sb && is_index(sa) && is_index(sb) && diff_bound(s, sa, sb, &lo, &hi)) {
    int v = -1; /* decided value of (a - b) op 0 */
    switch (tvm_tir_kind_of(node)) {
      case TVM_TIR_KIND_LT: v = hi < 0 ? 1 : lo >= 0 ? 0 : -1; break;
      case TVM_TIR_KIND_LE: v = hi <= 0 ? 1 : lo > 0 ? 0 : -1; break;
      case TVM_TIR_KIND_GT: v = lo > 0 ? 1 : hi <= 0 ? 0 : -1; break;
      case TVM_TIR_KIND_GE: v = lo >= 0 ? 1 : hi < 0 ? 0 : -1; break;
      case TVM_TIR_KIND_EQ: v = lo == 0 && hi == 0 ? 1 : (lo > 0 || hi < 0) ? 0 : -1; break;
      case TVM_TIR_KIND_NE: v = lo == 0 && hi == 0 ? 0 : (lo > 0 || hi < 0) ? 1 : -1; break;
      default: break;
    }
    if (v >= 0) {
      tvm_ffi_release(sa);
      tvm_ffi_release(sb);
      return tvm_tir_const_int(TVM_TIR_BOOL, v);
    }
  }
  return rebuild_bin(node, sa, sb);
}

static void* s_logic(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_binary_obj* b = node;
  tvm_tir_expr_obj* sa = simp(s, b->a);
  tvm_tir_expr_obj* sb = sa ? simp(s, b->b) : NULL;
  int64_t va, vb;
  bool is_and = tvm_tir_kind_of(node) == TVM_TIR_KIND_And;
  tvm_tir_expr_obj* pick = NULL;
  if (sb && as_int(sa, &va)) pick = (va != 0) == is_and ? sb : sa; /* true and x = x ... */
  if (sb && !pick && as_int(sb, &vb)) pick = (vb != 0) == is_and ? sa : sb;
  if (pick && tvm_ffi_dtype_equal(pick->dtype, b->expr.dtype)) {
    tir_expr_retain(pick);
    tvm_ffi_release(sa);
    tvm_ffi_release(sb);
    return pick;
  }
  return rebuild_bin(node, sa, sb);
}

static void* s_not(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_not_obj* n = node;
  tvm_tir_expr_obj* sa = simp((simp_state*)m, n->a);
  if (!sa) return NULL;
  void* r = sa == n->a ? keep(m, node) : tvm_tir_not(sa);
  tvm_ffi_release(sa);
  return r;
}

static void* s_select(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_select_obj* sel = node;
  tvm_tir_expr_obj* c = simp(s, sel->condition);
  int64_t v;
  if (c && as_int(c, &v)) {
    tvm_ffi_release(c);
    return simp(s, v ? sel->true_value : sel->false_value);
  }
  tvm_tir_expr_obj* t = c ? simp(s, sel->true_value) : NULL;
  tvm_tir_expr_obj* f = t ? simp(s, sel->false_value) : NULL;
  void* r = NULL;
  if (f) {
    r = (c == sel->condition && t == sel->true_value && f == sel->false_value)
            ? keep(m, node)
            : tvm_tir_select_new(c, t, f);
  }
  tvm_ffi_release(c);
  tvm_ffi_release(t);
  tvm_ffi_release(f);
  return r;
}

static void* s_cast(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_cast_obj* c = node;
  tvm_tir_expr_obj* v = simp((simp_state*)m, c->value);
  if (!v) return NULL;
  void* r = v == c->value ? keep(m, node) : tvm_tir_cast(c->expr.dtype, v);
  tvm_ffi_release(v);
  return r;
}

static void* s_let(tvm_tir_mutator* m, const void* node) {
  simp_state* s = (simp_state*)m;
  const tvm_tir_let_obj* l = node;
  tvm_tir_expr_obj* v = simp(s, l->value);
  if (!v) return NULL;
  tir_let_bound lb = {l->var, INT64_MIN, INT64_MAX, s->ctx.lets};
  tvm_tir__bound(&s->ctx, v, &lb.lo, &lb.hi);
  const tir_let_bound* saved = s->ctx.lets;
  s->ctx.lets = &lb;
  tvm_tir_expr_obj* body = simp(s, l->body);
  s->ctx.lets = saved;
  void* r = NULL;
  if (body) {
    r = (v == l->value && body == l->body) ? keep(m, node) : tvm_tir_let_new(l->var, v, body);
  }
  tvm_ffi_release(v);
  tvm_ffi_release(body);
  return r;
}

/* After its arguments: tir.if_then_else with a constant condition is the side it picks. */
static void* s_call_post(tvm_tir_mutator* m, const void* node) {
  const tvm_tir_call_obj* c = node;
  int64_t v;
  if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_if_then_else) && tvm_ffi_seq_size(c->args) == 3 &&
      as_int(tvm_ffi_seq_obj_at(c->args, 0), &v)) {
    return keep(m, tvm_ffi_seq_obj_at(c->args, v ? 1 : 2));
  }
  return keep(m, node);
}

typedef void* (*simp_fn)(tvm_tir_mutator* m, const void* node);
static const simp_fn k_simp[TVM_TIR_KIND_COUNT] = {
    /* Leaves and non-expressions reached from expressions stay as they are. */
    [TVM_TIR_KIND_Var] = keep, [TVM_TIR_KIND_SizeVar] = keep, [TVM_TIR_KIND_IntImm] = keep,
    [TVM_TIR_KIND_FloatImm] = keep, [TVM_TIR_KIND_StringImm] = keep,
    [TVM_TIR_KIND_Buffer] = keep, [TVM_TIR_KIND_Op] = keep, [TVM_TIR_KIND_GlobalVar] = keep,
    [TVM_TIR_KIND_Add] = s_affine, [TVM_TIR_KIND_Sub] = s_affine, [TVM_TIR_KIND_Mul] = s_affine,
    [TVM_TIR_KIND_Div] = s_division, [TVM_TIR_KIND_Mod] = s_division,
    [TVM_TIR_KIND_FloorDiv] = s_division, [TVM_TIR_KIND_FloorMod] = s_division,
    [TVM_TIR_KIND_Min] = s_minmax, [TVM_TIR_KIND_Max] = s_minmax,
    [TVM_TIR_KIND_EQ] = s_compare, [TVM_TIR_KIND_NE] = s_compare, [TVM_TIR_KIND_LT] = s_compare,
    [TVM_TIR_KIND_LE] = s_compare, [TVM_TIR_KIND_GT] = s_compare, [TVM_TIR_KIND_GE] = s_compare,
    [TVM_TIR_KIND_And] = s_logic, [TVM_TIR_KIND_Or] = s_logic, [TVM_TIR_KIND_Not] = s_not,
    [TVM_TIR_KIND_Select] = s_select, [TVM_TIR_KIND_Cast] = s_cast, [TVM_TIR_KIND_Let] = s_let,
};

static int check_args(const char* fname, const void* expr, const void* ranges) {
  if (!expr) {
    tvm_tir__null_arg(fname, "expr");
    return -1;
  }
  if (!tvm_tir_is_expr(expr)) return tvm_ffi_raise("TypeError", "%s: expr must be a PrimExpr", fname);
  if (ranges && tvm_ffi_type_index(ranges) != kTVMFFIMap &&
      tvm_ffi_type_index(ranges) != kTVMFFIDict) {
    return tvm_ffi_raise("TypeError", "%s: ranges must be an ffi.Map<Var, Range> or NULL", fname);
  }
  return 0;
}

static tvm_tir_expr_obj* simplify_expr(const tvm_tir_expr_obj* expr, const void* ranges) {
  if (check_args("tvm_tir_simplify_expr", expr, ranges) != 0) return NULL;
  simp_state s;
  memset(&s, 0, sizeof(s));
  for (int k = 0; k < TVM_TIR_KIND_COUNT; ++k) s.m.pre[k] = k_simp[k];
  s.m.post[TVM_TIR_KIND_Call] = s_call_post;
  s.ctx.ranges = ranges;
  return simp(&s, expr);
}

/* A stale error the caller left raised is set aside (tvm_ffi_error_give_back): the simplifier
 * reads a raised error as a failure of its own step. */
tvm_tir_expr_obj* tvm_tir_simplify_expr(const tvm_tir_expr_obj* expr, const void* ranges) {
  void* stale = tvm_ffi_error_take();
  tvm_tir_expr_obj* r = simplify_expr(expr, ranges);
  tvm_ffi_error_give_back(stale);
  return r;
}

int tvm_tir_prove(const tvm_tir_expr_obj* cond, const void* ranges) {
  if (check_args("tvm_tir_prove", cond, ranges) != 0) return -1;
  tvm_tir_expr_obj* r = tvm_tir_simplify_expr(cond, ranges);
  if (!r) return -1;
  int64_t v;
  int out = as_int(r, &v) && v != 0;
  tvm_ffi_release(r);
  return out;
}
