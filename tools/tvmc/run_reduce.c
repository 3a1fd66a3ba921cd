/*
 * run_reduce.c: the length of the longest floating-point accumulation of a function (run.h),
 * which sizes the relative tolerance of `tvmc run`'s check (tvmc_args_compare).
 *
 * An accumulation is a BufferStore whose value loads the buffer it stores to (C[i] = C[i] + x,
 * and C[i] = max(C[i], x)). Its length is the product of the extents of the enclosing loops
 * whose variables the store's indices do not use: those loops revisit the same element. Block
 * iteration variables and let-bound variables in the indices count as the variables of their
 * bindings (iter_values, let values), so a block's reduction axes are found through the loops
 * bound to them. Extents are evaluated under the bindings; one that does not evaluate counts 1.
 */
#include <string.h>
#include <tvm/tir/tir.h>
#include <tvm/tir/visit.h>

#include "run.h"

#define MAX_LOOPS 64

typedef struct {
  const void* bindings;
  const void* loop_var[MAX_LOOPS];
  int64_t loop_extent[MAX_LOOPS];
  int nloops;
  void* defs;         /* ffi.Dict: Var -> the expression that defines it (iter_value, let value) */
  void* used;         /* ffi.Dict: the Vars one store's indices use (a set) */
  const void* target; /* the data Var of the store being checked */
  bool reads_target;
  double longest;
} reduce_ctx;

#define RC ((reduce_ctx*)v->ctx)

/* Add the Vars of expr (and of their definitions) to ctx->used. */
static int collect(reduce_ctx* c, const void* expr);

static int collect_var(tvm_tir_visitor* v, const void* node) {
  reduce_ctx* c = v->ctx;
  TVMFFIAny key = tvm_ffi_any_obj(node), one = tvm_ffi_any_int(1);
  if (tvm_ffi_map_get(c->used, &key)) return TVM_TIR_VISIT_SKIP;
  if (tvm_ffi_dict_set(c->used, &key, &one) != 0) return -1;
  const TVMFFIAny* def = tvm_ffi_map_get(c->defs, &key);
  if (def && collect(c, def->v_obj) != 0) return -1;
  return TVM_TIR_VISIT_SKIP;
}

static int collect(reduce_ctx* c, const void* expr) {
  tvm_tir_visitor w = {0};
  w.pre[TVM_TIR_KIND_Var] = collect_var;
  w.pre[TVM_TIR_KIND_SizeVar] = collect_var;
  w.ctx = c;
  int rc = tvm_tir_visit(&w, expr);
  tvm_tir_visitor_free(&w);
  return rc;
}

static int find_load(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_load_obj* l = node;
  if (l->buffer->data == RC->target) RC->reads_target = true;
  return 0;
}

static int on_store(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_buffer_store_obj* s = node;
  DLDataType t = tvm_tir_expr_dtype(s->value);
  if (t.code != kDLFloat && t.code != kDLBfloat) return 0;
  reduce_ctx* c = v->ctx;
  c->target = s->buffer->data;
  c->reads_target = false;
  tvm_tir_visitor w = {0};
  w.pre[TVM_TIR_KIND_BufferLoad] = find_load;
  w.ctx = c;
  int rc = tvm_tir_visit(&w, s->value);
  tvm_tir_visitor_free(&w);
  if (rc != 0) return -1;
  if (!c->reads_target) return 0;
  tvm_ffi_dict_clear(c->used);
  if (s->indices && collect(c, s->indices) != 0) return -1;
  double len = 1;
  for (int i = 0; i < c->nloops; ++i) {
    TVMFFIAny key = tvm_ffi_any_obj(c->loop_var[i]);
    if (!tvm_ffi_map_get(c->used, &key)) len *= (double)c->loop_extent[i];
  }
  if (len > c->longest) c->longest = len;
  return 0;
}

static int on_for(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_for_obj* f = node;
  reduce_ctx* c = v->ctx;
  int64_t extent;
  if (!tvmc_eval_int(f->extent, c->bindings, &extent) || extent < 1) extent = 1;
  if (c->nloops == MAX_LOOPS) return tvm_tir_visit_field(v, node, "body") ? -1 : TVM_TIR_VISIT_SKIP;
  c->loop_var[c->nloops] = f->loop_var;
  c->loop_extent[c->nloops++] = extent;
  int rc = tvm_tir_visit_field(v, node, "body");
  c->nloops--;
  return rc != 0 ? -1 : TVM_TIR_VISIT_SKIP;
}

static int define(reduce_ctx* c, const void* var, const void* value) {
  TVMFFIAny key = tvm_ffi_any_obj(var), val = tvm_ffi_any_obj(value);
  return tvm_ffi_dict_set(c->defs, &key, &val);
}

static int on_realize(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_sblock_realize_obj* r = node;
  for (int64_t i = 0;
       i < tvm_ffi_seq_size(r->iter_values) && i < tvm_ffi_seq_size(r->block->iter_vars); ++i) {
    const tvm_tir_iter_var_obj* iv = tvm_ffi_seq_obj_at(r->block->iter_vars, i);
    if (define(v->ctx, iv->var, tvm_ffi_seq_obj_at(r->iter_values, i)) != 0) return -1;
  }
  return 0;
}

static int on_let(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_let_stmt_obj* l = node;
  return define(v->ctx, l->var, l->value) != 0 ? -1 : 0;
}

int tvmc_reduction_length(const void* func, const void* bindings, double* out) {
  reduce_ctx c;
  memset(&c, 0, sizeof(c));
  c.bindings = bindings;
  c.longest = 1;
  c.defs = tvm_ffi_dict_new();
  c.used = tvm_ffi_dict_new();
  int rc = -1;
  if (c.defs && c.used) {
    tvm_tir_visitor v = {0};
    v.pre[TVM_TIR_KIND_For] = on_for;
    v.pre[TVM_TIR_KIND_BufferStore] = on_store;
    v.pre[TVM_TIR_KIND_SBlockRealize] = on_realize;
    v.pre[TVM_TIR_KIND_LetStmt] = on_let;
    v.ctx = &c;
    rc = tvm_tir_visit(&v, func);
    tvm_tir_visitor_free(&v);
  }
  tvm_ffi_release(c.defs);
  tvm_ffi_release(c.used);
  *out = c.longest;
  return rc;
}
