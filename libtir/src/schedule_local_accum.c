/* schedule_local_accum.c: rule local_accum of the default schedule (tvm/tir/schedule.h).
 *
 *   O[idx] = init                          acc = local [1]
 *   for k ...:                      ->     acc[0] = init
 *     O[idx] = O[idx] + A[.., k] * ...     for k ...: acc[0] = acc[0] + A[.., k] * ...
 *                                          O[idx] = acc[0]
 *
 * A loop R (in a sequence) accumulates into a parameter buffer O, or a buffer the function
 * allocates outside R (the matmul result of a fused kernel, read by its epilogue; accessed in R
 * through one buffer), when every access to O in R is
 * at one index tuple idx that no variable bound in R enters, and R both reads and writes it.
 * The store just before R at the same idx (an init not reading O) is folded into acc's first
 * value; otherwise acc starts as O[idx]. The values computed are the same operations in the
 * same order; only where the partial sums live changes. A loop that is no item of a sequence
 * (the reduction of a block, its init `if k == 0: O[idx] = 0` inside) starts acc as O[idx]. */
#include <stdio.h>
#include <string.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_local_accum";

typedef struct {
  tvm_tir_mutator m;
  const tvm_tir_prim_func_obj* f;
  sched_scan fs; /* the function's body: its allocations */
} accum_ctx;

/* Whether data is the data Var of one of f's parameter buffers. */
static bool param_data(const tvm_tir_prim_func_obj* f, const void* data) {
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; (pos = tvm_ffi_map_next(f->buffer_map, pos, &k, &v)) >= 0;) {
    if (((const tvm_tir_buffer_obj*)v->v_obj)->data == data) return true;
  }
  return false;
}

/* Whether b (allocated by the function) is an intermediate tensor rather than a scratch that
 * already is what acc would be: not "local", more than one element. */
static bool intermediate(const tvm_tir_buffer_obj* b) {
  if (strcmp(tvm_tir_buffer_scope(b), "local") == 0) return false;
  int64_t n = 1, d;
  for (int64_t i = 0; i < tvm_ffi_seq_size(b->shape); ++i) {
    if (!tvm_tir__sched_const(tvm_ffi_seq_obj_at(b->shape, i), &d)) return true;
    n *= d;
  }
  return n > 1;
}

typedef struct {
  tvm_tir_visitor v;
  const sched_scan* s;
  bool bound_inside;
} inner_var_finder;

static int find_inner(tvm_tir_visitor* v, const void* node) {
  inner_var_finder* f = (inner_var_finder*)v;
  if (tvm_tir__sched_bound(f->s, node)) f->bound_inside = true;
  return 0;
}

/* Whether indices use a variable bound in the scanned statement (1 / 0, -1 + error). */
static int uses_inner(const void* indices, const sched_scan* s) {
  inner_var_finder f = {{{0}}, s, false};
  f.v.pre[TVM_TIR_KIND_Var] = find_inner;
  int rc = tvm_tir_visit(&f.v, indices);
  tvm_tir_visitor_free(&f.v);
  return rc < 0 ? -1 : f.bound_inside;
}

/* The accumulated access of R: *out (borrowed from R), or NULL. 0, or -1 + error. */
static int find_accumulator(accum_ctx* c, const tvm_tir_for_obj* r, const sched_access** out,
                            sched_scan* s) {
  *out = NULL;
  if (tvm_tir__sched_scan(r, s) != 0) return -1;
  if (s->unsafe || s->non_serial) return 0;
  for (int64_t i = 0; i < s->nacc && !*out; ++i) {
    const sched_access* a = &s->acc[i];
    if (!a->store || tvm_tir__sched_allocated(s, a->buffer->data)) continue;
    /* a parameter, or an intermediate the function allocates outside R (a fused kernel's
     * matmul result before its epilogue), accessed in R through this one buffer */
    bool param = param_data(c->f, a->buffer->data);
    if (!param && (!tvm_tir__sched_allocated(&c->fs, a->buffer->data) || !intermediate(a->buffer)))
      continue;
    bool loaded = false, same = true;
    for (int64_t j = 0; j < s->nacc && same; ++j) {
      if (s->acc[j].buffer->data != a->buffer->data) continue;
      same = tvm_tir__sched_same_indices(a->indices, s->acc[j].indices) &&
             (param || s->acc[j].buffer == a->buffer);
      loaded |= !s->acc[j].store;
    }
    if (!same || !loaded) continue;
    int u = uses_inner(a->indices, s);
    if (u < 0) return -1;
    if (!u) *out = a;
  }
  return 0;
}

/* R with every access to data replaced by acc[0]. */
typedef struct {
  tvm_tir_mutator m;
  const void* data;
  tvm_tir_buffer_obj* acc;
} redirect;

static void* zero_index(void) { return tvm_tir_list_take(tvm_tir_i64(0)); }

static void* redirect_load(tvm_tir_mutator* m, const void* node) {
  redirect* r = (redirect*)m;
  const tvm_tir_buffer_load_obj* l = node;
  if (l->buffer->data != r->data) return tvm_tir_ref((void*)node);
  void* ind = zero_index();
  void* out = ind ? tvm_tir_buffer_load_new(r->acc, ind) : NULL;
  tvm_ffi_release(ind);
  return out;
}

static void* redirect_store(tvm_tir_mutator* m, const void* node) {
  redirect* r = (redirect*)m;
  const tvm_tir_buffer_store_obj* s = node;
  if (s->buffer->data != r->data) return tvm_tir_ref((void*)node);
  void* ind = zero_index();
  void* out = ind ? tvm_tir_buffer_store_new(r->acc, s->value, ind) : NULL;
  tvm_ffi_release(ind);
  return out;
}

static int loads_data(tvm_tir_visitor* v, const void* node) {
  redirect* r = v->ctx;
  if (((const tvm_tir_buffer_load_obj*)node)->buffer->data == r->data) {
    r->data = NULL; /* found: no longer matches anything */
    return TVM_TIR_VISIT_SKIP;
  }
  return 0;
}

/* Whether expression e reads data (1 / 0, -1 + error). */
static int reads(const void* e, const void* data) {
  redirect r = {{{0}}, data, NULL};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_BufferLoad] = loads_data;
  v.ctx = &r;
  int rc = tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  return rc < 0 ? -1 : r.data == NULL;
}

/* acc = local[1]; acc[0] = init; R'; O[idx] = acc[0]. init is consumed. */
static void* rewrite(const tvm_tir_for_obj* r, const sched_access* a, void* init) {
  const tvm_tir_buffer_obj* o = a->buffer;
  char name[96];
  snprintf(name, sizeof(name), "%s_acc", tvm_tir_buffer_name(o));
  tvm_tir_buffer_obj* acc =
      tvm_tir_buffer_decl_takev(name, o->dtype, 1, (void*[]){tvm_tir_i64(1)}, "local");
  if (!acc) {
    tvm_ffi_release(init);
    return NULL;
  }
  redirect rd = {{{0}}, o->data, acc};
  rd.m.post[TVM_TIR_KIND_BufferLoad] = redirect_load;
  rd.m.post[TVM_TIR_KIND_BufferStore] = redirect_store;
  void* body = tvm_tir_mutate(&rd.m, r);
  void* first = tvm_tir_store_take(tvm_tir_ref(acc), init, tvm_tir_i64(0));
  tvm_tir_expr_obj* val = tvm_tir_load_take(tvm_tir_ref(acc), tvm_tir_i64(0));
  void* last = val ? tvm_tir_buffer_store_new((tvm_tir_buffer_obj*)o, val, (void*)a->indices) : NULL;
  tvm_ffi_release(val);
  void* seq = tvm_tir_seq_take(first, body, last);
  void* out = tvm_tir_allocate_takev(tvm_tir_ref(acc->data), acc->dtype, 1,
                                     (void*[]){tvm_tir_i64(1)},
                                     tvm_tir_decl_buffer_take(tvm_tir_ref(acc), seq));
  tvm_ffi_release(acc);
  return out;
}

static int declares(tvm_tir_visitor* v, const void* node) {
  redirect* r = v->ctx;
  if ((const void*)((const tvm_tir_decl_buffer_obj*)node)->buffer == r->data) {
    r->data = NULL; /* found */
    return TVM_TIR_VISIT_SKIP;
  }
  return 0;
}

/* Whether loop r declares buffer b inside (a T.decl_buffer, such as a lowered match_buffer
 * view of the output): then O[idx] cannot be named before and after the loop, and the
 * accumulation stays as written (1 / 0, -1 + error). */
static int declared_inside(const void* r, const tvm_tir_buffer_obj* b) {
  redirect rd = {{{0}}, b, NULL};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_DeclBuffer] = declares;
  v.ctx = &rd;
  int rc = tvm_tir_visit(&v, r);
  tvm_tir_visitor_free(&v);
  return rc < 0 ? -1 : rd.data == NULL;
}

/* Whether s is `O[idx] = v` at the access a (same buffer data, same indices) with v not reading
 * O: the init of the accumulation. 1 / 0, -1 + error. */
static int is_init(const void* s, const sched_access* a) {
  if (!TIR_IS(s, BufferStore)) return 0;
  const tvm_tir_buffer_store_obj* st = s;
  if (st->buffer->data != a->buffer->data || !tvm_tir__sched_same_indices(st->indices, a->indices))
    return 0;
  int rd = reads(st->value, a->buffer->data);
  return rd < 0 ? -1 : !rd;
}

static void* accum_seq(tvm_tir_mutator* m, const void* node) {
  accum_ctx* c = (accum_ctx*)m;
  const tvm_tir_seq_stmt_obj* seq = node;
  int64_t n = tvm_ffi_seq_size(seq->seq);
  void* out = tvm_ffi_list_new();
  bool changed = false, failed = !out;
  for (int64_t i = 0; i < n && !failed; ++i) {
    const void* s = tvm_ffi_seq_obj_at(seq->seq, i);
    const sched_access* a = NULL;
    sched_scan sc = {0};
    if (TIR_IS(s, For) && ((const tvm_tir_for_obj*)s)->kind == TVM_TIR_FOR_SERIAL &&
        find_accumulator(c, s, &a, &sc) != 0) {
      failed = true;
      break;
    }
    int inside = a ? declared_inside(s, a->buffer) : 0;
    if (inside < 0) {
      tvm_tir__sched_scan_free(&sc);
      failed = true;
      break;
    }
    if (inside) a = NULL;
    void* item = NULL;
    if (!a) {
      /* not an accumulation itself: look inside */
      item = tvm_tir_mutate(m, s);
      failed |= !item;
      changed |= item && item != s;
    } else {
      int64_t len = tvm_ffi_seq_size(out);
      const void* prev = len > 0 ? tvm_ffi_seq_obj_at(out, len - 1) : NULL;
      int init = prev ? is_init(prev, a) : 0;
      void* first = NULL;
      if (init < 0) {
        failed = true;
      } else if (init) {
        first = tvm_tir_ref(((const tvm_tir_buffer_store_obj*)prev)->value);
        TVMFFIAny popped;
        if (tvm_ffi_list_pop(out, &popped) == 0) tvm_ffi_any_release(&popped);
      } else {
        first = tvm_tir_buffer_load_new((tvm_tir_buffer_obj*)a->buffer, (void*)a->indices);
      }
      item = first ? rewrite(s, a, first) : NULL;
      failed |= !item;
      changed = true;
    }
    tvm_tir__sched_scan_free(&sc);
    TVMFFIAny v = tvm_ffi_any_obj(item);
    if (item && tvm_ffi_list_push(out, &v) != 0) failed = true;
    tvm_ffi_release(item);
  }
  void* r = NULL;
  if (!failed && !changed) {
    r = tvm_tir_ref((void*)node);
  } else if (!failed) {
    void* arr = tvm_ffi_list_to_array(out);
    r = arr ? tvm_tir_seq_stmt_new(arr) : NULL;
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(out);
  return r;
}

/* A loop that is not an item of a sequence (the body of another loop: a block's reduction
 * lowered with its init inside, `if k == 0: O[idx] = 0`): acc starts as O[idx]. */
static void* accum_for(tvm_tir_mutator* m, const void* node) {
  accum_ctx* c = (accum_ctx*)m;
  const tvm_tir_for_obj* r = node;
  const sched_access* a = NULL;
  sched_scan sc = {0};
  if (r->kind == TVM_TIR_FOR_SERIAL && find_accumulator(c, r, &a, &sc) != 0) return NULL;
  int inside = a ? declared_inside(r, a->buffer) : 0;
  if (inside < 0) {
    tvm_tir__sched_scan_free(&sc);
    return NULL;
  }
  if (inside) a = NULL;
  void* out;
  if (a) {
    void* first = tvm_tir_buffer_load_new((tvm_tir_buffer_obj*)a->buffer, (void*)a->indices);
    out = first ? rewrite(r, a, first) : NULL;
  } else {
    out = tvm_tir_mutate_children(m, node);
  }
  tvm_tir__sched_scan_free(&sc);
  return out;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  accum_ctx c = {{{0}}, f, {0}};
  if (tvm_tir__sched_scan(f->body, &c.fs) != 0) return NULL;
  c.m.pre[TVM_TIR_KIND_SeqStmt] = accum_seq; /* outermost accumulations first */
  c.m.pre[TVM_TIR_KIND_For] = accum_for;
  void* body = tvm_tir_mutate(&c.m, f->body);
  tvm_tir__sched_scan_free(&c.fs);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_schedule_local_accum(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  (void)t;
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
