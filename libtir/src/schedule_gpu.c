/* schedule_gpu.c: the default GPU schedule (tvm_tir_schedule_gpu, tvm/tir/schedule.h), upstream's
 * DefaultGPUSchedule for kernels nobody scheduled (a Relax model's legalized and fused kernels).
 *
 * After lower_init, convert_blocks and simplify (as the CPU schedule), each top-level loop nest
 * of the body (through sequences, DeclBuffers and LetStmts) becomes one GPU launch:
 *
 *   for i in [0, A):                  for bx in T.thread_binding(ceildiv(A * B, t), "blockIdx.x"):
 *     for j in [0, B):         ->       for tx in T.thread_binding(t, "threadIdx.x"):
 *       body                              if bx * t + tx < A * B:      (unless t divides A * B)
 *                                           body[i := g // B, j := g % B]   g = bx * t + tx
 *
 * where i, j, ... are the outermost perfectly nested independent serial loops (schedule.h's
 * vocabulary: distinct iterations write distinct elements), t = min(max_threads, A * B) for a
 * constant product, else max_threads. Inner loops (a reduction's) stay serial in each thread:
 * upstream's simple form for reductions. A nest whose outer loop is not independent (a reduction
 * to one element) and a statement that is not a loop run in a launch of one block of one thread.
 * A body that allocates intermediate buffers (a fused kernel, softmax's max and sum) at the top:
 * the allocations, made "local", and everything under them run in one launch of one thread
 * (exact, slow: no parallel form for these yet). Functions marked "tir.is_scheduled" or
 * "tir.is_host_func", holding a non-serial loop (scheduled by hand), a break / continue, or
 * no buffer parameters are left as written.
 *
 * The result is ordinary TIR: the interpreter runs the bound loops as loops, so a scheduled
 * kernel is checked against the original on the CPU.
 */
#include <string.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_gpu";
static _Thread_local int64_t t_threads;

enum { MAX_CHAIN = 8 };

/* A thread-bound loop over a new Var `name` of dtype dt, extent ext (consumed); body consumed. */
static void* bound_loop(const char* name, const char* tag, DLDataType dt, tvm_tir_var_obj* v,
                        void* ext, void* body) {
  tvm_tir_var_obj* iter = tvm_tir_var_new("iter", dt);
  tvm_tir_iter_var_obj* iv =
      iter ? tvm_tir_iter_var_new(NULL, iter, TVM_TIR_ITER_THREAD_INDEX, tag) : NULL;
  tvm_tir_expr_obj* zero = tvm_tir_const(dt, 0);
  void* r = NULL;
  if (iv && zero && ext && body)
    r = tvm_tir_for_new(v, zero, ext, TVM_TIR_FOR_THREAD_BINDING, body, iv, NULL);
  (void)name;
  tvm_ffi_release(iter);
  tvm_ffi_release(iv);
  tvm_ffi_release(zero);
  tvm_ffi_release(ext);
  tvm_ffi_release(body);
  return r;
}

static void* localize(const tvm_tir_allocate_obj* a);

static void* localize_post(tvm_tir_mutator* m, const void* node) {
  (void)m;
  return localize(node);
}

/* blockIdx.x over nblocks, threadIdx.x over nthreads (both consumed), around body (consumed);
 * bx and tx borrowed. The body's allocations of global scope (a reduction's accumulator, one
 * per iteration) become "local": one per thread, as each iteration had its own. */
static void* launch(DLDataType dt, tvm_tir_var_obj* bx, tvm_tir_var_obj* tx, void* nblocks,
                    void* nthreads, void* body) {
  if (body) {
    tvm_tir_mutator mu = {0};
    mu.post[TVM_TIR_KIND_Allocate] = localize_post;
    void* b = tvm_tir_mutate(&mu, body);
    tvm_ffi_release(body);
    body = b;
  }
  void* inner = bound_loop("tx", "threadIdx.x", dt, tx, nthreads, body);
  if (!inner) {
    tvm_ffi_release(nblocks);
    return NULL;
  }
  return bound_loop("bx", "blockIdx.x", dt, bx, nblocks, inner);
}

/* stmt (borrowed) in a launch of one block of one thread. */
static void* single_thread(const void* stmt) {
  DLDataType dt = TVM_TIR_INT32;
  tvm_tir_var_obj* bx = tvm_tir_var_new("bx", dt);
  tvm_tir_var_obj* tx = tvm_tir_var_new("tx", dt);
  void* r = bx && tx ? launch(dt, bx, tx, tvm_tir_const(dt, 1), tvm_tir_const(dt, 1),
                              tvm_tir_ref((void*)stmt))
                     : NULL;
  RELEASE2(bx, tx);
  return r;
}

/* The chain of the outermost perfectly nested independent serial loops of f into chain. */
static int find_chain(const tvm_tir_for_obj* f, const tvm_tir_for_obj** chain) {
  int n = 0;
  for (const tvm_tir_for_obj* l = f; l && n < MAX_CHAIN;) {
    if (l->kind != TVM_TIR_FOR_SERIAL || l->thread_binding) break;
    if (!tvm_tir_dtype_equal(l->loop_var->expr.dtype, f->loop_var->expr.dtype)) break;
    bool dep = false;
    for (int i = 0; i < n && !dep; ++i) {
      int a = tvm_tir__sched_uses_var(l->min, chain[i]->loop_var);
      int b = tvm_tir__sched_uses_var(l->extent, chain[i]->loop_var);
      if (a < 0 || b < 0) return -1;
      dep = a || b;
    }
    if (dep) break;
    int ind = tvm_tir__sched_independent(l);
    if (ind < 0) return -1;
    if (!ind) break;
    chain[n++] = l;
    l = TIR_IS(l->body, For) ? (const tvm_tir_for_obj*)l->body : NULL;
  }
  return n;
}

/* The launch of one top-level nest (a new reference, NULL + error). */
static void* bind_nest(const void* stmt) {
  if (!TIR_IS(stmt, For)) return single_thread(stmt);
  const tvm_tir_for_obj* chain[MAX_CHAIN];
  int n = find_chain(stmt, chain);
  if (n < 0) return NULL;
  if (n == 0) return single_thread(stmt);
  DLDataType dt = chain[0]->loop_var->expr.dtype;
  /* the product of the extents, and the threads per block */
  tvm_tir_expr_obj* total = tvm_tir_ref(chain[0]->extent);
  for (int i = 1; total && i < n; ++i)
    total = tvm_tir_mul_take(total, tvm_tir_ref(chain[i]->extent));
  if (!total) return NULL;
  int64_t ctotal = 0, tt = t_threads;
  bool is_const = tvm_tir__sched_const(total, &ctotal);
  if (is_const && ctotal < tt) tt = ctotal < 1 ? 1 : ctotal;
  bool guard = !is_const || ctotal % tt != 0;
  tvm_tir_var_obj* bx = tvm_tir_var_new("bx", dt);
  tvm_tir_var_obj* tx = tvm_tir_var_new("tx", dt);
  tvm_tir_subst s;
  if (!bx || !tx || tvm_tir_subst_init(&s, false) != 0) {
    RELEASE2(bx, tx);
    tvm_ffi_release(total);
    return NULL;
  }
  int rc = 0;
  /* g = bx * t + tx; loop i's index: (g // prod(extents after i)) % extent_i + min_i */
  tvm_tir_expr_obj* g =
      tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(bx), tvm_tir_const(dt, tt)), tvm_tir_ref(tx));
  tvm_tir_expr_obj* stride = tvm_tir_const(dt, 1);
  for (int i = n - 1; rc == 0 && g && i >= 0; --i) {
    tvm_tir_expr_obj* q = tvm_tir_floordiv_take(tvm_tir_ref(g), tvm_tir_ref(stride));
    if (i > 0) q = tvm_tir_floormod_take(q, tvm_tir_ref(chain[i]->extent));
    q = tvm_tir_add_take(q, tvm_tir_ref(chain[i]->min));
    rc = q ? tvm_tir_subst_set_var(&s, chain[i]->loop_var, q) : -1;
    tvm_ffi_release(q);
    stride = tvm_tir_mul_take(stride, tvm_tir_ref(chain[i]->extent));
    if (!stride) rc = -1;
  }
  void* body = rc == 0 && g ? tvm_tir_subst_apply(&s, chain[n - 1]->body) : NULL;
  tvm_tir_subst_free(&s);
  tvm_ffi_release(stride);
  if (body && guard)
    body = tvm_tir_if_take(tvm_tir_lt_take(tvm_tir_ref(g), tvm_tir_ref(total)), body, NULL);
  tvm_ffi_release(g);
  void* nblocks = NULL;
  if (body) {
    nblocks = is_const ? tvm_tir_const(dt, (ctotal + tt - 1) / tt)
                       : tvm_tir_floordiv_take(
                             tvm_tir_add_take(tvm_tir_ref(total), tvm_tir_const(dt, tt - 1)),
                             tvm_tir_const(dt, tt));
  }
  void* r = body && nblocks ? launch(dt, bx, tx, nblocks, tvm_tir_const(dt, tt), body) : NULL;
  if (!r && body && !nblocks) tvm_ffi_release(body);
  tvm_ffi_release(total);
  RELEASE2(bx, tx);
  return r;
}

/* An Allocate of global scope made "local" (its data Var replaced in the whole statement). */
static void* localize(const tvm_tir_allocate_obj* a) {
  const char* scope = tvm_tir_pointer_type_scope(a->buffer_var->type_annotation);
  if (scope && scope[0] && strcmp(scope, "global") != 0) return tvm_tir_ref((void*)a);
  tvm_tir_pointer_type_obj* pt = tvm_tir_pointer_type_of(a->dtype, "local");
  tvm_tir_var_obj* v = pt ? tvm_tir_var_new_typed_str(a->buffer_var->name_hint, (void*)pt) : NULL;
  tvm_ffi_release(pt);
  tvm_tir_subst s;
  if (!v || tvm_tir_subst_init(&s, false) != 0) {
    tvm_ffi_release(v);
    return NULL;
  }
  void* body = NULL;
  if (tvm_tir_subst_set_var(&s, a->buffer_var, v) == 0) body = tvm_tir_subst_apply(&s, a->body);
  tvm_tir_subst_free(&s);
  void* r = body ? tvm_tir_allocate_new(v, a->dtype, a->extents, a->condition, body, a->annotations)
                 : NULL;
  tvm_ffi_release(body);
  tvm_ffi_release(v);
  return r;
}

/* ---- Fused kernels: nests merged under their common outer loops ------------------------------
 *
 *   T = alloc (A, B)                          for i in [0, A):
 *   for i, j: T[i, j] = f(X[i, j])      ->      for j in [0, B):
 *   for i, j: Y[i, j] = g(T[i, j])                T' = alloc local (1,)
 *                                                 T'[0] = f(X[i, j]); Y[i, j] = g(T'[0])
 *
 * A body of top-level Allocates (a fused kernel's intermediates, softmax's max and sum) over a
 * sequence of loop nests whose first d loops have the same ranges: the nests are merged under
 * one nest of d loops (the others' variables renamed to its), each intermediate that every
 * access indexes by exactly those d variables first becomes a "local" buffer of the remaining
 * dims inside, and the merge stands only when every one of the d loops is independent
 * (tvm_tir__sched_independent: iteration v touches only its own elements of what it writes),
 * which makes running nest 1..k for each v the same as running nest 1 for every v, then nest
 * 2, ... */
typedef struct {
  const tvm_tir_buffer_obj* old[16];
  tvm_tir_buffer_obj* local[16];
  int n, d;
  const tvm_tir_var_obj* const* vars; /* the merged loops' variables, d of them */
  bool failed;                        /* an access not indexed by the d variables */
} localize_ctx;

static int find_local(localize_ctx* c, const tvm_tir_buffer_obj* b) {
  for (int i = 0; i < c->n; ++i)
    if (c->old[i] == b || c->old[i]->data == b->data) return i;
  return -1;
}

/* The indices of an access of an intermediate without the d leading ones ([0] when none is
 * left); NULL (c->failed) when the leading ones are not the merged variables. */
static void* local_indices(localize_ctx* c, void* indices, int64_t* out_n, void** out) {
  int64_t n = tvm_ffi_seq_size(indices);
  if (n < c->d) return c->failed = true, NULL;
  for (int k = 0; k < c->d; ++k) {
    if (tvm_ffi_seq_obj_at(indices, k) != (const void*)c->vars[k]) return c->failed = true, NULL;
  }
  int64_t m = 0;
  for (int64_t k = c->d; k < n; ++k) out[m++] = tvm_tir_ref(tvm_ffi_seq_obj_at(indices, k));
  if (m == 0) out[m++] = tvm_tir_const(tvm_tir_expr_dtype(&c->vars[0]->expr), 0);
  *out_n = m;
  return out;
}

static void* localize_load(tvm_tir_mutator* m, const void* node) {
  localize_ctx* c = m->ctx;
  const tvm_tir_buffer_load_obj* l = node;
  int i = find_local(c, l->buffer);
  if (i < 0) return tvm_tir_ref((void*)node);
  void* idx[16];
  int64_t n = 0;
  if (tvm_ffi_seq_size(l->indices) > 15 || !local_indices(c, l->indices, &n, idx))
    return tvm_tir_ref((void*)node);
  return tvm_tir_load_takev(tvm_tir_ref(c->local[i]), n, idx);
}

static void* localize_store(tvm_tir_mutator* m, const void* node) {
  localize_ctx* c = m->ctx;
  const tvm_tir_buffer_store_obj* st = node;
  int i = find_local(c, st->buffer);
  if (i < 0) return tvm_tir_ref((void*)node);
  void* idx[16];
  int64_t n = 0;
  if (tvm_ffi_seq_size(st->indices) > 15 || !local_indices(c, st->indices, &n, idx))
    return tvm_tir_ref((void*)node);
  return tvm_tir_store_takev(tvm_tir_ref(c->local[i]), tvm_tir_ref(st->value), n, idx);
}

static bool same_expr(const void* a, const void* b) {
  if (a == b) return true;
  int64_t x, y;
  if (tvm_tir__sched_const(a, &x) && tvm_tir__sched_const(b, &y)) return x == y;
  TVMFFIAny l = tvm_ffi_any_obj(a), r = tvm_ffi_any_obj(b);
  int eq = tvm_ffi_structural_equal(&l, &r, false, NULL, NULL);
  if (eq < 0) tvm_ffi_error_clear();
  return eq > 0;
}

/* The nests merged under their first d loops (first: nest 0's), the intermediates made local:
 * a new reference, or NULL with *out_error false when that does not hold. */
static void* try_merge(const void* const* nests, int64_t nn, const tvm_tir_for_obj* const* first,
                       int d, const tvm_tir_buffer_obj* const* bufs, int nb, bool* out_error) {
  *out_error = false;
  for (int i = 0; i < nb; ++i)
    if (tvm_tir_buffer_ndim(bufs[i]) < d || tvm_tir_buffer_ndim(bufs[i]) - d > 15) return NULL;
  void** bodies = tvm_ffi_calloc((size_t)nn, sizeof(void*));
  if (!bodies) return *out_error = true, NULL;
  int64_t k = 0;
  for (; k < nn; ++k) {
    const tvm_tir_for_obj* f = nests[k];
    tvm_tir_subst s;
    if (tvm_tir_subst_init(&s, false) != 0) break;
    int rc = 0;
    for (int e = 0; e < d; ++e) {
      if (k > 0 && rc == 0) rc = tvm_tir_subst_set_var(&s, f->loop_var, first[e]->loop_var);
      if (e < d - 1) f = (const tvm_tir_for_obj*)f->body;
    }
    bodies[k] = rc == 0 ? tvm_tir_subst_apply(&s, f->body) : NULL;
    tvm_tir_subst_free(&s);
    if (!bodies[k]) break;
  }
  if (k < nn) {
    for (int64_t j = 0; j < k; ++j) tvm_ffi_release(bodies[j]);
    tvm_ffi_free(bodies);
    return *out_error = true, NULL;
  }
  void* seq = tvm_tir_seq_takev(nn, bodies);
  tvm_ffi_free(bodies);
  if (!seq) return *out_error = true, NULL;
  /* the intermediates, local to one iteration of the merged loops */
  const tvm_tir_var_obj* vars[MAX_CHAIN];
  for (int e = 0; e < d; ++e) vars[e] = first[e]->loop_var;
  localize_ctx c = {.n = nb, .d = d, .vars = vars};
  int made = 0;
  for (; made < nb; ++made) {
    const tvm_tir_buffer_obj* b = bufs[made];
    void* dims[16];
    int64_t m = 0;
    for (int64_t j = d; j < tvm_tir_buffer_ndim(b); ++j)
      dims[m++] = tvm_tir_ref(tvm_ffi_seq_obj_at(b->shape, j));
    if (m == 0) dims[m++] = tvm_tir_const(tvm_tir_expr_dtype(&vars[0]->expr), 1);
    c.old[made] = b;
    c.local[made] = tvm_tir_buffer_decl_takev(tvm_tir_buffer_name(b), b->dtype, m, dims, "local");
    if (!c.local[made]) break;
  }
  void* body = NULL;
  if (made == nb) {
    tvm_tir_mutator mu = {0};
    mu.post[TVM_TIR_KIND_BufferLoad] = localize_load;
    mu.post[TVM_TIR_KIND_BufferStore] = localize_store;
    mu.ctx = &c;
    body = tvm_tir_mutate(&mu, seq);
  }
  tvm_ffi_release(seq);
  bool error = !body;
  int uses = 0;
  for (int i = 0; body && !c.failed && uses == 0 && i < nb; ++i) {
    uses = tvm_tir__sched_uses_var(body, bufs[i]->data);
    if (uses < 0) error = true;
  }
  void* result = NULL;
  if (!error && !c.failed && uses == 0) {
    /* Allocate (one extent: the element count) + DeclBuffer of each local buffer */
    for (int i = nb - 1; body && i >= 0; --i) {
      tvm_tir_expr_obj* count = NULL;
      for (int64_t j = 0; j < tvm_tir_buffer_ndim(c.local[i]); ++j) {
        void* x = tvm_tir_ref(tvm_ffi_seq_obj_at(c.local[i]->shape, j));
        count = count ? tvm_tir_mul_take(count, x) : x;
      }
      void* decl = tvm_tir_decl_buffer_take(tvm_tir_ref(c.local[i]), body);
      body = decl && count
                 ? tvm_tir_allocate_takev(tvm_tir_ref(c.local[i]->data), c.local[i]->dtype, 1,
                                          (void* const[]){count}, decl)
                 : (tvm_ffi_release(decl), tvm_ffi_release(count), NULL);
    }
    for (int e = d - 1; body && e >= 0; --e) {
      void* f = tvm_tir_for_new(first[e]->loop_var, first[e]->min, first[e]->extent,
                                TVM_TIR_FOR_SERIAL, body, NULL, NULL);
      tvm_ffi_release(body);
      body = f;
    }
    /* valid only when each merged loop is independent */
    const tvm_tir_for_obj* chain[MAX_CHAIN];
    int n = body ? find_chain(body, chain) : -1;
    if (n >= d) {
      result = body;
      body = NULL;
    } else if (n < 0) {
      error = true;
    }
  } else if (!body) {
    body = NULL;
  }
  *out_error = error;
  tvm_ffi_release(body);
  for (int i = 0; i < made; ++i) tvm_ffi_release(c.local[i]);
  if (made < nb) *out_error = true;
  return result;
}

/* The merged statement for the body `inner` under the top-level Allocates of the intermediates
 * bufs (a new reference, the deepest merge that holds), or NULL with *out_error false when no
 * merge holds. */
static void* merge_nests(const tvm_tir_buffer_obj* const* bufs, int nb, const void* inner,
                         bool* out_error) {
  *out_error = false;
  const void* one[1] = {inner};
  const void** nests = one;
  int64_t nn = 1;
  if (TIR_IS(inner, SeqStmt)) {
    const tvm_tir_seq_stmt_obj* q = inner;
    nn = tvm_ffi_seq_size(q->seq);
    if (nn == 0) return NULL;
    nests = tvm_ffi_calloc((size_t)nn, sizeof(void*));
    if (!nests) return *out_error = true, NULL;
    for (int64_t k = 0; k < nn; ++k) nests[k] = tvm_ffi_seq_obj_at(q->seq, k);
  }
  /* the common depth of same-ranged perfectly nested serial loops */
  const tvm_tir_for_obj* first[MAX_CHAIN];
  int d = 0;
  for (const void* l = nests[0]; d < MAX_CHAIN && TIR_IS(l, For);
       l = ((const tvm_tir_for_obj*)l)->body) {
    const tvm_tir_for_obj* f = l;
    if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding) break;
    first[d++] = f;
  }
  for (int64_t k = 1; k < nn && d > 0; ++k) {
    const void* l = nests[k];
    int e = 0;
    for (; e < d && TIR_IS(l, For); ++e, l = ((const tvm_tir_for_obj*)l)->body) {
      const tvm_tir_for_obj* f = l;
      if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding ||
          !tvm_tir_dtype_equal(f->loop_var->expr.dtype, first[e]->loop_var->expr.dtype) ||
          !same_expr(f->min, first[e]->min) || !same_expr(f->extent, first[e]->extent))
        break;
    }
    d = e;
  }
  void* result = NULL;
  for (; d > 0 && !result && !*out_error; --d)
    result = try_merge(nests, nn, first, d, bufs, nb, out_error);
  if (nests != one) tvm_ffi_free(nests);
  return result;
}

/* Top-level Allocates (+ their DeclBuffers) over loop nests: merged (above) and launched, else
 * the whole statement, its allocations made local, in one thread. */
static void* bind_allocs(const void* stmt) {
  const void* allocs[16];
  const tvm_tir_buffer_obj* bufs[16];
  int na = 0, nb = 0;
  const void* s = stmt;
  bool simple = true;
  while (simple && (TIR_IS(s, Allocate) || TIR_IS(s, DeclBuffer))) {
    if (TIR_IS(s, Allocate)) {
      const tvm_tir_allocate_obj* a = s;
      const char* scope = tvm_tir_pointer_type_scope(a->buffer_var->type_annotation);
      if (na == 16 || (scope && scope[0] && strcmp(scope, "global") != 0))
        simple = false;
      else
        allocs[na++] = s;
      if (simple) s = a->body;
    } else {
      const tvm_tir_decl_buffer_obj* db = s;
      bool ours = false;
      for (int i = 0; i < na && !ours; ++i)
        ours = ((const tvm_tir_allocate_obj*)allocs[i])->buffer_var == db->buffer->data;
      if (!ours || nb == 16)
        simple = false;
      else
        bufs[nb++] = db->buffer;
      if (simple) s = db->body;
    }
  }
  if (simple && nb == na && na > 0) {
    bool error = false;
    void* merged = merge_nests(bufs, nb, s, &error);
    if (error) return NULL;
    if (merged) {
      void* r = bind_nest(merged);
      tvm_ffi_release(merged);
      return r;
    }
  }
  return single_thread(stmt);
}

/* The top level of the body: sequences, DeclBuffers and LetStmts walked into; each other
 * statement launched. */
static void* bind_top(const void* stmt) {
  if (TIR_IS(stmt, SeqStmt)) {
    const tvm_tir_seq_stmt_obj* q = stmt;
    int64_t n = tvm_ffi_seq_size(q->seq);
    void** items = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(void*));
    if (!items) return NULL;
    int64_t i = 0;
    for (; i < n; ++i) {
      if (!(items[i] = bind_top(tvm_ffi_seq_obj_at(q->seq, i)))) break;
    }
    void* r = NULL;
    if (i == n) {
      r = tvm_tir_seq_takev(n, items);
    } else {
      for (int64_t k = 0; k < i; ++k) tvm_ffi_release(items[k]);
    }
    tvm_ffi_free(items);
    return r;
  }
  if (TIR_IS(stmt, DeclBuffer)) {
    const tvm_tir_decl_buffer_obj* d = stmt;
    void* body = bind_top(d->body);
    void* r = body ? tvm_tir_decl_buffer_new(d->buffer, body) : NULL;
    tvm_ffi_release(body);
    return r;
  }
  if (TIR_IS(stmt, LetStmt)) {
    const tvm_tir_let_stmt_obj* l = stmt;
    void* body = bind_top(l->body);
    void* r = body ? tvm_tir_let_stmt_new(l->var, l->value, body) : NULL;
    tvm_ffi_release(body);
    return r;
  }
  if (TIR_IS(stmt, Allocate)) return bind_allocs(stmt);
  return bind_nest(stmt);
}

static bool attr_true(const tvm_tir_prim_func_obj* f, const char* key) {
  const TVMFFIAny* a = tvm_ffi_map_get_str(f->func.attrs, key);
  return a && ((a->type_index == kTVMFFIBool || a->type_index == kTVMFFIInt) && a->v_int64 != 0);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f) || attr_true(f, TVM_TIR_ATTR_IS_HOST_FUNC) ||
      tvm_ffi_map_size(f->buffer_map) == 0) {
    return tvm_tir_ref((void*)f);
  }
  int hand = tvm_tir__sched_has_non_serial(f->body);
  if (hand != 0) return hand < 0 ? NULL : tvm_tir_ref((void*)f);
  if (tvm_tir__any_jumps(f->body)) return tvm_tir_ref((void*)f);
  void* cur = tvm_tir_ref((void*)f);
  tvm_tir_pass_fn steps[] = {tvm_tir_transform_lower_init, tvm_tir_transform_convert_blocks,
                             tvm_tir_transform_simplify};
  for (size_t k = 0; cur && k < sizeof(steps) / sizeof(steps[0]); ++k) {
    void* next = steps[k](cur);
    tvm_ffi_release(cur);
    cur = next;
  }
  if (!cur) return NULL;
  const tvm_tir_prim_func_obj* g = cur;
  void* body = bind_top(g->body);
  void* r = body ? tvm_tir__xform_with_body(g, body) : NULL;
  tvm_ffi_release(body);
  tvm_ffi_release(cur);
  if (!r) return NULL;
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  void* marked = tvm_tir_prim_func_with_attr(r, TVM_TIR_ATTR_IS_SCHEDULED, &yes);
  tvm_ffi_release(r);
  return marked;
}

void* tvm_tir_schedule_gpu(const void* mod_or_func, int64_t max_threads_per_block) {
  if (max_threads_per_block < 1 || max_threads_per_block > 1024) {
    tvm_ffi_raise("ValueError",
                  "schedule_gpu: max_threads_per_block %lld is out of range (1 to 1024)",
                  (long long)max_threads_per_block);
    return NULL;
  }
  int64_t outer = t_threads;
  t_threads = max_threads_per_block;
  void* r = tvm_tir__xform_apply(mod_or_func, kPass, run);
  t_threads = outer;
  return r;
}
