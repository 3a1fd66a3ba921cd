/* schedule_analysis.c: what the default schedule's rules ask of a loop nest (schedule_internal.h):
 * variable uses, affine coefficients, the accesses and bindings of a statement, independence
 * of a loop's iterations, and a work estimate. */
#include <stdlib.h>

#include "schedule_internal.h"

tvm_tir_schedule_target tvm_tir_schedule_target_default(void) {
  tvm_tir_schedule_target t;
  t.vector_bits = 256;
  t.tile_rows = 4;
  t.parallel_grain = 65536;
  t.min_parallel_extent = 64;
  t.pad = t.local_accum = t.vectorize = t.register_tile = t.pack = t.parallel = true;
  t.vector_reduce = true;
  return t;
}

/* ---- Expressions ------------------------------------------------------------------------- */
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

int tvm_tir__sched_uses_var(const void* node, const void* var) {
  if (node == var) return 1;
  if (TIR_IS(node, IntImm) || TIR_IS(node, FloatImm) || TIR_IS(node, Var)) return 0;
  var_finder f = {0};
  f.v.pre_default = find_var;
  f.var = var;
  int rc = tvm_tir_visit(&f.v, node);
  tvm_tir_visitor_free(&f.v);
  return rc < 0 ? -1 : f.found;
}

bool tvm_tir__sched_const(const tvm_tir_expr_obj* e, int64_t* out) {
  if (!e || !TIR_IS(e, IntImm)) return false;
  *out = ((const tvm_tir_int_imm_obj*)e)->value;
  return true;
}

tvm_tir_expr_obj* tvm_tir__sched_iconst(const tvm_tir_var_obj* var, int64_t v) {
  return tvm_tir_const_int(var->expr.dtype, v);
}

bool tvm_tir__sched_lin_coef(const tvm_tir_expr_obj* e, const void* var, int64_t* out_c) {
  if ((const void*)e == var) {
    *out_c = 1;
    return true;
  }
  int u = tvm_tir__sched_uses_var(e, var);
  if (u < 0) {
    tvm_ffi_error_clear();
    return false;
  }
  if (u == 0) {
    *out_c = 0;
    return true;
  }
  int64_t ca, cb, k;
  switch (tvm_tir_kind_of(e)) {
    case TVM_TIR_KIND_Add:
    case TVM_TIR_KIND_Sub: {
      const tvm_tir_binary_obj* b = (const void*)e;
      if (!tvm_tir__sched_lin_coef(b->a, var, &ca) || !tvm_tir__sched_lin_coef(b->b, var, &cb))
        return false;
      *out_c = TIR_IS(e, Add) ? ca + cb : ca - cb;
      return true;
    }
    case TVM_TIR_KIND_Mul: {
      const tvm_tir_binary_obj* b = (const void*)e;
      if (tvm_tir__sched_const(b->a, &k) && tvm_tir__sched_lin_coef(b->b, var, &cb)) {
        *out_c = k * cb;
        return true;
      }
      if (tvm_tir__sched_const(b->b, &k) && tvm_tir__sched_lin_coef(b->a, var, &ca)) {
        *out_c = k * ca;
        return true;
      }
      return false;
    }
    case TVM_TIR_KIND_Cast: {
      const tvm_tir_cast_obj* c = (const void*)e;
      DLDataType to = e->dtype, from = c->value->dtype;
      if (to.code != kDLInt || from.code != kDLInt || to.bits < from.bits || to.lanes != 1)
        return false;
      return tvm_tir__sched_lin_coef(c->value, var, out_c);
    }
    default:
      return false;
  }
}

bool tvm_tir__sched_same_indices(const void* a, const void* b) {
  if (a == b) return true;
  int64_t n = tvm_ffi_seq_size(a);
  if (n != tvm_ffi_seq_size(b)) return false;
  for (int64_t i = 0; i < n; ++i) {
    const void* x = tvm_ffi_seq_obj_at(a, i);
    const void* y = tvm_ffi_seq_obj_at(b, i);
    if (x == y) continue;
    TVMFFIAny l = tvm_ffi_any_obj(x), r = tvm_ffi_any_obj(y);
    int eq = tvm_ffi_structural_equal(&l, &r, false, NULL, NULL);
    if (eq < 0) tvm_ffi_error_clear();
    if (eq != 1) return false;
  }
  return true;
}

/* ---- Statements -------------------------------------------------------------------------- */
#define GROW(arr, n, cap)                                                        \
  do {                                                                           \
    if ((n) == (cap)) {                                                          \
      int64_t nc_ = (cap) ? 2 * (cap) : 16;                                      \
      void* p_ = tvm_ffi_realloc((void*)(arr), (size_t)nc_ * sizeof(*(arr)));    \
      if (!p_) return tvm_ffi_raise("MemoryError", "schedule: out of memory"); \
      (arr) = p_;                                                                \
      (cap) = nc_;                                                               \
    }                                                                            \
  } while (0)

typedef struct {
  tvm_tir_visitor v;
  sched_scan* s;
} scanner;

static int add_access(sched_scan* s, const tvm_tir_buffer_obj* b, const void* ind, bool store) {
  GROW(s->acc, s->nacc, s->cap_acc);
  s->acc[s->nacc++] = (sched_access){b, ind, store};
  return 0;
}

static int add_binding(sched_scan* s, const tvm_tir_var_obj* var, const tvm_tir_for_obj* loop) {
  GROW(s->bind, s->nbind, s->cap_bind);
  s->bind[s->nbind++] = (sched_binding){var, loop};
  return 0;
}

static int scan_load(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_load_obj* l = node;
  return add_access(((scanner*)v)->s, l->buffer, l->indices, false) ? -1 : 0;
}

static int scan_store(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_store_obj* st = node;
  return add_access(((scanner*)v)->s, st->buffer, st->indices, true) ? -1 : 0;
}

static int scan_for(tvm_tir_visitor* v, const void* node) {
  sched_scan* s = ((scanner*)v)->s;
  const tvm_tir_for_obj* f = node;
  s->nloops++;
  if (f->kind != TVM_TIR_FOR_SERIAL) s->non_serial = true;
  if (f->thread_binding) s->unsafe = true;
  return add_binding(s, f->loop_var, f) ? -1 : 0;
}

static int scan_let_stmt(tvm_tir_visitor* v, const void* node) {
  return add_binding(((scanner*)v)->s, ((const tvm_tir_let_stmt_obj*)node)->var, NULL) ? -1 : 0;
}

static int scan_let(tvm_tir_visitor* v, const void* node) {
  return add_binding(((scanner*)v)->s, ((const tvm_tir_let_obj*)node)->var, NULL) ? -1 : 0;
}

static int scan_allocate(tvm_tir_visitor* v, const void* node) {
  sched_scan* s = ((scanner*)v)->s;
  const tvm_tir_allocate_obj* a = node;
  GROW(s->allocated, s->nalloc, s->cap_alloc);
  s->allocated[s->nalloc++] = a->buffer_var;
  return add_binding(s, a->buffer_var, NULL) ? -1 : 0;
}

static int scan_unsafe(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ((scanner*)v)->s->unsafe = true;
  return TVM_TIR_VISIT_SKIP;
}

static int scan_call(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_call_obj* c = node;
  if (!TIR_IS(c->op, Op)) { /* a call of another PrimFunc */
    ((scanner*)v)->s->unsafe = true;
    return TVM_TIR_VISIT_SKIP;
  }
  int32_t eff = ((const tvm_tir_op_obj*)c->op)->call_effect_kind;
  if (eff != TVM_TIR_EFFECT_PURE && eff != TVM_TIR_EFFECT_EXPR_ANNOTATION &&
      eff != TVM_TIR_EFFECT_READ_STATE) {
    ((scanner*)v)->s->unsafe = true;
    return TVM_TIR_VISIT_SKIP;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

int tvm_tir__sched_scan(const void* stmt, sched_scan* s) {
  memset(s, 0, sizeof(*s));
  scanner sc = {{{0}}, s};
  sc.v.pre[TVM_TIR_KIND_BufferLoad] = scan_load;
  sc.v.pre[TVM_TIR_KIND_BufferStore] = scan_store;
  sc.v.pre[TVM_TIR_KIND_For] = scan_for;
  sc.v.pre[TVM_TIR_KIND_LetStmt] = scan_let_stmt;
  sc.v.pre[TVM_TIR_KIND_Let] = scan_let;
  sc.v.pre[TVM_TIR_KIND_Allocate] = scan_allocate;
  sc.v.pre[TVM_TIR_KIND_Call] = scan_call;
  sc.v.pre[TVM_TIR_KIND_While] = scan_unsafe;
  sc.v.pre[TVM_TIR_KIND_AttrStmt] = scan_unsafe;
  sc.v.pre[TVM_TIR_KIND_SBlock] = scan_unsafe;
  sc.v.pre[TVM_TIR_KIND_SBlockRealize] = scan_unsafe;
  sc.v.pre[TVM_TIR_KIND_BufferRealize] = scan_unsafe;
  sc.v.pre[TVM_TIR_KIND_Shuffle] = scan_unsafe;
  int rc = tvm_tir_visit(&sc.v, stmt);
  tvm_tir_visitor_free(&sc.v);
  if (rc != 0) tvm_tir__sched_scan_free(s);
  return rc;
}

void tvm_tir__sched_scan_free(sched_scan* s) {
  tvm_ffi_free(s->acc);
  tvm_ffi_free(s->bind);
  tvm_ffi_free((void*)s->allocated);
  memset(s, 0, sizeof(*s));
}

bool tvm_tir__sched_allocated(const sched_scan* s, const void* data) {
  for (int64_t i = 0; i < s->nalloc; ++i) {
    if (s->allocated[i] == data) return true;
  }
  return false;
}

const sched_binding* tvm_tir__sched_bound(const sched_scan* s, const void* var) {
  for (int64_t i = 0; i < s->nbind; ++i) {
    if (s->bind[i].var == var) return &s->bind[i];
  }
  return NULL;
}

/* ---- Independence ------------------------------------------------------------------------ */
static int cmp_access(const void* a, const void* b) {
  uintptr_t x = (uintptr_t)((const sched_access*)a)->buffer->data;
  uintptr_t y = (uintptr_t)((const sched_access*)b)->buffer->data;
  return x < y ? -1 : x > y;
}

/* The ranges of the loops bound in the scanned statement (a new ffi.Dict Var -> Range). */
static void* inner_ranges(const sched_scan* s) {
  void* d = tvm_ffi_dict_new();
  for (int64_t i = 0; d && i < s->nbind; ++i) {
    const tvm_tir_for_obj* f = s->bind[i].loop;
    if (!f) continue;
    tvm_tir_range_obj* r = tvm_tir_range_new(f->min, f->extent);
    TVMFFIAny k = tvm_ffi_any_obj(f->loop_var), v = tvm_ffi_any_obj(r);
    int rc = r ? tvm_ffi_dict_set(d, &k, &v) : -1;
    tvm_ffi_release(r);
    if (rc != 0) {
      tvm_ffi_release(d);
      d = NULL;
    }
  }
  return d;
}

/* e with var and every loop variable bound in s replaced by 0 / their loop's min: the part of
 * an index that only outer variables determine (a new reference). */
static void* outer_part(const void* e, const void* var, const sched_scan* s) {
  tvm_tir_subst sub;
  if (tvm_tir_subst_init(&sub, false) != 0) return NULL;
  int rc = 0;
  void* zero = tvm_tir_const_int(tvm_tir_expr_dtype(var), 0);
  rc = zero ? tvm_tir_subst_set_var(&sub, var, zero) : -1;
  tvm_ffi_release(zero);
  for (int64_t i = 0; rc == 0 && i < s->nbind; ++i) {
    if (s->bind[i].loop) rc = tvm_tir_subst_set_var(&sub, s->bind[i].var, s->bind[i].loop->min);
  }
  void* out = rc == 0 ? tvm_tir_subst_apply(&sub, e) : NULL;
  tvm_tir_subst_free(&sub);
  return out;
}

/* Whether dimension d separates the iterations of var for the accesses acc[0..n) of one buffer:
 * each index is c * var + r_a with the same c != 0, and every r_a - ref (ref: the first index with
 * var and the inner loop variables at their minimum) lies in one interval narrower than |c|, so
 * that two iterations never reach one element. 1 / 0 (errors are cleared: 0). */
static int separates(const sched_access* acc, int64_t n, int64_t d, const void* var,
                     const sched_scan* s, void** ranges) {
  int64_t c = 0;
  for (int64_t a = 0; a < n; ++a) {
    int64_t ca;
    if (!tvm_tir__sched_lin_coef(tvm_ffi_seq_obj_at(acc[a].indices, d), var, &ca) || ca == 0 ||
        (a > 0 && ca != c))
      return 0;
    c = ca;
  }
  if (!*ranges && !(*ranges = inner_ranges(s))) {
    tvm_ffi_error_clear();
    return 0;
  }
  void* ref = outer_part(tvm_ffi_seq_obj_at(acc[0].indices, d), var, s);
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  int ok = ref != NULL;
  for (int64_t a = 0; ok && a < n; ++a) {
    tvm_tir_expr_obj* e = tvm_ffi_seq_obj_at(acc[a].indices, d);
    tvm_tir_expr_obj* cv =
        tvm_tir_mul_take(tvm_tir_const_int(tvm_tir_expr_dtype(var), c), tvm_tir_ref((void*)var));
    tvm_tir_expr_obj* r1 = cv ? tvm_tir__wide_binary(TVM_TIR_KIND_Sub, e, cv) : NULL;
    tvm_tir_expr_obj* r2 = r1 ? tvm_tir__wide_binary(TVM_TIR_KIND_Sub, r1, ref) : NULL;
    tvm_tir_expr_obj* r3 = r2 ? tvm_tir_simplify_expr(r2, *ranges) : NULL;
    int64_t l, h;
    ok = r3 && tvm_tir_const_int_bound(r3, *ranges, &l, &h) == 0;
    if (ok && r3->dtype.bits >= 32) {
      /* an unbounded term (an outer variable that did not cancel) gives the dtype's range */
      int64_t lim = r3->dtype.bits >= 64 ? INT64_MAX / 4 : INT32_MAX / 2;
      ok = l > -lim && h < lim;
    }
    if (ok) {
      lo = l < lo ? l : lo;
      hi = h > hi ? h : hi;
    }
    tvm_ffi_release(cv), tvm_ffi_release(r1), tvm_ffi_release(r2), tvm_ffi_release(r3);
  }
  tvm_ffi_release(ref);
  if (!ok) tvm_ffi_error_clear();
  return ok && hi - lo < (c < 0 ? -c : c);
}

int tvm_tir__sched_independent(const tvm_tir_for_obj* loop) {
  sched_scan s;
  if (tvm_tir__sched_scan(loop->body, &s) != 0) return -1;
  int ok = !s.unsafe;
  void* ranges = NULL;
  if (ok) qsort(s.acc, (size_t)s.nacc, sizeof(sched_access), cmp_access);
  for (int64_t i = 0; ok && i < s.nacc;) {
    const void* data = s.acc[i].buffer->data;
    int64_t j = i;
    bool stored = false;
    while (j < s.nacc && s.acc[j].buffer->data == data) stored |= s.acc[j++].store;
    if (stored && !tvm_tir__sched_allocated(&s, data)) {
      int64_t nd = tvm_ffi_seq_size(s.acc[i].indices);
      for (int64_t k = i + 1; ok && k < j; ++k) ok = tvm_ffi_seq_size(s.acc[k].indices) == nd;
      int sep = 0;
      for (int64_t d = 0; ok && !sep && d < nd; ++d)
        sep = separates(s.acc + i, j - i, d, loop->loop_var, &s, &ranges);
      ok = ok && sep;
    }
    i = j;
  }
  tvm_ffi_release(ranges);
  tvm_tir__sched_scan_free(&s);
  return ok;
}

/* ---- Loops ------------------------------------------------------------------------------- */
static int find_non_serial(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_for_obj* f = node;
  if (f->kind != TVM_TIR_FOR_SERIAL || f->thread_binding) {
    *(bool*)v->ctx = true;
    return TVM_TIR_VISIT_SKIP;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static int skip_expr(tvm_tir_visitor* v, const void* node) {
  (void)v;
  (void)node;
  return TVM_TIR_VISIT_SKIP;
}

int tvm_tir__sched_has_non_serial(const void* stmt) {
  bool found = false;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_For] = find_non_serial;
  v.pre[TVM_TIR_KIND_BufferStore] = skip_expr;
  v.pre[TVM_TIR_KIND_Evaluate] = skip_expr;
  v.ctx = &found;
  int rc = tvm_tir_visit(&v, stmt);
  tvm_tir_visitor_free(&v);
  return rc < 0 ? -1 : found;
}

bool tvm_tir__sched_marked(const tvm_tir_prim_func_obj* f) {
  TVMFFIAny k = tvm_ffi_string(TVM_TIR_ATTR_IS_SCHEDULED);
  const TVMFFIAny* v = f->func.attrs ? tvm_ffi_map_get(f->func.attrs, &k) : NULL;
  tvm_ffi_any_release(&k);
  bool b = false;
  return v && tvm_ffi_any_as_bool(v, &b) && b;
}

void* tvm_tir__sched_rewrite_loops(const tvm_tir_prim_func_obj* f, tvm_tir_mutate_fn post_for) {
  if (tvm_tir__sched_marked(f)) return tvm_tir_ref((void*)f);
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_For] = post_for;
  void* body = tvm_tir_mutate(&m, f->body);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

/* ---- Work -------------------------------------------------------------------------------- */
/* Instructions, roughly: each store and load once (a vector one too: a vectorized loop counts
 * one iteration per register of `lanes` elements, since the rule runs after vectorize), and a
 * transcendental math call (exp, log, tanh, ...: a polynomial of a dozen or more instructions,
 * inline or in libm) kMathCost. */
enum { SYMBOLIC_EXTENT = 1 << 20 };
static const int64_t kWorkCap = INT64_MAX / 4;
static const int64_t kMathCost = 16;

static bool transcendental(const void* op) {
  static const tvm_tir_builtin kIds[] = {
      TVM_TIR_BUILTIN_exp,   TVM_TIR_BUILTIN_exp2,  TVM_TIR_BUILTIN_exp10, TVM_TIR_BUILTIN_log,
      TVM_TIR_BUILTIN_log2,  TVM_TIR_BUILTIN_log10, TVM_TIR_BUILTIN_log1p, TVM_TIR_BUILTIN_tanh,
      TVM_TIR_BUILTIN_sigmoid, TVM_TIR_BUILTIN_erf, TVM_TIR_BUILTIN_sin,   TVM_TIR_BUILTIN_cos,
      TVM_TIR_BUILTIN_tan,   TVM_TIR_BUILTIN_asin,  TVM_TIR_BUILTIN_acos,  TVM_TIR_BUILTIN_atan,
      TVM_TIR_BUILTIN_sinh,  TVM_TIR_BUILTIN_cosh,  TVM_TIR_BUILTIN_asinh, TVM_TIR_BUILTIN_acosh,
      TVM_TIR_BUILTIN_atanh, TVM_TIR_BUILTIN_pow,   TVM_TIR_BUILTIN_fmod,  TVM_TIR_BUILTIN_atan2,
      TVM_TIR_BUILTIN_hypot};
  for (size_t i = 0; i < sizeof(kIds) / sizeof(kIds[0]); ++i)
    if (tvm_tir_is_builtin(op, kIds[i])) return true;
  return false;
}

static int count_load(tvm_tir_visitor* v, const void* node) {
  (void)node;
  ++*(int64_t*)v->ctx;
  return TVM_TIR_VISIT_CONTINUE;
}

static int count_call(tvm_tir_visitor* v, const void* node) {
  if (transcendental(((const tvm_tir_call_obj*)node)->op)) *(int64_t*)v->ctx += kMathCost;
  return TVM_TIR_VISIT_CONTINUE;
}

/* The loads and math calls of a store. */
static int64_t loads_in(const void* node) {
  int64_t n = 0;
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_BufferLoad] = count_load;
  v.pre[TVM_TIR_KIND_Call] = count_call;
  v.ctx = &n;
  if (tvm_tir_visit(&v, node) < 0) tvm_ffi_error_clear();
  tvm_tir_visitor_free(&v);
  return n;
}

static int64_t sat_mul(int64_t a, int64_t b) {
  if (a == 0 || b == 0) return 0;
  return a > kWorkCap / b ? kWorkCap : a * b;
}

static int64_t sat_add(int64_t a, int64_t b) { return a > kWorkCap - b ? kWorkCap : a + b; }

int64_t tvm_tir__sched_work(const void* stmt, int lanes) {
  switch (tvm_tir_kind_of(stmt)) {
    case TVM_TIR_KIND_For: {
      const tvm_tir_for_obj* f = stmt;
      int64_t ext;
      if (!tvm_tir__sched_const(f->extent, &ext)) ext = SYMBOLIC_EXTENT;
      if (ext < 0) ext = 0;
      if (f->kind == TVM_TIR_FOR_VECTORIZED && lanes > 1) ext = (ext + lanes - 1) / lanes;
      return sat_mul(ext, tvm_tir__sched_work(f->body, lanes));
    }
    case TVM_TIR_KIND_SeqStmt: {
      const tvm_tir_seq_stmt_obj* s = stmt;
      int64_t w = 0;
      for (int64_t i = 0; i < tvm_ffi_seq_size(s->seq); ++i)
        w = sat_add(w, tvm_tir__sched_work(tvm_ffi_seq_obj_at(s->seq, i), lanes));
      return w;
    }
    case TVM_TIR_KIND_BufferStore:
      return 1 + loads_in(stmt);
    case TVM_TIR_KIND_IfThenElse: {
      const tvm_tir_if_then_else_obj* n = stmt;
      return sat_add(tvm_tir__sched_work(n->then_case, lanes),
                     n->else_case ? tvm_tir__sched_work(n->else_case, lanes) : 0);
    }
    case TVM_TIR_KIND_LetStmt:
      return tvm_tir__sched_work(((const tvm_tir_let_stmt_obj*)stmt)->body, lanes);
    case TVM_TIR_KIND_Allocate:
      return tvm_tir__sched_work(((const tvm_tir_allocate_obj*)stmt)->body, lanes);
    case TVM_TIR_KIND_DeclBuffer:
      return tvm_tir__sched_work(((const tvm_tir_decl_buffer_obj*)stmt)->body, lanes);
    case TVM_TIR_KIND_AssertStmt:
      return tvm_tir__sched_work(((const tvm_tir_assert_stmt_obj*)stmt)->body, lanes);
    case TVM_TIR_KIND_AttrStmt:
      return tvm_tir__sched_work(((const tvm_tir_attr_stmt_obj*)stmt)->body, lanes);
    default:
      return 1;
  }
}

/* ---- Copies ------------------------------------------------------------------------------ */
void* tvm_tir__sched_copy_subst(const void* stmt, const void* var, const void* value) {
  tvm_tir_subst s;
  if (tvm_tir_subst_init(&s, true) != 0) return NULL;
  void* out = tvm_tir_subst_set_var(&s, var, value) == 0 ? tvm_tir_subst_apply(&s, stmt) : NULL;
  tvm_tir_subst_free(&s);
  return out;
}
