/* schedule_pad.c: rule pad of the default schedule (tvm/tir/schedule.h): the operand packing of
 * a padded window (convolutions).
 *
 *   for ...:                                       Xp = zeros(shape of X + padding)
 *     if 0 <= y + r < H and 0 <= x + s < W:   ->   Xp[.., pad_y:, pad_x:] = X
 *       acc = acc + X[.., y + r, x + s] * w        for ...: acc = acc + Xp[.., y + r + pad_y, x + s + pad_x] * w
 *
 * An accumulation guarded by range tests on the indices of a load of a parameter buffer X (every
 * term of the condition one of them, `e >= 0` or `e < X.shape[d]`), whose added value is a
 * product with that load (so a padded zero adds zero), reads a zero-padded copy of X instead and
 * loses its test: the loop nest becomes a plain one that vectorize and register_tile handle
 * whole, without border parts. The padding of each dimension is how far its indices reach
 * outside X over the loops' ranges (constant bounds). The copy is made once per call, before
 * the body; X must have a constant shape and not be written by the function. (A non-finite
 * weight times a padded zero gives NaN where the test skipped the term: such weights are
 * outside what this rule preserves.) */
#include <stdio.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_pad";

enum { MAX_PAD_DIMS = 8, MAX_PADDED = 8, MAX_MATCHES = 256 };

typedef struct {
  const tvm_tir_buffer_obj* x; /* the parameter buffer */
  int ndim;
  int64_t shape[MAX_PAD_DIMS];
  int64_t lo[MAX_PAD_DIMS], hi[MAX_PAD_DIMS]; /* padding before / after */
  tvm_tir_buffer_obj* xp;                     /* the padded copy (built in phase 2) */
  bool used;                                  /* an If reads it */
} padded;

typedef struct {
  const void* node; /* the IfThenElse */
  int which;        /* index in padded[] */
} match;

typedef struct {
  tvm_tir_visitor v;
  const tvm_tir_prim_func_obj* f;
  void* ranges; /* ffi.Dict Var -> Range of the enclosing loops */
  padded pad[MAX_PADDED];
  int npad;
  match m[MAX_MATCHES];
  int nm;
  bool failed;
} pad_ctx;

/* ---- Matching ---------------------------------------------------------------------------- */
/* A load of a factor of the product e = [cast](X[...]) * w or w * [cast](X[...]) (side 0: the
 * left factor, 1: the right one); else NULL. */
static const tvm_tir_buffer_load_obj* product_load(const tvm_tir_expr_obj* e, int side) {
  if (!TIR_IS(e, Mul)) return NULL;
  const tvm_tir_binary_obj* b = (const void*)e;
  const tvm_tir_expr_obj* x = side ? b->b : b->a;
  while (TIR_IS(x, Cast)) x = ((const tvm_tir_cast_obj*)x)->value;
  return TIR_IS(x, BufferLoad) ? (const void*)x : NULL;
}

/* The checked dim of a condition term on load l: *d and whether it is the lower test; -1 when
 * the term is not `l.indices[d] >= 0` / `< X.shape[d]` (or their mirror forms). */
static int term_dim(const tvm_tir_expr_obj* t, const tvm_tir_buffer_load_obj* l, bool* out_lower) {
  if (!(TIR_IS(t, GE) || TIR_IS(t, LT) || TIR_IS(t, LE) || TIR_IS(t, GT))) return -1;
  const tvm_tir_binary_obj* b = (const void*)t;
  int64_t c;
  /* e >= 0, 0 <= e, e < ub, ub > e */
  const tvm_tir_expr_obj* e = NULL;
  const tvm_tir_expr_obj* ub = NULL;
  bool lower = false;
  if (TIR_IS(t, GE) && tvm_tir__sched_const(b->b, &c) && c == 0) e = b->a, lower = true;
  if (TIR_IS(t, LE) && tvm_tir__sched_const(b->a, &c) && c == 0) e = b->b, lower = true;
  if (TIR_IS(t, LT)) e = b->a, ub = b->b;
  if (TIR_IS(t, GT)) e = b->b, ub = b->a;
  if (!e) return -1;
  int64_t n = tvm_ffi_seq_size(l->indices);
  for (int64_t d = 0; d < n; ++d) {
    const void* idx = tvm_ffi_seq_obj_at(l->indices, d);
    TVMFFIAny x = tvm_ffi_any_obj(idx), y = tvm_ffi_any_obj(e);
    int eq = idx == e ? 1 : tvm_ffi_structural_equal(&x, &y, false, NULL, NULL);
    if (eq < 0) tvm_ffi_error_clear();
    if (eq != 1) continue;
    if (!lower) {
      int64_t u, s;
      const void* dim = tvm_ffi_seq_obj_at(l->buffer->shape, d);
      if (!tvm_tir__sched_const(ub, &u) || !tvm_tir__sched_const(dim, &s) || u != s) continue;
    }
    *out_lower = lower;
    return (int)d;
  }
  return -1;
}

/* Whether every term of cond tests an index of l against X's bounds (1 / 0). */
static int all_terms_checked(const tvm_tir_expr_obj* cond, const tvm_tir_buffer_load_obj* l) {
  if (TIR_IS(cond, And)) {
    const tvm_tir_binary_obj* b = (const void*)cond;
    return all_terms_checked(b->a, l) && all_terms_checked(b->b, l);
  }
  bool lower;
  return term_dim(cond, l, &lower) >= 0;
}

/* Whether data is stored to anywhere in the function. */
static int stores_to(tvm_tir_visitor* v, const void* node) {
  const void** ctx = v->ctx;
  if (((const tvm_tir_buffer_store_obj*)node)->buffer->data == ctx[0]) ctx[1] = node;
  return 0;
}

static bool written(const tvm_tir_prim_func_obj* f, const void* data) {
  const void* ctx[2] = {data, NULL};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_BufferStore] = stores_to;
  v.ctx = (void*)ctx;
  int rc = tvm_tir_visit(&v, f->body);
  tvm_tir_visitor_free(&v);
  return rc < 0 || ctx[1] != NULL;
}

static bool param_buffer(const tvm_tir_prim_func_obj* f, const tvm_tir_buffer_obj* b) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(f->buffer_map, pos, &k, &v)) >= 0;) {
    if (((const tvm_tir_buffer_obj*)v->v_obj)->data == b->data) return true;
  }
  return false;
}

/* The padded[] entry of X (created on first sight), or -1 when X does not qualify. */
static int pad_entry(pad_ctx* c, const tvm_tir_buffer_obj* x) {
  for (int i = 0; i < c->npad; ++i) {
    if (c->pad[i].x->data == x->data) return i;
  }
  int64_t nd = tvm_ffi_seq_size(x->shape);
  if (c->npad == MAX_PADDED || nd > MAX_PAD_DIMS || nd == 0 || tvm_ffi_seq_size(x->strides) != 0 ||
      x->dtype.lanes != 1 || !param_buffer(c->f, x) || written(c->f, x->data))
    return -1;
  padded* p = &c->pad[c->npad];
  memset(p, 0, sizeof(*p));
  p->x = x;
  p->ndim = (int)nd;
  for (int64_t d = 0; d < nd; ++d) {
    if (!tvm_tir__sched_const(tvm_ffi_seq_obj_at(x->shape, d), &p->shape[d]) || p->shape[d] <= 0)
      return -1;
  }
  return c->npad++;
}

/* An If to rewrite: record its padding needs. */
static int consider_if(pad_ctx* c, const tvm_tir_if_then_else_obj* n) {
  if (n->else_case || !TIR_IS(n->then_case, BufferStore) || c->nm == MAX_MATCHES) return 0;
  const tvm_tir_buffer_store_obj* st = (const void*)n->then_case;
  if (!TIR_IS(st->value, Add)) return 0;
  const tvm_tir_binary_obj* add = (const void*)st->value;
  const tvm_tir_expr_obj* e = NULL;
  for (int side = 0; side < 2 && !e; ++side) {
    const tvm_tir_buffer_load_obj* acc = (const void*)(side ? add->b : add->a);
    if (TIR_IS(acc, BufferLoad) && acc->buffer->data == st->buffer->data &&
        tvm_tir__sched_same_indices(acc->indices, st->indices))
      e = side ? add->a : add->b;
  }
  const tvm_tir_buffer_load_obj* l = NULL;
  for (int side = 0; e && side < 2 && !l; ++side) {
    l = product_load(e, side);
    if (l && (l->buffer->data == st->buffer->data || !all_terms_checked(n->condition, l))) l = NULL;
  }
  if (!l) return 0;
  int w = pad_entry(c, l->buffer);
  if (w < 0) return 0;
  /* every index's reach over the loops' ranges */
  padded* p = &c->pad[w];
  int64_t lo[MAX_PAD_DIMS], hi[MAX_PAD_DIMS];
  for (int d = 0; d < p->ndim; ++d) {
    int64_t mn, mx;
    tvm_tir_expr_obj* idx = tvm_ffi_seq_obj_at(l->indices, d);
    if (idx->dtype.code != kDLInt || tvm_tir_const_int_bound(idx, c->ranges, &mn, &mx) != 0) {
      tvm_ffi_error_clear();
      return 0;
    }
    /* an unbounded index (a symbolic loop) is no window */
    if (mn < -(1 << 20) || mx > p->shape[d] + (1 << 20)) return 0;
    lo[d] = mn < 0 ? -mn : 0;
    hi[d] = mx > p->shape[d] - 1 ? mx - (p->shape[d] - 1) : 0;
  }
  for (int d = 0; d < p->ndim; ++d) {
    if (lo[d] > p->lo[d]) p->lo[d] = lo[d];
    if (hi[d] > p->hi[d]) p->hi[d] = hi[d];
  }
  p->used = true;
  c->m[c->nm++] = (match){n, w};
  return 0;
}

static int set_range(void* ranges, const tvm_tir_for_obj* f) {
  tvm_tir_range_obj* r = tvm_tir_range_new(f->min, f->extent);
  TVMFFIAny k = tvm_ffi_any_obj(f->loop_var), v = tvm_ffi_any_obj(r);
  int rc = r ? tvm_ffi_dict_set(ranges, &k, &v) : -1;
  tvm_ffi_release(r);
  return rc;
}

static int collect_for(tvm_tir_visitor* v, const void* node) {
  pad_ctx* c = (pad_ctx*)v;
  const tvm_tir_for_obj* f = node;
  if (set_range(c->ranges, f) != 0) return -1;
  int rc = tvm_tir_visit_field(v, node, "body");
  TVMFFIAny k = tvm_ffi_any_obj(f->loop_var);
  tvm_ffi_dict_erase(c->ranges, &k);
  return rc < 0 ? -1 : TVM_TIR_VISIT_SKIP;
}

static int collect_if(tvm_tir_visitor* v, const void* node) {
  pad_ctx* c = (pad_ctx*)v;
  if (consider_if(c, node) != 0) return -1;
  return TVM_TIR_VISIT_CONTINUE;
}

static int skip_exprs(tvm_tir_visitor* v, const void* node) {
  (void)v;
  return tvm_tir_is_expr(node) ? TVM_TIR_VISIT_SKIP : TVM_TIR_VISIT_CONTINUE;
}

/* ---- Rewriting --------------------------------------------------------------------------- */
typedef struct {
  tvm_tir_mutator m;
  pad_ctx* c;
  const padded* cur; /* while rewriting an If's store: the padded buffer */
} rewriter;

static void* shifted_indices(const padded* p, const void* indices) {
  void* items[MAX_PAD_DIMS];
  int n = p->ndim;
  for (int d = 0; d < n; ++d) {
    tvm_tir_expr_obj* e = tvm_ffi_seq_obj_at(indices, d);
    items[d] = p->lo[d] ? tvm_tir_add_take(tvm_tir_ref(e), tvm_tir_const_int(e->dtype, p->lo[d]))
                        : tvm_tir_ref(e);
  }
  return tvm_tir_list_takev(n, items);
}

static void* redirect_load(tvm_tir_mutator* m, const void* node) {
  rewriter* r = (rewriter*)m;
  const tvm_tir_buffer_load_obj* l = node;
  if (!r->cur || l->buffer->data != r->cur->x->data) return tvm_tir_ref((void*)node);
  void* ind = shifted_indices(r->cur, l->indices);
  void* out = ind ? tvm_tir_buffer_load_new(r->cur->xp, ind) : NULL;
  tvm_ffi_release(ind);
  return out;
}

static void* rewrite_if(tvm_tir_mutator* m, const void* node) {
  rewriter* r = (rewriter*)m;
  for (int i = 0; i < r->c->nm; ++i) {
    if (r->c->m[i].node != node) continue;
    r->cur = &r->c->pad[r->c->m[i].which];
    void* out = tvm_tir_mutate(m, ((const tvm_tir_if_then_else_obj*)node)->then_case);
    r->cur = NULL;
    return out;
  }
  return tvm_tir_mutate_children(m, node);
}

/* for every index of shape: body(vars) (a loop nest over fresh int64 vars). */
typedef void* (*nest_body)(const padded* p, tvm_tir_var_obj* const* vars);

static void* nest(const padded* p, const int64_t* shape, nest_body body_fn) {
  tvm_tir_var_obj* vars[MAX_PAD_DIMS];
  int n = p->ndim, k = 0;
  for (; k < n; ++k) {
    char name[16];
    snprintf(name, sizeof(name), "p%d", k);
    if (!(vars[k] = tvm_tir_var(name, tvm_tir_dtype_int(64)))) break;
  }
  void* s = k == n ? body_fn(p, vars) : NULL;
  for (int d = n - 1; d >= 0 && k == n; --d)
    s = tvm_tir_serial_take(tvm_tir_ref(vars[d]), tvm_tir_i64(0), tvm_tir_i64(shape[d]), s);
  for (int d = 0; d < k; ++d) tvm_ffi_release(vars[d]);
  return s;
}

static void* zero_body(const padded* p, tvm_tir_var_obj* const* vars) {
  void* ind[MAX_PAD_DIMS];
  for (int d = 0; d < p->ndim; ++d) ind[d] = tvm_tir_ref(vars[d]);
  void* zero = tvm_tir_dtype_is_floating(p->x->dtype) ? (void*)tvm_tir_const_float(p->x->dtype, 0)
                                                      : (void*)tvm_tir_const_int(p->x->dtype, 0);
  return tvm_tir_store_takev(tvm_tir_ref(p->xp), zero, p->ndim, ind);
}

static void* copy_body(const padded* p, tvm_tir_var_obj* const* vars) {
  void *src[MAX_PAD_DIMS], *dst[MAX_PAD_DIMS];
  for (int d = 0; d < p->ndim; ++d) {
    src[d] = tvm_tir_ref(vars[d]);
    dst[d] = p->lo[d] ? (void*)tvm_tir_add_take(tvm_tir_ref(vars[d]), tvm_tir_i64(p->lo[d]))
                      : tvm_tir_ref(vars[d]);
  }
  void* val = tvm_tir_load_takev(tvm_tir_ref((void*)p->x), p->ndim, src);
  return tvm_tir_store_takev(tvm_tir_ref(p->xp), val, p->ndim, dst);
}

/* Allocate + DeclBuffer of Xp around Seq[zero fill, copy, body] (body consumed). */
static void* wrap(padded* p, void* body) {
  int64_t padded_shape[MAX_PAD_DIMS];
  void* dims[MAX_PAD_DIMS];
  for (int d = 0; d < p->ndim; ++d) {
    padded_shape[d] = p->shape[d] + p->lo[d] + p->hi[d];
    dims[d] = tvm_tir_i64(padded_shape[d]);
  }
  void* fill = nest(p, padded_shape, zero_body);
  void* copy = nest(p, p->shape, copy_body);
  void* seq = tvm_tir_seq_take(fill, copy, body);
  return tvm_tir_allocate_takev(tvm_tir_ref(p->xp->data), p->xp->dtype, p->ndim, dims,
                                tvm_tir_decl_buffer_take(tvm_tir_ref(p->xp), seq));
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  pad_ctx* c = tvm_ffi_calloc(1, sizeof(pad_ctx));
  if (!c) return NULL;
  c->f = f;
  c->ranges = tvm_ffi_dict_new();
  c->v.pre_default = skip_exprs;
  c->v.pre[TVM_TIR_KIND_For] = collect_for;
  c->v.pre[TVM_TIR_KIND_IfThenElse] = collect_if;
  int rc = c->ranges ? tvm_tir_visit(&c->v, f->body) : -1;
  tvm_tir_visitor_free(&c->v);
  void* out = NULL;
  if (rc == 0 && c->nm == 0) {
    out = tvm_tir_ref((void*)f);
  } else if (rc == 0) {
    bool ok = true;
    for (int i = 0; i < c->npad && ok; ++i) {
      padded* p = &c->pad[i];
      if (!p->used) continue;
      void* shape[MAX_PAD_DIMS];
      for (int d = 0; d < p->ndim; ++d) shape[d] = tvm_tir_i64(p->shape[d] + p->lo[d] + p->hi[d]);
      char name[96];
      snprintf(name, sizeof(name), "%s_pad", tvm_tir_buffer_name(p->x));
      ok = (p->xp = tvm_tir_buffer_decl_takev(name, p->x->dtype, p->ndim, shape, NULL)) != NULL;
    }
    rewriter r = {{{0}}, c, NULL};
    r.m.pre[TVM_TIR_KIND_IfThenElse] = rewrite_if;
    r.m.post[TVM_TIR_KIND_BufferLoad] = redirect_load;
    void* body = ok ? tvm_tir_mutate(&r.m, f->body) : NULL;
    for (int i = c->npad - 1; body && i >= 0; --i) {
      if (c->pad[i].used) body = wrap(&c->pad[i], body);
    }
    out = body ? tvm_tir__xform_with_body(f, body) : NULL;
    tvm_ffi_release(body);
  }
  for (int i = 0; i < c->npad; ++i) tvm_ffi_release(c->pad[i].xp);
  tvm_ffi_release(c->ranges);
  tvm_ffi_free(c);
  return out;
}

void* tvm_tir_schedule_pad(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  (void)t;
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
