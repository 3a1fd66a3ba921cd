/*
 * ir_builder_regions.c: the read and write regions of a block written without T.reads /
 * T.writes, as upstream's parser completes them (ScriptComplete / GetBlockAccessRegion).
 *
 * Every BufferLoad (a read) and BufferStore (a write) in the block's init and body counts, in
 * order of first access per buffer, except accesses to buffers the block itself defines (its
 * alloc_buffers, and buffers allocated, declared or matched below it). An access to one of the
 * block's match_buffers counts as an access to the whole source region. Each index is bounded
 * over the variables bound inside the block (loop vars, nested block iter vars, thread
 * indices) by symbolic interval arithmetic on +, -, * by a constant, floordiv / floormod by a
 * positive constant, min, max and casts; an index it cannot bound (a let variable, a
 * non-affine form) is bounded by the constant bounds of tvm_tir_const_int_bound when they fall
 * inside the buffer, else by the whole dimension. Several accesses to a buffer are joined into
 * one covering region (min of the starts, max of the ends). The result over-approximates the
 * accessed region, which is what reads/writes must do.
 */
#include <string.h>
#include <tvm/tir/arith.h>
#include <tvm/tir/visit.h>

#include "ir_builder_internal.h"

/* A buffer's joined region: per dimension the first and last index, owned. */
typedef struct {
  const tvm_tir_buffer_obj* buffer; /* borrowed from the IR */
  int64_t ndim;
  tvm_tir_expr_obj** lo;
  tvm_tir_expr_obj** hi;
} region_acc;

typedef struct {
  region_acc* items;
  int64_t count, capacity;
} region_list;

typedef struct {
  void* ranges;        /* ffi.Dict: Var bound inside the block -> Range, or None (unbounded) */
  void* inner_buffers; /* ffi.Dict: Buffer defined inside the block -> None */
  void* matches;       /* ffi.Dict: matched Buffer (of the block or below) -> its region */
  void* outer;         /* ffi.Dict: the block's iter vars and enclosing loop vars -> Range, for
                          simplifying the joined regions */
  region_list reads, writes;
  int failed;
} detector;

static void acc_free(region_acc* a) {
  for (int64_t d = 0; d < a->ndim; ++d) {
    tvm_ffi_release(a->lo[d]);
    tvm_ffi_release(a->hi[d]);
  }
  tvm_ffi_free(a->lo);
  tvm_ffi_free(a->hi);
}

static void list_free(region_list* l) {
  for (int64_t i = 0; i < l->count; ++i) acc_free(&l->items[i]);
  tvm_ffi_free(l->items);
}

static bool dict_has(const void* dict, const void* obj) {
  TVMFFIAny k = tvm_ffi_any_obj(obj);
  return tvm_ffi_map_get(dict, &k) != NULL;
}

static int dict_put(void* dict, const void* key, const void* value) {
  TVMFFIAny k = tvm_ffi_any_obj(key), v = tvm_ffi_any_obj(value);
  return tvm_ffi_dict_set(dict, &k, &v);
}

/* ---- Index bounds -------------------------------------------------------------------------- */
/* Whether e mentions a variable bound inside the block. */
typedef struct {
  const void* ranges;
  bool found;
} probe;

static int probe_var(tvm_tir_visitor* v, const void* node) {
  probe* p = v->ctx;
  if (dict_has(p->ranges, node)) p->found = true;
  return TVM_TIR_VISIT_CONTINUE;
}

static bool uses_inner(const detector* d, const void* e) {
  probe p = {d->ranges, false};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Var] = probe_var;
  v.pre[TVM_TIR_KIND_SizeVar] = probe_var;
  v.ctx = &p;
  int rc = tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  if (rc != 0) tvm_ffi_error_clear();
  return rc != 0 || p.found;
}

/* a + b, a - b, a * c, a // c without the identities (x + 0, x * 1) that the tvm/tir/op.h
 * helpers keep, so that a bound reads like the index it came from. */
static bool is_const(const tvm_tir_expr_obj* e, int64_t v) {
  int64_t x;
  return tvm_tir_kind_of(e) == TVM_TIR_KIND_IntImm && tvm_tir_as_const_int(e, &x) && x == v;
}

static tvm_tir_expr_obj* add_(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  if (is_const(b, 0)) return tvm_tir_ref(a);
  if (is_const(a, 0)) return tvm_tir_ref(b);
  return tvm_tir_add(a, b);
}

static tvm_tir_expr_obj* sub_(tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  return is_const(b, 0) ? tvm_tir_ref(a) : tvm_tir_sub(a, b);
}

static tvm_tir_expr_obj* scale_(tvm_tir_kind k, tvm_tir_expr_obj* a, tvm_tir_expr_obj* c) {
  if (is_const(c, 1)) return tvm_tir_ref(a);
  return k == TVM_TIR_KIND_Mul ? tvm_tir_mul(a, c) : tvm_tir_floordiv(a, c);
}

/* Symbolic bounds [*lo, *hi] of the integer expression e over the inner variables; false when
 * e has a form this does not bound (no reference left in *lo / *hi). *inner: whether e uses an
 * inner variable (when it does not, its bounds are e itself). Each node is looked at once: the
 * forms it recurses into tell from their operands whether they use one, and only the others
 * (calls, loads, ...) are searched (uses_inner). */
static bool bound(const detector* d, const tvm_tir_expr_obj* e, tvm_tir_expr_obj** lo,
                  tvm_tir_expr_obj** hi, int depth, bool* inner) {
  *lo = *hi = NULL;
  *inner = true;
  if (depth > 64) return false;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  tvm_tir_expr_obj *al = NULL, *ah = NULL, *bl = NULL, *bh = NULL;
  bool a_in = false, b_in = false, ok = false;
  bool searched = false; /* uses_inner(d, e) already found an inner variable */
  int64_t c = 0;
  if (k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) {
    TVMFFIAny key = tvm_ffi_any_obj(e);
    const TVMFFIAny* r = tvm_ffi_map_get(d->ranges, &key);
    if (!r) goto outer;
    const tvm_tir_range_obj* range = tvm_ffi_any_is_object(r) ? (const void*)r->v_obj : NULL;
    if (!range || !range->extent) return false;
    /* [min, min + extent - 1], the ends bounded in turn (they may use outer inner vars). */
    tvm_tir_expr_obj* one = tvm_tir_const_int(tvm_tir_expr_dtype(range->extent), 1);
    tvm_tir_expr_obj* last0 = one ? add_(range->min, range->extent) : NULL;
    tvm_tir_expr_obj* last = last0 ? tvm_tir_sub(last0, one) : NULL;
    tvm_tir_expr_obj *l1 = NULL, *h1 = NULL, *l2 = NULL, *h2 = NULL;
    ok = last && bound(d, range->min, &l1, &h1, depth + 1, &a_in) &&
         bound(d, last, &l2, &h2, depth + 1, &b_in);
    tvm_ffi_release(one);
    tvm_ffi_release(last0);
    tvm_ffi_release(last);
    tvm_ffi_release(h1);
    tvm_ffi_release(l2);
    if (!ok) {
      tvm_ffi_release(l1);
      tvm_ffi_release(h2);
      tvm_ffi_error_clear();
      return false;
    }
    *lo = l1;
    *hi = h2;
    return true;
  }
  if (k == TVM_TIR_KIND_IntImm) goto outer;
  if (k == TVM_TIR_KIND_Cast) {
    const tvm_tir_cast_obj* x = (const void*)e;
    DLDataType t = tvm_tir_expr_dtype(e);
    if (t.code != kDLInt && t.code != kDLUInt) {
      if (!uses_inner(d, e)) goto outer;
      searched = true;
    } else if (bound(d, x->value, &al, &ah, depth + 1, &a_in)) {
      if (!a_in) goto outer;
      *lo = tvm_tir_cast(t, al);
      *hi = tvm_tir_cast(t, ah);
      ok = true;
    }
  } else if (k == TVM_TIR_KIND_Add || k == TVM_TIR_KIND_Sub || k == TVM_TIR_KIND_Min ||
             k == TVM_TIR_KIND_Max) {
    const tvm_tir_binary_obj* x = (const void*)e;
    bool a_ok = bound(d, x->a, &al, &ah, depth + 1, &a_in);
    bool b_ok = bound(d, x->b, &bl, &bh, depth + 1, &b_in);
    if (a_ok && b_ok && !a_in && !b_in) goto outer;
    if (a_ok && b_ok) {
      ok = true;
      if (k == TVM_TIR_KIND_Add) {
        *lo = add_(al, bl);
        *hi = add_(ah, bh);
      } else if (k == TVM_TIR_KIND_Sub) {
        *lo = sub_(al, bh);
        *hi = sub_(ah, bl);
      } else if (k == TVM_TIR_KIND_Min) {
        *lo = tvm_tir_min(al, bl);
        *hi = tvm_tir_min(ah, bh);
      } else {
        *lo = tvm_tir_max(al, bl);
        *hi = tvm_tir_max(ah, bh);
      }
    }
  } else if (k == TVM_TIR_KIND_Mul || k == TVM_TIR_KIND_FloorDiv || k == TVM_TIR_KIND_FloorMod) {
    const tvm_tir_binary_obj* x = (const void*)e;
    const tvm_tir_expr_obj *var_side = x->a, *const_side = x->b;
    if (k == TVM_TIR_KIND_Mul && tvm_tir_as_const_int(x->a, &c)) {
      var_side = x->b;
      const_side = x->a;
    }
    if (!tvm_tir_as_const_int(const_side, &c) || (k != TVM_TIR_KIND_Mul && c <= 0)) {
      if (!uses_inner(d, e)) goto outer;
      searched = true;
    } else if (k == TVM_TIR_KIND_FloorMod) {
      if (!uses_inner(d, var_side)) goto outer;
      searched = true;
      /* [0, c - 1] */
      *lo = tvm_tir_const_int(tvm_tir_expr_dtype(e), 0);
      *hi = tvm_tir_const_int(tvm_tir_expr_dtype(e), c - 1);
      ok = true;
    } else if (bound(d, var_side, &al, &ah, depth + 1, &a_in)) {
      if (!a_in) goto outer;
      bool flip = k == TVM_TIR_KIND_Mul && c < 0;
      *lo = scale_(k, flip ? ah : al, (tvm_tir_expr_obj*)const_side);
      *hi = scale_(k, flip ? al : ah, (tvm_tir_expr_obj*)const_side);
      ok = true;
    }
  } else if (!uses_inner(d, e)) {
    goto outer;
  } else {
    searched = true;
  }
  if (ok && *lo && *hi) {
    tvm_ffi_release(al);
    tvm_ffi_release(ah);
    tvm_ffi_release(bl);
    tvm_ffi_release(bh);
    return true;
  }
  tvm_ffi_release(*lo);
  tvm_ffi_release(*hi);
  *lo = *hi = NULL;
  tvm_ffi_error_clear();
  /* An operand not bounded (too deep, or a form this does not bound) leaves e its own bounds
   * when e uses no inner variable after all. */
  if (!searched && !uses_inner(d, e)) goto outer;
  tvm_ffi_release(al);
  tvm_ffi_release(ah);
  tvm_ffi_release(bl);
  tvm_ffi_release(bh);
  return false;
outer: /* e uses no inner variable: it is its own bounds */
  tvm_ffi_release(al);
  tvm_ffi_release(ah);
  tvm_ffi_release(bl);
  tvm_ffi_release(bh);
  *inner = false;
  *lo = tvm_tir_ref((void*)e);
  *hi = tvm_tir_ref((void*)e);
  return true;
}

/* Bounds of index `e` of dimension `dim` of buf: symbolic, else constant within the buffer,
 * else the whole dimension. */
static int index_bounds(const detector* d, const tvm_tir_buffer_obj* buf, int64_t dim,
                        const tvm_tir_expr_obj* e, tvm_tir_expr_obj** lo, tvm_tir_expr_obj** hi) {
  DLDataType t = tvm_tir_expr_dtype(e);
  bool inner;
  if (t.lanes == 1 && bound(d, e, lo, hi, 0, &inner)) return 0;
  int64_t stride;
  if (tvm_tir_kind_of(e) == TVM_TIR_KIND_Ramp) {
    /* base + stride * [0, lanes): from the first lane's low bound to the last lane's high. */
    const tvm_tir_ramp_obj* r = (const void*)e;
    tvm_tir_expr_obj* steps = tvm_tir_const_int(tvm_tir_expr_dtype(r->base), r->lanes - 1);
    tvm_tir_expr_obj* span = steps ? tvm_tir_mul(r->stride, steps) : NULL;
    tvm_tir_expr_obj* last = span ? tvm_tir_add(r->base, span) : NULL;
    tvm_tir_expr_obj *l1 = NULL, *h1 = NULL, *l2 = NULL, *h2 = NULL;
    bool ok = last && tvm_tir_as_const_int(r->stride, &stride) && stride >= 0 &&
              bound(d, r->base, &l1, &h1, 0, &inner) && bound(d, last, &l2, &h2, 0, &inner);
    tvm_ffi_release(steps);
    tvm_ffi_release(span);
    tvm_ffi_release(last);
    tvm_ffi_release(h1);
    tvm_ffi_release(l2);
    if (ok) {
      *lo = l1;
      *hi = h2;
      return 0;
    }
    tvm_ffi_release(l1);
    tvm_ffi_release(h2);
    tvm_ffi_error_clear();
  }
  const tvm_tir_expr_obj* extent = tvm_ffi_seq_obj_at(buf->shape, dim);
  DLDataType st = tvm_tir_expr_dtype(extent);
  int64_t cmin, cmax, shape;
  if (t.lanes == 1 && tvm_tir_const_int_bound(e, d->ranges, &cmin, &cmax) == 0 &&
      tvm_tir_as_const_int(extent, &shape) && cmin >= 0 && cmax < shape) {
    *lo = tvm_tir_const_int(st, cmin);
    *hi = tvm_tir_const_int(st, cmax);
  } else {
    tvm_ffi_error_clear();
    tvm_tir_expr_obj* one = tvm_tir_const_int(st, 1);
    *lo = tvm_tir_const_int(st, 0);
    *hi = one ? tvm_tir_sub((tvm_tir_expr_obj*)extent, one) : NULL;
    tvm_ffi_release(one);
  }
  return *lo && *hi ? 0 : -1;
}

static bool same_expr(const tvm_tir_expr_obj* a, const tvm_tir_expr_obj* b) {
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  return tvm_ffi_structural_equal(&x, &y, false, NULL, NULL) == 1;
}

/* Join [lo, hi] into the accumulated region of buf's dimension dim (both consumed). */
static int join(tvm_tir_expr_obj** acc_lo, tvm_tir_expr_obj** acc_hi, tvm_tir_expr_obj* lo,
                tvm_tir_expr_obj* hi) {
  if (!*acc_lo) {
    *acc_lo = lo;
    *acc_hi = hi;
    return 0;
  }
  tvm_tir_expr_obj* nlo = same_expr(*acc_lo, lo) ? tvm_tir_ref(*acc_lo) : tvm_tir_min(*acc_lo, lo);
  tvm_tir_expr_obj* nhi = same_expr(*acc_hi, hi) ? tvm_tir_ref(*acc_hi) : tvm_tir_max(*acc_hi, hi);
  tvm_ffi_release(lo);
  tvm_ffi_release(hi);
  tvm_ffi_release(*acc_lo);
  tvm_ffi_release(*acc_hi);
  *acc_lo = nlo;
  *acc_hi = nhi;
  return nlo && nhi ? 0 : -1;
}

static region_acc* find_or_add(region_list* l, const tvm_tir_buffer_obj* buf) {
  for (int64_t i = 0; i < l->count; ++i) {
    if (l->items[i].buffer == buf) return &l->items[i];
  }
  if (l->count == l->capacity) {
    int64_t cap = l->capacity ? 2 * l->capacity : 4;
    region_acc* items = tvm_ffi_realloc(l->items, (size_t)cap * sizeof(*items));
    if (!items) return NULL;
    l->items = items;
    l->capacity = cap;
  }
  region_acc* a = &l->items[l->count];
  int64_t n = tvm_tir_buffer_ndim(buf);
  a->buffer = buf;
  a->ndim = n;
  a->lo = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  a->hi = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  if (!a->lo || !a->hi) {
    tvm_ffi_free(a->lo);
    tvm_ffi_free(a->hi);
    return NULL;
  }
  ++l->count;
  return a;
}

/* Record an access of buf at indices (NULL: the given source region ranges). */
static int record(detector* d, const tvm_tir_buffer_obj* buf, const void* indices,
                  const void* ranges, bool write) {
  if (dict_has(d->inner_buffers, buf)) return 0;
  TVMFFIAny key = tvm_ffi_any_obj(buf);
  const TVMFFIAny* m = ranges ? NULL : tvm_ffi_map_get(d->matches, &key);
  if (m) {
    const tvm_tir_match_buffer_region_obj* mr = (const void*)m->v_obj;
    return record(d, mr->source->buffer, NULL, mr->source->region, write);
  }
  region_acc* a = find_or_add(write ? &d->writes : &d->reads, buf);
  if (!a) return -1;
  int64_t n = indices ? tvm_ffi_seq_size(indices) : tvm_ffi_seq_size(ranges);
  for (int64_t dim = 0; dim < n && dim < a->ndim; ++dim) {
    tvm_tir_expr_obj *lo = NULL, *hi = NULL;
    int rc;
    if (indices) {
      rc = index_bounds(d, buf, dim, tvm_ffi_seq_obj_at(indices, dim), &lo, &hi);
    } else {
      /* A source range [min, min + extent - 1], itself bounded over the inner variables. */
      const tvm_tir_range_obj* r = tvm_ffi_seq_obj_at(ranges, dim);
      tvm_tir_expr_obj* one = tvm_tir_const_int(tvm_tir_expr_dtype(r->extent), 1);
      tvm_tir_expr_obj* end = one ? tvm_tir_add(r->min, r->extent) : NULL;
      tvm_tir_expr_obj* last = end ? tvm_tir_sub(end, one) : NULL;
      tvm_tir_expr_obj *l1 = NULL, *h1 = NULL, *l2 = NULL, *h2 = NULL;
      rc = last && index_bounds(d, buf, dim, r->min, &l1, &h1) == 0 &&
                   index_bounds(d, buf, dim, last, &l2, &h2) == 0
               ? 0
               : -1;
      lo = l1;
      hi = h2;
      tvm_ffi_release(h1);
      tvm_ffi_release(l2);
      tvm_ffi_release(one);
      tvm_ffi_release(end);
      tvm_ffi_release(last);
      if (rc != 0) {
        tvm_ffi_release(lo);
        tvm_ffi_release(hi);
      }
    }
    if (rc != 0 || join(&a->lo[dim], &a->hi[dim], lo, hi) != 0) return -1;
  }
  return 0;
}

/* ---- The walk ------------------------------------------------------------------------------ */
static int skip_node(tvm_tir_visitor* v, const void* node) {
  (void)v, (void)node;
  return TVM_TIR_VISIT_SKIP;
}

static int on_load(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_load_obj* x = node;
  return record(v->ctx, x->buffer, x->indices, NULL, false);
}

static int on_store(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_store_obj* x = node;
  return record(v->ctx, x->buffer, x->indices, NULL, true);
}

static int on_for(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_for_obj* x = node;
  detector* d = v->ctx;
  tvm_tir_range_obj* r = tvm_tir_range_new(x->min, x->extent);
  int rc = r ? dict_put(d->ranges, x->loop_var, r) : -1;
  tvm_ffi_release(r);
  return rc;
}

static int on_realize(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_sblock_obj* blk = ((const tvm_tir_sblock_realize_obj*)node)->block;
  detector* d = v->ctx;
  for (int64_t i = 0; i < tvm_ffi_seq_size(blk->iter_vars); ++i) {
    const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(blk->iter_vars, i);
    if (dict_put(d->ranges, iv->var, iv->dom) != 0) return -1;
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(blk->alloc_buffers); ++i) {
    if (dict_put(d->inner_buffers, tvm_ffi_seq_obj_at(blk->alloc_buffers, i), NULL) != 0) {
      return -1;
    }
  }
  for (int64_t i = 0; i < tvm_ffi_seq_size(blk->match_buffers); ++i) {
    const tvm_tir_match_buffer_region_obj* m = tvm_ffi_seq_obj_at(blk->match_buffers, i);
    if (dict_put(d->matches, m->buffer, m) != 0) return -1;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static int on_let(tvm_tir_visitor* v, const void* node) {
  tvm_tir_kind k = tvm_tir_kind_of(node);
  const void* var = k == TVM_TIR_KIND_LetStmt
                        ? (const void*)((const tvm_tir_let_stmt_obj*)node)->var
                        : (const void*)((const tvm_tir_let_obj*)node)->var;
  return dict_put(((detector*)v->ctx)->ranges, var, NULL);
}

static int on_attr(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_attr_stmt_obj* x = node;
  const tvm_tir_iter_var_obj* iv =
      tvm_ffi_any_as_object(&x->node, tvm_tir_type_index(TVM_TIR_KIND_IterVar));
  return iv ? dict_put(((detector*)v->ctx)->ranges, iv->var, iv->dom) : 0;
}

static int on_allocate(tvm_tir_visitor* v, const void* node) {
  return dict_put(((detector*)v->ctx)->ranges, ((const tvm_tir_allocate_obj*)node)->buffer_var,
                  NULL);
}

static int on_decl_buffer(tvm_tir_visitor* v, const void* node) {
  return dict_put(((detector*)v->ctx)->inner_buffers,
                  ((const tvm_tir_decl_buffer_obj*)node)->buffer, NULL);
}

/* The regions of a list as an ffi.Array of BufferRegion. */
static void* to_regions(const region_list* l, const void* outer) {
  void* out = tvm_ffi_list_new();
  for (int64_t i = 0; out && i < l->count; ++i) {
    const region_acc* a = &l->items[i];
    void* ranges = tvm_ffi_list_new();
    for (int64_t dim = 0; ranges && dim < a->ndim; ++dim) {
      /* A joined start (min of several) is simplified under the ranges of the block's axes
       * and loops; a single access's start is kept as written. */
      tvm_tir_kind lk = tvm_tir_kind_of(a->lo[dim]);
      tvm_tir_expr_obj* lo = !a->lo[dim] ? NULL
                             : lk == TVM_TIR_KIND_Min || lk == TVM_TIR_KIND_Max
                                 ? tvm_tir_simplify_expr(a->lo[dim], outer)
                                 : tvm_tir_ref(a->lo[dim]);
      tvm_tir_expr_obj* one = lo ? tvm_tir_const_int(tvm_tir_expr_dtype(lo), 1) : NULL;
      tvm_tir_expr_obj* span = one ? tvm_tir_sub(a->hi[dim], lo) : NULL;
      tvm_tir_expr_obj* ext0 = span ? tvm_tir_add(span, one) : NULL;
      tvm_tir_expr_obj* ext = ext0 ? tvm_tir_simplify_expr(ext0, outer) : NULL;
      tvm_tir_range_obj* r = ext ? tvm_tir_range_new(lo, ext) : NULL;
      TVMFFIAny ra = tvm_ffi_any_obj(r);
      if (!r || tvm_ffi_list_push(ranges, &ra) != 0) tvm_ffi_release(ranges), ranges = NULL;
      void* objs[] = {lo, one, span, ext0, ext, r};
      for (size_t k = 0; k < sizeof(objs) / sizeof(objs[0]); ++k) tvm_ffi_release(objs[k]);
    }
    void* arr = ranges ? tvm_ffi_list_to_array(ranges) : NULL;
    tvm_tir_buffer_region_obj* br =
        arr ? tvm_tir_buffer_region_new((tvm_tir_buffer_obj*)a->buffer, arr) : NULL;
    TVMFFIAny ba = tvm_ffi_any_obj(br);
    if (!br || tvm_ffi_list_push(out, &ba) != 0) tvm_ffi_release(out), out = NULL;
    tvm_ffi_release(ranges);
    tvm_ffi_release(arr);
    tvm_ffi_release(br);
  }
  void* arr = out ? tvm_ffi_list_to_array(out) : NULL;
  tvm_ffi_release(out);
  return arr;
}

int tvm_script__infer_regions(const tvm_script_builder* b, const tvm_script__frame* f,
                              const void* body, void** out_reads, void** out_writes) {
  detector d = {0};
  d.ranges = tvm_ffi_dict_new();
  d.inner_buffers = tvm_ffi_dict_new();
  d.matches = tvm_ffi_dict_new();
  d.outer = tvm_ffi_dict_new();
  int rc = d.ranges && d.inner_buffers && d.matches && d.outer ? 0 : -1;
  for (int32_t i = 0; rc == 0 && i < f->iter_vars.size; ++i) {
    const tvm_tir_iter_var_obj* iv = tvm_script__vec_at(&f->iter_vars, i);
    rc = dict_put(d.outer, iv->var, iv->dom);
  }
  for (int i = 0; rc == 0 && i < b->depth; ++i) {
    const tvm_script__frame* loop = &b->frames[i];
    if (loop->kind != TVM_SCRIPT_FRAME_FOR) continue;
    tvm_tir_range_obj* r = tvm_tir_range_new(loop->min, loop->extent);
    rc = r ? dict_put(d.outer, loop->var, r) : -1;
    tvm_ffi_release(r);
  }
  for (int32_t i = 0; rc == 0 && i < f->match_buffers.size; ++i) {
    const tvm_tir_match_buffer_region_obj* m = tvm_script__vec_at(&f->match_buffers, i);
    rc = dict_put(d.matches, m->buffer, m);
  }
  for (int32_t i = 0; rc == 0 && i < f->alloc_buffers.size; ++i) {
    rc = dict_put(d.inner_buffers, tvm_script__vec_at(&f->alloc_buffers, i), NULL);
  }
  tvm_tir_visitor v = {0};
  /* A Buffer's fields and a Var's hold no access of the block (a buffer's shape is no load of
   * it): not entered, at every access of them. */
  v.pre[TVM_TIR_KIND_Buffer] = skip_node;
  v.pre[TVM_TIR_KIND_Var] = skip_node;
  v.pre[TVM_TIR_KIND_SizeVar] = skip_node;
  v.pre[TVM_TIR_KIND_BufferLoad] = on_load;
  v.pre[TVM_TIR_KIND_BufferStore] = on_store;
  v.pre[TVM_TIR_KIND_For] = on_for;
  v.pre[TVM_TIR_KIND_SBlockRealize] = on_realize;
  v.pre[TVM_TIR_KIND_LetStmt] = on_let;
  v.pre[TVM_TIR_KIND_Let] = on_let;
  v.pre[TVM_TIR_KIND_AttrStmt] = on_attr;
  v.pre[TVM_TIR_KIND_Allocate] = on_allocate;
  v.pre[TVM_TIR_KIND_DeclBuffer] = on_decl_buffer;
  v.ctx = &d;
  if (rc == 0 && f->init) rc = tvm_tir_visit(&v, f->init);
  if (rc == 0) rc = tvm_tir_visit(&v, body);
  tvm_tir_visitor_free(&v);
  *out_reads = rc == 0 ? to_regions(&d.reads, d.outer) : NULL;
  *out_writes = *out_reads ? to_regions(&d.writes, d.outer) : NULL;
  if (!*out_writes) {
    tvm_ffi_release(*out_reads);
    *out_reads = NULL;
    rc = -1;
  }
  list_free(&d.reads);
  list_free(&d.writes);
  tvm_ffi_release(d.ranges);
  tvm_ffi_release(d.inner_buffers);
  tvm_ffi_release(d.matches);
  tvm_ffi_release(d.outer);
  return rc;
}
