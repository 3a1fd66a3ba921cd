/* schedule_epilogue.c: rule epilogue of the default schedule (tvm/tir/schedule.h).
 *
 *   P: ...                                   P: ...
 *      for i0, i1 (nest N):                     for i0, i1 (nest N):
 *        T[idx] = v                     ->        O[oidx] = g(v, B[..])
 *   C: for j0, j1 (same extents, kinds):
 *        O[oidx'] = g(T[idx'], B[..])
 *
 * A reverse-compute-inline of an elementwise epilogue: in a sequence, an item P whose last
 * statement (through Allocate, DeclBuffer and the last item of sequences) is a perfect loop nest
 * N writing an intermediate T (allocated by the function) once per iteration, followed by an
 * item C that is a perfect loop nest of the same shape (constant mins and extents, kinds
 * equal, none parallel or thread-bound) with one store whose loads of T, once C's loop
 * variables are renamed to N's, are all at N's index idx: C's store replaces N's, with v in
 * place of those loads, and C goes. Conditions that keep the values the same:
 * every store of T in the function is the N of such a pair (P, C) and every load of T is in
 * their Cs (a first pass counts the pairs: a vectorized row of 56 has a main part and a tail,
 * each with its write-back and epilogue); idx is injective over N (each index c * i + e with
 * one distinct loop variable, e free of N's variables), so the value C read at idx is the one
 * N wrote there; P stores only T and buffers it allocates, and does
 * not touch O, so running C's iterations interleaved with P's changes nothing they read. T,
 * no longer accessed, is then not allocated. The dense layer's matmul result thus goes from
 * its accumulators through the bias add and activation to the output, with no temporary. */
#include <stdlib.h>
#include <string.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_epilogue";

#define MAX_DEPTH 8

/* An intermediate T with the (N, C) pairs that may be inlined: their count and C's loads of T
 * (the first pass), and how many were (the second). */
typedef struct {
  const void* data;
  int64_t pairs, loads, done;
} epi_tally;

typedef struct {
  tvm_tir_mutator m;
  const tvm_tir_prim_func_obj* f;
  sched_scan fs;    /* the function's body */
  bool dry;         /* the first pass: pairs counted, nothing rewritten */
  epi_tally* tally; /* per intermediate */
  int64_t ntally, cap_tally;
} epi_ctx;

static epi_tally* find_tally(const epi_ctx* c, const void* data) {
  for (int64_t i = 0; i < c->ntally; ++i)
    if (c->tally[i].data == data) return &c->tally[i];
  return NULL;
}

/* A perfect loop nest: loops[0..depth) down to a BufferStore. */
typedef struct {
  const tvm_tir_for_obj* loops[MAX_DEPTH];
  int depth;
  const tvm_tir_buffer_store_obj* store;
} nest;

static bool get_nest(const void* s, nest* n) {
  n->depth = 0;
  while (TIR_IS(s, For)) {
    const tvm_tir_for_obj* l = s;
    if (n->depth == MAX_DEPTH || l->thread_binding) return false;
    if (l->kind != TVM_TIR_FOR_SERIAL && l->kind != TVM_TIR_FOR_UNROLLED &&
        l->kind != TVM_TIR_FOR_VECTORIZED)
      return false;
    n->loops[n->depth++] = l;
    s = l->body;
  }
  if (n->depth == 0 || !TIR_IS(s, BufferStore)) return false;
  n->store = s;
  return true;
}

/* The last statement of p (through Allocate, DeclBuffer, last items of sequences). */
static const void* last_stmt(const void* p) {
  for (;;) {
    if (TIR_IS(p, Allocate)) {
      p = ((const tvm_tir_allocate_obj*)p)->body;
    } else if (TIR_IS(p, DeclBuffer)) {
      p = ((const tvm_tir_decl_buffer_obj*)p)->body;
    } else if (TIR_IS(p, SeqStmt)) {
      const void* seq = ((const tvm_tir_seq_stmt_obj*)p)->seq;
      int64_t n = tvm_ffi_seq_size(seq);
      if (n == 0) return NULL;
      p = tvm_ffi_seq_obj_at(seq, n - 1);
    } else {
      return p;
    }
  }
}

/* p with its last statement (old) replaced by repl (a new reference, or NULL + error). */
static void* replace_last(const void* p, const void* old, const void* repl) {
  if (p == old) return tvm_tir_ref((void*)repl);
  if (TIR_IS(p, Allocate)) {
    const tvm_tir_allocate_obj* a = p;
    tvm_tir_stmt_obj* body = replace_last(a->body, old, repl);
    if (!body) return NULL;
    void* r = tvm_tir_allocate_new(a->buffer_var, a->dtype, a->extents, a->condition, body,
                                   a->annotations);
    tvm_ffi_release(body);
    return r;
  }
  if (TIR_IS(p, DeclBuffer)) {
    const tvm_tir_decl_buffer_obj* d = p;
    tvm_tir_stmt_obj* body = replace_last(d->body, old, repl);
    if (!body) return NULL;
    void* r = tvm_tir_decl_buffer_new(d->buffer, body);
    tvm_ffi_release(body);
    return r;
  }
  /* a SeqStmt (last_stmt found old through it) */
  const void* seq = ((const tvm_tir_seq_stmt_obj*)p)->seq;
  int64_t n = tvm_ffi_seq_size(seq);
  void* last = replace_last(tvm_ffi_seq_obj_at(seq, n - 1), old, repl);
  void* list = last ? tvm_ffi_list_new() : NULL;
  bool ok = list != NULL;
  for (int64_t i = 0; i < n && ok; ++i) {
    TVMFFIAny v = tvm_ffi_any_obj(i == n - 1 ? last : (void*)tvm_ffi_seq_obj_at(seq, i));
    ok = tvm_ffi_list_push(list, &v) == 0;
  }
  tvm_ffi_release(last);
  void* arr = ok ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  void* r = arr ? tvm_tir_seq_stmt_new(arr) : NULL;
  tvm_ffi_release(arr);
  return r;
}

/* Whether indices are injective over the nest's loop variables (see above). */
static bool injective(const void* indices, const nest* n) {
  bool used[MAX_DEPTH] = {0};
  for (int64_t d = 0; d < tvm_ffi_seq_size(indices); ++d) {
    const tvm_tir_expr_obj* e = tvm_ffi_seq_obj_at(indices, d);
    int found = -1;
    for (int l = 0; l < n->depth; ++l) {
      int64_t c;
      if (!tvm_tir__sched_lin_coef(e, n->loops[l]->loop_var, &c)) return false;
      if (c == 0) continue;
      if (found >= 0 || used[l]) return false;
      found = l;
    }
    if (found >= 0) used[found] = true;
  }
  for (int l = 0; l < n->depth; ++l) {
    int64_t ext;
    /* a loop of one iteration needs no index */
    if (!used[l] && !(tvm_tir__sched_const(n->loops[l]->extent, &ext) && ext == 1)) return false;
  }
  return true;
}

/* Loads of T: every one at idx (else *bad), replaced by v when v is set. */
typedef struct {
  tvm_tir_mutator m;
  const void* data;
  const void* idx;
  const tvm_tir_expr_obj* v;
  int64_t count;
  bool bad;
} t_loads;

static void* swap_load(tvm_tir_mutator* m, const void* node) {
  t_loads* t = (t_loads*)m;
  const tvm_tir_buffer_load_obj* l = node;
  if (l->buffer->data != t->data) return tvm_tir_ref((void*)node);
  ++t->count;
  if (!tvm_tir__sched_same_indices(l->indices, t->idx)) t->bad = true;
  return tvm_tir_ref((void*)(t->v ? (const void*)t->v : node));
}

static void* map_loads(t_loads* t, const void* e) {
  memset(&t->m, 0, sizeof(t->m));
  t->m.post[TVM_TIR_KIND_BufferLoad] = swap_load;
  return tvm_tir_mutate(&t->m, e);
}

/* Accesses to data in the scan: loads and stores counted. */
static void count_access(const sched_scan* s, const void* data, int64_t* loads, int64_t* stores) {
  *loads = *stores = 0;
  for (int64_t i = 0; i < s->nacc; ++i) {
    if (s->acc[i].buffer->data != data) continue;
    if (s->acc[i].store)
      ++*stores;
    else
      ++*loads;
  }
}

/* The inlined store for P, C (a new reference), NULL when the rule does not apply; *err on
 * error. */
static void* try_inline(epi_ctx* c, const void* p, const void* cn, const void** out_last,
                        int64_t* out_loads, bool* err) {
  *err = false;
  const void* last = last_stmt(p);
  nest w, e;
  if (!last || !get_nest(last, &w) || !TIR_IS(cn, For) || !get_nest(cn, &e)) return NULL;
  if (w.depth != e.depth) return NULL;
  for (int l = 0; l < w.depth; ++l) {
    int64_t a, b, x, y;
    if (!tvm_tir__sched_const(w.loops[l]->min, &a) || !tvm_tir__sched_const(e.loops[l]->min, &b) ||
        !tvm_tir__sched_const(w.loops[l]->extent, &x) ||
        !tvm_tir__sched_const(e.loops[l]->extent, &y) || a != b || x != y ||
        w.loops[l]->kind != e.loops[l]->kind)
      return NULL;
  }
  const tvm_tir_buffer_obj* tb = w.store->buffer;
  const void* tdata = tb->data;
  const void* odata = e.store->buffer->data;
  if (odata == tdata || !tvm_tir__sched_allocated(&c->fs, tdata)) return NULL;
  if (!injective(w.store->indices, &w)) return NULL;
  int64_t fl, fs;
  count_access(&c->fs, tdata, &fl, &fs);
  /* every store of T is an N followed by its C, and the Cs hold every load of T (the first
   * pass counted them): each C then reads only what its N wrote */
  const epi_tally* tl0 = c->dry ? NULL : find_tally(c, tdata);
  if (!c->dry && (!tl0 || tl0->pairs != fs || tl0->loads != fl)) return NULL;
  /* P: stores only T and its own buffers, touches neither O; C: its one store to O */
  sched_scan ps = {0}, cs = {0};
  void* out = NULL;
  if (tvm_tir__sched_scan(p, &ps) != 0 || tvm_tir__sched_scan(cn, &cs) != 0) {
    *err = true;
    goto done;
  }
  if (ps.unsafe || cs.unsafe) goto done;
  for (int64_t i = 0; i < ps.nacc; ++i) {
    const sched_access* a = &ps.acc[i];
    if (a->buffer->data == odata) goto done;
    if (a->store && a->buffer->data != tdata && !tvm_tir__sched_allocated(&ps, a->buffer->data))
      goto done;
  }
  int64_t cl, cst, pl, pst;
  count_access(&cs, tdata, &cl, &cst);
  count_access(&ps, tdata, &pl, &pst);
  if (cst != 0 || pl != 0 || cl == 0) goto done;
  {
    /* v reads only P's own buffers and parameters (no other intermediate, whose access counts
     * copies of v would change) */
    sched_scan vs = {0};
    if (tvm_tir__sched_scan(w.store, &vs) != 0) {
      *err = true;
      goto done;
    }
    bool foreign = false;
    for (int64_t i = 0; i < vs.nacc && !foreign; ++i) {
      const void* d = vs.acc[i].buffer->data;
      foreign = !vs.acc[i].store && tvm_tir__sched_allocated(&c->fs, d) &&
                !tvm_tir__sched_allocated(&ps, d);
    }
    tvm_tir__sched_scan_free(&vs);
    if (foreign) goto done;
  }
  for (int64_t i = 0; i < cs.nacc; ++i)
    if (cs.acc[i].store && cs.acc[i].buffer->data != odata) goto done;
  {
    /* C's store with its loop variables renamed to N's */
    tvm_tir_subst s;
    if (tvm_tir_subst_init(&s, false) != 0) {
      *err = true;
      goto done;
    }
    bool ok = true;
    for (int l = 0; l < w.depth && ok; ++l)
      ok = tvm_tir_subst_set_var(&s, e.loops[l]->loop_var, w.loops[l]->loop_var) == 0;
    void* st = ok ? tvm_tir_subst_apply(&s, e.store) : NULL;
    tvm_tir_subst_free(&s);
    if (!st) {
      *err = true;
      goto done;
    }
    const tvm_tir_buffer_store_obj* so = st;
    t_loads tl = {{{0}}, tdata, w.store->indices, NULL, 0, false};
    void* chk = map_loads(&tl, so->indices); /* O's indices must not read T */
    bool idx_reads = tl.count != 0;
    tvm_ffi_release(chk);
    if (!chk) {
      *err = true;
    } else if (!idx_reads) {
      t_loads tv = {{{0}}, tdata, w.store->indices, w.store->value, 0, false};
      void* val = map_loads(&tv, so->value);
      if (!val) {
        *err = true;
      } else if (!tv.bad && tv.count == cl) {
        out = tvm_tir_buffer_store_new(so->buffer, val, so->indices);
        if (!out) *err = true;
        *out_last = w.store;
        *out_loads = cl;
      }
      tvm_ffi_release(val);
    }
    tvm_ffi_release(st);
  }
done:
  tvm_tir__sched_scan_free(&ps);
  tvm_tir__sched_scan_free(&cs);
  return out;
}

/* Rebuild the nest of `last` (a perfect nest ending at store old) with store repl. */
static void* rebuild_nest(const void* s, const void* old, const void* repl) {
  if (s == old) return tvm_tir_ref((void*)repl);
  const tvm_tir_for_obj* l = s;
  tvm_tir_stmt_obj* body = rebuild_nest(l->body, old, repl);
  if (!body) return NULL;
  void* r = tvm_tir_for_new(l->loop_var, l->min, l->extent, l->kind, body, l->thread_binding,
                            l->annotations);
  tvm_ffi_release(body);
  return r;
}

static void* epi_seq(tvm_tir_mutator* m, const void* node) {
  epi_ctx* c = (epi_ctx*)m;
  const void* seq = ((const tvm_tir_seq_stmt_obj*)node)->seq;
  int64_t n = tvm_ffi_seq_size(seq);
  void* list = tvm_ffi_list_new();
  if (!list) return NULL;
  bool changed = false, failed = false;
  for (int64_t i = 0; i < n && !failed; ++i) {
    const void* p = tvm_ffi_seq_obj_at(seq, i);
    void* item = NULL;
    if (i + 1 < n) {
      const void* old = NULL;
      int64_t loads = 0;
      bool err;
      void* store = try_inline(c, p, tvm_ffi_seq_obj_at(seq, i + 1), &old, &loads, &err);
      if (err) {
        failed = true;
        break;
      }
      const void* tdata = store ? ((const tvm_tir_buffer_store_obj*)old)->buffer->data : NULL;
      epi_tally* tl = store ? find_tally(c, tdata) : NULL;
      if (store && !tl) {
        if (c->ntally == c->cap_tally) {
          int64_t cap = c->cap_tally ? 2 * c->cap_tally : 4;
          epi_tally* g = realloc(c->tally, (size_t)cap * sizeof(*g));
          if (!g) {
            tvm_ffi_release(store);
            tvm_ffi_raise("MemoryError", "schedule_epilogue: out of memory");
            failed = true;
            break;
          }
          c->tally = g;
          c->cap_tally = cap;
        }
        tl = &c->tally[c->ntally++];
        *tl = (epi_tally){tdata, 0, 0, 0};
      }
      if (store && c->dry) { /* counted only */
        tvm_ffi_release(store);
        tl->pairs++;
        tl->loads += loads;
        ++i;
      } else if (store) {
        const void* last = last_stmt(p);
        void* nn = rebuild_nest(last, old, store);
        tvm_ffi_release(store);
        item = nn ? replace_last(p, last, nn) : NULL;
        tvm_ffi_release(nn);
        if (!item) {
          failed = true;
          break;
        }
        tl->done++;
        changed = true;
        ++i; /* C is gone */
      }
    }
    if (!item) item = tvm_tir_ref((void*)p);
    TVMFFIAny v = tvm_ffi_any_obj(item);
    if (tvm_ffi_list_push(list, &v) != 0) failed = true;
    tvm_ffi_release(item);
  }
  void* r = NULL;
  if (!failed && !changed) {
    r = tvm_tir_ref((void*)node);
  } else if (!failed) {
    if (tvm_ffi_seq_size(list) == 1) {
      r = tvm_tir_ref((void*)tvm_ffi_seq_obj_at(list, 0));
    } else {
      void* arr = tvm_ffi_list_to_array(list);
      r = arr ? tvm_tir_seq_stmt_new(arr) : NULL;
      tvm_ffi_release(arr);
    }
  }
  tvm_ffi_release(list);
  return r;
}

/* The allocations of the intermediates whose every pair was inlined dropped. */
static bool is_inlined(const epi_ctx* c, const void* data) {
  const epi_tally* t = find_tally(c, data);
  return t && t->done > 0 && t->done == t->pairs;
}

static void* drop_alloc(tvm_tir_mutator* m, const void* node) {
  epi_ctx* c = m->ctx;
  if (is_inlined(c, ((const tvm_tir_allocate_obj*)node)->buffer_var))
    return tvm_tir_mutate(m, ((const tvm_tir_allocate_obj*)node)->body);
  return tvm_tir_mutate_children(m, node);
}

static void* drop_decl(tvm_tir_mutator* m, const void* node) {
  epi_ctx* c = m->ctx;
  if (is_inlined(c, ((const tvm_tir_decl_buffer_obj*)node)->buffer->data))
    return tvm_tir_mutate(m, ((const tvm_tir_decl_buffer_obj*)node)->body);
  return tvm_tir_mutate_children(m, node);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  epi_ctx c = {{{0}}, f, {0}, true, NULL, 0, 0};
  if (tvm_tir__sched_scan(f->body, &c.fs) != 0) return NULL;
  c.m.post[TVM_TIR_KIND_SeqStmt] = epi_seq;
  void* body = tvm_tir_mutate(&c.m, f->body); /* the first pass: counts */
  tvm_ffi_release(body);
  c.dry = false;
  body = body ? tvm_tir_mutate(&c.m, f->body) : NULL;
  tvm_tir__sched_scan_free(&c.fs);
  bool any = false;
  for (int64_t i = 0; i < c.ntally; ++i) any |= is_inlined(&c, c.tally[i].data);
  if (body && any) {
    tvm_tir_mutator d = {{0}};
    d.pre[TVM_TIR_KIND_Allocate] = drop_alloc;
    d.pre[TVM_TIR_KIND_DeclBuffer] = drop_decl;
    d.ctx = &c;
    void* b2 = tvm_tir_mutate(&d, body);
    tvm_ffi_release(body);
    body = b2;
  }
  free(c.tally);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_schedule_epilogue(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  (void)t;
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
