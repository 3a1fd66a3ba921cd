/*
 * annotate_tir_op_pattern.c: AnnotateTIROpPattern and the analysis behind it
 * (tvm_relax_analyze_op_pattern, tvm/relax/transform.h).
 *
 * Upstream analyses the SBlocks of a PrimFunc (relax/analysis/tir_op_pattern_kind.cc). The
 * kernels of LegalizeOps are plain loop nests with one-element accumulators, so the analysis here
 * works on loops; a function with SBlocks is first taken through libtir's lower_init and
 * convert_blocks, which turn blocks into such loops. The rules:
 *
 *  - A loop is spatial when it contains (at any depth) a store to a parameter buffer.
 *  - A store to a parameter buffer B must be indexed by distinct enclosing loop variables (or 0
 *    on a dimension of extent 1); otherwise the function is opaque (concat's offset stores).
 *    The enclosing loops whose variables it does not use are its reduction loops.
 *    - With reduction loops (matmul, conv accumulating into the output): a multiply-add
 *      `B[i] = B[i] + x * y` whose operands each leave a store variable unused is kOutEWiseFusable
 *      (upstream's IsFMA); otherwise every parameter load must index each reduction variable it
 *      uses directly (a "pure" reduction, kCommReduce), else kOutEWiseFusable (pooling windows).
 *      A store that reads nothing there is an initialisation (kElemWise).
 *    - Without: each parameter load against the store's indices: the same indices (or 0 where
 *      both buffers have a unit dimension) are elementwise, the store's variables in order (or 0
 *      on a unit dimension) broadcast, anything else injective; one elementwise load makes a
 *      broadcast store elementwise (C[i, j] = A[i, j] + B[j]), as upstream. A store that reads
 *      parameters after a reduction made the pattern kCommReduce is the output block of softmax
 *      or layer norm: kOutEWiseFusable. A store that reads only local buffers (the accumulator's
 *      write-back) adds nothing.
 *  - A store to a local buffer (an accumulator) inside loops that are not spatial is a reduction
 *    step: its parameter loads are checked for purity as above (kCommReduce or
 *    kOutEWiseFusable); other local stores (initialisations) add nothing.
 *  - A While loop, a call with side effects or no store to a parameter at all: kOpaque.
 * The function's pattern is the maximum over its stores (TVM_RELAX_PATTERN_* keep upstream's
 * order), except the output-block rule above.
 */
#include <string.h>

#include <tvm/relax/transform.h>
#include <tvm/tir/transform.h>
#include <tvm/tir/visit.h>

#include "internal.h"

enum { MAX_LOOPS = 64, MAX_CONDS = 64 };

typedef struct {
  void* params;  /* ffi.Dict Buffer -> 1: the buffers of the function's parameters */
  void* spatial; /* ffi.Dict For -> 1: loops containing a store to a parameter */
  const tvm_tir_for_obj* loops[MAX_LOOPS];
  bool loop_spatial[MAX_LOOPS];
  int nloops;
  const void* conds[MAX_CONDS]; /* If conditions and Let values around the current statement */
  int nconds;
  int kind;
  bool stored; /* a parameter store was seen */
  /* Loads collected for the store being classified (borrowed). */
  const tvm_tir_buffer_load_obj** loads;
  int64_t nloads, cap;
  bool bad_call; /* a call with side effects was seen */
} pat;

static bool is_param(pat* p, const void* buffer) {
  TVMFFIAny k = tvm_ffi_any_obj(buffer);
  return tvm_ffi_map_get(p->params, &k) != NULL;
}

static int kind_max(int a, int b) { return a > b ? a : b; }

/* ---- Loops containing parameter stores --------------------------------------------------------- */
static int mark_spatial(pat* p, const void* s, bool* out) {
  *out = false;
  if (!s) return 0;
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_SeqStmt: {
      void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      for (int64_t i = 0; i < tvm_ffi_seq_size(seq); ++i) {
        bool any;
        if (mark_spatial(p, tvm_ffi_seq_obj_at(seq, i), &any) != 0) return -1;
        *out |= any;
      }
      return 0;
    }
    case TVM_TIR_KIND_BufferStore:
      *out = is_param(p, ((const tvm_tir_buffer_store_obj*)s)->buffer);
      return 0;
    case TVM_TIR_KIND_For: {
      if (mark_spatial(p, ((const tvm_tir_for_obj*)s)->body, out) != 0) return -1;
      if (*out) {
        TVMFFIAny k = tvm_ffi_any_obj(s), one = tvm_ffi_any_int(1);
        return tvm_ffi_dict_set(p->spatial, &k, &one);
      }
      return 0;
    }
    case TVM_TIR_KIND_IfThenElse: {
      const tvm_tir_if_then_else_obj* f = s;
      bool a, b;
      if (mark_spatial(p, f->then_case, &a) != 0 || mark_spatial(p, f->else_case, &b) != 0) return -1;
      *out = a || b;
      return 0;
    }
    case TVM_TIR_KIND_LetStmt: return mark_spatial(p, ((const tvm_tir_let_stmt_obj*)s)->body, out);
    case TVM_TIR_KIND_AttrStmt: return mark_spatial(p, ((const tvm_tir_attr_stmt_obj*)s)->body, out);
    case TVM_TIR_KIND_AssertStmt: return mark_spatial(p, ((const tvm_tir_assert_stmt_obj*)s)->body, out);
    case TVM_TIR_KIND_Allocate: return mark_spatial(p, ((const tvm_tir_allocate_obj*)s)->body, out);
    case TVM_TIR_KIND_DeclBuffer: return mark_spatial(p, ((const tvm_tir_decl_buffer_obj*)s)->body, out);
    case TVM_TIR_KIND_While: return mark_spatial(p, ((const tvm_tir_while_obj*)s)->body, out);
    default: return 0;
  }
}

/* ---- Loads ----------------------------------------------------------------------------------- */
static int collect_load(tvm_tir_visitor* v, const void* node) {
  pat* p = v->ctx;
  if (p->nloads == p->cap) {
    int64_t cap = p->cap ? 2 * p->cap : 16;
    void* grown = tvm_ffi_realloc(p->loads, (size_t)cap * sizeof(*p->loads));
    if (!grown) return -1;
    p->loads = grown;
    p->cap = cap;
  }
  p->loads[p->nloads++] = node;
  return TVM_TIR_VISIT_CONTINUE;
}

static int check_call(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_call_obj* c = node;
  if (tvm_tir_kind_of(c->op) != TVM_TIR_KIND_Op) {
    ((pat*)v->ctx)->bad_call = true; /* a call of another PrimFunc */
  } else {
    int32_t e = ((const tvm_tir_op_obj*)c->op)->call_effect_kind;
    if (e != TVM_TIR_EFFECT_PURE && e != TVM_TIR_EFFECT_EXPR_ANNOTATION) ((pat*)v->ctx)->bad_call = true;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

/* The loads of expr (and of the enclosing conditions when conds) appended to p->loads. */
static int gather(pat* p, const void* expr, bool conds) {
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_BufferLoad] = collect_load;
  v.pre[TVM_TIR_KIND_Call] = check_call;
  v.ctx = p;
  int rc = expr ? tvm_tir_visit(&v, expr) : 0;
  for (int i = 0; rc == 0 && conds && i < p->nconds; ++i) rc = tvm_tir_visit(&v, p->conds[i]);
  tvm_tir_visitor_free(&v);
  return rc;
}

/* ---- Index relations --------------------------------------------------------------------------- */
static bool same_expr(const void* a, const void* b) {
  if (a == b) return true;
  int64_t x, y;
  return tvm_tir_as_const_int(a, &x) && tvm_tir_as_const_int(b, &y) && x == y;
}

static bool is_const(const void* e, int64_t v) {
  int64_t x;
  return tvm_tir_as_const_int(e, &x) && x == v;
}

static bool same_indices(void* a, void* b) {
  int64_t n = tvm_ffi_seq_size(a);
  if (n != tvm_ffi_seq_size(b)) return false;
  for (int64_t i = 0; i < n; ++i) {
    if (!same_expr(tvm_ffi_seq_obj_at(a, i), tvm_ffi_seq_obj_at(b, i))) return false;
  }
  return true;
}

/* The load reads the element the store writes: the same indices, but for 0 on a dimension of
 * extent 1 in both buffers (the store's index there can only be 0 too). Legalization indexes a
 * unit dimension of a broadcast operand with 0: conv(x)[0, c, h, w] + b[c, 0, 0] stored at
 * [i0, c, h, w] is elementwise in its first operand, so the conv takes it as an epilogue. */
static bool elemwise_indices(const tvm_tir_buffer_store_obj* st,
                             const tvm_tir_buffer_load_obj* ld) {
  int64_t n = tvm_ffi_seq_size(ld->indices);
  if (n != tvm_ffi_seq_size(st->indices)) return false;
  for (int64_t i = 0; i < n; ++i) {
    const void* li = tvm_ffi_seq_obj_at(ld->indices, i);
    if (same_expr(li, tvm_ffi_seq_obj_at(st->indices, i))) continue;
    if (!is_const(li, 0) || !is_const(tvm_ffi_seq_obj_at(ld->buffer->shape, i), 1) ||
        !is_const(tvm_ffi_seq_obj_at(st->buffer->shape, i), 1))
      return false;
  }
  return true;
}

/* Every load index (but 0 on a unit dimension) is a store index, in order (upstream's
 * IsBroadcastPattern). */
static bool broadcast_indices(const tvm_tir_buffer_store_obj* st, const tvm_tir_buffer_load_obj* ld) {
  int64_t nl = tvm_ffi_seq_size(ld->indices), ns = tvm_ffi_seq_size(st->indices);
  int64_t j = 0;
  for (int64_t i = 0; i < nl; ++i) {
    const void* li = tvm_ffi_seq_obj_at(ld->indices, i);
    if (is_const(tvm_ffi_seq_obj_at(ld->buffer->shape, i), 1) && is_const(li, 0)) continue;
    while (j < ns && tvm_ffi_seq_obj_at(st->indices, j) != li) ++j;
    if (j == ns) return false;
    ++j;
  }
  return true;
}

/* Whether e uses variable v. */
typedef struct {
  const void* var;
  bool found;
} uses_ctx;
static int uses_pre(tvm_tir_visitor* v, const void* node) {
  uses_ctx* u = v->ctx;
  if (node == u->var) u->found = true;
  return TVM_TIR_VISIT_CONTINUE;
}
static bool uses_var(const void* e, const void* var) {
  uses_ctx u = {var, false};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Var] = uses_pre;
  v.pre[TVM_TIR_KIND_SizeVar] = uses_pre;
  v.ctx = &u;
  tvm_tir_visit(&v, e);
  tvm_tir_visitor_free(&v);
  return u.found;
}

/* Each index of the load that uses a reduction variable is that variable (upstream's
 * IsPureReducePattern). */
static bool pure_reduce(const tvm_tir_buffer_load_obj* ld, const tvm_tir_var_obj* const* red, int nred) {
  for (int64_t i = 0; i < tvm_ffi_seq_size(ld->indices); ++i) {
    const void* e = tvm_ffi_seq_obj_at(ld->indices, i);
    for (int r = 0; r < nred; ++r) {
      if (e != red[r] && uses_var(e, red[r])) return false;
    }
  }
  return true;
}

static const void* strip_cast(const void* e) {
  while (tvm_tir_kind_of(e) == TVM_TIR_KIND_Cast) e = ((const tvm_tir_cast_obj*)e)->value;
  return e;
}

/* Some store index variable is unused by the load (upstream's IsAllowReusePattern). */
static bool allows_reuse(const tvm_tir_buffer_store_obj* st, const void* load) {
  if (tvm_tir_kind_of(load) != TVM_TIR_KIND_BufferLoad) return false;
  const tvm_tir_buffer_load_obj* ld = load;
  for (int64_t i = 0; i < tvm_ffi_seq_size(st->indices); ++i) {
    const void* v = tvm_ffi_seq_obj_at(st->indices, i);
    if (!tvm_tir_is_var(v)) continue;
    bool used = false;
    for (int64_t j = 0; j < tvm_ffi_seq_size(ld->indices) && !used; ++j) {
      used = uses_var(tvm_ffi_seq_obj_at(ld->indices, j), v);
    }
    if (!used) return true;
  }
  return false;
}

/* B[i] = B[i] + x * y (casts allowed around each part). */
static bool is_fma(const tvm_tir_buffer_store_obj* st) {
  const void* v = strip_cast(st->value);
  if (tvm_tir_kind_of(v) != TVM_TIR_KIND_Add) return false;
  const tvm_tir_binary_obj* add = v;
  const void* self = strip_cast(add->a);
  const void* mul = strip_cast(add->b);
  if (tvm_tir_kind_of(self) != TVM_TIR_KIND_BufferLoad || tvm_tir_kind_of(mul) != TVM_TIR_KIND_Mul) {
    return false;
  }
  const tvm_tir_buffer_load_obj* s = self;
  if (s->buffer != st->buffer || !same_indices(s->indices, st->indices)) return false;
  const tvm_tir_binary_obj* m = mul;
  return allows_reuse(st, strip_cast(m->a)) && allows_reuse(st, strip_cast(m->b));
}

/* ---- Stores ---------------------------------------------------------------------------------- */
static int param_store(pat* p, const tvm_tir_buffer_store_obj* st) {
  p->stored = true;
  /* Indices: distinct enclosing loop variables, or 0 on a unit dimension. */
  bool used[MAX_LOOPS] = {false};
  for (int64_t i = 0; i < tvm_ffi_seq_size(st->indices); ++i) {
    const void* e = tvm_ffi_seq_obj_at(st->indices, i);
    if (is_const(e, 0) && is_const(tvm_ffi_seq_obj_at(st->buffer->shape, i), 1)) continue;
    int l = 0;
    while (l < p->nloops && p->loops[l]->loop_var != e) ++l;
    if (l == p->nloops || used[l]) {
      p->kind = TVM_RELAX_PATTERN_OPAQUE;
      return 0;
    }
    used[l] = true;
  }
  const tvm_tir_var_obj* red[MAX_LOOPS];
  int nred = 0;
  for (int l = 0; l < p->nloops; ++l) {
    if (!used[l]) red[nred++] = p->loops[l]->loop_var;
  }
  p->nloads = 0;
  if (gather(p, st->value, true) != 0) return -1;
  if (nred > 0) {
    bool self = false;
    for (int64_t i = 0; i < p->nloads; ++i) {
      self |= p->loads[i]->buffer == st->buffer && same_indices(p->loads[i]->indices, st->indices);
    }
    if (!self) {
      p->kind = kind_max(p->kind, p->nloads == 0 ? TVM_RELAX_PATTERN_ELEMWISE : TVM_RELAX_PATTERN_OPAQUE);
      return 0;
    }
    if (is_fma(st)) {
      p->kind = kind_max(p->kind, TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE);
      return 0;
    }
    int k = TVM_RELAX_PATTERN_COMM_REDUCE;
    for (int64_t i = 0; i < p->nloads; ++i) {
      if (is_param(p, p->loads[i]->buffer) && !pure_reduce(p->loads[i], red, nred)) {
        k = TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE;
      }
    }
    p->kind = kind_max(p->kind, k);
    return 0;
  }
  int pair = TVM_RELAX_PATTERN_ELEMWISE;
  bool elemwise = false, param_loads = false;
  for (int64_t i = 0; i < p->nloads; ++i) {
    const tvm_tir_buffer_load_obj* ld = p->loads[i];
    if (!is_param(p, ld->buffer)) continue;
    param_loads = true;
    if (elemwise_indices(st, ld)) {
      elemwise = true;
    } else if (broadcast_indices(st, ld)) {
      pair = kind_max(pair, TVM_RELAX_PATTERN_BROADCAST);
    } else {
      pair = kind_max(pair, TVM_RELAX_PATTERN_INJECTIVE);
    }
  }
  if (pair == TVM_RELAX_PATTERN_BROADCAST && elemwise) pair = TVM_RELAX_PATTERN_ELEMWISE;
  if (p->kind == TVM_RELAX_PATTERN_COMM_REDUCE) {
    /* After a reduction: the output block of softmax / layer norm, or the write-back. */
    if (param_loads) p->kind = TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE;
    return 0;
  }
  p->kind = kind_max(p->kind, pair);
  return 0;
}

static int local_store(pat* p, const tvm_tir_buffer_store_obj* st) {
  const tvm_tir_var_obj* red[MAX_LOOPS];
  int nred = 0;
  for (int l = 0; l < p->nloops; ++l) {
    if (!p->loop_spatial[l]) red[nred++] = p->loops[l]->loop_var;
  }
  p->nloads = 0;
  if (gather(p, st->value, true) != 0) return -1;
  if (nred == 0) return 0; /* an initialisation or a temporary */
  int k = TVM_RELAX_PATTERN_COMM_REDUCE;
  for (int64_t i = 0; i < p->nloads; ++i) {
    if (is_param(p, p->loads[i]->buffer) && !pure_reduce(p->loads[i], red, nred)) {
      k = TVM_RELAX_PATTERN_OUT_EWISE_FUSABLE;
    }
  }
  p->kind = kind_max(p->kind, k);
  return 0;
}

static int visit(pat* p, const void* s) {
  if (!s || p->kind == TVM_RELAX_PATTERN_OPAQUE) return 0;
  switch (tvm_tir_kind_of(s)) {
    case TVM_TIR_KIND_SeqStmt: {
      void* seq = ((const tvm_tir_seq_stmt_obj*)s)->seq;
      for (int64_t i = 0; i < tvm_ffi_seq_size(seq); ++i) {
        if (visit(p, tvm_ffi_seq_obj_at(seq, i)) != 0) return -1;
      }
      return 0;
    }
    case TVM_TIR_KIND_For: {
      const tvm_tir_for_obj* f = s;
      if (p->nloops == MAX_LOOPS) {
        p->kind = TVM_RELAX_PATTERN_OPAQUE;
        return 0;
      }
      TVMFFIAny k = tvm_ffi_any_obj(s);
      p->loop_spatial[p->nloops] = tvm_ffi_map_get(p->spatial, &k) != NULL;
      p->loops[p->nloops++] = f;
      int rc = visit(p, f->body);
      --p->nloops;
      return rc;
    }
    case TVM_TIR_KIND_BufferStore: {
      const tvm_tir_buffer_store_obj* st = s;
      int rc = is_param(p, st->buffer) ? param_store(p, st) : local_store(p, st);
      if (p->bad_call) p->kind = TVM_RELAX_PATTERN_OPAQUE;
      return rc;
    }
    case TVM_TIR_KIND_IfThenElse:
    case TVM_TIR_KIND_LetStmt: {
      if (p->nconds == MAX_CONDS) {
        p->kind = TVM_RELAX_PATTERN_OPAQUE;
        return 0;
      }
      bool is_if = tvm_tir_kind_of(s) == TVM_TIR_KIND_IfThenElse;
      const tvm_tir_if_then_else_obj* f = s;
      const tvm_tir_let_stmt_obj* l = s;
      p->conds[p->nconds++] = is_if ? (const void*)f->condition : (const void*)l->value;
      int rc = is_if ? visit(p, f->then_case) : visit(p, l->body);
      if (rc == 0 && is_if) rc = visit(p, f->else_case);
      --p->nconds;
      return rc;
    }
    case TVM_TIR_KIND_AttrStmt: return visit(p, ((const tvm_tir_attr_stmt_obj*)s)->body);
    case TVM_TIR_KIND_AssertStmt: return visit(p, ((const tvm_tir_assert_stmt_obj*)s)->body);
    case TVM_TIR_KIND_Allocate: return visit(p, ((const tvm_tir_allocate_obj*)s)->body);
    case TVM_TIR_KIND_DeclBuffer: return visit(p, ((const tvm_tir_decl_buffer_obj*)s)->body);
    case TVM_TIR_KIND_Evaluate: {
      /* A constant is a no-op; anything else (a call) may have effects. */
      const void* v = ((const tvm_tir_evaluate_obj*)s)->value;
      if (tvm_tir_kind_of(v) != TVM_TIR_KIND_IntImm) p->kind = TVM_RELAX_PATTERN_OPAQUE;
      return 0;
    }
    default: /* While, BufferRealize, anything unexpected */
      p->kind = TVM_RELAX_PATTERN_OPAQUE;
      return 0;
  }
}

/* Whether the body holds an SBlock (then it is converted to loops first). */
static int find_block(tvm_tir_visitor* v, const void* node) {
  (void)node;
  *(bool*)v->ctx = true;
  return TVM_TIR_VISIT_SKIP;
}

int32_t tvm_relax_analyze_op_pattern(const tvm_tir_prim_func_obj* func) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(func, TVM_TIR_KIND_PrimFunc)) {
    tvm_ffi_raise("TypeError", "tvm_relax_analyze_op_pattern: a tir.PrimFunc is required");
    return -1;
  }
  bool blocks = false;
  tvm_tir_visitor fv = {0};
  fv.pre[TVM_TIR_KIND_SBlock] = find_block;
  fv.ctx = &blocks;
  tvm_tir_visit(&fv, func->body);
  tvm_tir_visitor_free(&fv);
  tvm_ffi_retain((void*)func);
  const tvm_tir_prim_func_obj* f = func;
  if (blocks) {
    void* a = tvm_tir_transform_lower_init(f);
    void* b = a ? tvm_tir_transform_convert_blocks(a) : NULL;
    tvm_ffi_release(a);
    tvm_ffi_release((void*)f);
    if (!b) return -1;
    f = b;
  }
  pat p = {0};
  p.params = tvm_ffi_dict_new();
  p.spatial = tvm_ffi_dict_new();
  int rc = p.params && p.spatial ? 0 : -1;
  const TVMFFIAny *k, *v;
  TVMFFIAny one = tvm_ffi_any_int(1);
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(f->buffer_map, pos, &k, &v)) >= 0;) {
    rc = tvm_ffi_dict_set(p.params, v, &one);
  }
  bool any;
  if (rc == 0) rc = mark_spatial(&p, f->body, &any);
  p.kind = TVM_RELAX_PATTERN_ELEMWISE;
  if (rc == 0) rc = visit(&p, f->body);
  int32_t out = rc != 0 ? -1 : !p.stored ? TVM_RELAX_PATTERN_OPAQUE : p.kind;
  tvm_ffi_free(p.loads);
  tvm_ffi_release(p.params);
  tvm_ffi_release(p.spatial);
  tvm_ffi_release((void*)f);
  return out;
}

/* ---- The pass -------------------------------------------------------------------------------- */
static tvm_tir_ir_module_obj* run_annotate_tir_op_pattern(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "AnnotateTIROpPattern: an IRModule is required");
    return NULL;
  }
  void* funcs = tvm_ffi_dict_new();
  int rc = funcs ? 0 : -1;
  bool changed = false;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    tvm_tir_prim_func_obj* f = (tvm_tir_prim_func_obj*)v->v_obj;
    if (!tvm_tir_is(f, TVM_TIR_KIND_PrimFunc) ||
        (f->func.attrs && tvm_ffi_map_get_str(f->func.attrs, "op_pattern"))) {
      rc = tvm_ffi_dict_set(funcs, k, v);
      continue;
    }
    int32_t kind = tvm_relax_analyze_op_pattern(f);
    if (kind < 0) {
      tvm_ffi_raise_context("AnnotateTIROpPattern: function %s",
                            tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint));
      rc = -1;
      break;
    }
    TVMFFIAny pv = tvm_ffi_any_int(kind);
    tvm_tir_prim_func_obj* nf = tvm_tir_prim_func_with_attr(f, "op_pattern", &pv);
    TVMFFIAny nv = tvm_ffi_any_obj(nf);
    rc = nf ? tvm_ffi_dict_set(funcs, k, &nv) : -1;
    tvm_ffi_release(nf);
    changed = true;
  }
  tvm_tir_ir_module_obj* out = rc == 0 ? tvm_relax__module_with(mod, funcs, changed) : NULL;
  tvm_ffi_release(funcs);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_annotate_tir_op_pattern(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_annotate_tir_op_pattern, mod);
}
