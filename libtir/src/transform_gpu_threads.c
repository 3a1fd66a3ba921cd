/*
 * transform_gpu_threads.c: two GPU passes (tvm/tir/transform.h).
 *
 * lower_thread_bindings: a For of kind thread_binding over [min, min + extent) with thread tag T
 * becomes AttrStmt(IterVar(v, [0, extent), thread index, T), "thread_extent", extent, body), the
 * form T.launch_thread writes and the code generators read (a vthread tag gives
 * "virtual_thread"); v is the loop variable itself when min is 0, else a fresh variable and the
 * loop variable is replaced by v + min. A thread-bound loop without a tag, or with a tag that is
 * not blockIdx.x/y/z, threadIdx.x/y/z or a vthread, is a ValueError. The interpreter runs both
 * forms as the same loop.
 *
 * thread_sync: barriers where the loop semantics of thread launches need them on a GPU. Inside
 * a kernel (under a launch), code outside every threadIdx launch runs once per block in the
 * interpreter but on every thread of the block on a GPU, and the sibling thread loops of a
 * sequence run one after another in the interpreter but at once on a GPU. So between two
 * statements of such a sequence where the later one reads memory the earlier one wrote, or
 * writes memory the earlier one read or wrote (any buffer whose scope is not "local"), a
 * T.tvm_storage_sync("shared") is inserted, unless a barrier already separates them; and a loop
 * there whose body writes memory it also reads or writes gets one at the end of its body (the
 * next iteration's accesses). Conservative (it compares buffers, not indices): an unneeded
 * barrier costs time, never correctness. Barriers outside every thread loop are no-ops in the
 * interpreter, so the pass changes no result there. Kernels without a threadIdx launch are left
 * alone.
 */
#include <stdio.h>

#include "transform_internal.h"

static const char kBindPass[] = "lower_thread_bindings";
static const char kSyncPass[] = "thread_sync";

/* ---- lower_thread_bindings ----------------------------------------------------------------- */
static void* bind_loop(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* f = node;
  if (f->kind != TVM_TIR_FOR_THREAD_BINDING) return tvm_tir_ref((void*)f);
  const char* tag = tvm_tir__launch_tag(f, NULL);
  int axis = tvm_tir__thread_tag_axis(tag);
  if (!tag || !tag[0]) {
    return tvm_tir__xform_error("ValueError", kBindPass, f->loop_var,
                                "the thread-bound loop over this variable has no thread tag");
  }
  if (axis == TVM_TIR_THREAD_TAG_NONE) {
    return tvm_tir__xform_error("ValueError", kBindPass, f->loop_var,
                                "unknown thread tag \"%s\" (expected blockIdx.x/y/z, "
                                "threadIdx.x/y/z or vthread)",
                                tag);
  }
  int64_t min = -1;
  bool zero = tvm_tir_as_const_int(f->min, &min) && min == 0;
  tvm_tir_var_obj* v = f->loop_var;
  tvm_ffi_retain(v);
  void* body = tvm_tir_ref(f->body);
  if (!zero) { /* v + min replaces the loop variable */
    char name[256];
    snprintf(name, sizeof(name), "%s_t", tvm_tir_var_name(f->loop_var));
    tvm_ffi_release(v);
    v = tvm_tir_var_new(name, f->loop_var->expr.dtype);
    tvm_tir_subst s;
    tvm_tir_expr_obj* value = v ? tvm_tir_add(&v->expr, f->min) : NULL;
    tvm_ffi_release(body);
    body = NULL;
    if (value && tvm_tir_subst_init(&s, false) == 0) {
      if (tvm_tir_subst_set_var(&s, f->loop_var, value) == 0) body = tvm_tir_subst_apply(&s, f->body);
      tvm_tir_subst_free(&s);
    }
    tvm_ffi_release(value);
  }
  tvm_tir_range_obj* dom = body ? tvm_tir_range_take(tvm_tir_const(v->expr.dtype, 0),
                                                    tvm_tir_ref(f->extent))
                               : NULL;
  tvm_tir_iter_var_obj* iv = dom ? tvm_tir_iter_var_new(dom, v, TVM_TIR_ITER_THREAD_INDEX, tag) : NULL;
  tvm_ffi_release(dom);
  void* r = NULL;
  if (iv) {
    r = tvm_tir_attr_take(iv, axis == TVM_TIR_THREAD_TAG_VTHREAD ? "virtual_thread" : "thread_extent",
                          tvm_tir_ref(f->extent), body);
    body = NULL;
  }
  tvm_ffi_release(body);
  tvm_ffi_release(v);
  return r;
}

static void* run_bind(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_For] = bind_loop;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_lower_thread_bindings(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kBindPass, run_bind);
}

/* ---- thread_sync --------------------------------------------------------------------------- */
/* The buffers (data Vars) a statement reads and writes, outside the "local" scope. */
typedef struct {
  const void** r;
  int64_t nr, cr;
  const void** w;
  int64_t nw, cw;
} access_set;

static int set_add(const void*** a, int64_t* n, int64_t* cap, const void* v) {
  for (int64_t k = 0; k < *n; ++k)
    if ((*a)[k] == v) return 0;
  if (*n == *cap) {
    int64_t c = *cap ? 2 * *cap : 8;
    const void** p = tvm_ffi_realloc((void*)*a, (size_t)c * sizeof(void*));
    if (!p) return -1;
    *a = p;
    *cap = c;
  }
  (*a)[(*n)++] = v;
  return 0;
}

static bool set_has(const void* const* a, int64_t n, const void* v) {
  for (int64_t k = 0; k < n; ++k)
    if (a[k] == v) return true;
  return false;
}

static void access_free(access_set* s) {
  tvm_ffi_free((void*)s->r);
  tvm_ffi_free((void*)s->w);
  memset(s, 0, sizeof(*s));
}

static bool synced_scope(const tvm_tir_var_obj* data) {
  const char* scope = tvm_tir_pointer_type_scope(data->type_annotation);
  return !scope || strncmp(scope, "local", 5) != 0;
}

static int collect_access(tvm_tir_visitor* v, const void* node) {
  access_set* s = v->ctx;
  tvm_tir_kind k = tvm_tir_kind_of(node);
  if (k == TVM_TIR_KIND_BufferLoad) {
    const tvm_tir_var_obj* d = ((const tvm_tir_buffer_load_obj*)node)->buffer->data;
    if (synced_scope(d) && set_add(&s->r, &s->nr, &s->cr, d) != 0) return -1;
  } else if (k == TVM_TIR_KIND_BufferStore) {
    const tvm_tir_var_obj* d = ((const tvm_tir_buffer_store_obj*)node)->buffer->data;
    if (synced_scope(d) && set_add(&s->w, &s->nw, &s->cw, d) != 0) return -1;
  } else if (k == TVM_TIR_KIND_Buffer) {
    return TVM_TIR_VISIT_SKIP;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static int access_of(const void* stmt, access_set* out) {
  memset(out, 0, sizeof(*out));
  tvm_tir_visitor v = {0};
  v.pre_default = collect_access;
  v.ctx = out;
  int rc = tvm_tir_visit(&v, stmt);
  tvm_tir_visitor_free(&v);
  if (rc != 0) access_free(out);
  return rc;
}

/* Whether b after a needs a barrier: RAW, WAR or WAW on a buffer. */
static bool conflict(const access_set* a, const access_set* b) {
  for (int64_t k = 0; k < a->nw; ++k)
    if (set_has(b->r, b->nr, a->w[k]) || set_has(b->w, b->nw, a->w[k])) return true;
  for (int64_t k = 0; k < a->nr; ++k)
    if (set_has(b->w, b->nw, a->r[k])) return true;
  return false;
}

static int merge(access_set* into, const access_set* from) {
  for (int64_t k = 0; k < from->nr; ++k)
    if (set_add(&into->r, &into->nr, &into->cr, from->r[k]) != 0) return -1;
  for (int64_t k = 0; k < from->nw; ++k)
    if (set_add(&into->w, &into->nw, &into->cw, from->w[k]) != 0) return -1;
  return 0;
}

static tvm_tir_stmt_obj* make_barrier(void) {
  tvm_tir_expr_obj* scope = tvm_tir_string_imm_new("shared", 6);
  tvm_tir_expr_obj* call =
      scope ? tvm_tir_call_takev(TVM_TIR_INT32, "tir.tvm_storage_sync", 1, (void*[]){scope}) : NULL;
  return call ? tvm_tir_evaluate_take(call) : NULL;
}

/* Mutator state: > 0 inside a kernel that launches threadIdx, outside those launches. */
typedef struct {
  tvm_tir_mutator m; /* first: callbacks get &m */
  int kernel_depth;
} sync_ctx;

static int find_thread_launch(tvm_tir_visitor* v, const void* node) {
  int axis = tvm_tir__thread_tag_axis(tvm_tir__launch_tag(node, NULL));
  if (axis < TVM_TIR_THREAD_TAG_THREAD_X) return TVM_TIR_VISIT_CONTINUE;
  *(bool*)v->ctx = true;
  return TVM_TIR_VISIT_SKIP;
}

static int has_thread_launch(const void* s, bool* out) {
  *out = false;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_AttrStmt] = find_thread_launch;
  v.pre[TVM_TIR_KIND_For] = find_thread_launch;
  v.ctx = out;
  int rc = tvm_tir_visit(&v, s);
  tvm_tir_visitor_free(&v);
  return rc;
}

static bool ends_with_barrier(const void* s) {
  if (tvm_tir_kind_of(s) == TVM_TIR_KIND_SeqStmt) {
    void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
    int64_t n = tvm_tir_array_size(seq);
    return n > 0 && ends_with_barrier(tvm_tir_array_at(seq, n - 1));
  }
  return tvm_tir__stmt_is_barrier(s);
}

/* A loop body that writes memory it also reads or writes: a barrier at its end. Takes body. */
static void* loop_carried(void* body) {
  if (!body || ends_with_barrier(body)) return body;
  access_set a;
  if (access_of(body, &a) != 0) {
    tvm_ffi_release(body);
    return NULL;
  }
  bool need = conflict(&a, &a);
  access_free(&a);
  if (!need) return body;
  tvm_tir_stmt_obj* b = make_barrier();
  if (!b) {
    tvm_ffi_release(body);
    return NULL;
  }
  return tvm_tir_seq_take(body, b);
}

static void* sync_loop(tvm_tir_mutator* m, const void* node) {
  sync_ctx* c = (sync_ctx*)m;
  tvm_tir_kind k = tvm_tir_kind_of(node);
  const char* tag = tvm_tir__launch_tag(node, NULL);
  if (tag) {
    int axis = tvm_tir__thread_tag_axis(tag);
    if (axis >= TVM_TIR_THREAD_TAG_THREAD_X) return tvm_tir_ref((void*)node); /* thread level */
    if (axis < 0) return tvm_tir_mutate_children(m, node);
    if (c->kernel_depth == 0) { /* a kernel's outermost blockIdx launch */
      bool threads;
      if (has_thread_launch(node, &threads) != 0) return NULL;
      if (!threads) return tvm_tir_ref((void*)node);
    }
    c->kernel_depth++;
    void* r = tvm_tir_mutate_children(m, node);
    c->kernel_depth--;
    return r;
  }
  void* r = tvm_tir_mutate_children(m, node);
  if (!r || c->kernel_depth == 0 || (k != TVM_TIR_KIND_For && k != TVM_TIR_KIND_While)) return r;
  void* body = k == TVM_TIR_KIND_For ? ((tvm_tir_for_obj*)r)->body : ((tvm_tir_while_obj*)r)->body;
  void* nb = loop_carried(tvm_tir_ref(body));
  void* out = NULL;
  if (nb == body) {
    tvm_ffi_release(nb);
    return r;
  }
  if (nb && k == TVM_TIR_KIND_For) {
    const tvm_tir_for_obj* f = r;
    out = tvm_tir_for_new(f->loop_var, f->min, f->extent, f->kind, nb, f->thread_binding,
                          f->annotations);
  } else if (nb) {
    out = tvm_tir_while_new(((tvm_tir_while_obj*)r)->condition, nb);
  }
  tvm_ffi_release(nb);
  tvm_ffi_release(r);
  return out;
}

static void* sync_seq(tvm_tir_mutator* m, const void* node) {
  sync_ctx* c = (sync_ctx*)m;
  if (c->kernel_depth == 0) return tvm_tir_mutate_children(m, node);
  void* seq = ((const tvm_tir_seq_stmt_obj*)node)->seq;
  int64_t n = tvm_tir_array_size(seq), out_n = 0;
  void** out = tvm_ffi_calloc((size_t)(2 * n + 1), sizeof(void*));
  if (!out) return NULL;
  access_set pending = {0};
  bool ok = true, changed = false;
  for (int64_t k = 0; k < n && ok; ++k) {
    const void* child = tvm_tir_array_at(seq, k);
    void* mc = tvm_tir_mutate(m, child);
    if (!mc) {
      ok = false;
      break;
    }
    changed |= mc != child;
    if (tvm_tir__stmt_is_barrier(mc)) {
      access_free(&pending);
      out[out_n++] = mc;
      continue;
    }
    access_set a;
    if (access_of(mc, &a) != 0) {
      tvm_ffi_release(mc);
      ok = false;
      break;
    }
    if (conflict(&pending, &a)) {
      out[out_n] = make_barrier();
      ok = out[out_n++] != NULL;
      changed = true;
      access_free(&pending);
    }
    if (ok && merge(&pending, &a) != 0) ok = false;
    access_free(&a);
    out[out_n++] = mc;
  }
  access_free(&pending);
  void* r = NULL;
  if (ok && !changed) {
    r = tvm_tir_ref((void*)node);
    for (int64_t k = 0; k < out_n; ++k) tvm_ffi_release(out[k]);
  } else if (ok) {
    r = tvm_tir_seq_takev(out_n, out); /* consumes the statements */
  } else {
    for (int64_t k = 0; k < out_n; ++k) tvm_ffi_release(out[k]);
  }
  tvm_ffi_free(out);
  return r;
}

static void* run_sync(const tvm_tir_prim_func_obj* f) {
  sync_ctx c = {{{0}}, 0};
  c.m.pre[TVM_TIR_KIND_AttrStmt] = sync_loop;
  c.m.pre[TVM_TIR_KIND_For] = sync_loop;
  c.m.pre[TVM_TIR_KIND_While] = sync_loop;
  c.m.pre[TVM_TIR_KIND_SeqStmt] = sync_seq;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&c.m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_thread_sync(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kSyncPass, run_sync);
}
