/* schedule_sink.c: moving a tile of an independent loop down to the statements of its body
 * (tvm_tir__sched_sink, schedule_internal.h). The vectorize rule moves a vectorized loop of
 * `lanes` iterations into the reduction loops of its body; register_tile moves an unrolled row
 * loop next to those vectorized loops. Moving a loop of independent iterations inward is always
 * allowed: the iterations touch disjoint elements, so interleaving them differently changes no
 * value. */
#include <stdio.h>

#include "schedule_internal.h"

typedef struct {
  const sched_sink* k;
  void* exp; /* ffi.Dict: data Var of a local buffer -> its expanded Buffer (one copy per t) */
} sink_ctx;

/* ---- Leaves ------------------------------------------------------------------------------ */
typedef struct {
  tvm_tir_mutator m;
  sink_ctx* c;
  const void* var;
  tvm_tir_expr_obj* value; /* base + t */
  tvm_tir_var_obj* t;
} leaf_mutator;

static void* leaf_var(tvm_tir_mutator* m, const void* node) {
  leaf_mutator* lm = (leaf_mutator*)m;
  return tvm_tir_ref(node == lm->var ? (void*)lm->value : (void*)node);
}

/* The expanded buffer of b, or NULL (borrowed). */
static tvm_tir_buffer_obj* expanded(sink_ctx* c, const tvm_tir_buffer_obj* b) {
  if (!c->exp) return NULL;
  TVMFFIAny key = tvm_ffi_any_obj(b->data);
  const TVMFFIAny* v = tvm_ffi_map_get(c->exp, &key);
  return v ? (tvm_tir_buffer_obj*)v->v_obj : NULL;
}

/* [t] + indices (a new Array). */
static void* prepend_t(tvm_tir_var_obj* t, const void* indices) {
  int64_t n = tvm_ffi_seq_size(indices);
  void* items[17];
  if (n > 16) {
    tvm_ffi_raise("ValueError", "schedule: a local buffer with more than 16 dimensions");
    return NULL;
  }
  /* the new index has the bit width of the others (S-BUFFERSTORE) */
  int bits = n > 0 ? tvm_tir_expr_dtype(tvm_ffi_seq_obj_at(indices, 0)).bits : t->expr.dtype.bits;
  tvm_tir_expr_obj* tt = tvm_tir__cast_bits((tvm_tir_expr_obj*)t, bits);
  if (!tt) return NULL;
  items[0] = tt;
  for (int64_t i = 0; i < n; ++i) items[i + 1] = tvm_ffi_seq_obj_at(indices, i);
  void* r = tvm_ffi_array_of_objects(items, n + 1);
  tvm_ffi_release(tt);
  return r;
}

static void* leaf_load(tvm_tir_mutator* m, const void* node) {
  leaf_mutator* lm = (leaf_mutator*)m;
  const tvm_tir_buffer_load_obj* l = node;
  tvm_tir_buffer_obj* nb = expanded(lm->c, l->buffer);
  if (!nb) return tvm_tir_ref((void*)node);
  void* ind = prepend_t(lm->t, l->indices);
  void* r = ind ? tvm_tir_buffer_load_new(nb, ind) : NULL;
  tvm_ffi_release(ind);
  return r;
}

static void* leaf_store(tvm_tir_mutator* m, const void* node) {
  leaf_mutator* lm = (leaf_mutator*)m;
  const tvm_tir_buffer_store_obj* s = node;
  tvm_tir_buffer_obj* nb = expanded(lm->c, s->buffer);
  if (!nb) return tvm_tir_ref((void*)node);
  void* ind = prepend_t(lm->t, s->indices);
  void* r = ind ? tvm_tir_buffer_store_new(nb, s->value, ind) : NULL;
  tvm_ffi_release(ind);
  return r;
}

static void* leaf(sink_ctx* c, const void* s) {
  const sched_sink* k = c->k;
  char name[64];
  snprintf(name, sizeof(name), "%s_t", tvm_tir_var_name(k->var));
  leaf_mutator lm = {{{0}}, c, k->var, NULL, tvm_tir_var(name, k->var->expr.dtype)};
  lm.value = lm.t ? tvm_tir_add_take(tvm_tir_ref((void*)k->base), tvm_tir_ref(lm.t)) : NULL;
  lm.m.pre[TVM_TIR_KIND_Var] = leaf_var;
  lm.m.post[TVM_TIR_KIND_BufferLoad] = leaf_load;
  lm.m.post[TVM_TIR_KIND_BufferStore] = leaf_store;
  void* body = lm.value ? tvm_tir_mutate(&lm.m, s) : NULL;
  tvm_tir_for_kind kind = k->kind;
  if (k->vector_leaf_only) {
    bool vec = TIR_IS(s, For) && ((const tvm_tir_for_obj*)s)->kind == TVM_TIR_FOR_VECTORIZED;
    kind = vec ? k->kind : TVM_TIR_FOR_SERIAL;
  }
  void* r = body ? tvm_tir_for_take(tvm_tir_ref(lm.t), tvm_tir__sched_iconst(k->var, 0),
                                    tvm_tir__sched_iconst(k->var, k->extent), kind, body)
                 : NULL;
  RELEASE2(lm.t, lm.value);
  return r;
}

/* ---- Structure --------------------------------------------------------------------------- */
static int find_structure(tvm_tir_visitor* v, const void* node) {
  tvm_tir_kind kind = tvm_tir_kind_of(node);
  if (kind == TVM_TIR_KIND_For || kind == TVM_TIR_KIND_Allocate || kind == TVM_TIR_KIND_DeclBuffer ||
      kind == TVM_TIR_KIND_While || kind == TVM_TIR_KIND_SBlockRealize) {
    *(bool*)v->ctx = true;
    return TVM_TIR_VISIT_SKIP;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

/* Whether s can be a leaf: a loop that is not serial (kept whole), or a statement without loops
 * or allocations. 1 / 0, -1 + error. */
static int leaf_ok(const void* s) {
  if (TIR_IS(s, For)) return ((const tvm_tir_for_obj*)s)->kind != TVM_TIR_FOR_SERIAL;
  bool found = false;
  tvm_tir_visitor v = {0};
  v.pre_default = find_structure;
  v.ctx = &found;
  int rc = tvm_tir_visit(&v, s);
  tvm_tir_visitor_free(&v);
  return rc < 0 ? -1 : !found;
}

/* Whether expression e depends on the moved variable or reads an expanded buffer. */
typedef struct {
  tvm_tir_visitor v;
  sink_ctx* c;
  bool found;
} dep_finder;

static int find_dep(tvm_tir_visitor* v, const void* node) {
  dep_finder* d = (dep_finder*)v;
  if (node == d->c->k->var) d->found = true;
  if (TIR_IS(node, BufferLoad) && expanded(d->c, ((const tvm_tir_buffer_load_obj*)node)->buffer))
    d->found = true;
  return d->found ? TVM_TIR_VISIT_SKIP : TVM_TIR_VISIT_CONTINUE;
}

static int depends(sink_ctx* c, const void* e) {
  dep_finder d = {{{0}}, c, false};
  d.v.pre_default = find_dep;
  int rc = tvm_tir_visit(&d.v, e);
  tvm_tir_visitor_free(&d.v);
  return rc < 0 ? -1 : d.found;
}

/* Result conventions: a new reference; NULL with *err false = cannot move; *err true = error. */
static void* sink(sink_ctx* c, const void* s, bool* err);

static void* sink_or_leaf(sink_ctx* c, const void* s, bool* err) {
  int ok = leaf_ok(s);
  if (ok < 0) {
    *err = true;
    return NULL;
  }
  if (!ok) return NULL;
  void* r = leaf(c, s);
  if (!r) *err = true;
  return r;
}

static void* sink_seq(sink_ctx* c, const tvm_tir_seq_stmt_obj* s, bool* err) {
  int64_t n = tvm_ffi_seq_size(s->seq);
  void** items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
  if (!items) {
    *err = true;
    return NULL;
  }
  int64_t i = 0;
  for (; i < n; ++i) {
    if (!(items[i] = sink(c, tvm_ffi_seq_obj_at(s->seq, i), err))) break;
  }
  void* r = i == n ? tvm_tir_seq_takev(n, items) : NULL;
  if (i < n) {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_release(items[j]);
  }
  if (i == n && !r) *err = true;
  tvm_ffi_free(items);
  return r;
}

static void* sink_for(sink_ctx* c, const tvm_tir_for_obj* f, bool* err) {
  if (f->kind != TVM_TIR_FOR_SERIAL) return sink_or_leaf(c, f, err);
  int d1 = depends(c, f->min), d2 = d1 >= 0 ? depends(c, f->extent) : -1;
  if (d1 < 0 || d2 < 0) {
    *err = true;
    return NULL;
  }
  if (d1 || d2) return sink_or_leaf(c, f, err);
  void* body = sink(c, f->body, err);
  if (!body) return NULL;
  void* r = tvm_tir_for_new(f->loop_var, f->min, f->extent, TVM_TIR_FOR_SERIAL, body, NULL,
                            f->annotations);
  tvm_ffi_release(body);
  if (!r) *err = true;
  return r;
}

static void* sink_if(sink_ctx* c, const tvm_tir_if_then_else_obj* n, bool* err) {
  int d = depends(c, n->condition);
  if (d < 0) {
    *err = true;
    return NULL;
  }
  if (d) return sink_or_leaf(c, n, err);
  void* t = sink(c, n->then_case, err);
  void* e = t && n->else_case ? sink(c, n->else_case, err) : NULL;
  if (!t || (n->else_case && !e)) {
    RELEASE2(t, e);
    return NULL;
  }
  void* r = tvm_tir_if_then_else_new(n->condition, t, e);
  RELEASE2(t, e);
  if (!r) *err = true;
  return r;
}

static void* sink_let(sink_ctx* c, const tvm_tir_let_stmt_obj* n, bool* err) {
  int d = depends(c, n->value);
  if (d < 0) {
    *err = true;
    return NULL;
  }
  if (d) return sink_or_leaf(c, n, err);
  void* body = sink(c, n->body, err);
  if (!body) return NULL;
  void* r = tvm_tir_let_stmt_new(n->var, n->value, body);
  tvm_ffi_release(body);
  if (!r) *err = true;
  return r;
}

/* Allocate + DeclBuffer of a local buffer of constant shape: one copy per t. */
static void* sink_allocate(sink_ctx* c, const tvm_tir_allocate_obj* a, bool* err) {
  const tvm_tir_decl_buffer_obj* d = (const void*)a->body;
  int64_t v;
  bool cond_true = !a->condition || (tvm_tir__sched_const(a->condition, &v) && v == 1);
  if (!TIR_IS(d, DeclBuffer) || d->buffer->data != a->buffer_var || !cond_true)
    return sink_or_leaf(c, a, err);
  const tvm_tir_buffer_obj* ob = d->buffer;
  int64_t n = tvm_ffi_seq_size(ob->shape);
  if (n > 15 || tvm_ffi_seq_size(ob->strides) != 0) return sink_or_leaf(c, a, err);
  void* shape[16];
  shape[0] = tvm_tir_const_int(tvm_tir_dtype_int(64), c->k->extent);
  for (int64_t i = 0; i < n; ++i) {
    void* e = tvm_ffi_seq_obj_at(ob->shape, i);
    if (!tvm_tir__sched_const(e, &v)) {
      tvm_ffi_release(shape[0]);
      for (int64_t j = 0; j < i; ++j) tvm_ffi_release(shape[j + 1]);
      return sink_or_leaf(c, a, err);
    }
    shape[i + 1] = tvm_tir_const_int(tvm_tir_dtype_int(64), v);
  }
  const char* scope = tvm_tir_buffer_scope(ob);
  tvm_tir_buffer_obj* nb =
      tvm_tir_buffer_decl_takev(tvm_tir_buffer_name(ob), ob->dtype, n + 1, shape, scope);
  if (!nb) {
    *err = true;
    return NULL;
  }
  if (!c->exp && !(c->exp = tvm_ffi_dict_new())) {
    tvm_ffi_release(nb);
    *err = true;
    return NULL;
  }
  TVMFFIAny key = tvm_ffi_any_obj(ob->data), val = tvm_ffi_any_obj(nb);
  if (tvm_ffi_dict_set(c->exp, &key, &val) != 0) {
    tvm_ffi_release(nb);
    *err = true;
    return NULL;
  }
  void* body = sink(c, d->body, err);
  void* r = NULL;
  if (body) {
    void* decl = tvm_tir_decl_buffer_new(nb, body);
    r = decl ? tvm_tir_allocate_new(nb->data, a->dtype, nb->shape, NULL, decl, a->annotations)
             : NULL;
    tvm_ffi_release(decl);
    if (!r) *err = true;
  }
  tvm_ffi_release(body);
  tvm_ffi_release(nb);
  return r;
}

static void* sink(sink_ctx* c, const void* s, bool* err) {
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_SeqStmt:
      return sink_seq(c, s, err);
    case TVM_TIR_KIND_For:
      return sink_for(c, s, err);
    case TVM_TIR_KIND_IfThenElse:
      return sink_if(c, s, err);
    case TVM_TIR_KIND_LetStmt:
      return sink_let(c, s, err);
    case TVM_TIR_KIND_Allocate:
      return sink_allocate(c, s, err);
    default:
      return sink_or_leaf(c, s, err);
  }
}

void* tvm_tir__sched_sink(const sched_sink* k, const void* body, bool* out_error) {
  sink_ctx c = {k, NULL};
  *out_error = false;
  void* r = sink(&c, body, out_error);
  tvm_ffi_release(c.exp);
  return r;
}
