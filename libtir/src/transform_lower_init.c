/* transform_lower_init.c: pass lower_init (tvm/tir/transform.h). A block's init runs when every
 * kCommReduce iter var is at the minimum of its domain (0 without one), as the interpreter does
 * (docs/tir-decisions.md, "Blocks"); it becomes an IfThenElse in front of the body. */
#include "transform_internal.h"

static const char kPass[] = "lower_init";

/* And of (iv == dom.min) over the reduction iter vars; NULL with no error when there is none. */
static tvm_tir_expr_obj* first_iteration(const tvm_tir_sblock_obj* b) {
  tvm_tir_expr_obj* cond = NULL;
  for (int64_t k = 0; k < tvm_tir_array_size(b->iter_vars); ++k) {
    const tvm_tir_iter_var_obj* iv = tvm_tir_array_at(b->iter_vars, k);
    if (iv->iter_type != TVM_TIR_ITER_COMM_REDUCE) continue;
    void* min = iv->dom ? tvm_tir_ref(iv->dom->min) : tvm_tir_const(iv->var->expr.dtype, 0);
    void* eq = tvm_tir_eq_take(tvm_tir_ref(iv->var), min);
    cond = cond ? tvm_tir_and_take(cond, eq) : eq;
    if (!cond) return NULL;
  }
  return cond;
}

static void* lower_block(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_sblock_obj* b = node;
  if (!b->init) return tvm_tir_ref((void*)b);
  tvm_tir_expr_obj* cond = first_iteration(b);
  if (!cond && tvm_ffi_error_pending()) return NULL;
  void* init = cond ? tvm_tir_if_take(cond, tvm_tir_ref(b->init), NULL) : tvm_tir_ref(b->init);
  tvm_tir_stmt_obj* body = tvm_tir_seq_take(init, tvm_tir_ref(b->body));
  if (!body) return NULL;
  tvm_tir_sblock_fields f = {0};
  f.iter_vars = b->iter_vars;
  f.reads = b->reads;
  f.writes = b->writes;
  f.name_hint = tvm_ffi_str_cstr(b->name_hint);
  f.body = body;
  f.alloc_buffers = b->alloc_buffers;
  f.match_buffers = b->match_buffers;
  f.annotations = b->annotations;
  void* r = tvm_tir_sblock_new(&f);
  tvm_ffi_release(body);
  return r;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_SBlock] = lower_block;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_lower_init(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
