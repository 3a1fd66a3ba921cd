/*
 * fuse_tir_inline.c: the per-element rewrites of FuseTIR (tvm_relax__fuse_tir_rewrite,
 * fuse_internal.h), on the merged kernels' statements of one fused kernel.
 *
 * A statement is pointwise when it is a perfect loop nest over the whole shape of one buffer T
 * (loops from 0 over T's dims, in order) around the single store `T[v0, ..., vn-1] = value`.
 *
 * 1. Inlining (upstream leaves this to scheduling as compute_inline): a pointwise producer of an
 *    intermediate T whose value has no side effects is substituted into the loads of T (each
 *    load T[i...] becomes value with v := i, binding sites renamed), T's nest and allocation
 *    removed, when that repeats no work:
 *     - T is loaded once in all the statements after it, and every loop around that load uses
 *       its variable directly as an index of it (each element is read at most once: elementwise
 *       and injective consumers, and a reduction reading T[i, k] inside its k loop), or
 *     - the value is a single load (through casts) indexed by loop variables and constants, or a
 *       constant (transpose, broadcast_to, expand_dims: moving data costs no more than reading
 *       it where it is needed).
 *    Producers are taken in order, so chains collapse into their last consumer.
 * 2. Epilogue sinking (upstream: reverse_compute_at by a schedule): a pointwise statement C
 *    writing U that reads an intermediate or result T at exactly its own loop variables, T
 *    written by an earlier statement P, moves into P, where the element of T is final:
 *     - P's outer loops are a perfect nest over T's shape storing T only at those loops'
 *       variables: after P's body for the element (matmul / conv / a pointwise nest followed by
 *       bias, activation or residual becomes one loop nest);
 *     - or P stores T once, unconditionally, inside loops over T's whole shape whose variables
 *       are its indices (the output loop of softmax or layer norm): right after that store.
 *    The epilogue then runs while the element is still in a register or cache. C's other
 *    inputs must be written before P. T stays materialized (other readers may need it).
 * 3. Scalar forwarding: an intermediate stored once and read only by the statements right after
 *    that store in its sequence, at the same indices (a producer read twice per element, or
 *    softmax's output once its epilogue sits next to it), becomes `let t = value` and its
 *    allocation goes. An accumulator (matmul's T, stored at init and in the k loop) keeps its
 *    buffer, so a scheduler can still tile it.
 */
#include <string.h>

#include <tvm/tir/builder.h>

#include "fuse_internal.h"

enum { MAX_DIMS = 16, MAX_LOOPS = 64 };

static const TVMFFIAny* get(void* dict, const void* key) {
  TVMFFIAny k = tvm_ffi_any_obj(key);
  return tvm_ffi_map_get(dict, &k);
}
static int64_t writer_of(void* writer, const void* buf) {
  const TVMFFIAny* w = get(writer, buf);
  return w ? w->v_int64 : -1;
}

/* ---- Nests ----------------------------------------------------------------------------------- */
typedef struct {
  const tvm_tir_for_obj* loops[MAX_DIMS];
  int n;
  const void* inner; /* the statement under the n loops */
} nest;

/* The n outer loops of s, each from 0 without thread binding (false when s has fewer). */
static bool outer_loops(const void* s, int n, nest* out) {
  out->n = 0;
  for (int d = 0; d < n; ++d) {
    if (tvm_tir_kind_of(s) != TVM_TIR_KIND_For) return false;
    const tvm_tir_for_obj* f = s;
    int64_t min;
    if (f->thread_binding || !tvm_tir_as_const_int(f->min, &min) || min != 0) return false;
    out->loops[out->n++] = f;
    s = f->body;
  }
  out->inner = s;
  return true;
}

/* Whether the loops' extents are buffer b's shape. */
static bool over_shape(const nest* ns, const tvm_tir_buffer_obj* b) {
  for (int d = 0; d < ns->n; ++d) {
    if (!tvm_relax__dim_equal(ns->loops[d]->extent, tvm_ffi_seq_obj_at(b->shape, d))) return false;
  }
  return true;
}

/* Whether the indices are exactly the nest's loop variables. */
static bool at_loop_vars(void* indices, const nest* ns) {
  if (tvm_ffi_seq_size(indices) != ns->n) return false;
  for (int d = 0; d < ns->n; ++d) {
    if (tvm_ffi_seq_obj_at(indices, d) != (void*)ns->loops[d]->loop_var) return false;
  }
  return true;
}

/* A pointwise statement: *store is its single store. */
static bool pointwise(const void* s, nest* ns, const tvm_tir_buffer_store_obj** store) {
  int n = 0;
  for (const void* t = s; tvm_tir_kind_of(t) == TVM_TIR_KIND_For && n < MAX_DIMS; ++n) {
    t = ((const tvm_tir_for_obj*)t)->body;
  }
  if (!outer_loops(s, n, ns) || tvm_tir_kind_of(ns->inner) != TVM_TIR_KIND_BufferStore) return false;
  const tvm_tir_buffer_store_obj* st = ns->inner;
  if (tvm_ffi_seq_size(st->buffer->shape) != n || !at_loop_vars(st->indices, ns) ||
      !over_shape(ns, st->buffer)) {
    return false;
  }
  *store = st;
  return true;
}

/* ---- Facts about expressions ------------------------------------------------------------------ */
typedef struct {
  const void* buffer; /* loads of it are counted */
  int64_t loads;
  bool impure;
} expr_facts;

static int facts_load(tvm_tir_visitor* v, const void* node) {
  expr_facts* f = v->ctx;
  if (((const tvm_tir_buffer_load_obj*)node)->buffer == f->buffer) ++f->loads;
  return TVM_TIR_VISIT_CONTINUE;
}
static int facts_call(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_call_obj* c = node;
  int32_t e = tvm_tir_kind_of(c->op) == TVM_TIR_KIND_Op ? ((const tvm_tir_op_obj*)c->op)->call_effect_kind
                                                       : TVM_TIR_EFFECT_OPAQUE;
  if (e != TVM_TIR_EFFECT_PURE && e != TVM_TIR_EFFECT_EXPR_ANNOTATION) ((expr_facts*)v->ctx)->impure = true;
  return TVM_TIR_VISIT_CONTINUE;
}
static int expr_facts_of(const void* e, const void* buffer, expr_facts* out) {
  *out = (expr_facts){buffer, 0, false};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_BufferLoad] = facts_load;
  v.pre[TVM_TIR_KIND_Call] = facts_call;
  v.ctx = out;
  int rc = tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  return rc;
}

/* A constant, or a load (through casts) indexed by variables and constants. */
static bool cheap(const void* e) {
  while (tvm_tir_kind_of(e) == TVM_TIR_KIND_Cast) e = ((const tvm_tir_cast_obj*)e)->value;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_IntImm || k == TVM_TIR_KIND_FloatImm) return true;
  if (k != TVM_TIR_KIND_BufferLoad) return false;
  void* idx = ((const tvm_tir_buffer_load_obj*)e)->indices;
  for (int64_t i = 0; i < tvm_ffi_seq_size(idx); ++i) {
    tvm_tir_kind ik = tvm_tir_kind_of(tvm_ffi_seq_obj_at(idx, i));
    if (ik != TVM_TIR_KIND_Var && ik != TVM_TIR_KIND_SizeVar && ik != TVM_TIR_KIND_IntImm) return false;
  }
  return true;
}

/* ---- Loads of a buffer in statements ---------------------------------------------------------- */
typedef struct {
  const void* buffer;
  const tvm_tir_var_obj* loops[MAX_LOOPS];
  int nloops;
  bool deep;      /* more loops than MAX_LOOPS, or a While */
  int64_t loads;
  bool read_once; /* every load indexes each enclosing loop variable directly */
} sites;

static int sites_for(tvm_tir_visitor* v, const void* node) {
  sites* s = v->ctx;
  if (tvm_tir_visit_field(v, node, "min") != 0 || tvm_tir_visit_field(v, node, "extent") != 0) return -1;
  bool pushed = s->nloops < MAX_LOOPS;
  if (pushed) s->loops[s->nloops++] = ((const tvm_tir_for_obj*)node)->loop_var;
  else s->deep = true;
  int rc = tvm_tir_visit_field(v, node, "body");
  if (pushed) --s->nloops;
  return rc != 0 ? -1 : TVM_TIR_VISIT_SKIP;
}
static int sites_while(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ((sites*)v->ctx)->deep = true;
  return TVM_TIR_VISIT_CONTINUE;
}
static int sites_load(tvm_tir_visitor* v, const void* node) {
  sites* s = v->ctx;
  const tvm_tir_buffer_load_obj* ld = node;
  if (ld->buffer != s->buffer) return TVM_TIR_VISIT_CONTINUE;
  ++s->loads;
  if (s->deep) s->read_once = false;
  for (int l = 0; l < s->nloops && s->read_once; ++l) {
    bool found = false;
    for (int64_t i = 0; i < tvm_ffi_seq_size(ld->indices) && !found; ++i) {
      found = tvm_ffi_seq_obj_at(ld->indices, i) == (void*)s->loops[l];
    }
    if (!found) s->read_once = false;
  }
  return TVM_TIR_VISIT_CONTINUE;
}
static int count_sites(const void* stmt, sites* s) {
  s->nloops = 0;
  s->deep = false;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_For] = sites_for;
  v.pre[TVM_TIR_KIND_While] = sites_while;
  v.pre[TVM_TIR_KIND_BufferLoad] = sites_load;
  v.ctx = s;
  int rc = tvm_tir_visit(&v, stmt);
  tvm_tir_visitor_free(&v);
  return rc;
}

/* ---- Replacing loads ---------------------------------------------------------------------------- */
typedef struct {
  const void* buffer;
  const nest* ns;
  const void* value;
} replace_ctx;

/* value with the nest's variables := idx (cast to their dtype), binding sites renamed. */
static void* instantiate(const nest* ns, const void* value, void* idx) {
  tvm_tir_subst s;
  if (tvm_tir_subst_init(&s, true) != 0) return NULL;
  int rc = 0;
  for (int d = 0; rc == 0 && d < ns->n; ++d) {
    const tvm_tir_var_obj* var = ns->loops[d]->loop_var;
    tvm_tir_expr_obj* i = tvm_ffi_seq_obj_at(idx, d);
    tvm_tir_expr_obj* cast = tvm_tir_dtype_equal(tvm_tir_expr_dtype(i), tvm_tir_expr_dtype(var))
                                 ? tvm_tir_ref(i)
                                 : tvm_tir_cast_take(tvm_tir_expr_dtype(var), tvm_tir_ref(i));
    rc = cast ? tvm_tir_subst_set_var(&s, var, cast) : -1;
    tvm_ffi_release(cast);
  }
  void* out = rc == 0 ? tvm_tir_subst_apply(&s, value) : NULL;
  tvm_tir_subst_free(&s);
  return out;
}

static void* replace_load(tvm_tir_mutator* m, const void* node) {
  replace_ctx* r = m->ctx;
  const tvm_tir_buffer_load_obj* ld = node;
  if (ld->buffer != r->buffer) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  return instantiate(r->ns, r->value, ld->indices);
}

static void* replace_loads(const void* stmt, const void* buffer, const nest* ns, const void* value) {
  replace_ctx r = {buffer, ns, value};
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_BufferLoad] = replace_load;
  m.ctx = &r;
  return tvm_tir_mutate(&m, stmt);
}

/* ---- 1. Inlining ------------------------------------------------------------------------------ */
static int inline_producers(void* stmts, void* locals) {
  int64_t n = tvm_ffi_seq_size(stmts);
  for (int64_t p = 0; p < n; ++p) {
    const TVMFFIAny* sp = tvm_ffi_seq_at(stmts, p);
    if (tvm_ffi_any_is_none(sp)) continue;
    nest ns;
    const tvm_tir_buffer_store_obj* st;
    if (!pointwise(sp->v_obj, &ns, &st) || !get(locals, st->buffer)) continue;
    expr_facts vf;
    if (expr_facts_of(st->value, st->buffer, &vf) != 0) return -1;
    if (vf.impure || vf.loads > 0) continue;
    sites s = {st->buffer, {0}, 0, false, 0, true};
    for (int64_t j = p + 1; j < n; ++j) {
      const TVMFFIAny* sj = tvm_ffi_seq_at(stmts, j);
      if (!tvm_ffi_any_is_none(sj) && count_sites(sj->v_obj, &s) != 0) return -1;
    }
    if (s.loads == 0 || !(cheap(st->value) || (s.loads == 1 && s.read_once))) continue;
    void* value = st->value;
    tvm_ffi_retain(value);
    tvm_ffi_retain(st->buffer);
    const void* buffer = st->buffer;
    for (int64_t j = p + 1; j < n; ++j) {
      const TVMFFIAny* sj = tvm_ffi_seq_at(stmts, j);
      if (tvm_ffi_any_is_none(sj)) continue;
      void* ns2 = replace_loads(sj->v_obj, buffer, &ns, value);
      TVMFFIAny nv = tvm_ffi_any_obj(ns2);
      int rc = ns2 ? tvm_ffi_list_set(stmts, j, &nv) : -1;
      tvm_ffi_release(ns2);
      if (rc != 0) {
        tvm_ffi_release(value), tvm_ffi_release((void*)buffer);
        return -1;
      }
    }
    /* The producer's nest and the intermediate go; ns (its loops) is read until here. */
    TVMFFIAny none = tvm_ffi_any_none();
    TVMFFIAny bk = tvm_ffi_any_obj(buffer);
    tvm_ffi_dict_erase(locals, &bk);
    int rc = tvm_ffi_list_set(stmts, p, &none);
    tvm_ffi_release(value), tvm_ffi_release((void*)buffer);
    if (rc != 0) return -1;
  }
  return 0;
}

/* ---- 2. Epilogue sinking ------------------------------------------------------------------------ */
typedef struct {
  const void* buffer;
  const nest* ns;
  bool ok; /* every store to buffer is at the nest's variables */
} store_check;
static int check_store(tvm_tir_visitor* v, const void* node) {
  store_check* c = v->ctx;
  const tvm_tir_buffer_store_obj* st = node;
  if (st->buffer == c->buffer && !at_loop_vars(st->indices, c->ns)) c->ok = false;
  return TVM_TIR_VISIT_CONTINUE;
}

/* The loads of C's value: the candidate is the buffer read at exactly C's loop variables whose
 * writer is latest; every other load must read a buffer written before it. */
typedef struct {
  void* writer;
  const nest* cn;
  const tvm_tir_buffer_load_obj* loads[256];
  int n;
  bool many;
} loads_scan;
static int scan_load(tvm_tir_visitor* v, const void* node) {
  loads_scan* s = v->ctx;
  if (s->n == 256) s->many = true;
  else s->loads[s->n++] = node;
  return TVM_TIR_VISIT_CONTINUE;
}
/* The candidate buffer and its writer (NULL when there is none or another load forbids it). */
static const void* sink_candidate(loads_scan* s, int64_t* p) {
  const void* best = NULL;
  *p = -1;
  if (s->many) return NULL;
  for (int i = 0; i < s->n; ++i) {
    int64_t w = writer_of(s->writer, s->loads[i]->buffer);
    if (w > *p && at_loop_vars(s->loads[i]->indices, s->cn)) best = s->loads[i]->buffer, *p = w;
  }
  for (int i = 0; best && i < s->n; ++i) {
    const tvm_tir_buffer_load_obj* ld = s->loads[i];
    if (ld->buffer == best ? !at_loop_vars(ld->indices, s->cn) : writer_of(s->writer, ld->buffer) >= *p) {
      return NULL;
    }
  }
  return best;
}

/* The loop nest ns rebuilt around body (consumed). */
static void* rebuild_nest(const nest* ns, void* body) {
  for (int d = ns->n - 1; d >= 0 && body; --d) {
    const tvm_tir_for_obj* f = ns->loops[d];
    void* nb = tvm_tir_for_new(f->loop_var, f->min, f->extent, (tvm_tir_for_kind)f->kind, body,
                               f->thread_binding, f->annotations);
    tvm_ffi_release(body);
    body = nb;
  }
  return body;
}

/* C's store with its loop variables := idx (binding sites renamed). */
static void* moved_store(const nest* cn, const tvm_tir_buffer_store_obj* cst, void* const* idx) {
  tvm_tir_subst s;
  if (tvm_tir_subst_init(&s, true) != 0) return NULL;
  int rc = 0;
  for (int d = 0; rc == 0 && d < cn->n; ++d) rc = tvm_tir_subst_set_var(&s, cn->loops[d]->loop_var, idx[d]);
  void* out = rc == 0 ? tvm_tir_subst_apply(&s, cst) : NULL;
  tvm_tir_subst_free(&s);
  return out;
}

/* P's outer loops are a perfect nest over T's shape storing T only at their variables (matmul,
 * conv, a pointwise nest): C's store goes after P's body for the element. *out: the new P, or
 * NULL when P is not of that form. */
static int sink_into_nest(const void* p, const tvm_tir_buffer_obj* t, const nest* cn,
                          const tvm_tir_buffer_store_obj* cst, void** out) {
  *out = NULL;
  nest pn;
  if (!outer_loops(p, cn->n, &pn) || !over_shape(&pn, t)) return 0;
  for (int d = 0; d < cn->n; ++d) {
    if (!tvm_relax__dim_equal(pn.loops[d]->extent, cn->loops[d]->extent)) return 0;
  }
  store_check chk = {t, &pn, true};
  tvm_tir_visitor sv = {0};
  sv.pre[TVM_TIR_KIND_BufferStore] = check_store;
  sv.ctx = &chk;
  int rc = tvm_tir_visit(&sv, pn.inner);
  tvm_tir_visitor_free(&sv);
  if (rc != 0) return -1;
  if (!chk.ok) return 0;
  void* idx[MAX_DIMS];
  for (int d = 0; d < pn.n; ++d) idx[d] = pn.loops[d]->loop_var;
  void* moved = moved_store(cn, cst, idx);
  void* body = moved ? tvm_tir_seq_take(tvm_tir_ref((void*)pn.inner), moved) : NULL;
  *out = body ? rebuild_nest(&pn, body) : NULL;
  return *out ? 0 : -1;
}

/* The single store to T in P, with the loops and conditions around it. */
typedef struct {
  const void* buffer;
  const tvm_tir_for_obj* loops[MAX_LOOPS];
  int nloops;
  int conds;
  bool deep;
  int64_t stores;
  const tvm_tir_buffer_store_obj* store;
  const tvm_tir_for_obj* at[MAX_LOOPS];
  int nat;
  bool conditional;
} store_site;
static int site_for(tvm_tir_visitor* v, const void* node) {
  store_site* s = v->ctx;
  if (s->nloops == MAX_LOOPS) {
    s->deep = true;
    return TVM_TIR_VISIT_SKIP;
  }
  s->loops[s->nloops++] = node;
  int rc = tvm_tir_visit_field(v, node, "body");
  --s->nloops;
  return rc != 0 ? -1 : TVM_TIR_VISIT_SKIP;
}
static int site_if(tvm_tir_visitor* v, const void* node) {
  store_site* s = v->ctx;
  ++s->conds;
  int rc = tvm_tir_visit_field(v, node, "then_case");
  if (rc == 0) rc = tvm_tir_visit_field(v, node, "else_case");
  --s->conds;
  return rc != 0 ? -1 : TVM_TIR_VISIT_SKIP;
}
static int site_while(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ((store_site*)v->ctx)->deep = true;
  return TVM_TIR_VISIT_SKIP;
}
static int site_store(tvm_tir_visitor* v, const void* node) {
  store_site* s = v->ctx;
  const tvm_tir_buffer_store_obj* st = node;
  if (st->buffer != s->buffer) return TVM_TIR_VISIT_SKIP;
  ++s->stores;
  s->store = st;
  s->conditional = s->conds > 0;
  s->nat = s->nloops;
  memcpy(s->at, s->loops, (size_t)s->nloops * sizeof(s->loops[0]));
  return TVM_TIR_VISIT_SKIP;
}

typedef struct {
  const void* target;
  void* moved;
} after_store_ctx;
static void* after_store(tvm_tir_mutator* m, const void* node) {
  after_store_ctx* a = m->ctx;
  if (node != a->target) return tvm_tir_mutate_children(m, node);
  return tvm_tir_seq_take(tvm_tir_ref((void*)node), tvm_tir_ref(a->moved));
}

/* T is stored once per element in P, at one unconditional store inside loops over T's whole
 * shape, each loop variable one index (softmax's or layer norm's output loop): C's store goes
 * right after it. *out: the new P, or NULL when P is not of that form. */
static int sink_at_store(const void* p, const tvm_tir_buffer_obj* t, const nest* cn,
                         const tvm_tir_buffer_store_obj* cst, void** out) {
  *out = NULL;
  store_site s = {0};
  s.buffer = t;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_For] = site_for;
  v.pre[TVM_TIR_KIND_IfThenElse] = site_if;
  v.pre[TVM_TIR_KIND_While] = site_while;
  v.pre[TVM_TIR_KIND_BufferStore] = site_store;
  v.ctx = &s;
  int rc = tvm_tir_visit(&v, p);
  tvm_tir_visitor_free(&v);
  if (rc != 0) return -1;
  if (s.stores != 1 || s.deep || s.conditional || s.nat != cn->n) return 0;
  void* idx[MAX_DIMS];
  for (int d = 0; d < cn->n; ++d) {
    const void* e = tvm_ffi_seq_obj_at(s.store->indices, d);
    const tvm_tir_for_obj* f = NULL;
    for (int l = 0; l < s.nat && !f; ++l) {
      if (s.at[l]->loop_var == e) f = s.at[l];
    }
    int64_t min;
    if (!f || !tvm_tir_as_const_int(f->min, &min) || min != 0 ||
        !tvm_relax__dim_equal(f->extent, tvm_ffi_seq_obj_at(t->shape, d)) ||
        !tvm_relax__dim_equal(f->extent, cn->loops[d]->extent)) {
      return 0;
    }
    for (int e2 = 0; e2 < d; ++e2) {
      if (idx[e2] == e) return 0; /* a loop used twice: some loop is not an index */
    }
    idx[d] = (void*)e;
  }
  after_store_ctx a = {s.store, moved_store(cn, cst, idx)};
  if (!a.moved) return -1;
  tvm_tir_mutator m = {0};
  m.pre[TVM_TIR_KIND_BufferStore] = after_store;
  m.ctx = &a;
  *out = tvm_tir_mutate(&m, p);
  tvm_ffi_release(a.moved);
  return *out ? 0 : -1;
}

static int sink_epilogues(void* stmts, void* writer) {
  int64_t n = tvm_ffi_seq_size(stmts);
  for (int64_t c = 0; c < n; ++c) {
    const TVMFFIAny* sc = tvm_ffi_seq_at(stmts, c);
    if (tvm_ffi_any_is_none(sc)) continue;
    nest cn;
    const tvm_tir_buffer_store_obj* cst;
    if (!pointwise(sc->v_obj, &cn, &cst) || cn.n == 0) continue;
    expr_facts cf;
    if (expr_facts_of(cst->value, cst->buffer, &cf) != 0) return -1;
    if (cf.impure || cf.loads > 0) continue;
    loads_scan ls = {writer, &cn, {0}, 0, false};
    tvm_tir_visitor v = {0};
    v.pre[TVM_TIR_KIND_BufferLoad] = scan_load;
    v.ctx = &ls;
    int rc = tvm_tir_visit(&v, cst->value);
    tvm_tir_visitor_free(&v);
    if (rc != 0) return -1;
    int64_t p;
    const tvm_tir_buffer_obj* t = sink_candidate(&ls, &p);
    if (!t || p < 0 || p >= c) continue;
    const TVMFFIAny* sp = tvm_ffi_seq_at(stmts, p);
    if (tvm_ffi_any_is_none(sp)) continue;
    void* np = NULL;
    if (tvm_ffi_seq_size(t->shape) != cn.n) continue;
    if (sink_into_nest(sp->v_obj, t, &cn, cst, &np) != 0) return -1;
    if (!np && sink_at_store(sp->v_obj, t, &cn, cst, &np) != 0) return -1;
    if (!np) continue;
    TVMFFIAny npv = tvm_ffi_any_obj(np), none = tvm_ffi_any_none();
    TVMFFIAny uk = tvm_ffi_any_obj(cst->buffer), pv = tvm_ffi_any_int(p);
    /* the writer entry first: cst lives in the statement about to be dropped */
    rc = tvm_ffi_dict_set(writer, &uk, &pv) == 0 && tvm_ffi_list_set(stmts, p, &npv) == 0 &&
                 tvm_ffi_list_set(stmts, c, &none) == 0
             ? 0
             : -1;
    tvm_ffi_release(np);
    if (rc != 0) return -1;
  }
  return 0;
}

/* ---- 3. Forwarding a value through a scalar ----------------------------------------------------- */
/* The stores and loads of one buffer in a statement. */
typedef struct {
  const void* buffer;
  int64_t stores, loads;
  const tvm_tir_buffer_store_obj* store;
} accesses;
static int acc_store(tvm_tir_visitor* v, const void* node) {
  accesses* a = v->ctx;
  if (((const tvm_tir_buffer_store_obj*)node)->buffer == a->buffer) ++a->stores, a->store = node;
  return TVM_TIR_VISIT_CONTINUE;
}
static int acc_load(tvm_tir_visitor* v, const void* node) {
  accesses* a = v->ctx;
  if (((const tvm_tir_buffer_load_obj*)node)->buffer == a->buffer) ++a->loads;
  return TVM_TIR_VISIT_CONTINUE;
}
static int count_accesses(const void* stmt, accesses* a) {
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_BufferStore] = acc_store;
  v.pre[TVM_TIR_KIND_BufferLoad] = acc_load;
  v.ctx = a;
  int rc = tvm_tir_visit(&v, stmt);
  tvm_tir_visitor_free(&v);
  return rc;
}

typedef struct {
  const tvm_tir_buffer_store_obj* store;
  int64_t loads; /* all the loads of the buffer in the kernel */
  tvm_tir_var_obj* var;
  bool done;
} forward_ctx;

/* Loads of the buffer at exactly the store's indices become the variable. */
static bool same_index_list(void* a, void* b) {
  if (tvm_ffi_seq_size(a) != tvm_ffi_seq_size(b)) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(a); ++i) {
    if (tvm_ffi_seq_obj_at(a, i) != tvm_ffi_seq_obj_at(b, i)) return false;
  }
  return true;
}
typedef struct {
  const tvm_tir_buffer_store_obj* store;
  tvm_tir_var_obj* var;
  int64_t replaced;
} to_var_ctx;
static void* load_to_var(tvm_tir_mutator* m, const void* node) {
  to_var_ctx* t = m->ctx;
  const tvm_tir_buffer_load_obj* ld = node;
  if (ld->buffer == t->store->buffer && same_index_list(ld->indices, t->store->indices)) {
    ++t->replaced;
    tvm_ffi_retain(t->var);
    return t->var;
  }
  tvm_ffi_retain((void*)node);
  return (void*)node;
}

/* In the SeqStmt holding the store: `T[i] = v; rest` -> `let t = v; rest[T[i] := t]` when rest
 * holds every load of T, all at i. */
static void* forward_seq(tvm_tir_mutator* m, const void* node) {
  forward_ctx* f = m->ctx;
  void* seq = ((const tvm_tir_seq_stmt_obj*)node)->seq;
  int64_t n = tvm_ffi_seq_size(seq), k = 0;
  while (k < n && tvm_ffi_seq_obj_at(seq, k) != (void*)f->store) ++k;
  if (k == n || k == n - 1) return tvm_tir_mutate_children(m, node);
  void* rest_items[256];
  if (n - k - 1 > 256) return tvm_tir_mutate_children(m, node);
  for (int64_t i = k + 1; i < n; ++i) rest_items[i - k - 1] = tvm_tir_ref(tvm_ffi_seq_obj_at(seq, i));
  void* rest = tvm_tir_seq_takev(n - k - 1, rest_items);
  to_var_ctx t = {f->store, f->var, 0};
  tvm_tir_mutator lm = {0};
  lm.post[TVM_TIR_KIND_BufferLoad] = load_to_var;
  lm.ctx = &t;
  void* nrest = rest ? tvm_tir_mutate(&lm, rest) : NULL;
  tvm_ffi_release(rest);
  if (!nrest) return NULL;
  if (t.replaced != f->loads) { /* a load elsewhere or at other indices: leave it */
    tvm_ffi_release(nrest);
    return tvm_tir_mutate_children(m, node);
  }
  void* items[256];
  for (int64_t i = 0; i < k; ++i) items[i] = tvm_tir_ref(tvm_ffi_seq_obj_at(seq, i));
  items[k] = tvm_tir_let_stmt_take(tvm_tir_ref(f->var), tvm_tir_ref(f->store->value), nrest);
  f->done = items[k] != NULL;
  return k + 1 <= 256 ? tvm_tir_seq_takev(k + 1, items) : NULL;
}

/* An intermediate stored once and read only right after, at the same element (a pointwise
 * producer read twice by its consumer, softmax's output read by its epilogue, once the epilogue
 * has moved next to it), is a scalar: `let t = value` instead of memory. */
static int forward_scalars(void* stmts, void* locals) {
  int64_t n = tvm_ffi_seq_size(stmts);
  void* keys = tvm_ffi_list_new();
  const TVMFFIAny *k, *v;
  int rc = keys ? 0 : -1;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(locals, pos, &k, &v)) >= 0;) {
    rc = tvm_ffi_list_push(keys, k);
  }
  for (int64_t b = 0; rc == 0 && b < tvm_ffi_seq_size(keys); ++b) {
    const tvm_tir_buffer_obj* buf = tvm_ffi_seq_obj_at(keys, b);
    accesses total = {buf, 0, 0, NULL};
    int64_t at = -1;
    for (int64_t j = 0; rc == 0 && j < n; ++j) {
      const TVMFFIAny* sj = tvm_ffi_seq_at(stmts, j);
      if (tvm_ffi_any_is_none(sj)) continue;
      int64_t before = total.stores;
      rc = count_accesses(sj->v_obj, &total);
      if (total.stores != before) at = j;
    }
    if (rc != 0 || total.stores != 1 || total.loads == 0) continue;
    for (int64_t i = 0; i < tvm_ffi_seq_size(total.store->indices); ++i) {
      tvm_tir_kind ik = tvm_tir_kind_of(tvm_ffi_seq_obj_at(total.store->indices, i));
      if (ik != TVM_TIR_KIND_Var && ik != TVM_TIR_KIND_SizeVar && ik != TVM_TIR_KIND_IntImm) at = -1;
    }
    if (at < 0) continue;
    forward_ctx f = {total.store, total.loads, tvm_tir_var_str(buf->name, buf->dtype), false};
    tvm_tir_mutator m = {0};
    m.pre[TVM_TIR_KIND_SeqStmt] = forward_seq;
    m.ctx = &f;
    void* ns = f.var ? tvm_tir_mutate(&m, tvm_ffi_seq_obj_at(stmts, at)) : NULL;
    tvm_ffi_release(f.var);
    if (!ns) {
      rc = -1;
      break;
    }
    if (f.done) {
      TVMFFIAny nv = tvm_ffi_any_obj(ns), bk = tvm_ffi_any_obj(buf);
      rc = tvm_ffi_list_set(stmts, at, &nv);
      tvm_ffi_dict_erase(locals, &bk);
    }
    tvm_ffi_release(ns);
  }
  tvm_ffi_release(keys);
  return rc;
}

int tvm_relax__fuse_tir_rewrite(void* stmts, void* writer, void* locals) {
  if (inline_producers(stmts, locals) != 0 || sink_epilogues(stmts, writer) != 0) return -1;
  return forward_scalars(stmts, locals);
}
