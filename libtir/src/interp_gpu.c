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
 * block's), any other scope one per context; a "local" one made outside a threadIdx launch run
 * in lockstep is copied for each of its threads (privatize below).
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
  tvm_tir__wmma_free(in);
  if (!in->gpu_memo) return;
  tvm_ffi_free(in->gpu_memo->e);
  tvm_ffi_free(in->gpu_memo);
  in->gpu_memo = NULL;
}

bool tvm_tir__is_warp_call(const void* call) {
  if (tvm_tir_kind_of(call) != TVM_TIR_KIND_Call) return false;
  const void* op = ((const tvm_tir_call_obj*)call)->op;
  return tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle_up) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle_down) ||
         tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_activemask);
}

static int warp_call_fn(const void* obj, void* ctx) {
  (void)ctx;
  return tvm_tir__is_warp_call(obj) ? 1 : 0;
}

/* Whether an expression (or a statement's expressions) holds a warp shuffle / activemask. */
static bool has_warp_call(const void* e) { return e && tvm_tir__walk(e, false, warp_call_fn, NULL) == 1; }

/* The WMMA Call of an Evaluate (a whole-warp tensor-core operation), else NULL. */
static const tvm_tir_call_obj* wmma_call(const void* s) {
  if (tvm_tir_kind_of(s) != TVM_TIR_KIND_Evaluate) return NULL;
  const void* v = ((const tvm_tir_evaluate_obj*)s)->value;
  return tvm_tir__is_wmma_call(v) ? v : NULL;
}

/* The tvm_thread_allreduce Call of an Evaluate, else NULL. */
static const tvm_tir_call_obj* allreduce_call(const void* s) {
  if (tvm_tir_kind_of(s) != TVM_TIR_KIND_Evaluate) return NULL;
  const void* v = ((const tvm_tir_evaluate_obj*)s)->value;
  if (tvm_tir_kind_of(v) != TVM_TIR_KIND_Call) return NULL;
  const tvm_tir_call_obj* c = v;
  return tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_thread_allreduce) ? c : NULL;
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
    case TVM_TIR_KIND_Evaluate:
      b = tvm_tir__stmt_is_barrier(s) || allreduce_call(s) || wmma_call(s) ||
          has_warp_call(((const tvm_tir_evaluate_obj*)s)->value);
      break;
    case TVM_TIR_KIND_BufferStore: b = has_warp_call(s); break;
    case TVM_TIR_KIND_SeqStmt: {
      void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      for (int64_t k = 0; k < tvm_tir_array_size(seq) && !b; ++k)
        TRY(tvm_tir__has_barrier(in, tvm_tir_array_at(seq, k), &b));
      break;
    }
    case TVM_TIR_KIND_LetStmt:
      b = has_warp_call(((const tvm_tir_let_stmt_obj*)s)->value);
      kids[0] = ((const tvm_tir_let_stmt_obj*)s)->body;
      break;
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

/* A thread launch of the lockstep region around the statement being run. */
typedef struct {
  const tvm_tir_var_obj* var;
  int axis;       /* TVM_TIR_THREAD_TAG_* */
  int64_t extent; /* the largest extent over the contexts */
} ls_launch_rec;

#define LS_MAX_LAUNCHES 16

typedef struct {
  tir_interp* in;
  tir_frame* frame;
  ls_launch_rec launches[LS_MAX_LAUNCHES];
  int num_launches;
  const tvm_tir_comm_reducer_obj* reducer; /* of the innermost reduce_scope attribute */
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

/* ---- Collectives: tvm_thread_allreduce and the warp calls ---------------------------------- */
/* The value of a launch variable in context c (0 when it is not bound there). */
static int64_t ctx_value(ls_state* st, ls_ctx* c, const tvm_tir_var_obj* v) {
  enter(st, c);
  const tir_value* x = tvm_tir__lookup(st->in, v);
  int64_t r = x ? x->lane[0].i : 0;
  leave(st, c);
  return r;
}

/* A context's linear thread index in its block, x + X * (y + Y * z), over the region's
 * threadIdx launches (their largest extents): what decides its warp and lane on a GPU. */
static int64_t ctx_tid(ls_state* st, ls_ctx* c) {
  int64_t val[3] = {0, 0, 0}, ext[3] = {1, 1, 1};
  for (int k = 0; k < st->num_launches; ++k) {
    int a = st->launches[k].axis - TVM_TIR_THREAD_TAG_THREAD_X;
    if (a < 0 || a > 2) continue;
    val[a] = ctx_value(st, c, st->launches[k].var);
    ext[a] = st->launches[k].extent;
  }
  return val[0] + ext[0] * (val[1] + ext[1] * val[2]);
}

static const tvm_tir_expr_obj* call_arg(const tvm_tir_call_obj* c, int64_t i) {
  return tvm_tir_array_at(c->args, i);
}

/* Store v to the result operand of an allreduce in context c: a handle Var (its element 0)
 * or a BufferLoad (that element). */
static int write_result(ls_state* st, ls_ctx* c, const void* call, const void* dst,
                        const tir_value* v) {
  enter(st, c);
  int rc = TIR_OK;
  char* addr = NULL;
  if (tvm_tir_kind_of(dst) == TVM_TIR_KIND_BufferLoad) {
    const tvm_tir_buffer_load_obj* l = dst;
    int64_t idx[TIR_MAX_DIMS], last[TVM_TIR_INTERP_MAX_LANES];
    int il = 0;
    rc = tvm_tir__eval_indices(st->in, dst, l->indices, idx, TIR_MAX_DIMS, last, &il);
    int64_t nd = tvm_tir_array_size(l->indices);
    if (rc == TIR_OK && il != 1) rc = tvm_tir__raise_at("ValueError", call, "tvm_thread_allreduce: a vector result element");
    if (rc == TIR_OK && nd > 0) idx[nd - 1] = last[0];
    if (rc == TIR_OK) rc = tvm_tir__element_addr(st->in, l->buffer, idx, nd, &addr);
    if (rc == TIR_OK && (l->buffer->dtype.code != v->dtype.code || l->buffer->dtype.bits != v->dtype.bits))
      rc = tvm_tir__raise_at("TypeError", call, "tvm_thread_allreduce: a result of another dtype than its value");
  } else if (tvm_tir_is_var(dst)) {
    const tir_value* p = tvm_tir__lookup(st->in, dst);
    addr = p ? p->lane[0].p : NULL;
    rc = tvm_tir__check_storable(v->dtype, "tvm_thread_allreduce result");
    if (rc == TIR_OK && (!addr || !tvm_tir__in_live_region(st->in, addr, tvm_tir__elem_bytes(v->dtype))))
      rc = tvm_tir__raise_at("RuntimeError", call,
                             "tvm_thread_allreduce: its result %s does not point into live memory",
                             tvm_tir_var_name(dst));
  } else {
    rc = tvm_tir__raise_at("ValueError", call,
                           "tvm_thread_allreduce: a result must be a buffer's data variable or "
                           "element");
  }
  if (rc == TIR_OK) tvm_tir__mem_write(v->dtype, addr, v->lane);
  leave(st, c);
  return rc;
}

/* Combine acc[i] (the lhs) with val[i] (the rhs) through the reducer, in context c. */
static int combine(ls_state* st, ls_ctx* c, const tvm_tir_comm_reducer_obj* r, int64_t size,
                   tir_value* acc, const tir_value* val, tir_value* tmp) {
  enter(st, c);
  int64_t mark = tir_scope_mark(st->in);
  int rc = TIR_OK;
  for (int64_t i = 0; i < size && rc == TIR_OK; ++i) {
    rc = tvm_tir__bind(st->in, tvm_tir_array_at(r->lhs, i), &acc[i]);
    if (rc == TIR_OK) rc = tvm_tir__bind(st->in, tvm_tir_array_at(r->rhs, i), &val[i]);
  }
  for (int64_t i = 0; i < size && rc == TIR_OK; ++i)
    rc = tvm_tir__eval(st->in, tvm_tir_array_at(r->result, i), &tmp[i]);
  tir_scope_pop(st->in, mark);
  leave(st, c);
  if (rc == TIR_OK) memcpy(acc, tmp, (size_t)size * sizeof(tir_value));
  return rc;
}

/* tvm_thread_allreduce(size, values..., condition, results..., thread vars...) under a
 * reduce_scope attribute naming the reducer: every thread of a group (the threads that agree on
 * every launch variable outside the thread vars) gets the reduction, in thread order, of the
 * values of the group's threads whose condition holds (the identity when none does). A
 * collective: all threads of the launch must reach it together. */
static int ls_allreduce(ls_state* st, const void* s, const tvm_tir_call_obj* call, ls_ctx** cs,
                        int64_t n, bool complete) {
  if (!complete) {
    return tvm_tir__raise_at("RuntimeError", s,
                             "tvm_thread_allreduce reached by only some of the GPU threads of its "
                             "launch (undefined behaviour on a GPU)");
  }
  const tvm_tir_comm_reducer_obj* r = st->reducer;
  if (!r) {
    return tvm_tir__raise_at("ValueError", s,
                             "tvm_thread_allreduce outside a reduce_scope attribute (the "
                             "T.attr(T.comm_reducer(...), \"reduce_scope\", ...) naming its "
                             "combiner)");
  }
  int64_t nargs = tvm_tir_array_size(call->args), size = -1;
  int64_t nred = tvm_tir_array_size(r->lhs);
  if (nargs < 1 || !tvm_tir_as_const_int(call_arg(call, 0), &size) || size != nred ||
      nargs < 2 + 2 * size) {
    return tvm_tir__raise_at("ValueError", s,
                             "tvm_thread_allreduce: expected (size=%lld, %lld values, a condition, "
                             "%lld results, thread variables...) for a reducer of %lld values",
                             (long long)nred, (long long)nred, (long long)nred, (long long)nred);
  }
  bool reduce[LS_MAX_LAUNCHES] = {false};
  for (int64_t k = 2 + 2 * size; k < nargs; ++k) {
    const void* v = call_arg(call, k);
    int found = -1;
    for (int j = 0; j < st->num_launches; ++j)
      if ((const void*)st->launches[j].var == v) found = j;
    if (found < 0) {
      tvm_ffi_strbuf b = {0};
      tvm_tir__text(&b, v);
      int rc = tvm_tir__raise_at("ValueError", s,
                                 "tvm_thread_allreduce over %s, which is not a thread variable "
                                 "launched around it",
                                 tvm_ffi_strbuf_cstr(&b));
      tvm_ffi_strbuf_free(&b);
      return rc;
    }
    reduce[found] = true;
  }
  int64_t groups = 1;
  for (int j = 0; j < st->num_launches; ++j) {
    if (reduce[j]) continue;
    if (__builtin_mul_overflow(groups, st->launches[j].extent, &groups) || groups > (1 << 22))
      return tvm_tir__raise_at("ValueError", s, "tvm_thread_allreduce: too many thread groups");
  }
  tir_value* acc = tvm_ffi_calloc((size_t)(groups * size), sizeof(tir_value));
  tir_value* val = tvm_ffi_calloc((size_t)size * 2, sizeof(tir_value));
  int64_t* gk = tvm_ffi_calloc((size_t)n, sizeof(int64_t));
  int rc = acc && val && gk ? TIR_OK : TIR_ERROR;
  for (int64_t i = 0; i < size && rc == TIR_OK; ++i) /* every group starts at the identity */
    rc = eval_in(st, cs[0], tvm_tir_array_at(r->identity_element, i), &acc[i]);
  for (int64_t g = 1; g < groups && rc == TIR_OK; ++g) memcpy(&acc[g * size], acc, (size_t)size * sizeof(tir_value));
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    int64_t key = 0, mult = 1;
    for (int j = 0; j < st->num_launches; ++j) {
      if (reduce[j]) continue;
      key += ctx_value(st, cs[k], st->launches[j].var) * mult;
      mult *= st->launches[j].extent;
    }
    gk[k] = key;
    if (key < 0 || key >= groups) {
      rc = tvm_tir__raise_at("RuntimeError", s, "tvm_thread_allreduce: a thread index out of its launch");
      break;
    }
    tir_value c;
    rc = eval_in(st, cs[k], call_arg(call, 1 + size), &c);
    if (rc != TIR_OK || !tir_truthy(&c)) continue;
    for (int64_t i = 0; i < size && rc == TIR_OK; ++i)
      rc = eval_in(st, cs[k], call_arg(call, 1 + i), &val[i]);
    if (rc == TIR_OK) rc = combine(st, cs[k], r, size, &acc[key * size], val, val + size);
  }
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    for (int64_t i = 0; i < size && rc == TIR_OK; ++i)
      rc = write_result(st, cs[k], call, call_arg(call, 2 + size + i), &acc[gk[k] * size + i]);
  }
  tvm_ffi_free(acc);
  tvm_ffi_free(val);
  tvm_ffi_free(gk);
  return rc;
}

/* The warp calls of one statement (or Let value), each met once. */
#define WARP_MAX_CALLS 16
typedef struct {
  const void* calls[WARP_MAX_CALLS];
  int n;
  int error; /* 2: too many, 3: one inside another's arguments */
} warp_calls;

static int collect_warp_fn(const void* obj, void* ctx) {
  if (!tvm_tir__is_warp_call(obj)) return 0;
  warp_calls* w = ctx;
  for (int k = 0; k < w->n; ++k)
    if (w->calls[k] == obj) return 0;
  const tvm_tir_call_obj* c = obj;
  for (int64_t k = 0; k < tvm_tir_array_size(c->args); ++k)
    if (has_warp_call(tvm_tir_array_at(c->args, k))) return w->error = 3;
  if (w->n == WARP_MAX_CALLS) return w->error = 2;
  w->calls[w->n++] = obj;
  return 0;
}

typedef struct {
  warp_calls w;
  tir_value* results; /* n * w.n */
  tir_warp_results view;
} warp_prep;

static const char* warp_op_name(const tvm_tir_call_obj* c) {
  return tvm_tir_op_name((const tvm_tir_op_obj*)c->op);
}

/* The results of the warp calls in `root` for every context: a shuffle reads the value its
 * partner lane computed (CUDA's __shfl_sync, _up_sync, _down_sync with a width), activemask is
 * the lanes of the warp running the statement. Errors where a GPU would be undefined: a lane
 * outside the mask, a partner that is not running the statement. */
static int warp_prepare(ls_state* st, const void* s, const void* root, ls_ctx** cs, int64_t n,
                        warp_prep* out) {
  memset(out, 0, sizeof(*out));
  tvm_tir__walk(root, false, collect_warp_fn, &out->w);
  if (out->w.error == 2)
    return tvm_tir__raise_at("NotImplementedError", s, "more than %d warp calls in one statement",
                             WARP_MAX_CALLS);
  if (out->w.error == 3)
    return tvm_tir__raise_at("NotImplementedError", s,
                             "a warp shuffle inside the arguments of another");
  int nc = out->w.n;
  int64_t *tid = tvm_ffi_calloc((size_t)n + 1, sizeof(int64_t)), most = 0;
  tir_value* vals = tvm_ffi_calloc((size_t)(n * nc) + 1, sizeof(tir_value));
  int64_t* ints = tvm_ffi_calloc((size_t)(n * nc * 4) + 1, sizeof(int64_t));
  out->results = tvm_ffi_calloc((size_t)(n * nc) + 1, sizeof(tir_value));
  int rc = tid && vals && ints && out->results ? TIR_OK : TIR_ERROR;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    tid[k] = ctx_tid(st, cs[k]);
    most = tid[k] > most ? tid[k] : most;
  }
  int64_t* pos = rc == TIR_OK ? tvm_ffi_malloc((size_t)(most + 1) * sizeof(int64_t)) : NULL;
  if (rc == TIR_OK && !pos) rc = TIR_ERROR;
  for (int64_t t = 0; rc == TIR_OK && t <= most; ++t) pos[t] = -1;
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    if (tid[k] < 0 || pos[tid[k]] >= 0) {
      rc = tvm_tir__raise_at("NotImplementedError", s,
                             "warp calls where two contexts have one thread index (a virtual "
                             "thread launch around them)");
    } else {
      pos[tid[k]] = k;
    }
  }
  /* the operands, per context */
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    for (int j = 0; j < nc && rc == TIR_OK; ++j) {
      const tvm_tir_call_obj* c = out->w.calls[j];
      if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_warp_activemask)) continue;
      if (tvm_tir_array_size(c->args) != 5) {
        rc = tvm_tir__raise_at("ValueError", c, "%s takes (mask, value, lane, width, warp_size)",
                               warp_op_name(c));
        break;
      }
      rc = eval_in(st, cs[k], call_arg(c, 1), &vals[k * nc + j]);
      for (int a = 0; a < 4 && rc == TIR_OK; ++a) {
        tir_value v;
        rc = eval_in(st, cs[k], call_arg(c, a == 0 ? 0 : a + 1), &v);
        ints[(k * nc + j) * 4 + a] = v.lane[0].i;
      }
    }
  }
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    int64_t lane = tid[k] % 32, base = tid[k] - lane;
    for (int j = 0; j < nc && rc == TIR_OK; ++j) {
      const tvm_tir_call_obj* c = out->w.calls[j];
      tir_value* res = &out->results[k * nc + j];
      if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_warp_activemask)) {
        int64_t m = 0;
        for (int64_t l = 0; l < 32; ++l)
          if (base + l <= most && pos[base + l] >= 0) m |= (int64_t)1 << l;
        tvm_tir__value_int(res, c->expr.dtype, m);
        continue;
      }
      const int64_t* a = &ints[(k * nc + j) * 4];
      uint32_t mask = (uint32_t)a[0];
      int64_t d = a[1], w = a[2], src;
      if (a[3] != 32) {
        rc = tvm_tir__raise_at("ValueError", c, "%s: warp_size %lld (an NVIDIA warp has 32 threads)",
                               warp_op_name(c), (long long)a[3]);
        break;
      }
      if (w < 1 || w > 32 || (w & (w - 1))) {
        rc = tvm_tir__raise_at("ValueError", c, "%s: width %lld is not a power of two from 1 to 32",
                               warp_op_name(c), (long long)w);
        break;
      }
      int64_t sub = lane / w * w;
      if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_warp_shuffle)) {
        src = sub + ((d % w) + w) % w;
      } else if (tvm_tir_is_builtin(c->op, TVM_TIR_BUILTIN_tvm_warp_shuffle_down)) {
        src = lane + d;
        if (d < 0 || src >= sub + w) src = lane;
      } else {
        src = lane - d;
        if (d < 0 || src < sub) src = lane;
      }
      if (!((mask >> lane) & 1u) || !((mask >> src) & 1u)) {
        rc = tvm_tir__raise_at("RuntimeError", c,
                               "%s: thread %lld (lane %lld) reads lane %lld with mask 0x%08x, "
                               "which does not hold both (undefined on a GPU)",
                               warp_op_name(c), (long long)tid[k], (long long)lane,
                               (long long)src, mask);
        break;
      }
      int64_t t = base + src;
      if (t > most || pos[t] < 0) {
        rc = tvm_tir__raise_at("RuntimeError", c,
                               "%s: thread %lld reads lane %lld of its warp, whose thread is not "
                               "running this statement (inactive or not launched: undefined on "
                               "a GPU)",
                               warp_op_name(c), (long long)tid[k], (long long)src);
        break;
      }
      *res = vals[pos[t] * nc + j];
    }
  }
  tvm_ffi_free(tid);
  tvm_ffi_free(vals);
  tvm_ffi_free(ints);
  tvm_ffi_free(pos);
  out->view = (tir_warp_results){out->w.calls, nc, out->results, 0};
  return rc;
}

/* A statement whose expressions hold warp calls: their results for every context first, then
 * the statement for each context in turn with them. */
static int ls_warp_leaf(ls_state* st, const void* s, ls_ctx** cs, int64_t n) {
  warp_prep p;
  int rc = warp_prepare(st, s, s, cs, n, &p);
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    p.view.ctx = k;
    st->in->warp = &p.view;
    rc = exec_in(st, cs[k], s);
    st->in->warp = NULL;
  }
  tvm_ffi_free(p.results);
  return rc;
}


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

/* ---- Thread-private memory allocated outside a launch -------------------------------------- */
/* A "local" allocation is each GPU thread's own wherever it is written, also outside the
 * threadIdx launches that use it (upstream's LowerCrossThreadReduction puts its temporaries at
 * the function's root; split_host_device moves them into the kernel). Run as loops, one thread
 * after another, a single copy behaves as each thread's own; in lockstep it does not (every
 * thread writes its value before any reads it back). So a threadIdx launch run in lockstep gives
 * each of its threads a copy of every "local" allocation made outside it that its body names,
 * holding what the allocation held, and the last thread's copy is written back when the launch
 * ends: what the launch as a loop would have left there. */
#define LS_MAX_PRIVATE 32

typedef struct {
  const tvm_tir_var_obj* vars[LS_MAX_PRIVATE];
  int n;
} local_vars;

static int collect_local_fn(const void* obj, void* ctx) {
  if (tvm_tir_kind_of(obj) != TVM_TIR_KIND_Var) return 0;
  const tvm_tir_var_obj* v = obj;
  if (!tvm_tir_dtype_is_handle(v->expr.dtype) || strcmp(var_scope(v), "local") != 0) return 0;
  local_vars* l = ctx;
  for (int k = 0; k < l->n; ++k)
    if (l->vars[k] == v) return 0;
  if (l->n == LS_MAX_PRIVATE) return 1;
  l->vars[l->n++] = v;
  return 0;
}

/* The live region starting at p (its size), or -1. */
static int64_t region_at(tir_interp* in, const void* p) {
  for (int64_t k = in->num_regions - 1; k >= 0; --k)
    if (in->regions[k].base == p) return in->regions[k].nbytes;
  return -1;
}

/* One privatized allocation: the parent context's memory (NULL: none, not privatized). */
typedef struct {
  char* outer;
  int64_t nbytes;
} private_copy;

/* Give each child context (kp[0..made), children of cs[k] in order, counts[k] each) its own copy
 * of the local allocations of `l` bound in its parent; outer[k * l->n + j] records the parent's
 * memory for the write-back. */
static int privatize(ls_state* st, const local_vars* l, ls_ctx** cs, int64_t n,
                     const int64_t* counts, ls_ctx** kp, private_copy* outer) {
  int64_t child = 0;
  for (int64_t k = 0; k < n; ++k) {
    for (int j = 0; j < l->n; ++j) {
      enter(st, cs[k]);
      const tir_value* b = tvm_tir__lookup(st->in, l->vars[j]);
      char* p = b ? b->lane[0].p : NULL;
      int64_t nbytes = p ? region_at(st->in, p) : -1;
      leave(st, cs[k]);
      outer[k * l->n + j] = (private_copy){nbytes > 0 ? p : NULL, nbytes};
      if (nbytes <= 0) continue;
      for (int64_t i = 0; i < counts[k]; ++i) {
        ls_ctx* c = kp[child + i];
        char* q = NULL;
        enter(st, c);
        int rc = tvm_tir__alloc_region(st->in, tvm_tir_var_name(l->vars[j]), nbytes, &q);
        if (rc == TIR_OK) {
          memcpy(q, p, (size_t)nbytes);
          rc = tvm_tir__bind_handle(st->in, l->vars[j], q);
        }
        leave(st, c);
        TRY(rc);
      }
    }
    child += counts[k];
  }
  return TIR_OK;
}

/* The last child of each parent writes its copies back. */
static void write_back(ls_state* st, const local_vars* l, int64_t n, const int64_t* counts,
                       ls_ctx** kp, const private_copy* outer) {
  int64_t child = 0;
  for (int64_t k = 0; k < n; ++k) {
    child += counts[k];
    if (counts[k] == 0) continue;
    for (int j = 0; j < l->n; ++j) {
      const private_copy* o = &outer[k * l->n + j];
      if (!o->outer) continue;
      enter(st, kp[child - 1]);
      const tir_value* b = tvm_tir__lookup(st->in, l->vars[j]);
      if (b && b->lane[0].p && b->lane[0].p != o->outer)
        memcpy(o->outer, b->lane[0].p, (size_t)o->nbytes);
      leave(st, kp[child - 1]);
    }
  }
}

/* ---- Tensor cores: a WMMA call is run once per warp ---------------------------------------- */
static bool same_value(const tir_value* a, const tir_value* b) {
  if (a->dtype.code != b->dtype.code || a->dtype.bits != b->dtype.bits || a->dtype.lanes != b->dtype.lanes)
    return false;
  for (int l = 0; l < tir_lanes(a); ++l)
    if (memcmp(&a->lane[l], &b->lane[l], sizeof(tir_lane)) != 0) return false;
  return true;
}

/* The argument holding the fragment index of the fragment at argument a. */
static int frag_index_arg(int a, int nf) { return nf == 4 ? a + 1 : 4; }

/* A WMMA call (interp_wmma.c) reached by the contexts cs: the operation of a warp, which the
 * warp's 32 threads perform together on a GPU with the same operands. Every warp reaching it
 * must be whole (all 32 lanes, a block's threads numbered x + X * (y + Y * z)) and agree on
 * the operands other than the fragments; it then runs once per warp with its first lane's
 * operands (its fragments are that lane's: a fragment allocated inside the thread launch is one
 * per context here, and only the first lane's copy is ever used). Two warps naming the same
 * fragment (the same buffer and index: a fragment allocated outside the thread launch is one
 * per block here but one per warp on a GPU) cannot both be given theirs: an error. */
static int ls_wmma(ls_state* st, const void* s, const tvm_tir_call_obj* call, ls_ctx** cs, int64_t n) {
  int64_t na = tvm_tir_array_size(call->args);
  if (na > 8) na = 8; /* tvm_tir__wmma_run reports the count */
  tir_value* vals = tvm_ffi_calloc((size_t)(n * 8), sizeof(tir_value));
  int64_t* tid = tvm_ffi_calloc((size_t)n, sizeof(int64_t));
  int64_t* first = tvm_ffi_calloc((size_t)n, sizeof(int64_t)); /* per warp: its first context */
  int64_t* count = tvm_ffi_calloc((size_t)n, sizeof(int64_t));
  int rc = vals && tid && first && count ? TIR_OK : TIR_ERROR;
  int64_t nwarps = 0;
  int64_t* warp_ids = tvm_ffi_calloc((size_t)n, sizeof(int64_t));
  if (!warp_ids) rc = TIR_ERROR;
  for (int64_t c = 0; c < n && rc == TIR_OK; ++c) {
    tid[c] = ctx_tid(st, cs[c]);
    for (int64_t i = 0; i < na && rc == TIR_OK; ++i)
      rc = eval_in(st, cs[c], call_arg(call, i), &vals[c * 8 + i]);
    if (rc != TIR_OK) break;
    int64_t w = 0;
    while (w < nwarps && warp_ids[w] != tid[c] / 32) w++;
    if (w == nwarps) {
      warp_ids[nwarps++] = tid[c] / 32;
      first[w] = c;
    } else if (tid[c] < tid[first[w]]) {
      first[w] = c;
    }
    count[w]++;
  }
  int fa[4];
  int nf = tvm_tir__wmma_fragment_args(call, fa);
  for (int64_t w = 0; w < nwarps && rc == TIR_OK; ++w) {
    if (count[w] != 32) {
      rc = tvm_tir__raise_at("RuntimeError", s,
                             "%s reached by %lld threads of warp %lld: a tensor-core operation "
                             "needs all 32 threads of the warp (undefined behaviour on a GPU; a "
                             "block's threads form warps of 32 in the order x + X * (y + Y * z))",
                             tvm_tir_op_name((const tvm_tir_op_obj*)call->op), (long long)count[w], (long long)warp_ids[w]);
      break;
    }
    const tir_value* v0 = &vals[first[w] * 8];
    for (int64_t c = 0; c < n && rc == TIR_OK; ++c) {
      if (tid[c] / 32 != warp_ids[w]) continue;
      for (int64_t i = 0; i < na && rc == TIR_OK; ++i) {
        bool frag = false;
        for (int j = 0; j < nf; ++j) frag = frag || fa[j] == i;
        if (!frag && !same_value(&vals[c * 8 + i], &v0[i]))
          rc = tvm_tir__raise_at("RuntimeError", s,
                                 "%s: argument %lld differs between the threads of warp %lld "
                                 "(threads %lld and %lld): a tensor-core operation takes the "
                                 "same operands in every thread of the warp",
                                 tvm_tir_op_name((const tvm_tir_op_obj*)call->op), (long long)i, (long long)warp_ids[w],
                                 (long long)tid[first[w]], (long long)tid[c]);
      }
    }
    for (int64_t w2 = 0; w2 < w && rc == TIR_OK; ++w2)
      for (int j = 0; j < nf && rc == TIR_OK; ++j)
        for (int j2 = 0; j2 < nf && rc == TIR_OK; ++j2)
          if (vals[first[w] * 8 + fa[j]].lane[0].p == vals[first[w2] * 8 + fa[j2]].lane[0].p &&
              vals[first[w] * 8 + frag_index_arg(fa[j], nf)].lane[0].i ==
                  vals[first[w2] * 8 + frag_index_arg(fa[j2], nf)].lane[0].i)
            rc = tvm_tir__raise_at(
                "NotImplementedError", s,
                "%s: warps %lld and %lld use the same fragment memory %s: a fragment allocated "
                "outside the thread launch is one buffer per block in the interpreter but one "
                "per warp on a GPU (allocate it inside the threadIdx launches)",
                tvm_tir_op_name((const tvm_tir_op_obj*)call->op), (long long)warp_ids[w2], (long long)warp_ids[w],
                tvm_tir_var_name((const tvm_tir_var_obj*)call_arg(call, fa[j])));
  }
  for (int64_t w = 0; w < nwarps && rc == TIR_OK; ++w) {
    enter(st, cs[first[w]]);
    rc = tvm_tir__wmma_run(st->in, call, &vals[first[w] * 8]);
    leave(st, cs[first[w]]);
  }
  tvm_ffi_free(vals);
  tvm_ffi_free(tid);
  tvm_ffi_free(first);
  tvm_ffi_free(count);
  tvm_ffi_free(warp_ids);
  return rc;
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
  if (rc == TIR_OK && st->num_launches == LS_MAX_LAUNCHES)
    rc = tvm_tir__raise_at("NotImplementedError", s, "more than %d nested thread launches",
                           LS_MAX_LAUNCHES);
  local_vars locals = {.n = 0};
  private_copy* outer = NULL;
  int64_t regions = st->in->num_regions;
  if (rc == TIR_OK && axis >= TVM_TIR_THREAD_TAG_THREAD_X && axis < TVM_TIR_THREAD_TAG_VTHREAD) {
    if (tvm_tir__walk(body, false, collect_local_fn, &locals) != 0) {
      rc = tvm_tir__raise_at("NotImplementedError", s,
                             "more than %d local allocations used in a thread launch holding a "
                             "barrier",
                             LS_MAX_PRIVATE);
    } else if (locals.n > 0) {
      outer = tvm_ffi_calloc((size_t)(n * locals.n), sizeof(private_copy));
      rc = outer ? privatize(st, &locals, cs, n, exts, kp, outer) : TIR_ERROR;
    }
  }
  if (rc == TIR_OK) {
    int64_t most = 0;
    for (int64_t k = 0; k < n; ++k) most = exts[k] > most ? exts[k] : most;
    st->launches[st->num_launches++] = (ls_launch_rec){var, axis, most};
    rc = lockstep(st, body, kp, made, complete);
    st->num_launches--;
  }
  if (rc == TIR_OK && outer) write_back(st, &locals, n, exts, kp, outer);
  tvm_tir__pop_regions(st->in, regions);
  tvm_ffi_free(outer);
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
  const void* data;
  if (tvm_tir__allocate_const_data(a, &data) != 0) return TIR_ERROR;
  if (data) {
    return tvm_tir__raise_at("NotImplementedError", a,
                             "allocate_const %s inside a thread launch with a barrier",
                             tvm_tir_var_name(a->buffer_var));
  }
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
  warp_prep p = {0};
  if (has_warp_call(l->value)) rc = warp_prepare(st, l, l->value, cs, n, &p);
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    tir_value v;
    p.view.ctx = k;
    st->in->warp = p.results ? &p.view : NULL;
    rc = eval_in(st, cs[k], l->value, &v);
    st->in->warp = NULL;
    if (rc == TIR_OK) rc = bind_in(st, cs[k], l->var, &v);
  }
  tvm_ffi_free(p.results);
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

/* A reduce_scope attribute names the reducer of the allreduce inside; others are transparent. */
static int ls_attr(ls_state* st, const tvm_tir_attr_stmt_obj* a, ls_ctx** cs, int64_t n,
                   bool complete) {
  const void* node = tvm_ffi_any_is_object(&a->node) ? a->node.v_obj : NULL;
  if (strcmp(tvm_ffi_str_cstr(a->attr_key), "reduce_scope") != 0 ||
      tvm_tir_kind_of(node) != TVM_TIR_KIND_CommReducer)
    return lockstep(st, a->body, cs, n, complete);
  const tvm_tir_comm_reducer_obj* saved = st->reducer;
  st->reducer = node;
  int rc = lockstep(st, a->body, cs, n, complete);
  st->reducer = saved;
  return rc;
}

/* A block (no init or match_buffers) around a barrier: its iteration variables bound per
 * context. */
static int ls_block(ls_state* st, const tvm_tir_sblock_realize_obj* r, ls_ctx** cs, int64_t n,
                    bool complete) {
  const tvm_tir_sblock_obj* b = r->block;
  if (b->init || tvm_tir_array_size(b->match_buffers)) {
    return tvm_tir__raise_at("NotImplementedError", r,
                             "a barrier inside a block with init or match_buffers");
  }
  if (r->predicate) {
    int64_t p = 1;
    TRY(uniform_int(st, r, r->predicate, cs, n, "the predicate of a block", &p));
    if (!p) return TIR_OK;
  }
  int64_t regions = st->in->num_regions, *marks = marks_of(cs, n);
  if (!marks) return TIR_ERROR;
  int rc = TIR_OK;
  /* iteration variables: bound per context to its iter_values (upstream's cross-thread
   * reduction blocks hold the allreduce) */
  int64_t niv = tvm_tir_array_size(r->iter_values);
  for (int64_t k = 0; k < n && rc == TIR_OK; ++k) {
    for (int64_t i = 0; i < niv && rc == TIR_OK; ++i) {
      const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(b->iter_vars, i);
      tir_value v;
      rc = eval_in(st, cs[k], tvm_tir_array_at(r->iter_values, i), &v);
      if (rc == TIR_OK) rc = bind_in(st, cs[k], iv->var, &v);
    }
  }
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
    case TVM_TIR_KIND_BufferStore: return ls_warp_leaf(st, s, cs, n);
    case TVM_TIR_KIND_Evaluate: /* the barrier: every context has arrived */
      if (allreduce_call(s)) return ls_allreduce(st, s, allreduce_call(s), cs, n, complete);
      if (wmma_call(s)) return ls_wmma(st, s, wmma_call(s), cs, n);
      if (!tvm_tir__stmt_is_barrier(s)) return ls_warp_leaf(st, s, cs, n);
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
    case TVM_TIR_KIND_AttrStmt: return ls_attr(st, s, cs, n, complete);
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
