/* schedule_vectorize.c: rule vectorize of the default schedule (tvm/tir/schedule.h).
 *
 *   for j in [m, m + n):              for jo in [0, n // L):
 *     body(j)                   ->      sink(body, j = m + jo * L + t, t vectorized over L)
 *                                     for jt in [0, n % L):
 *                                       body(m + n // L * L + jt)   (a renamed copy)
 *
 * or, for a constant n when the body only writes what it computes (reads no buffer it writes),
 * one more vector over the last L iterations, m + n - L + t, overlapping the main part, instead
 * of the scalar tail, unless the body holds a loop (a reduction, which the overlap would compute
 * again) and n % L lanes fill whole 256-bit registers: then short vectors of a power of two of
 * those registers each; else, for a constant n % L of at least 2, one short vector of n % L
 * lanes over the tail. A constant n below L is one short vector of n lanes (the 10 classes of a
 * classifier: LLVM widens the vector to a register and loads / stores the n elements only).
 *
 * for the innermost independent serial loop j whose stores are contiguous in j (the last index
 * is j + terms free of j, j in no other index, a compact buffer) and whose loads are contiguous
 * in j or free of it. The vectorized loop is moved down to every statement of the body
 * (tvm_tir__sched_sink), so an accumulation over inner reduction loops becomes a vector
 * accumulation with one lane per j. L = vector_bits / element bits, doubled when the body
 * holds a loop (a reduction: two vector registers of accumulators per row give independent
 * FMAs) and the extent allows it. */
#include <stdio.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_vectorize";
static _Thread_local const tvm_tir_schedule_target* t_target;

/* Whether buffer b is compact (no explicit strides). */
static bool compact(const tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->strides) == 0; }

/* Lanes for loop f, or 0 when it is not a candidate. */
/* Whether the body reads no buffer it writes (other than its own local buffers): computing an
 * element twice then stores the same value twice. */
static bool store_only(const sched_scan* s) {
  for (int64_t i = 0; i < s->nacc; ++i) {
    const sched_access* a = &s->acc[i];
    if (a->store || tvm_tir__sched_allocated(s, a->buffer->data)) continue;
    for (int64_t j = 0; j < s->nacc; ++j) {
      if (s->acc[j].store && s->acc[j].buffer->data == a->buffer->data) return false;
    }
  }
  return true;
}

static int64_t choose_lanes(const tvm_tir_for_obj* f, const sched_scan* s, bool* out_has_loop) {
  int bits = 0;
  bool contiguous_store = false;
  for (int64_t i = 0; i < s->nacc; ++i) {
    const sched_access* a = &s->acc[i];
    if (tvm_tir__sched_allocated(s, a->buffer->data)) continue;
    int64_t nd = tvm_ffi_seq_size(a->indices);
    if (nd == 0) return 0;
    for (int64_t d = 0; d + 1 < nd; ++d) {
      int u = tvm_tir__sched_uses_var(tvm_ffi_seq_obj_at(a->indices, d), f->loop_var);
      if (u != 0) {
        if (u < 0) tvm_ffi_error_clear();
        return 0;
      }
    }
    int64_t c;
    if (!tvm_tir__sched_lin_coef(tvm_ffi_seq_obj_at(a->indices, nd - 1), f->loop_var, &c) ||
        (c != 0 && c != 1) || (c == 1 && !compact(a->buffer)))
      return 0;
    DLDataType t = a->buffer->dtype;
    if (t.lanes != 1) return 0;
    if (a->store) {
      if (c != 1) return 0;
      if (t.code != kDLFloat && t.code != kDLInt && t.code != kDLUInt) return 0;
      if (t.bits < 8 || (bits && bits != t.bits)) return 0;
      bits = t.bits;
      contiguous_store = true;
    }
  }
  if (!contiguous_store || !bits || !t_target) return 0;
  int64_t lanes = t_target->vector_bits / bits;
  if (lanes < 2) return 0;
  *out_has_loop = s->nloops > 0;
  return lanes;
}

/* f's body for iterations [min + at, min + at + lanes) as one vector of `lanes` lanes (a new
 * reference, or NULL + error). */
static void* short_vector(const tvm_tir_for_obj* f, int64_t at, int64_t lanes) {
  tvm_tir_expr_obj* start =
      tvm_tir_add_take(tvm_tir_ref(f->min), tvm_tir__sched_iconst(f->loop_var, at));
  void* copy = start ? tvm_tir__sched_copy_subst(f->body, f->loop_var, f->loop_var) : NULL;
  sched_sink kt = {f->loop_var, start, lanes, TVM_TIR_FOR_VECTORIZED, false};
  bool terr = false;
  void* tail = copy ? tvm_tir__sched_sink(&kt, copy, &terr) : NULL;
  if (!tail && !terr && copy) { /* cannot happen: the main part moved through */
    tvm_ffi_raise("InternalError", "schedule_vectorize: the short tail vector did not move");
  }
  tvm_ffi_release(start), tvm_ffi_release(copy);
  return tail;
}

static void* vectorize_for(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* f = node;
  void* keep = tvm_tir_ref((void*)node);
  if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding) return keep;
  if (f->loop_var->expr.dtype.code != kDLInt) return keep;
  sched_scan s;
  if (tvm_tir__sched_scan(f->body, &s) != 0) {
    tvm_ffi_release(keep);
    return NULL;
  }
  bool has_loop = false;
  int64_t lanes = !s.unsafe && !s.non_serial ? choose_lanes(f, &s, &has_loop) : 0;
  bool overlap = lanes && store_only(&s);
  tvm_tir__sched_scan_free(&s);
  int64_t n = -1;
  bool const_ext = tvm_tir__sched_const(f->extent, &n);
  /* lanes of one 256-bit register (or of the target's narrower one) */
  int64_t half =
      lanes * (t_target->vector_bits < 256 ? t_target->vector_bits : 256) / t_target->vector_bits;
  if (lanes && has_loop && (!const_ext || n >= 2 * lanes) && 2 * lanes <= 64) lanes *= 2;
  /* An overlapping vector over a reduction computes all of its lanes' sums again; a remainder
   * of whole registers is short vectors instead (also where the body reads what it writes),
   * each a power of two of them (LLVM keeps those in registers, a <24 x float> accumulator it
   * takes apart lane by lane: 10x slower), never more registers than the overlap and fewer
   * where they are half-width ones (56 columns at 2 x 16 lanes: 32 + 16 + 8, not 32 + 32). */
  bool pieces = has_loop && const_ext && half > 0 && n % lanes % half == 0;
  if (pieces) overlap = false;
  /* a constant extent narrower than a vector is one short vector of n lanes (LLVM widens it to
   * a register and loads / stores only the n elements) */
  if (lanes && const_ext && n < lanes) lanes = n;
  if (lanes < 2 || lanes > 64) return keep;
  int ind = tvm_tir__sched_independent(f);
  if (ind <= 0) {
    if (ind < 0) tvm_ffi_release(keep);
    return ind < 0 ? NULL : keep;
  }
  /* main part: jo over n // lanes, the tile moved down */
  char name[64];
  snprintf(name, sizeof(name), "%s_o", tvm_tir_var_name(f->loop_var));
  tvm_tir_var_obj* jo = tvm_tir_var(name, f->loop_var->expr.dtype);
  tvm_tir_expr_obj* L = tvm_tir__sched_iconst(f->loop_var, lanes);
  tvm_tir_expr_obj* base =
      jo && L ? tvm_tir_add_take(tvm_tir_ref(f->min), tvm_tir_mul_take(tvm_tir_ref(jo), tvm_tir_ref(L)))
              : NULL;
  sched_sink k = {f->loop_var, base, lanes, TVM_TIR_FOR_VECTORIZED, false};
  bool err = false;
  void* body = base ? tvm_tir__sched_sink(&k, f->body, &err) : NULL;
  if (!body) {
    RELEASE2(jo, L);
    tvm_ffi_release(base);
    if (err || !base) {
      tvm_ffi_release(keep);
      return NULL;
    }
    return keep;
  }
  tvm_tir_expr_obj* nmain = tvm_tir_floordiv(f->extent, L);
  void* main = tvm_tir_for_take(tvm_tir_ref(jo), tvm_tir__sched_iconst(f->loop_var, 0),
                                tvm_tir_ref(nmain), TVM_TIR_FOR_SERIAL, body);
  /* tail: n % lanes iterations from min + n // lanes * lanes */
  void* out = NULL;
  if (const_ext && n % lanes == 0) {
    out = main;
  } else if (const_ext && overlap) {
    /* the last `lanes` iterations once more, overlapping the main part: one more vector instead
     * of a scalar tail (the body only writes, so the overlapped elements get the same values) */
    tvm_tir_expr_obj* last = tvm_tir_add_take(tvm_tir_ref(f->min), tvm_tir__sched_iconst(f->loop_var, n - lanes));
    void* copy = last ? tvm_tir__sched_copy_subst(f->body, f->loop_var, f->loop_var) : NULL;
    sched_sink kt = {f->loop_var, last, lanes, TVM_TIR_FOR_VECTORIZED, false};
    bool terr = false;
    void* tail = copy ? tvm_tir__sched_sink(&kt, copy, &terr) : NULL;
    if (!tail && !terr && copy) { /* cannot happen: the main part moved through */
      tvm_ffi_raise("InternalError", "schedule_vectorize: the overlapping tail did not move");
    }
    out = tvm_tir_seq_take(main, tail);
    tvm_ffi_release(last), tvm_ffi_release(copy);
  } else if (const_ext && pieces) {
    /* the remainder as vectors of a power of two of registers each, widest first */
    out = main;
    for (int64_t at = n / lanes * lanes, w = lanes / 2; out && at < n && w > 0; w /= 2) {
      if (n - at < w) continue;
      out = tvm_tir_seq_take(out, short_vector(f, at, w));
      at += w;
    }
  } else if (const_ext && n % lanes >= 2) {
    /* the n % lanes last iterations as one short vector */
    out = tvm_tir_seq_take(main, short_vector(f, n / lanes * lanes, n % lanes));
  } else {
    snprintf(name, sizeof(name), "%s_tail", tvm_tir_var_name(f->loop_var));
    tvm_tir_var_obj* jt = tvm_tir_var(name, f->loop_var->expr.dtype);
    tvm_tir_expr_obj* start = nmain ? tvm_tir_add_take(tvm_tir_ref(f->min),
                                                       tvm_tir_mul_take(tvm_tir_ref(nmain),
                                                                        tvm_tir_ref(L)))
                                    : NULL;
    tvm_tir_expr_obj* at = start && jt ? tvm_tir_add(start, (tvm_tir_expr_obj*)jt) : NULL;
    void* tbody = at ? tvm_tir__sched_copy_subst(f->body, f->loop_var, at) : NULL;
    void* tail = tvm_tir_for_take(tvm_tir_ref(jt), tvm_tir__sched_iconst(f->loop_var, 0),
                                  tvm_tir_floormod(f->extent, L), TVM_TIR_FOR_SERIAL, tbody);
    out = tvm_tir_seq_take(main, tail);
    tvm_ffi_release(jt), tvm_ffi_release(start), tvm_ffi_release(at);
  }
  RELEASE2(jo, L);
  tvm_ffi_release(base);
  tvm_ffi_release(nmain);
  tvm_ffi_release(keep);
  return out;
}

static void* run(const tvm_tir_prim_func_obj* f) { return tvm_tir__sched_rewrite_loops(f, vectorize_for); }

void* tvm_tir_schedule_vectorize(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  tvm_tir_schedule_target d = tvm_tir_schedule_target_default();
  const tvm_tir_schedule_target* outer = t_target;
  t_target = t ? t : &d;
  void* r = tvm_tir__xform_apply(mod_or_func, kPass, run);
  t_target = outer;
  return r;
}
