/* transform_loop_partition.c: pass loop_partition (tvm/tir/transform.h).
 *
 * A serial or parallel loop with constant bounds whose body holds an IfThenElse on a condition
 * that depends on the loop variable (of a conjunction, its terms on the loop variable) (typically the tail predicate of a split loop,
 * `io * 16 + ii < 1000`, or the border test of a padded convolution) is split into up to three
 * consecutive loops over [min, lo), [lo, hi] and (hi, max], where [lo, hi] is the largest
 * interval found on which the condition is provably true for every value of the inner loop
 * variables (tvm_tir_prove with the ranges of every enclosing and inner loop). The next simplify
 * pass then folds the condition away in the middle loop, whose body becomes straight-line code
 * that vectorize_loops can handle; the outer parts keep the test, so the result is always
 * equivalent. Every part gets a fresh loop variable and its body fresh binding sites (the body
 * is duplicated, and SSA must hold).
 *
 * Search: the condition is probed at the loop's first, last and middle value; from the first
 * provable point p, binary searches extend the interval down and up (interval reasoning is
 * monotone: proving on a larger range is never easier), and the whole interval is proved once
 * more. Loops are processed outside in (an outer split usually makes the inner tests provable);
 * a loop and its parts are split at most MAX_SPLIT_DEPTH times.
 */
#include <tvm/tir/arith.h>

#include "transform_internal.h"

static const char kPass[] = "loop_partition";
enum { MAX_SPLIT_DEPTH = 2 };

typedef struct {
  tvm_tir_mutator m;
  void* ranges; /* ffi.Dict Var -> Range of the enclosing loops (during the walk) */
} partitioner;

/* ---- Does an expression use a variable? ----------------------------------------------------- */
typedef struct {
  tvm_tir_visitor v;
  const void* var;
  bool found;
} var_finder;

static int find_var(tvm_tir_visitor* v, const void* node) {
  var_finder* f = (var_finder*)v;
  if (node == f->var) f->found = true;
  return f->found ? TVM_TIR_VISIT_SKIP : TVM_TIR_VISIT_CONTINUE;
}

/* 1 / 0, or -1 + error. */
static int uses_var(const void* expr, const void* var) {
  var_finder f = {0};
  f.v.pre_default = find_var;
  f.var = var;
  int rc = tvm_tir_visit(&f.v, expr);
  tvm_tir_visitor_free(&f.v);
  return rc < 0 ? -1 : f.found;
}

/* ---- Intervals where a condition is provable ------------------------------------------------- */
typedef struct {
  void* ranges;               /* enclosing + inner loop ranges */
  const tvm_tir_var_obj* var; /* the loop variable being partitioned */
  int64_t min, max;           /* its values */
} probe;

static int set_range(void* ranges, const void* var, tvm_tir_range_obj* range) {
  TVMFFIAny key = tvm_ffi_any_obj((void*)var), val = tvm_ffi_any_obj(range);
  int rc = range ? tvm_ffi_dict_set(ranges, &key, &val) : -1;
  tvm_ffi_release(range);
  return rc;
}

/* 1 when cond is provable for var in [lo, hi], 0 when not, -1 + error. */
static int provable(const probe* p, const tvm_tir_expr_obj* cond, int64_t lo, int64_t hi) {
  DLDataType t = p->var->expr.dtype;
  tvm_tir_range_obj* r =
      tvm_tir_range_take(tvm_tir_const_int(t, lo), tvm_tir_const_int(t, hi - lo + 1));
  if (set_range(p->ranges, p->var, r) != 0) return -1;
  return tvm_tir_prove(cond, p->ranges);
}

/* The largest interval [*lo, *hi] on which cond is provable, not the whole loop: 1 when found,
 * 0 when none, -1 + error. */
static int provable_interval(const probe* p, const tvm_tir_expr_obj* cond, int64_t* lo,
                             int64_t* hi) {
  int64_t pts[3] = {p->min, p->max, p->min + (p->max - p->min) / 2}, at = 0;
  int rc = 0;
  for (int k = 0; k < 3 && rc == 0; ++k) {
    rc = provable(p, cond, pts[k], pts[k]);
    at = pts[k];
  }
  if (rc <= 0) return rc;
  /* Smallest a with [a, at] provable; largest b with [at, b] provable. */
  int64_t good = at, bad = p->min - 1;
  while (good - bad > 1) {
    int64_t mid = bad + (good - bad) / 2;
    if ((rc = provable(p, cond, mid, at)) < 0) return -1;
    if (rc) good = mid;
    else bad = mid;
  }
  *lo = good;
  good = at, bad = p->max + 1;
  while (bad - good > 1) {
    int64_t mid = good + (bad - good) / 2;
    if ((rc = provable(p, cond, at, mid)) < 0) return -1;
    if (rc) good = mid;
    else bad = mid;
  }
  *hi = good;
  if (*lo == p->min && *hi == p->max) return 0; /* simplify folds it already */
  if ((rc = provable(p, cond, *lo, *hi)) != 1) {
    if (rc < 0) return -1;
    /* Not provable jointly: keep the larger one-sided interval. */
    if (*hi - at >= at - *lo) *lo = at;
    else *hi = at;
  }
  return 1;
}

/* Walks a loop body for the first IfThenElse whose condition depends on the loop variable and
 * has a provable interval; inner loops put their ranges in probe.ranges while walked. */
typedef struct {
  tvm_tir_visitor v;
  probe p;
  bool found;
  int64_t lo, hi;
} cond_finder;

static int finder_for(tvm_tir_visitor* v, const void* node) {
  cond_finder* f = (cond_finder*)v;
  const tvm_tir_for_obj* loop = node;
  if (f->found) return TVM_TIR_VISIT_SKIP;
  if (set_range(f->p.ranges, loop->loop_var, tvm_tir_range_new(loop->min, loop->extent)) != 0)
    return -1;
  int rc = tvm_tir_visit_field(v, node, "body");
  TVMFFIAny key = tvm_ffi_any_obj(loop->loop_var);
  tvm_ffi_dict_erase(f->p.ranges, &key);
  return rc < 0 ? -1 : TVM_TIR_VISIT_SKIP;
}

/* The terms of condition c (a conjunction) that use var, joined with And (*out a new reference),
 * or *out NULL when none does: a padded window's test `0 <= y + r < H and 0 <= x + s < W`
 * splits y on its own terms, then x inside each part. 0, or -1 + error. */
static int var_terms(const tvm_tir_expr_obj* c, const void* var, tvm_tir_expr_obj** out) {
  *out = NULL;
  if (TIR_IS(c, And)) {
    const tvm_tir_binary_obj* b = (const tvm_tir_binary_obj*)c;
    tvm_tir_expr_obj *x, *y;
    if (var_terms(b->a, var, &x) != 0) return -1;
    if (var_terms(b->b, var, &y) != 0) {
      tvm_ffi_release(x);
      return -1;
    }
    *out = x && y ? tvm_tir_and_take(x, y) : x ? x : y;
    return (x && y && !*out) ? -1 : 0;
  }
  int uses = uses_var(c, var);
  if (uses < 0) return -1;
  if (uses) *out = tir_expr_retain((tvm_tir_expr_obj*)c);
  return 0;
}

static int finder_if(tvm_tir_visitor* v, const void* node) {
  cond_finder* f = (cond_finder*)v;
  const tvm_tir_if_then_else_obj* s = node;
  if (f->found) return TVM_TIR_VISIT_SKIP;
  tvm_tir_expr_obj* cond = NULL;
  if (var_terms(s->condition, f->p.var, &cond) != 0) return -1;
  if (cond) {
    int rc = provable_interval(&f->p, cond, &f->lo, &f->hi);
    tvm_ffi_release(cond);
    if (rc < 0) return -1;
    f->found = rc == 1;
  }
  return f->found ? TVM_TIR_VISIT_SKIP : TVM_TIR_VISIT_CONTINUE;
}

/* Expressions hold no statements: no need to walk them. */
static int skip_exprs(tvm_tir_visitor* v, const void* node) {
  (void)v;
  return tvm_tir_is_expr(node) ? TVM_TIR_VISIT_SKIP : TVM_TIR_VISIT_CONTINUE;
}

/* ---- Splitting ------------------------------------------------------------------------------- */
/* loop over [lo, hi] with a fresh loop var and freshly renamed binding sites. */
static void* loop_part(const tvm_tir_for_obj* loop, int64_t lo, int64_t hi) {
  DLDataType t = loop->loop_var->expr.dtype;
  tvm_tir_var_obj* var = tvm_tir_var_new(tvm_tir_var_name(loop->loop_var), t);
  tvm_tir_subst s;
  if (!var || tvm_tir_subst_init(&s, true) != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  void* body = tvm_tir_subst_set_var(&s, loop->loop_var, var) == 0
                   ? tvm_tir_subst_apply(&s, loop->body)
                   : NULL;
  tvm_tir_subst_free(&s);
  tvm_tir_expr_obj* min = tvm_tir_const_int(t, lo);
  tvm_tir_expr_obj* ext = tvm_tir_const_int(t, hi - lo + 1);
  void* r = body && min && ext ? tvm_tir_for_new(var, min, ext, (tvm_tir_for_kind)loop->kind, body,
                                                 NULL, loop->annotations)
                               : NULL;
  tvm_ffi_release(var);
  tvm_ffi_release(body);
  RELEASE2(min, ext);
  return r;
}

static void* process(partitioner* p, const tvm_tir_for_obj* loop, int depth);

/* The parts of loop around [lo, hi] as one sequence, each processed further. */
static void* split(partitioner* p, const tvm_tir_for_obj* loop, int64_t min, int64_t max,
                   int64_t lo, int64_t hi, int depth) {
  int64_t bounds[3][2] = {{min, lo - 1}, {lo, hi}, {hi + 1, max}};
  void* parts[3] = {0};
  int n = 0;
  bool ok = true;
  for (int k = 0; k < 3 && ok; ++k) {
    if (bounds[k][0] > bounds[k][1]) continue;
    void* part = loop_part(loop, bounds[k][0], bounds[k][1]);
    void* done = part ? process(p, part, depth + 1) : NULL;
    tvm_ffi_release(part);
    ok = done != NULL;
    parts[n++] = done;
  }
  if (!ok) {
    for (int k = 0; k < n; ++k) tvm_ffi_release(parts[k]);
    return NULL;
  }
  return tvm_tir_seq_takev(n, parts); /* consumes the parts */
}

/* Whether loop splits: 1 with the interval in *lo, *hi, 0 when not, -1 + error. */
static int find_split(partitioner* p, const tvm_tir_for_obj* loop, int depth, int64_t* lo,
                      int64_t* hi, int64_t* max) {
  int64_t min, ext;
  bool eligible = depth < MAX_SPLIT_DEPTH &&
                  (loop->kind == TVM_TIR_FOR_SERIAL || loop->kind == TVM_TIR_FOR_PARALLEL) &&
                  tvm_tir_as_const_int(loop->min, &min) &&
                  tvm_tir_as_const_int(loop->extent, &ext) && ext >= 2 &&
                  /* a break would leave only its part, and the next part would run */
                  !(tvm_tir__loop_jumps(loop->body) & TVM_TIR__JUMP_BREAK);
  if (!eligible) return 0;
  cond_finder f = {0};
  f.v.pre_default = skip_exprs;
  f.v.pre[TVM_TIR_KIND_For] = finder_for;
  f.v.pre[TVM_TIR_KIND_IfThenElse] = finder_if;
  f.p.ranges = p->ranges;
  f.p.var = loop->loop_var;
  f.p.min = min;
  f.p.max = *max = min + ext - 1;
  int rc = tvm_tir_visit(&f.v, loop->body);
  tvm_tir_visitor_free(&f.v);
  TVMFFIAny key = tvm_ffi_any_obj(loop->loop_var);
  tvm_ffi_dict_erase(p->ranges, &key);
  *lo = f.lo;
  *hi = f.hi;
  return rc < 0 ? -1 : f.found;
}

/* Outer loops first: split loop if it can be, else go into its body under its range. */
static void* process(partitioner* p, const tvm_tir_for_obj* loop, int depth) {
  int64_t lo, hi, max;
  int found = find_split(p, loop, depth, &lo, &hi, &max);
  if (found < 0) return NULL;
  if (found) {
    int64_t min;
    tvm_tir_as_const_int(loop->min, &min);
    return split(p, loop, min, max, lo, hi, depth);
  }
  if (set_range(p->ranges, loop->loop_var, tvm_tir_range_new(loop->min, loop->extent)) != 0)
    return NULL;
  void* body = tvm_tir_mutate(&p->m, loop->body);
  TVMFFIAny key = tvm_ffi_any_obj(loop->loop_var);
  tvm_ffi_dict_erase(p->ranges, &key);
  if (!body || body == loop->body) return body ? (tvm_ffi_release(body), tvm_tir_ref((void*)loop)) : NULL;
  void* r = tvm_tir_for_new(loop->loop_var, loop->min, loop->extent, (tvm_tir_for_kind)loop->kind,
                            body, loop->thread_binding, loop->annotations);
  tvm_ffi_release(body);
  return r;
}

static void* partition_for(tvm_tir_mutator* m, const void* node) {
  return process((partitioner*)m, node, 0);
}

static void* keep(tvm_tir_mutator* m, const void* node) {
  (void)m;
  return tvm_tir_ref((void*)node);
}

static void* keep_exprs(tvm_tir_mutator* m, const void* node) {
  return tvm_tir_is_expr(node) ? keep(m, node) : tvm_tir_mutate_children(m, node);
}

static void* run(const tvm_tir_prim_func_obj* f) {
  partitioner p = {0};
  p.ranges = tvm_ffi_dict_new();
  if (!p.ranges) return NULL;
  p.m.pre_default = keep_exprs;
  p.m.pre[TVM_TIR_KIND_Buffer] = keep;
  p.m.pre[TVM_TIR_KIND_For] = partition_for;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&p.m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  RELEASE2(body, p.ranges);
  return r;
}

void* tvm_tir_transform_loop_partition(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
