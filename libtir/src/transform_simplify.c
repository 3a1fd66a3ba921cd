/* transform_simplify.c: pass simplify (tvm/tir/transform.h). Every maximal expression (index,
 * value, condition, extent) goes through tvm_tir_simplify_expr with the ranges of the enclosing
 * For loops ([min, min + extent)); an IfThenElse whose condition becomes a constant is replaced
 * by the branch taken (Evaluate(0) when there is none) and Evaluate(constant) no-ops are dropped
 * from sequences. Buffers are left as they are (their identity is what declarations and accesses
 * share). */
#include "transform_internal.h"

static const char kPass[] = "simplify";

typedef struct {
  tvm_tir_mutator m;
  void* ranges; /* ffi.Dict Var -> Range of the enclosing loops */
} simplifier;

static void* fold_if(const tvm_tir_if_then_else_obj* i);
static void* drop_no_ops(const tvm_tir_seq_stmt_obj* seq);

/* Expressions are simplified whole; other nodes have their children processed. */
static void* simplify_node(tvm_tir_mutator* m, const void* node) {
  if (tvm_tir_is_expr(node)) return tvm_tir_simplify_expr(node, ((simplifier*)m)->ranges);
  void* r = tvm_tir_mutate_children(m, node);
  void* folded = !r                      ? NULL
                 : TIR_IS(r, IfThenElse) ? fold_if(r)
                 : TIR_IS(r, SeqStmt)    ? drop_no_ops(r)
                                         : tvm_tir_ref(r);
  tvm_ffi_release(r);
  return folded;
}

/* Evaluate(constant) does nothing. */
static bool is_no_op(const void* stmt) {
  return TIR_IS(stmt, Evaluate) && (TIR_IS(((const tvm_tir_evaluate_obj*)stmt)->value, IntImm) ||
                                    TIR_IS(((const tvm_tir_evaluate_obj*)stmt)->value, FloatImm));
}

/* seq without its no-op statements (seq itself when it has none; one statement alone). */
static void* drop_no_ops(const tvm_tir_seq_stmt_obj* seq) {
  int64_t n = tvm_tir_array_size(seq->seq), kept = 0;
  for (int64_t k = 0; k < n; ++k) kept += !is_no_op(tvm_tir_array_at(seq->seq, k));
  if (kept == n) return tvm_tir_ref((void*)seq);
  void** items = tvm_ffi_calloc((size_t)(kept ? kept : 1), sizeof(void*));
  if (!items) return NULL;
  for (int64_t k = 0, j = 0; k < n; ++k) {
    void* s = tvm_tir_array_at(seq->seq, k);
    if (!is_no_op(s)) items[j++] = tvm_tir_ref(s);
  }
  void* r = tvm_tir_seq_takev(kept, items); /* consumes the items */
  tvm_ffi_free(items);
  return r;
}

static void* keep(tvm_tir_mutator* m, const void* node) {
  (void)m;
  return tvm_tir_ref((void*)node);
}

static void* simplify_for(tvm_tir_mutator* m, const void* node) {
  simplifier* s = (simplifier*)m;
  const tvm_tir_for_obj* f = node;
  tvm_tir_range_obj* range = tvm_tir_range_new(f->min, f->extent);
  TVMFFIAny key = tvm_ffi_any_obj(f->loop_var), val = tvm_ffi_any_obj(range);
  int rc = range ? tvm_ffi_dict_set(s->ranges, &key, &val) : -1;
  tvm_ffi_release(range);
  void* r = rc == 0 ? tvm_tir_mutate_children(m, node) : NULL;
  tvm_ffi_dict_erase(s->ranges, &key);
  return r;
}

static void* fold_if(const tvm_tir_if_then_else_obj* i) {
  int64_t c;
  if (!tvm_tir_as_const_int(i->condition, &c)) return tvm_tir_ref((void*)i);
  if (c) return tvm_tir_ref(i->then_case);
  if (i->else_case) return tvm_tir_ref(i->else_case);
  return tvm_tir_evaluate_take(tvm_tir_int(0));
}

static void* run(const tvm_tir_prim_func_obj* f) {
  simplifier s = {0};
  s.ranges = tvm_ffi_dict_new();
  if (!s.ranges) return NULL;
  s.m.pre_default = simplify_node;
  s.m.pre[TVM_TIR_KIND_Buffer] = keep;
  s.m.pre[TVM_TIR_KIND_For] = simplify_for;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&s.m, f->body);
  void* r = body ? tvm_tir__xform_with_body(f, body) : NULL;
  RELEASE2(body, s.ranges);
  return r;
}

void* tvm_tir_transform_simplify(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
