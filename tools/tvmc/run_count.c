/*
 * run_count.c: integer evaluation of shape/extent expressions and the operation counts of a
 * function (run.h).
 *
 * Counting walks the statements with a multiplier: a For loop multiplies its body by its
 * extent evaluated under the bindings (the loop's own min/extent count once, at the outer
 * multiplier); an IfThenElse counts its condition and the costlier branch (an upper bound: the
 * reduction-init branches lowering introduces cost no float operations); a While loop, or an
 * extent that does not evaluate, makes the counts unknown. Expressions are walked with the
 * generic visitor: every node is one unit of work, and float Add/Sub/Mul count one operation
 * per lane, tir.fma two.
 */
#include <string.h>
#include <tvm/tir/op.h>
#include <tvm/tir/tir.h>
#include <tvm/tir/visit.h>

#include "run.h"

/* ---- Evaluation --------------------------------------------------------------------------- */
bool tvmc_eval_int(const void* expr, const void* bindings, int64_t* out) {
  tvm_tir_kind k = tvm_tir_kind_of(expr);
  if (k == TVM_TIR_KIND_IntImm) {
    *out = ((const tvm_tir_int_imm_obj*)expr)->value;
    return true;
  }
  if (k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) {
    TVMFFIAny key = tvm_ffi_any_obj(expr);
    const TVMFFIAny* v = bindings ? tvm_ffi_map_get(bindings, &key) : NULL;
    return v && tvm_ffi_any_as_int(v, out);
  }
  if (k == TVM_TIR_KIND_Cast) return tvmc_eval_int(((const tvm_tir_cast_obj*)expr)->value, bindings, out);
  const tvm_tir_binary_obj* b = expr;
  int64_t x, y;
  switch (k) {
    case TVM_TIR_KIND_Add: case TVM_TIR_KIND_Sub: case TVM_TIR_KIND_Mul:
    case TVM_TIR_KIND_FloorDiv: case TVM_TIR_KIND_FloorMod: case TVM_TIR_KIND_Div:
    case TVM_TIR_KIND_Mod: case TVM_TIR_KIND_Min: case TVM_TIR_KIND_Max:
      if (!tvmc_eval_int(b->a, bindings, &x) || !tvmc_eval_int(b->b, bindings, &y)) return false;
      break;
    default:
      return false;
  }
  bool div = k == TVM_TIR_KIND_FloorDiv || k == TVM_TIR_KIND_FloorMod || k == TVM_TIR_KIND_Div ||
             k == TVM_TIR_KIND_Mod;
  if (div && y == 0) return false;
  switch (k) {
    case TVM_TIR_KIND_Add: *out = (int64_t)((uint64_t)x + (uint64_t)y); break;
    case TVM_TIR_KIND_Sub: *out = (int64_t)((uint64_t)x - (uint64_t)y); break;
    case TVM_TIR_KIND_Mul: *out = (int64_t)((uint64_t)x * (uint64_t)y); break;
    case TVM_TIR_KIND_Div: *out = x / y; break;
    case TVM_TIR_KIND_Mod: *out = x % y; break;
    case TVM_TIR_KIND_FloorDiv: *out = x / y - ((x % y != 0) && ((x < 0) != (y < 0))); break;
    case TVM_TIR_KIND_FloorMod: *out = x - y * (x / y - ((x % y != 0) && ((x < 0) != (y < 0)))); break;
    case TVM_TIR_KIND_Min: *out = x < y ? x : y; break;
    default: *out = x > y ? x : y; break;
  }
  return true;
}

/* ---- Counting ----------------------------------------------------------------------------- */
typedef struct {
  tvm_tir_visitor v; /* first: callbacks reach the state through their visitor */
  void* bindings;    /* ffi.Dict Var -> int (LetStmt values are added) */
  double mult;       /* executions of the current node */
  tvmc_counts c;
} counter;
#define CTR ((counter*)v)

static int count_node(tvm_tir_visitor* v, const void* node) {
  CTR->c.work += CTR->mult;
  return TVM_TIR_VISIT_CONTINUE;
}

static int count_arith(tvm_tir_visitor* v, const void* node) {
  DLDataType t = tvm_tir_expr_dtype(node);
  if (t.code == kDLFloat || t.code == kDLBfloat) CTR->c.flops += CTR->mult * t.lanes;
  return count_node(v, node);
}

static int count_call(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_call_obj* call = node;
  DLDataType t = tvm_tir_expr_dtype(node);
  if (tvm_tir_kind_of(call->op) == TVM_TIR_KIND_Op &&
      strcmp(tvm_tir_op_name((const tvm_tir_op_obj*)call->op), "tir.fma") == 0 &&
      (t.code == kDLFloat || t.code == kDLBfloat))
    CTR->c.flops += 2 * CTR->mult * t.lanes;
  return count_node(v, node);
}

static int count_for(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_for_obj* f = node;
  count_node(v, node);
  if (tvm_tir_visit_field(v, node, "min") != 0 || tvm_tir_visit_field(v, node, "extent") != 0)
    return -1;
  int64_t extent;
  if (!tvmc_eval_int(f->extent, CTR->bindings, &extent)) {
    CTR->c.known = false;
    extent = 1; /* keep walking for the work of what is known */
  }
  double saved = CTR->mult;
  CTR->mult *= (double)(extent > 0 ? extent : 0);
  int rc = tvm_tir_visit_field(v, node, "body");
  CTR->mult = saved;
  return rc != 0 ? -1 : TVM_TIR_VISIT_SKIP;
}

static int count_while(tvm_tir_visitor* v, const void* node) {
  CTR->c.known = false;
  return count_node(v, node);
}

static int count_let_stmt(tvm_tir_visitor* v, const void* node) {
  const tvm_tir_let_stmt_obj* let = node;
  int64_t value;
  if (tvmc_eval_int(let->value, CTR->bindings, &value)) {
    TVMFFIAny key = tvm_ffi_any_obj(let->var), val = tvm_ffi_any_int(value);
    if (tvm_ffi_dict_set(CTR->bindings, &key, &val) != 0) return -1;
  }
  return count_node(v, node);
}

static int count_if(tvm_tir_visitor* v, const void* node) {
  count_node(v, node);
  if (tvm_tir_visit_field(v, node, "condition") != 0) return -1;
  tvmc_counts before = CTR->c;
  if (tvm_tir_visit_field(v, node, "then_case") != 0) return -1;
  tvmc_counts then_c = CTR->c;
  CTR->c = before;
  CTR->c.known = then_c.known;
  if (tvm_tir_visit_field(v, node, "else_case") != 0) return -1;
  if (then_c.flops > CTR->c.flops) CTR->c.flops = then_c.flops;
  if (then_c.work > CTR->c.work) CTR->c.work = then_c.work;
  return TVM_TIR_VISIT_SKIP;
}

int tvmc_count_ops(const void* func, const void* bindings, tvmc_counts* out) {
  return tvmc_count_stmt(((const tvm_tir_prim_func_obj*)func)->body, bindings, out);
}

int tvmc_count_stmt(const void* stmt, const void* bindings, tvmc_counts* out) {
  counter c = {0};
  c.mult = 1;
  c.c.known = true;
  c.bindings = tvm_ffi_dict_new();
  if (!c.bindings) return -1;
  const TVMFFIAny *key, *val;
  for (int64_t pos = 0; bindings && (pos = tvm_ffi_map_next(bindings, pos, &key, &val)) >= 0;)
    if (tvm_ffi_dict_set(c.bindings, key, val) != 0) {
      tvm_ffi_release(c.bindings);
      return -1;
    }
  c.v.pre_default = count_node;
  c.v.pre[TVM_TIR_KIND_Add] = c.v.pre[TVM_TIR_KIND_Sub] = c.v.pre[TVM_TIR_KIND_Mul] = count_arith;
  c.v.pre[TVM_TIR_KIND_Call] = count_call;
  c.v.pre[TVM_TIR_KIND_For] = count_for;
  c.v.pre[TVM_TIR_KIND_While] = count_while;
  c.v.pre[TVM_TIR_KIND_LetStmt] = count_let_stmt;
  c.v.pre[TVM_TIR_KIND_IfThenElse] = count_if;
  int rc = tvm_tir_visit(&c.v, stmt);
  tvm_tir_visitor_free(&c.v);
  tvm_ffi_release(c.bindings);
  *out = c.c;
  return rc;
}
