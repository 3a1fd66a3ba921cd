/* schedule_register_tile.c: rule register_tile of the default schedule (tvm/tir/schedule.h).
 *
 *   for i in [m, m + M):                      for io in [0, M // R):
 *     ... for k:                                ... for k:
 *           for t vectorized:          ->             for ii unrolled(R): for t vectorized:
 *             acc[t] += A[i, k] * B[k, t]                acc[ii, t] += A[io*R + ii, k] * B[k, t]
 *                                             for it in [0, M % R): <body at m + M // R * R + it>
 *
 * for an independent serial loop i whose body holds a vectorized accumulation into a local
 * buffer (made by local_accum + vectorize) inside a reduction loop, where one load depends on
 * the vector lanes but not on i (reused by every row of the tile) and another depends on i. The
 * row loop is moved down next to the vectorized loops (tvm_tir__sched_sink: unrolled around
 * them, serial elsewhere), the accumulators get one copy per row, so R x lanes of them live in
 * vector registers and each vector load of B feeds R FMAs: the micro-kernel of
 * examples/matmul.py, for dense/matmul/batch matmul and convolutions (i = output channel) alike.
 *
 * Where no loop has such rows (a matrix-vector product: the row loop has one iteration), a
 * second pass tiles the loop over the vector panels the same way (tile_rows panels moved into
 * the reduction): each reduction step then broadcasts its scalar once and streams tile_rows
 * contiguous vectors of the matrix's row, instead of one panel of every row at a time. */
#include <stdio.h>

#include "schedule_internal.h"

static const char kPass[] = "schedule_register_tile";
static _Thread_local const tvm_tir_schedule_target* t_target;
/* Second pass: panels instead of rows (see tile_panels). */
static _Thread_local bool t_panels;

typedef struct {
  tvm_tir_visitor v;
  const void* var;         /* the candidate row loop's variable */
  const sched_scan* s;     /* the candidate's body */
  int serial_depth;        /* serial loops entered inside the body */
  bool other_kinds;        /* an unrolled / parallel / bound loop: already tiled */
  bool reuse;              /* a vectorized accumulation reusing a vector across rows */
  bool failed;
} tile_finder;

typedef struct {
  tvm_tir_visitor v;
  const void* lane;
  const void* row;
  const void* acc; /* the accumulator's data Var: its own loads do not count */
  bool vec_no_row, row_no_vec, both;
  bool failed;
} load_classifier;

static int classify_load(tvm_tir_visitor* v, const void* node) {
  load_classifier* c = (load_classifier*)v;
  if (((const tvm_tir_buffer_load_obj*)node)->buffer->data == c->acc) return TVM_TIR_VISIT_SKIP;
  int ul = tvm_tir__sched_uses_var(node, c->lane), ur = tvm_tir__sched_uses_var(node, c->row);
  if (ul < 0 || ur < 0) {
    c->failed = true;
    return -1;
  }
  if (ul && !ur) c->vec_no_row = true;
  if (ur && !ul) c->row_no_vec = true;
  if (ur && ul) c->both = true;
  return TVM_TIR_VISIT_SKIP;
}

/* Whether the vectorized loop vl is an accumulation that reuses a vector load across rows. */
static int reuses(tile_finder* t, const tvm_tir_for_obj* vl) {
  const tvm_tir_buffer_store_obj* st = (const void*)vl->body;
  if (!TIR_IS(st, BufferStore) || !tvm_tir__sched_allocated(t->s, st->buffer->data)) return 0;
  load_classifier c = {{{0}}, vl->loop_var, t->var, st->buffer->data, false, false, false, false};
  c.v.pre[TVM_TIR_KIND_BufferLoad] = classify_load;
  int rc = tvm_tir_visit(&c.v, st->value);
  tvm_tir_visitor_free(&c.v);
  if (rc < 0 || c.failed) return -1;
  /* panels: the loop selects which vectors are loaded (a panel of columns), and a value that
   * does not depend on it is broadcast to all (the row of a matrix-vector product) */
  if (t_panels) return c.both && !c.row_no_vec;
  return c.vec_no_row && c.row_no_vec;
}

static int tile_pre_for(tvm_tir_visitor* v, const void* node) {
  tile_finder* t = (tile_finder*)v;
  const tvm_tir_for_obj* f = node;
  if (f->kind == TVM_TIR_FOR_SERIAL && !f->thread_binding) {
    t->serial_depth++;
    return TVM_TIR_VISIT_CONTINUE;
  }
  if (f->kind != TVM_TIR_FOR_VECTORIZED || f->thread_binding) {
    t->other_kinds = true;
    return TVM_TIR_VISIT_SKIP;
  }
  if (t->serial_depth > 0 && !t->reuse) {
    int r = reuses(t, f);
    if (r < 0) {
      t->failed = true;
      return -1;
    }
    t->reuse = r;
  }
  return TVM_TIR_VISIT_SKIP;
}

static int tile_post_for(tvm_tir_visitor* v, const void* node) {
  tile_finder* t = (tile_finder*)v;
  const tvm_tir_for_obj* f = node;
  if (f->kind == TVM_TIR_FOR_SERIAL && !f->thread_binding) t->serial_depth--;
  return 0;
}

static int skip_expr(tvm_tir_visitor* v, const void* node) {
  (void)v, (void)node;
  return TVM_TIR_VISIT_SKIP;
}

/* 1 when loop f is a row loop to tile, 0 when not, -1 + error. */
static int is_candidate(const tvm_tir_for_obj* f) {
  sched_scan s;
  if (tvm_tir__sched_scan(f->body, &s) != 0) return -1;
  tile_finder t = {{{0}}, f->loop_var, &s, 0, false, false, false};
  t.v.pre[TVM_TIR_KIND_For] = tile_pre_for;
  t.v.post[TVM_TIR_KIND_For] = tile_post_for;
  t.v.pre[TVM_TIR_KIND_BufferStore] = skip_expr;
  t.v.pre[TVM_TIR_KIND_Evaluate] = skip_expr;
  int rc = s.unsafe ? 0 : tvm_tir_visit(&t.v, f->body);
  tvm_tir_visitor_free(&t.v);
  tvm_tir__sched_scan_free(&s);
  if (rc < 0 || t.failed) return -1;
  return !s.unsafe && t.reuse && !t.other_kinds;
}

static void* tile_for(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_for_obj* f = node;
  void* keep = tvm_tir_ref((void*)node);
  int64_t M;
  if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding || f->loop_var->expr.dtype.code != kDLInt ||
      !tvm_tir__sched_const(f->extent, &M) || M < 2)
    return keep;
  int c = is_candidate(f);
  int ind = c > 0 ? tvm_tir__sched_independent(f) : c;
  if (ind <= 0) {
    if (ind < 0) tvm_ffi_release(keep);
    return ind < 0 ? NULL : keep;
  }
  int64_t R = t_target->tile_rows < M ? t_target->tile_rows : M;
  if (R < 2) return keep;
  char name[64];
  snprintf(name, sizeof(name), "%s_o", tvm_tir_var_name(f->loop_var));
  tvm_tir_var_obj* io = tvm_tir_var(name, f->loop_var->expr.dtype);
  tvm_tir_expr_obj* Rc = tvm_tir__sched_iconst(f->loop_var, R);
  tvm_tir_expr_obj* base =
      io && Rc ? tvm_tir_add_take(tvm_tir_ref(f->min), tvm_tir_mul_take(tvm_tir_ref(io), tvm_tir_ref(Rc)))
               : NULL;
  sched_sink k = {f->loop_var, base, R, TVM_TIR_FOR_UNROLLED, true};
  bool err = false;
  void* body = base ? tvm_tir__sched_sink(&k, f->body, &err) : NULL;
  void* out = NULL;
  if (body) {
    void* main = tvm_tir_for_take(tvm_tir_ref(io), tvm_tir__sched_iconst(f->loop_var, 0),
                                  tvm_tir__sched_iconst(f->loop_var, M / R), TVM_TIR_FOR_SERIAL,
                                  body);
    if (M % R == 0) {
      out = main;
    } else {
      snprintf(name, sizeof(name), "%s_tail", tvm_tir_var_name(f->loop_var));
      tvm_tir_var_obj* it = tvm_tir_var(name, f->loop_var->expr.dtype);
      tvm_tir_expr_obj* at =
          it ? tvm_tir_add_take(tvm_tir_add_take(tvm_tir_ref(f->min),
                                                 tvm_tir__sched_iconst(f->loop_var, M / R * R)),
                                tvm_tir_ref(it))
             : NULL;
      void* tbody = at ? tvm_tir__sched_copy_subst(f->body, f->loop_var, at) : NULL;
      void* tail = tvm_tir_for_take(tvm_tir_ref(it), tvm_tir__sched_iconst(f->loop_var, 0),
                                    tvm_tir__sched_iconst(f->loop_var, M % R), TVM_TIR_FOR_SERIAL,
                                    tbody);
      out = tvm_tir_seq_take(main, tail);
      RELEASE2(it, at);
    }
  }
  RELEASE2(io, Rc);
  tvm_ffi_release(base);
  if (!body && !err && base) return keep; /* the body has a form the row loop cannot cross */
  tvm_ffi_release(keep);
  return out;
}

static void* run(const tvm_tir_prim_func_obj* f) { return tvm_tir__sched_rewrite_loops(f, tile_for); }

void* tvm_tir_schedule_register_tile(const void* mod_or_func, const tvm_tir_schedule_target* t) {
  tvm_tir_schedule_target d = tvm_tir_schedule_target_default();
  const tvm_tir_schedule_target* outer = t_target;
  bool outer_panels = t_panels;
  t_target = t ? t : &d;
  /* rows first; then, where no row loop was found (a matrix-vector product: one row), panels */
  t_panels = false;
  void* r = tvm_tir__xform_apply(mod_or_func, kPass, run);
  t_panels = true;
  void* p = r ? tvm_tir__xform_apply(r, kPass, run) : NULL;
  tvm_ffi_release(r);
  t_target = outer;
  t_panels = outer_panels;
  return p;
}
