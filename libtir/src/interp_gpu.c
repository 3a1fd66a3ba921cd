/*
 * interp_gpu.c: GPU thread launches and barriers in the interpreter (docs/tir-decisions.md,
 * "GPU kernels in the interpreter").
 *
 * Thread launches (T.thread_binding loops, T.launch_thread) are loops: blocks and threads run
 * one after another, and a launch's iterations run in order, as the loops they are written as.
 * A barrier (T.tvm_storage_sync) outside every thread loop is then a no-op, exactly: everything
 * before it has finished. A barrier inside a thread loop is not: the iterations of the thread
 * loops around it must all reach it before any goes on. Such a thread loop runs in lockstep
 * phases here: each iteration ("context") has its own variable bindings, and the body runs
 * statement by statement for every context: a statement without a barrier runs to its end for
 * each context in turn (exact: nothing in it waits for another thread), one with a barrier is
 * entered together, so that every context has finished what comes before the barrier when any
 * goes past it. Loops and conditions around a barrier must be uniform (the same bounds and
 * outcome for every context), and a barrier must be reached by all contexts; anything else is
 * an error (on a GPU it is undefined behaviour or a deadlock). An Allocate of scope "shared" /
 * "shared.dyn" inside the lockstep region is one allocation for the contexts of the launch (the
 * block's), any other scope one per context.
 */
#include <stdio.h>
#include <string.h>

#include "interp_internal.h"

/* ---- Which statements hold a barrier: a memo over the run, keyed by node address ---------- */
typedef struct {
  const void* key;
  int8_t value;
} memo_entry;

struct tir_gpu_memo {
  memo_entry* e;
  int64_t cap, n;
};

static uint64_t ptr_hash(const void* p) {
  uint64_t x = (uint64_t)(uintptr_t)p;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return x;
}

static int memo_find(const tir_gpu_memo* m, const void* key) {
  if (!m || !m->cap) return -1;
  for (uint64_t i = ptr_hash(key) & (uint64_t)(m->cap - 1);; i = (i + 1) & (uint64_t)(m->cap - 1)) {
    if (m->e[i].key == key) return m->e[i].value;
    if (!m->e[i].key) return -1;
  }
}

static int memo_put(tir_gpu_memo* m, const void* key, int8_t value) {
  if (2 * (m->n + 1) > m->cap) {
    int64_t cap = m->cap ? 2 * m->cap : 64;
    memo_entry* e = tvm_ffi_calloc((size_t)cap, sizeof(memo_entry));
    if (!e) return TIR_ERROR;
    for (int64_t k = 0; k < m->cap; ++k) {
      if (!m->e[k].key) continue;
      uint64_t i = ptr_hash(m->e[k].key) & (uint64_t)(cap - 1);
      while (e[i].key) i = (i + 1) & (uint64_t)(cap - 1);
      e[i] = m->e[k];
    }
    tvm_ffi_free(m->e);
    m->e = e;
    m->cap = cap;
  }
  uint64_t i = ptr_hash(key) & (uint64_t)(m->cap - 1);
  while (m->e[i].key && m->e[i].key != key) i = (i + 1) & (uint64_t)(m->cap - 1);
  if (!m->e[i].key) m->n++;
  m->e[i] = (memo_entry){key, value};
  return TIR_OK;
}

void tvm_tir__gpu_free(tir_interp* in) {
  if (!in->gpu_memo) return;
  tvm_ffi_free(in->gpu_memo->e);
  tvm_ffi_free(in->gpu_memo);
  in->gpu_memo = NULL;
}

/* Whether statement s holds a barrier (memoised: each statement is examined once per run). */
int tvm_tir__has_barrier(tir_interp* in, const void* s, bool* out) {
  *out = false;
  if (!s) return TIR_OK;
  int known = memo_find(in->gpu_memo, s);
  if (known >= 0) {
    *out = known != 0;
    return TIR_OK;
  }
  bool b = false;
  const void* kids[2] = {NULL, NULL};
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_Evaluate: b = tvm_tir__stmt_is_barrier(s); break;
    case TVM_TIR_KIND_SeqStmt: {
      void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      for (int64_t k = 0; k < tvm_tir_array_size(seq) && !b; ++k)
        TRY(tvm_tir__has_barrier(in, tvm_tir_array_at(seq, k), &b));
      break;
    }
    case TVM_TIR_KIND_LetStmt: kids[0] = ((const tvm_tir_let_stmt_obj*)s)->body; break;
    case TVM_TIR_KIND_AttrStmt: kids[0] = ((const tvm_tir_attr_stmt_obj*)s)->body; break;
    case TVM_TIR_KIND_AssertStmt: kids[0] = ((const tvm_tir_assert_stmt_obj*)s)->body; break;
    case TVM_TIR_KIND_BufferRealize: kids[0] = ((const tvm_tir_buffer_realize_obj*)s)->body; break;
    case TVM_TIR_KIND_Allocate: kids[0] = ((const tvm_tir_allocate_obj*)s)->body; break;
    case TVM_TIR_KIND_DeclBuffer: kids[0] = ((const tvm_tir_decl_buffer_obj*)s)->body; break;
    case TVM_TIR_KIND_For: kids[0] = ((const tvm_tir_for_obj*)s)->body; break;
    case TVM_TIR_KIND_While: kids[0] = ((const tvm_tir_while_obj*)s)->body; break;
    case TVM_TIR_KIND_IfThenElse:
      kids[0] = ((const tvm_tir_if_then_else_obj*)s)->then_case;
      kids[1] = ((const tvm_tir_if_then_else_obj*)s)->else_case;
      break;
    case TVM_TIR_KIND_SBlockRealize: kids[0] = ((const tvm_tir_sblock_realize_obj*)s)->block; break;
    case TVM_TIR_KIND_SBlock:
      kids[0] = ((const tvm_tir_sblock_obj*)s)->init;
      kids[1] = ((const tvm_tir_sblock_obj*)s)->body;
      break;
    default: break;
  }
  for (int k = 0; k < 2 && !b; ++k) TRY(tvm_tir__has_barrier(in, kids[k], &b));
  if (!in->gpu_memo) {
    in->gpu_memo = tvm_ffi_calloc(1, sizeof(tir_gpu_memo));
    if (!in->gpu_memo) return TIR_ERROR;
  }
  TRY(memo_put(in->gpu_memo, s, b ? 1 : 0));
  *out = b;
  return TIR_OK;
}

/* ---- Lockstep execution ------------------------------------------------------------------- */
/* One iteration of the thread loops of the lockstep region: the bindings it made (those made
 * before the region are the frame's `outer` bindings, shared by every context). */
typedef struct {
  tir_binding* vars;
  int64_t n, cap;
} ls_ctx;

typedef struct {
  tir_interp* in;
  tir_frame* frame;
} ls_state;

static void enter(ls_state* st, ls_ctx* c) {
  st->frame->vars = c->vars;
  st->frame->num_vars = c->n;
  st->frame->cap_vars = c->cap;
  st->in->serial_threads++;
}

static void leave(ls_state* st, ls_ctx* c) {
  c->vars = st->frame->vars;
  c->n = st->frame->num_vars;
  c->cap = st->frame->cap_vars;
  st->frame->vars = NULL;
  st->frame->num_vars = st->frame->cap_vars = 0;
  st->in->serial_threads--;
}

/* Run statement s for context c alone (a statement without a barrier). */
static int exec_in(ls_state* st, ls_ctx* c, const void* s) {
  enter(st, c);
  int rc = tvm_tir__exec(st->in, s);
  leave(st, c);
  if (rc == TIR_RETURNED)
    return tvm_tir__raise_at("NotImplementedError", NULL, "tir.ret inside a GPU thread launch");
  if (rc == TIR_BREAK || rc == TIR_CONTINUE) /* per thread, out of a loop run in lockstep */
    return tvm_tir__raise_at("NotImplementedError", s,
                             "%s in a loop holding a GPU barrier (the threads would diverge "
                             "around the barrier)",
                             rc == TIR_BREAK ? "break" : "continue");
  return rc;
}

static int eval_in(ls_state* st, ls_ctx* c, const void* e, tir_value* out) {
  enter(st, c);
  int rc = tvm_tir__eval(st->in, e, out);
  leave(st, c);
  return rc;
}

static int bind_in(ls_state* st, ls_ctx* c, const tvm_tir_var_obj* v, const tir_value* value) {
  enter(st, c);
  int rc = tvm_tir__bind(st->in, v, value);
  leave(st, c);
  return rc;
}

static int lockstep(ls_state* st, const void* s, ls_ctx** cs, int64_t n, bool complete);

static int not_uniform(const void* s, const char* what) {
  return tvm_tir__raise_at("RuntimeError", s,
                           "%s around a barrier differs between GPU threads (a barrier in "
                           "divergent code is undefined behaviour on a GPU)",
                           what);
}

/* The same scalar in every context: its value in *out, else a RuntimeError naming `what`. */
static int uniform_int(ls_state* st, const void* s, const void* e, ls_ctx** cs, int64_t n,
                       const char* what, int64_t* out) {
  for (int64_t k = 0; k < n; ++k) {
    tir_value v;
    TRY(eval_in(st, cs[k], e, &v));
    if (k > 0 && v.lane[0].i != *out) return not_uniform(s, what);
    *out = v.lane[0].i;
  }
  return TIR_OK;
}

static const char* var_scope(const tvm_tir_var_obj* v) {
  const char* scope = tvm_tir_pointer_type_scope(v->type_annotation);
  return scope ? scope : "";
}

static bool shared_scope(const char* scope) {
  return strcmp(scope, "shared") == 0 || strcmp(scope, "shared.dyn") == 0;
}

/* Drop the bindings each context made since marks[k]. */
static void pop_all(ls_ctx** cs, int64_t n, const int64_t* marks) {
  for (int64_t k = 0; k < n; ++k) cs[k]->n = marks[k];
}

static int64_t* marks_of(ls_ctx** cs, int64_t n) {
  int64_t* m = tvm_ffi_malloc((size_t)(n ? n : 1) * sizeof(int64_t));
  for (int64_t k = 0; m && k < n; ++k) m[k] = cs[k]->n;
  return m;
}

/* A thread launch holding a barrier: each context becomes one context per iteration. */
static int ls_launch(ls_state* st, const void* s, ls_ctx** cs, int64_t n, bool complete) {
  const tvm_tir_var_obj* var = NULL;
  const char* tag = tvm_tir__launch_tag(s, &var);
  int axis = tvm_tir__thread_tag_axis(tag);
  if (axis >= TVM_TIR_THREAD_TAG_BLOCK_X && axis < TVM_TIR_THREAD_TAG_THREAD_X) {
    return tvm_tir__raise_at("NotImplementedError", s,
                             "a %s launch inside a thread launch that holds a barrier", tag);
  }
  if (!var)
    return tvm_tir__raise_at("RuntimeError", s, "thread launch: the node must be a Var or IterVar");
  const void *min = NULL, *extent, *body;
  if (tvm_tir_kind_of(s) == TVM_TIR_KIND_For) {
    const tvm_tir_for_obj* f = s;
    min = f->min;
    extent = f->extent;
    body = f->body;
  } else {
    extent = ((const tvm_tir_attr_stmt_obj*)s)->value;
    body = ((const tvm_tir_attr_stmt_obj*)s)->body;
  }
  int64_t total = 0, *mins = tvm_ffi_calloc((size_t)n + 1, sizeof(int64_t));
  int64_t* exts = tvm_ffi_calloc((size_t)n + 1, sizeof(int64_t));
  int rc = mins && exts ? TIR_OK : TIR_ERROR;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    tir_value v;
    if (min) {
      rc = eval_in(st, cs[k], min, &v);
      mins[k] = v.lane[0].i;
    }
    if (rc == TIR_OK) rc = eval_in(st, cs[k], extent, &v);
    if (rc == TIR_OK) exts[k] = v.lane[0].i > 0 ? v.lane[0].i : 0;
    if (rc == TIR_OK && __builtin_add_overflow(total, exts[k], &total)) rc = TIR_ERROR;
    if (rc == TIR_OK && total > (1 << 22)) {
      rc = tvm_tir__raise_at("ValueError", s, "more than %d GPU threads in lockstep", 1 << 22);
    }
  }
  ls_ctx* kids = rc == TIR_OK ? tvm_ffi_calloc((size_t)total + 1, sizeof(ls_ctx)) : NULL;
  ls_ctx** kp = rc == TIR_OK ? tvm_ffi_calloc((size_t)total + 1, sizeof(ls_ctx*)) : NULL;
  if (rc == TIR_OK && (!kids || !kp)) rc = TIR_ERROR;
  int64_t made = 0;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    for (int64_t i = 0; i < exts[k] && rc == TIR_OK; ++i) {
      ls_ctx* c = &kids[made];
      c->cap = cs[k]->n + 4;
      c->vars = tvm_ffi_malloc((size_t)c->cap * sizeof(tir_binding));
      if (!c->vars) {
        rc = TIR_ERROR;
        break;
      }
      if (cs[k]->n) memcpy(c->vars, cs[k]->vars, (size_t)cs[k]->n * sizeof(tir_binding));
      c->n = cs[k]->n;
      kp[made++] = c;
      tir_value v;
      tvm_tir__value_int(&v, var->expr.dtype, mins[k] + i);
      rc = bind_in(st, c, var, &v);
    }
  }
  /* Every context runs the body when they all run it: the group stays complete. */
  if (rc == TIR_OK) rc = lockstep(st, body, kp, made, complete);
  for (int64_t k = 0; k < made; ++k) tvm_ffi_free(kids[k].vars);
  tvm_ffi_free(kids);
  tvm_ffi_free(kp);
  tvm_ffi_free(mins);
  tvm_ffi_free(exts);
  return rc;
}

/* Memory for the contexts: one block for a shared scope, one per context otherwise; data is
 * bound in each context. nbytes < 0: a Buffer's memory (tvm_tir__alloc_buffer). */
static int ls_alloc(ls_state* st, ls_ctx** cs, int64_t n, const char* scope,
                    const tvm_tir_var_obj* data, const tvm_tir_buffer_obj* buf, int64_t nbytes,
                    const char* what) {
  bool shared = shared_scope(scope);
  void* block = NULL;
  for (int64_t k = 0; k < n; ++k) {
    if (shared && k > 0) {
      tir_value h;
      h.dtype = tvm_tir_dtype_handle();
      h.lane[0].p = block;
      TRY(bind_in(st, cs[k], data, &h));
      continue;
    }
    enter(st, cs[k]);
    int rc;
    if (buf) {
      rc = tvm_tir__alloc_buffer(st->in, buf, false);
    } else {
      char* p = NULL;
      rc = tvm_tir__alloc_region(st->in, what, nbytes, &p);
      if (rc == TIR_OK) rc = tvm_tir__bind_handle(st->in, data, p);
    }
    const tir_value* bound = rc == TIR_OK ? tvm_tir__lookup(st->in, data) : NULL;
    if (bound) block = bound->lane[0].p;
    leave(st, cs[k]);
    TRY(rc);
  }
  return TIR_OK;
}

static int ls_allocate(ls_state* st, const tvm_tir_allocate_obj* a, ls_ctx** cs, int64_t n,
                       bool complete) {
  int64_t cond = 1;
  TRY(uniform_int(st, a, a->condition, cs, n, "the condition of an Allocate", &cond));
  if (!cond) return TIR_OK;
  TRY(tvm_tir__check_storable(a->dtype, tvm_tir_var_name(a->buffer_var)));
  int64_t nbytes = tvm_tir__elem_bytes(a->dtype);
  for (int64_t k = 0; k < tvm_tir_array_size(a->extents); ++k) {
    int64_t e = 0;
    TRY(uniform_int(st, a, tvm_tir_array_at(a->extents, k), cs, n, "an Allocate extent", &e));
    if (e < 0 || __builtin_mul_overflow(nbytes, e, &nbytes)) {
      return tvm_tir__raise_at("ValueError", a, "Allocate %s: invalid extent %lld",
                               tvm_tir_var_name(a->buffer_var), (long long)e);
    }
  }
  int64_t regions = st->in->num_regions, *marks = marks_of(cs, n);
  if (!marks) return TIR_ERROR;
  char what[160];
  snprintf(what, sizeof(what), "Allocate %s", tvm_tir_var_name(a->buffer_var));
  int rc = ls_alloc(st, cs, n, var_scope(a->buffer_var), a->buffer_var, NULL, nbytes, what);
  if (rc == TIR_OK) rc = lockstep(st, a->body, cs, n, complete);
  tvm_tir__pop_regions(st->in, regions);
  pop_all(cs, n, marks);
  tvm_ffi_free(marks);
  return rc;
}

static int ls_decl_buffer(ls_state* st, const tvm_tir_decl_buffer_obj* d, ls_ctx** cs, int64_t n,
                          bool complete) {
  enter(st, cs[0]);
  bool bound = tvm_tir__lookup(st->in, d->buffer->data) != NULL;
  leave(st, cs[0]);
  if (bound) return lockstep(st, d->body, cs, n, complete);
  int64_t regions = st->in->num_regions, *marks = marks_of(cs, n);
  if (!marks) return TIR_ERROR;
  int rc = ls_alloc(st, cs, n, tvm_tir_buffer_scope(d->buffer), d->buffer->data, d->buffer, -1,
                    NULL);
  if (rc == TIR_OK) rc = lockstep(st, d->body, cs, n, complete);
  tvm_tir__pop_regions(st->in, regions);
  pop_all(cs, n, marks);
  tvm_ffi_free(marks);
  return rc;
}

static int ls_for(ls_state* st, const tvm_tir_for_obj* f, ls_ctx** cs, int64_t n, bool complete) {
  int64_t lo = 0, ext = 0;
  TRY(uniform_int(st, f, f->min, cs, n, "the start of a loop", &lo));
  TRY(uniform_int(st, f, f->extent, cs, n, "the extent of a loop", &ext));
  int64_t* marks = marks_of(cs, n);
  if (!marks) return TIR_ERROR;
  int rc = TIR_OK;
  for (int64_t i = 0; i < ext && rc == TIR_OK; ++i) {
    tir_value v;
    tvm_tir__value_int(&v, f->loop_var->expr.dtype, (int64_t)((uint64_t)lo + (uint64_t)i));
    for (int64_t k = 0; k < n && rc == TIR_OK; ++k) rc = bind_in(st, cs[k], f->loop_var, &v);
    if (rc == TIR_OK) rc = lockstep(st, f->body, cs, n, complete);
    pop_all(cs, n, marks);
  }
  tvm_ffi_free(marks);
  return rc;
}

static int ls_while(ls_state* st, const tvm_tir_while_obj* w, ls_ctx** cs, int64_t n,
                    bool complete) {
  for (;;) {
    int64_t c = 0;
    TRY(uniform_int(st, w, w->condition, cs, n, "the condition of a while loop", &c));
    if (!c) return TIR_OK;
    TRY(lockstep(st, w->body, cs, n, complete));
  }
}

static int ls_if(ls_state* st, const tvm_tir_if_then_else_obj* s, ls_ctx** cs, int64_t n,
                 bool complete) {
  ls_ctx** part = tvm_ffi_malloc((size_t)(n ? n : 1) * sizeof(ls_ctx*));
  if (!part) return TIR_ERROR;
  int64_t nt = 0, ne = n;
  int rc = TIR_OK;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) { /* then contexts first, else from the end */
    tir_value c;
    rc = eval_in(st, cs[k], s->condition, &c);
    if (rc == TIR_OK) {
      if (tir_truthy(&c))
        part[nt++] = cs[k];
      else
        part[--ne] = cs[k];
    }
  }
  if (rc == TIR_OK && nt > 0) rc = lockstep(st, s->then_case, part, nt, complete && nt == n);
  if (rc == TIR_OK && ne < n && s->else_case)
    rc = lockstep(st, s->else_case, part + ne, n - ne, complete && ne == 0);
  tvm_ffi_free(part);
  return rc;
}

static int ls_let(ls_state* st, const tvm_tir_let_stmt_obj* l, ls_ctx** cs, int64_t n,
                  bool complete) {
  int64_t* marks = marks_of(cs, n);
  if (!marks) return TIR_ERROR;
  int rc = TIR_OK;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    tir_value v;
    rc = eval_in(st, cs[k], l->value, &v);
    if (rc == TIR_OK) rc = bind_in(st, cs[k], l->var, &v);
  }
  if (rc == TIR_OK) rc = lockstep(st, l->body, cs, n, complete);
  pop_all(cs, n, marks);
  tvm_ffi_free(marks);
  return rc;
}

static int ls_assert(ls_state* st, const tvm_tir_assert_stmt_obj* a, ls_ctx** cs, int64_t n,
                     bool complete) {
  for (int64_t k = 0; k < n; ++k) {
    tir_value c;
    TRY(eval_in(st, cs[k], a->condition, &c));
    if (tir_truthy(&c)) continue;
    if (tvm_tir_kind_of(a->message) == TVM_TIR_KIND_StringImm) {
      tvm_ffi_raise(tvm_tir_assert_stmt_kind(a), "%s",
                    tvm_ffi_str_cstr(((const tvm_tir_string_imm_obj*)a->message)->value));
    } else {
      tvm_ffi_raise("AssertionError", "assertion failed");
    }
    return TIR_ERROR;
  }
  return lockstep(st, a->body, cs, n, complete);
}

/* An opaque block (no iteration variables, init or match_buffers) around a barrier. */
static int ls_block(ls_state* st, const tvm_tir_sblock_realize_obj* r, ls_ctx** cs, int64_t n,
                    bool complete) {
  const tvm_tir_sblock_obj* b = r->block;
  if (tvm_tir_array_size(r->iter_values) || b->init || tvm_tir_array_size(b->match_buffers)) {
    return tvm_tir__raise_at("NotImplementedError", r,
                             "a barrier inside a block with iteration variables, init or "
                             "match_buffers");
  }
  if (r->predicate) {
    int64_t p = 1;
    TRY(uniform_int(st, r, r->predicate, cs, n, "the predicate of a block", &p));
    if (!p) return TIR_OK;
  }
  int64_t regions = st->in->num_regions, *marks = marks_of(cs, n);
  if (!marks) return TIR_ERROR;
  int rc = TIR_OK;
  for (int64_t k = 0; k < tvm_tir_array_size(b->alloc_buffers) && rc == TIR_OK; ++k) {
    const tvm_tir_buffer_obj* buf = tvm_tir_array_at(b->alloc_buffers, k);
    rc = ls_alloc(st, cs, n, tvm_tir_buffer_scope(buf), buf->data, buf, -1, NULL);
  }
  if (rc == TIR_OK) rc = lockstep(st, b->body, cs, n, complete);
  tvm_tir__pop_regions(st->in, regions);
  pop_all(cs, n, marks);
  tvm_ffi_free(marks);
  return rc;
}

static int lockstep(ls_state* st, const void* s, ls_ctx** cs, int64_t n, bool complete) {
  if (n == 0) return TIR_OK;
  bool barrier;
  TRY(tvm_tir__has_barrier(st->in, s, &barrier));
  if (!barrier) {
    for (int64_t k = 0; k < n; ++k) TRY(exec_in(st, cs[k], s));
    return TIR_OK;
  }
  if (tvm_tir__launch_tag(s, NULL)) return ls_launch(st, s, cs, n, complete);
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_Evaluate: /* the barrier: every context has arrived */
      if (!complete) {
        return tvm_tir__raise_at("RuntimeError", s,
                                 "a barrier reached by only some of the GPU threads of its "
                                 "launch (a barrier in divergent code is undefined behaviour "
                                 "on a GPU)");
      }
      return TIR_OK;
    case TVM_TIR_KIND_SeqStmt: {
      void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      for (int64_t k = 0; k < tvm_tir_array_size(seq); ++k)
        TRY(lockstep(st, tvm_tir_array_at(seq, k), cs, n, complete));
      return TIR_OK;
    }
    case TVM_TIR_KIND_AttrStmt: return lockstep(st, ((const tvm_tir_attr_stmt_obj*)s)->body, cs, n, complete);
    case TVM_TIR_KIND_LetStmt: return ls_let(st, s, cs, n, complete);
    case TVM_TIR_KIND_AssertStmt: return ls_assert(st, s, cs, n, complete);
    case TVM_TIR_KIND_Allocate: return ls_allocate(st, s, cs, n, complete);
    case TVM_TIR_KIND_DeclBuffer: return ls_decl_buffer(st, s, cs, n, complete);
    case TVM_TIR_KIND_For: return ls_for(st, s, cs, n, complete);
    case TVM_TIR_KIND_While: return ls_while(st, s, cs, n, complete);
    case TVM_TIR_KIND_IfThenElse: return ls_if(st, s, cs, n, complete);
    case TVM_TIR_KIND_SBlockRealize: return ls_block(st, s, cs, n, complete);
    default:
      return tvm_tir__raise_at("NotImplementedError", s, "a barrier inside a %s",
                               tvm_tir_kind_name(tvm_tir_kind_of(s)));
  }
}

int tvm_tir__exec_lockstep(tir_interp* in, const tvm_tir_stmt_obj* launch) {
  tir_frame* f = in->frame;
  tir_frame saved = *f;
  ls_state st = {in, f};
  ls_ctx root = {NULL, 0, 0}, *rp = &root;
  /* The bindings made so far are seen by every context, which adds its own on top. */
  f->outer = saved.vars;
  f->num_outer = saved.num_vars;
  f->vars = NULL;
  f->num_vars = f->cap_vars = 0;
  int rc = lockstep(&st, launch, &rp, 1, true);
  tvm_ffi_free(root.vars);
  f->vars = saved.vars;
  f->num_vars = saved.num_vars;
  f->cap_vars = saved.cap_vars;
  f->outer = saved.outer;
  f->num_outer = saved.num_outer;
  return rc;
}
