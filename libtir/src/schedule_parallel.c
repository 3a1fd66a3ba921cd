/* schedule_parallel.c: rule parallel of the default schedule (tvm/tir/schedule.h).
 *
 *   for i in [0, A):                   for f in parallel(A * B):
 *     for j in [0, B):          ->       body[i := f // B, j := f % B]
 *       body
 *
 * At the top level of the function (through sequences, allocations, lets, conditions), each
 * loop nest's outermost perfectly nested independent serial loops are fused until their product
 * reaches min_parallel_extent, and the fused loop runs on the thread pool (libcodegen outlines
 * it; each task takes a contiguous chunk). A nest whose work (tvm_tir__sched_work: roughly its
 * instructions, a vector load or store counting one) is below parallel_grain stays serial: a
 * launch on an awake pool costs about a microsecond of cache-line traffic, a kernel at the
 * default grain runs some 10 us. An outer loop that is not independent is looked into. */
#include <stdio.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_parallel";
static _Thread_local const tvm_tir_schedule_target* t_target;

enum { MAX_CHAIN = 8 };

/* The product of the extents (a new reference). */
static tvm_tir_expr_obj* product(const tvm_tir_for_obj* const* chain, int n) {
  tvm_tir_expr_obj* p = tvm_tir_ref(chain[0]->extent);
  for (int i = 1; p && i < n; ++i) p = tvm_tir_mul_take(p, tvm_tir_ref(chain[i]->extent));
  return p;
}

/* The fused parallel loop over chain[0..n) (n >= 1). */
static void* fuse(const tvm_tir_for_obj* const* chain, int n) {
  const tvm_tir_for_obj* inner = chain[n - 1];
  if (n == 1) {
    return tvm_tir_for_new(inner->loop_var, inner->min, inner->extent, TVM_TIR_FOR_PARALLEL,
                           inner->body, NULL, inner->annotations);
  }
  tvm_tir_var_obj* fv = tvm_tir_var("fused", chain[0]->loop_var->expr.dtype);
  tvm_tir_subst s;
  if (!fv || tvm_tir_subst_init(&s, false) != 0) {
    tvm_ffi_release(fv);
    return NULL;
  }
  int rc = 0;
  /* index of loop i: (f // prod(extents after i)) % extent_i (no % for the outermost) + min */
  tvm_tir_expr_obj* stride = tvm_tir__sched_iconst(fv, 1);
  for (int i = n - 1; rc == 0 && i >= 0; --i) {
    tvm_tir_expr_obj* q = tvm_tir_floordiv_take(tvm_tir_ref(fv), tvm_tir_ref(stride));
    if (i > 0) q = tvm_tir_floormod_take(q, tvm_tir_ref(chain[i]->extent));
    q = tvm_tir_add_take(q, tvm_tir_ref(chain[i]->min));
    rc = q ? tvm_tir_subst_set_var(&s, chain[i]->loop_var, q) : -1;
    tvm_ffi_release(q);
    stride = tvm_tir_mul_take(stride, tvm_tir_ref(chain[i]->extent));
    if (!stride) rc = -1;
  }
  void* body = rc == 0 ? tvm_tir_subst_apply(&s, inner->body) : NULL;
  tvm_tir_subst_free(&s);
  void* r = tvm_tir_for_take(tvm_tir_ref(fv), tvm_tir__sched_iconst(fv, 0), product(chain, n),
                             TVM_TIR_FOR_PARALLEL, body);
  tvm_ffi_release(stride);
  tvm_ffi_release(fv);
  return r;
}

static void* parallel_pre(tvm_tir_mutator* m, const void* node);

/* A new reference to loop f parallelized, or f itself when it cannot be (its body walked when f
 * is not independent). NULL + error. */
static void* parallelize(tvm_tir_mutator* m, const tvm_tir_for_obj* f) {
  const tvm_tir_for_obj* chain[MAX_CHAIN];
  int n = 0;
  for (const tvm_tir_for_obj* l = f; l && n < MAX_CHAIN;) {
    if (l->kind != TVM_TIR_FOR_SERIAL || l->thread_binding) break;
    if (!tvm_tir_dtype_equal(l->loop_var->expr.dtype, f->loop_var->expr.dtype)) break;
    /* its bounds must not depend on the loops fused above it */
    bool dep = false;
    for (int i = 0; i < n && !dep; ++i) {
      int a = tvm_tir__sched_uses_var(l->min, chain[i]->loop_var);
      int b = tvm_tir__sched_uses_var(l->extent, chain[i]->loop_var);
      if (a < 0 || b < 0) return NULL;
      dep = a || b;
    }
    if (dep) break;
    int ind = tvm_tir__sched_independent(l);
    if (ind < 0) return NULL;
    if (!ind) break;
    chain[n++] = l;
    l = TIR_IS(l->body, For) ? (const tvm_tir_for_obj*)l->body : NULL;
  }
  bool one = n > 0;
  for (int i = 0; i < n && one; ++i) {
    int64_t e;
    one = tvm_tir__sched_const(chain[i]->extent, &e) && e <= 1;
  }
  if (n == 0 || one) {
    /* not parallel itself, or one iteration: look inside (a hand-scheduled loop is left alone) */
    if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding) return tvm_tir_ref((void*)f);
    void* body = tvm_tir_mutate(m, f->body);
    if (!body) return NULL;
    void* r = body == (void*)f->body ? tvm_tir_ref((void*)f)
                                     : tvm_tir_for_new(f->loop_var, f->min, f->extent, f->kind,
                                                       body, NULL, f->annotations);
    tvm_ffi_release(body);
    return r;
  }
  int64_t work = tvm_tir__sched_work(f, t_target->vector_bits / 32);
  if (work < t_target->parallel_grain) return tvm_tir_ref((void*)f);
  int k = 0;
  int64_t prod = 1;
  while (k < n) {
    int64_t e;
    bool c = tvm_tir__sched_const(chain[k]->extent, &e);
    ++k;
    if (!c) break; /* symbolic: count it as large */
    prod *= e;
    if (prod >= t_target->min_parallel_extent) break;
  }
  return fuse(chain, k);
}

static void* parallel_pre(tvm_tir_mutator* m, const void* node) { return parallelize(m, node); }

/* Expressions hold no loops. */
static void* keep_expr(tvm_tir_mutator* m, const void* node) {
  (void)m;
  return tvm_tir_ref((void*)node);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  tvm_tir_mutator m = {0};
  m.pre[TVM_TIR_KIND_For] = parallel_pre;
  m.pre[TVM_TIR_KIND_BufferStore] = keep_expr;
  m.pre[TVM_TIR_KIND_Evaluate] = keep_expr;
  void* body = tvm_tir_mutate(&m, f->body);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_schedule_parallel(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  tvm_tir_schedule_target d = tvm_tir_schedule_target_default();
  const tvm_tir_schedule_target* outer = t_target;
  t_target = t ? t : &d;
  void* r = tvm_tir__xform_apply(mod_or_func, kPass, run);
  t_target = outer;
  return r;
}
