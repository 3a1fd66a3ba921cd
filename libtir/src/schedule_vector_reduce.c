/* schedule_vector_reduce.c: rule vector_reduce of the default schedule (tvm/tir/schedule.h).
 *
 *   for r in [m, m + n):                      V = local [L]
 *     S[idx] = S[idx] + e(r)          ->      for t vectorized(L): V[t] = e(m + t)
 *                                             for ro in [1, n // L):
 *                                               for t vectorized(L): V[t] = V[t] + e(m + ro * L + t)
 *                                             for h in [0, L): S[idx] = S[idx] + V[h]
 *                                             for rt in [0, n % L): S[idx] = S[idx] + e(m + n // L * L + rt)
 *
 * A reduction along a contiguous axis (softmax's max and sum, layer norm's mean and variance, a
 * row sum): a serial loop of constant extent n >= L whose body is one store S[idx] = S[idx] op e
 * (op Add, Max or Min, either operand order), idx free of r, e reading S nowhere and every
 * buffer it reads contiguously in r (the last index r + terms free of r, r in no other index, a
 * compact buffer) or not depending on r. The L lanes accumulate L interleaved partial results in
 * one vector, reduced horizontally into S at the end (then the scalar tail).
 *
 * Max and Min (and integer Add) give the same result whatever the order; a floating-point Add
 * is reassociated (the partial sums of every L-th term), as PyTorch's and BLAS's vectorized
 * reductions do: the result differs from the serial sum by rounding only. This is the one rule
 * that changes which floating-point operations are done; t.vector_reduce turns it off. */
#include <stdio.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_vector_reduce";
static _Thread_local const tvm_tir_schedule_target* t_target;

/* The reduction of loop f: its store, the operand e and whether S comes first. */
typedef struct {
  const tvm_tir_buffer_store_obj* st;
  const tvm_tir_expr_obj* e;
  bool s_first;
  tvm_tir_kind op;
} reduction;

static bool is_s_load(const tvm_tir_expr_obj* x, const tvm_tir_buffer_store_obj* st) {
  if (!TIR_IS(x, BufferLoad)) return false;
  const tvm_tir_buffer_load_obj* l = (const void*)x;
  return l->buffer->data == st->buffer->data && tvm_tir__sched_same_indices(l->indices, st->indices);
}

/* 1 when f is a contiguous reduction (filled into *out), 0 when not, -1 + error. */
static int match(const tvm_tir_for_obj* f, reduction* out) {
  const tvm_tir_buffer_store_obj* st = (const void*)f->body;
  if (!TIR_IS(st, BufferStore) || st->buffer->dtype.lanes != 1) return 0;
  DLDataType dt = st->buffer->dtype;
  if ((dt.code != kDLFloat && dt.code != kDLInt && dt.code != kDLUInt) || dt.bits < 8) return 0;
  tvm_tir_kind op = tvm_tir_kind_of(st->value);
  if (op != TVM_TIR_KIND_Add && op != TVM_TIR_KIND_Max && op != TVM_TIR_KIND_Min) return 0;
  const tvm_tir_binary_obj* b = (const void*)st->value;
  if (is_s_load(b->a, st)) {
    *out = (reduction){st, b->b, true, op};
  } else if (is_s_load(b->b, st)) {
    *out = (reduction){st, b->a, false, op};
  } else {
    return 0;
  }
  for (int64_t d = 0; d < tvm_ffi_seq_size(st->indices); ++d) {
    int u = tvm_tir__sched_uses_var(tvm_ffi_seq_obj_at(st->indices, d), f->loop_var);
    if (u != 0) return u < 0 ? -1 : 0;
  }
  sched_scan s;
  if (tvm_tir__sched_scan(out->e, &s) != 0) return -1;
  bool ok = !s.unsafe && !s.non_serial && s.nloops == 0 && s.nbind == 0;
  for (int64_t i = 0; ok && i < s.nacc; ++i) {
    const sched_access* a = &s.acc[i];
    int64_t nd = tvm_ffi_seq_size(a->indices), c;
    ok = !a->store && a->buffer->data != st->buffer->data && nd > 0 && a->buffer->dtype.lanes == 1;
    for (int64_t d = 0; ok && d + 1 < nd; ++d) {
      int u = tvm_tir__sched_uses_var(tvm_ffi_seq_obj_at(a->indices, d), f->loop_var);
      if (u < 0) {
        tvm_tir__sched_scan_free(&s);
        return -1;
      }
      ok = u == 0;
    }
    ok = ok && tvm_tir__sched_lin_coef(tvm_ffi_seq_obj_at(a->indices, nd - 1), f->loop_var, &c) &&
         (c == 0 || (c == 1 && tvm_ffi_seq_size(a->buffer->strides) == 0));
  }
  tvm_tir__sched_scan_free(&s);
  return ok;
}

static tvm_tir_expr_obj* combine(tvm_tir_kind op, void* acc, void* x, bool acc_first) {
  void* a = acc_first ? acc : x;
  void* b = acc_first ? x : acc;
  return op == TVM_TIR_KIND_Add ? tvm_tir_add_take(a, b)
         : op == TVM_TIR_KIND_Max ? tvm_tir_max_take(a, b)
                                  : tvm_tir_min_take(a, b);
}

/* for t vectorized(L): V[t] = e(at + t)  (or V[t] op e(..) when accumulate) */
static void* vector_step(const tvm_tir_for_obj* f, const reduction* r, tvm_tir_buffer_obj* V,
                         const void* at, int64_t L, bool accumulate) {
  tvm_tir_var_obj* t = tvm_tir_var("t", f->loop_var->expr.dtype);
  tvm_tir_expr_obj* idx = t ? tvm_tir_add((tvm_tir_expr_obj*)at, (tvm_tir_expr_obj*)t) : NULL;
  void* e = idx ? tvm_tir__sched_copy_subst(r->e, f->loop_var, idx) : NULL;
  void* val = e && accumulate ? combine(r->op, tvm_tir_load_take(tvm_tir_ref(V), tvm_tir_ref(t)), e, r->s_first) : e;
  void* st = tvm_tir_store_take(tvm_tir_ref(V), val, tvm_tir_ref(t));
  void* loop = tvm_tir_for_take(tvm_tir_ref(t), tvm_tir__sched_iconst(f->loop_var, 0),
                                tvm_tir__sched_iconst(f->loop_var, L), TVM_TIR_FOR_VECTORIZED, st);
  RELEASE2(t, idx);
  return loop;
}

static void* reduce_for(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* f = node;
  int64_t n;
  if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding || f->loop_var->expr.dtype.code != kDLInt ||
      !tvm_tir__sched_const(f->extent, &n))
    return tvm_tir_ref((void*)node);
  reduction r;
  int ok = match(f, &r);
  if (ok <= 0) return ok < 0 ? NULL : tvm_tir_ref((void*)node);
  int64_t L = t_target->vector_bits / r.st->buffer->dtype.bits;
  if (L < 2 || L > 64 || n < L) return tvm_tir_ref((void*)node);
  const tvm_tir_buffer_obj* S = r.st->buffer;
  char name[96];
  snprintf(name, sizeof(name), "%s_vec", tvm_tir_buffer_name(S));
  tvm_tir_buffer_obj* V = tvm_tir_buffer_decl_takev(name, S->dtype, 1, (void*[]){tvm_tir__sched_iconst(f->loop_var, L)}, "local");
  void* first = V ? vector_step(f, &r, V, f->min, L, false) : NULL;
  void* main = NULL;
  if (first && n / L > 1) {
    tvm_tir_var_obj* ro = tvm_tir_var("ro", f->loop_var->expr.dtype);
    tvm_tir_expr_obj* at =
        ro ? tvm_tir_add_take(tvm_tir_ref(f->min), tvm_tir_mul_take(tvm_tir_ref(ro), tvm_tir__sched_iconst(f->loop_var, L)))
           : NULL;
    void* step = at ? vector_step(f, &r, V, at, L, true) : NULL;
    main = tvm_tir_serial_take(tvm_tir_ref(ro), tvm_tir__sched_iconst(f->loop_var, 1),
                               tvm_tir__sched_iconst(f->loop_var, n / L - 1), step);
    RELEASE2(ro, at);
  }
  /* horizontal: S[idx] = S[idx] op V[h], h = 0 .. L - 1 */
  tvm_tir_var_obj* h = first ? tvm_tir_var("h", f->loop_var->expr.dtype) : NULL;
  void* hval = h ? combine(r.op, tvm_tir_buffer_load_new((tvm_tir_buffer_obj*)S, r.st->indices),
                           tvm_tir_load_take(tvm_tir_ref(V), tvm_tir_ref(h)), r.s_first)
                 : NULL;
  void* hst = hval ? tvm_tir_buffer_store_new((tvm_tir_buffer_obj*)S, hval, r.st->indices) : NULL;
  tvm_ffi_release(hval);
  void* horiz = hst ? tvm_tir_serial_take(tvm_tir_ref(h), tvm_tir__sched_iconst(f->loop_var, 0),
                                          tvm_tir__sched_iconst(f->loop_var, L), hst)
                    : NULL;
  tvm_ffi_release(h);
  void* tail = NULL;
  if (horiz && n % L) {
    tvm_tir_var_obj* rt = tvm_tir_var("rt", f->loop_var->expr.dtype);
    tvm_tir_expr_obj* at = rt ? tvm_tir_add_take(tvm_tir_add_take(tvm_tir_ref(f->min),
                                                                  tvm_tir__sched_iconst(f->loop_var, n / L * L)),
                                                 tvm_tir_ref(rt))
                              : NULL;
    void* body = at ? tvm_tir__sched_copy_subst(f->body, f->loop_var, at) : NULL;
    tail = tvm_tir_serial_take(tvm_tir_ref(rt), tvm_tir__sched_iconst(f->loop_var, 0),
                               tvm_tir__sched_iconst(f->loop_var, n % L), body);
    RELEASE2(rt, at);
  }
  void* items[4];
  int k = 0;
  bool failed = !horiz || (n / L > 1 && !main) || (n % L && !tail);
  if (first) items[k++] = first;
  if (main) items[k++] = main;
  if (horiz) items[k++] = horiz;
  if (tail) items[k++] = tail;
  void* out = NULL;
  if (failed) {
    for (int i = 0; i < k; ++i) tvm_ffi_release(items[i]);
  } else {
    void* seq = tvm_tir_seq_takev(k, items);
    out = tvm_tir_allocate_takev(tvm_tir_ref(V->data), V->dtype, 1, (void*[]){tvm_tir__sched_iconst(f->loop_var, L)},
                                 tvm_tir_decl_buffer_take(tvm_tir_ref(V), seq));
  }
  tvm_ffi_release(V);
  return out;
}

static void* run(const tvm_tir_prim_func_obj* f) { return tvm_tir__sched_rewrite_loops(f, reduce_for); }

void* tvm_tir_schedule_vector_reduce(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  tvm_tir_schedule_target d = tvm_tir_schedule_target_default();
  const tvm_tir_schedule_target* outer = t_target;
  t_target = t ? t : &d;
  void* r = tvm_tir__xform_apply(mod_or_func, kPass, run);
  t_target = outer;
  return r;
}
