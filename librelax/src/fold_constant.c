/*
 * fold_constant.c: FoldConstant (tvm/relax/transform.h), upstream's relax.transform.FoldConstant.
 *
 * A mutator walk over each Relax function. A use of a variable bound to a constant leaf (a
 * Constant, a ShapeExpr or PrimValue of constants) becomes that leaf, so calls see their constant
 * arguments. A pure call whose arguments are all constant leaves (or tuples of them) is evaluated
 * by the reference evaluator (eval.c) and replaced by its value:
 *   - call_tir of a PrimFunc of the module: the kernel runs in libtir's interpreter;
 *   - an operator with a legalization: its kernel is built as LegalizeOps builds it, and run;
 *   - shape_of / tensor_to_shape of a constant tensor: the ShapeExpr.
 * Results above TVM_RELAX_FOLD_CONSTANT_MAX_BYTES are not folded (the module would carry them),
 * nor are calls whose evaluation fails (they fail at run time instead, where the program reaches
 * them). A TupleGetItem of a variable bound to a tuple of constant leaves becomes the field. A
 * second walk drops the bindings of variables bound to constant leaves (or tuples of them) that
 * no use is left of, and blocks left empty.
 */
#include <string.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>

#include "internal.h"

typedef struct {
  const tvm_tir_ir_module_obj* mod;
  void* consts; /* ffi.Dict Var -> the constant leaf it is bound to */
  void* tuples; /* ffi.Dict Var -> the Tuple of constant leaves it is bound to */
  void* uses;   /* ffi.Dict Var -> int: the uses the walk kept */
} fold_ctx;

/* ---- Constant leaves ------------------------------------------------------------------------- */
static bool const_prim(const tvm_tir_expr_obj* v) {
  int64_t i;
  double d;
  return v && (tvm_tir_as_const_int(v, &i) || tvm_tir_as_const_float(v, &d));
}

/* Whether e is a value known at compile time: a Constant, a ShapeExpr or PrimValue of constants,
 * a string or dtype literal (with tuples: also a Tuple of such values). */
static bool is_const_leaf(const void* e, bool tuples) {
  switch (tvm_relax_kind_of(e)) {
    case TVM_RELAX_KIND_Constant:
    case TVM_RELAX_KIND_StringImm:
    case TVM_RELAX_KIND_DataTypeImm:
      return true;
    case TVM_RELAX_KIND_PrimValue:
      return const_prim(((const tvm_relax_prim_value_obj*)e)->value);
    case TVM_RELAX_KIND_ShapeExpr: {
      void* vals = ((const tvm_relax_shape_expr_obj*)e)->values;
      int64_t x;
      for (int64_t i = 0; i < tvm_ffi_seq_size(vals); ++i) {
        if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(vals, i), &x)) return false;
      }
      return true;
    }
    case TVM_RELAX_KIND_Tuple: {
      void* f = ((const tvm_relax_tuple_obj*)e)->fields;
      for (int64_t i = 0; tuples && i < tvm_ffi_seq_size(f); ++i) {
        if (!is_const_leaf(tvm_ffi_seq_obj_at(f, i), false)) return false;
      }
      return tuples;
    }
    default:
      return false;
  }
}

static bool args_const(void* args, int64_t first) {
  for (int64_t i = first; i < tvm_ffi_seq_size(args); ++i) {
    if (!is_const_leaf(tvm_ffi_seq_obj_at(args, i), true)) return false;
  }
  return true;
}

/* The bytes of a result of struct info s when every dim is a constant; -1 otherwise. */
static int64_t result_bytes(const tvm_relax_sinfo_obj* s) {
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo) {
    void* f = ((const tvm_relax_tuple_sinfo_obj*)s)->fields;
    int64_t total = 0;
    for (int64_t i = 0; i < tvm_ffi_seq_size(f); ++i) {
      int64_t b = result_bytes(tvm_ffi_seq_obj_at(f, i));
      if (b < 0 || __builtin_add_overflow(total, b, &total)) return -1;
    }
    return total;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  if (!dims || tvm_relax_dtype_is_unknown(((const tvm_relax_tensor_sinfo_obj*)s)->dtype)) return -1;
  DLDataType t = ((const tvm_relax_tensor_sinfo_obj*)s)->dtype;
  int64_t n = ((int64_t)t.bits * t.lanes + 7) / 8;
  for (int64_t i = 0; i < tvm_ffi_seq_size(dims); ++i) {
    int64_t d;
    if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(dims, i), &d) || d < 0 ||
        __builtin_mul_overflow(n, d, &n)) {
      return -1;
    }
  }
  return n;
}

/* A value of the evaluator (a tensor, or a tuple of tensors) as a Constant / Tuple of them. */
static tvm_relax_expr_obj* value_expr(const TVMFFIAny* v) {
  if (v->type_index == kTVMFFITensor) return tvm_relax_constant_new(v->v_obj, NULL);
  if (v->type_index != kTVMFFIArray) {
    tvm_ffi_raise("TypeError", "FoldConstant: a call evaluated to %s", tvm_ffi_any_type_name(v));
    return NULL;
  }
  int64_t n = tvm_ffi_seq_size(v->v_obj);
  void* fields = tvm_ffi_list_new();
  int rc = fields ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    tvm_relax_expr_obj* f = value_expr(tvm_ffi_seq_at(v->v_obj, i));
    TVMFFIAny a = tvm_ffi_any_obj(f);
    rc = f && tvm_ffi_list_push(fields, &a) == 0 ? 0 : -1;
    tvm_ffi_release(f);
  }
  void* arr = rc == 0 ? tvm_ffi_list_to_array(fields) : NULL;
  tvm_ffi_release(fields);
  tvm_relax_expr_obj* t = arr ? tvm_relax_tuple_new(arr) : NULL;
  tvm_ffi_release(arr);
  return t;
}

/* ---- Folding a call -------------------------------------------------------------------------- */
/* Evaluate call_tir expression `e` in mod: its value as an expression, or NULL with no error
 * when the evaluation failed (the call is then left as it is). */
static tvm_relax_expr_obj* evaluate(const tvm_tir_ir_module_obj* mod, const tvm_relax_expr_obj* e) {
  TVMFFIAny v;
  if (tvm_relax__eval_closed(mod, e, "FoldConstant", &v) != 0) {
    tvm_ffi_error_clear();
    return NULL;
  }
  tvm_relax_expr_obj* out = value_expr(&v);
  tvm_ffi_any_release(&v);
  return out;
}

static bool fits(const tvm_relax_sinfo_obj* out) {
  int64_t bytes = result_bytes(out);
  return bytes >= 0 && bytes <= TVM_RELAX_FOLD_CONSTANT_MAX_BYTES;
}

/* call_tir(gv, (constants...), out_sinfo) of a PrimFunc of the module. */
static tvm_relax_expr_obj* fold_call_tir(fold_ctx* c, const tvm_relax_call_obj* call) {
  const tvm_tir_global_var_obj* gv = tvm_ffi_seq_obj_at(call->args, 0);
  const void* in = tvm_ffi_seq_obj_at(call->args, 1);
  if (tvm_ffi_seq_size(call->args) != 2 || !tvm_tir_is(gv, TVM_TIR_KIND_GlobalVar) ||
      tvm_relax_kind_of(in) != TVM_RELAX_KIND_Tuple || !is_const_leaf(in, true) ||
      tvm_ffi_seq_size(call->sinfo_args) != 1 || !fits(tvm_ffi_seq_obj_at(call->sinfo_args, 0))) {
    return NULL;
  }
  void* f = tvm_tir_ir_module_lookup(c->mod, tvm_ffi_str_cstr(gv->name_hint));
  bool kernel = tvm_tir_is(f, TVM_TIR_KIND_PrimFunc);
  tvm_ffi_release(f);
  return kernel ? evaluate(c->mod, &call->expr) : NULL;
}

/* An operator call with a legalization: its kernel run on the constants, as call_tir would. */
static tvm_relax_expr_obj* fold_legalizable(const tvm_relax_call_obj* call, int32_t id) {
  tvm_relax__legalize_fn legalize = tvm_relax__legalization(id);
  const tvm_relax_sinfo_obj* os = tvm_relax_sinfo_of(call);
  if (!legalize || !fits(os)) return NULL;
  tvm_tir_prim_func_obj* kernel = legalize(call);
  if (!kernel) {
    tvm_ffi_error_clear(); /* a form LegalizeOps does not handle either: left as it is */
    return NULL;
  }
  tvm_tir_global_var_obj* gv = tvm_tir_global_var_new("fold_constant_kernel");
  TVMFFIAny k = tvm_ffi_any_obj(gv), v = tvm_ffi_any_obj(kernel);
  void* funcs = gv ? tvm_ffi_map_new(&k, &v, 1) : NULL;
  tvm_tir_ir_module_obj* mod = funcs ? tvm_tir_ir_module_new(funcs, NULL) : NULL;
  void* inputs = tvm_ffi_list_new();
  void* in_arr =
      inputs && tvm_relax__kernel_inputs(call, inputs) == 0 ? tvm_ffi_list_to_array(inputs) : NULL;
  tvm_relax_expr_obj* tuple = in_arr ? tvm_relax_tuple_new(in_arr) : NULL;
  TVMFFIAny args[2] = {tvm_ffi_any_obj(gv), tvm_ffi_any_obj(tuple)};
  void* aarr = tuple ? tvm_ffi_array_new(args, 2) : NULL;
  tvm_relax_expr_obj* ct =
      mod ? tvm_relax__call_sinfo(tvm_relax_op(TVM_RELAX_OP_call_tir), aarr, os, NULL) : NULL;
  tvm_relax_expr_obj* out = ct ? evaluate(mod, ct) : NULL;
  if (!ct) tvm_ffi_error_clear();
  void* objs[] = {ct, aarr, tuple, in_arr, inputs, mod, funcs, gv, kernel};
  tvm_relax__release_all(objs, sizeof(objs) / sizeof(objs[0]));
  return out;
}

/* shape_of(c) / tensor_to_shape(c) of a constant tensor c. */
static tvm_relax_expr_obj* fold_shape(const tvm_relax_call_obj* call, int32_t id) {
  const void* a = tvm_ffi_seq_obj_at(call->args, 0);
  if (tvm_relax_kind_of(a) != TVM_RELAX_KIND_Constant) return NULL;
  const DLTensor* dl = tvm_ffi_tensor_dl(((const tvm_relax_constant_obj*)a)->data);
  if (id == TVM_RELAX_OP_shape_of) return tvm_relax_shape_expr_of_ints(dl->shape, dl->ndim);
  if (dl->ndim != 1 || dl->dtype.code != kDLInt || dl->dtype.lanes != 1 || dl->shape[0] > 64 ||
      !tvm_ffi_dltensor_is_contiguous(dl)) {
    return NULL;
  }
  int64_t dims[64];
  const char* p = (const char*)dl->data + dl->byte_offset;
  for (int64_t i = 0; i < dl->shape[0]; ++i) {
    switch (dl->dtype.bits) {
      case 64: dims[i] = ((const int64_t*)p)[i]; break;
      case 32: dims[i] = ((const int32_t*)p)[i]; break;
      default: return NULL;
    }
  }
  return tvm_relax_shape_expr_of_ints(dims, (int32_t)dl->shape[0]);
}

static void* post_call(tvm_relax_mutator* m, const void* node) {
  fold_ctx* c = m->ctx;
  const tvm_relax_call_obj* call = node;
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  tvm_relax_expr_obj* out = NULL;
  if (info && info->pure) {
    if (info->id == TVM_RELAX_OP_call_tir) {
      out = fold_call_tir(c, call);
    } else if (info->id == TVM_RELAX_OP_shape_of || info->id == TVM_RELAX_OP_tensor_to_shape) {
      out = fold_shape(call, (int32_t)info->id);
    } else if (args_const(call->args, 0)) {
      out = fold_legalizable(call, (int32_t)info->id);
    }
  }
  if (!out && tvm_ffi_error_pending()) return NULL;
  if (!out) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  return out;
}

/* ---- Uses of variables ----------------------------------------------------------------------- */
static int count_use(fold_ctx* c, const void* var, int64_t delta) {
  TVMFFIAny k = tvm_ffi_any_obj(var);
  const TVMFFIAny* v = tvm_ffi_map_get(c->uses, &k);
  int64_t n = 0;
  if (v) tvm_ffi_any_as_int(v, &n);
  TVMFFIAny nv = tvm_ffi_any_int(n + delta);
  return tvm_ffi_dict_set(c->uses, &k, &nv);
}

static void* post_var(tvm_relax_mutator* m, const void* node) {
  fold_ctx* c = m->ctx;
  TVMFFIAny k = tvm_ffi_any_obj(node);
  const TVMFFIAny* v = tvm_ffi_map_get(c->consts, &k);
  if (v) {
    tvm_ffi_retain(v->v_obj);
    return v->v_obj;
  }
  if (count_use(c, node, 1) != 0) return NULL;
  tvm_ffi_retain((void*)node);
  return (void*)node;
}

static void* post_get_item(tvm_relax_mutator* m, const void* node) {
  fold_ctx* c = m->ctx;
  const tvm_relax_tuple_get_item_obj* g = node;
  TVMFFIAny k = tvm_ffi_any_obj(g->tuple_value);
  const TVMFFIAny* t = tvm_relax_is_var(g->tuple_value) ? tvm_ffi_map_get(c->tuples, &k) : NULL;
  void* fields = t ? ((const tvm_relax_tuple_obj*)t->v_obj)->fields : NULL;
  if (!fields || g->index < 0 || g->index >= tvm_ffi_seq_size(fields)) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  if (count_use(c, g->tuple_value, -1) != 0) return NULL;
  void* f = tvm_ffi_seq_obj_at(fields, g->index);
  tvm_ffi_retain(f);
  return f;
}

static void* post_binding(tvm_relax_mutator* m, const void* node) {
  fold_ctx* c = m->ctx;
  const tvm_relax_binding_obj* b = node;
  const void* v = tvm_relax_binding_value(b);
  TVMFFIAny k = tvm_ffi_any_obj(b->var), val = tvm_ffi_any_obj(v);
  int rc = 0;
  if (is_const_leaf(v, false)) {
    rc = tvm_ffi_dict_set(c->consts, &k, &val);
  } else if (tvm_relax_kind_of(v) == TVM_RELAX_KIND_Tuple && is_const_leaf(v, true)) {
    rc = tvm_ffi_dict_set(c->tuples, &k, &val);
  }
  if (rc != 0) return NULL;
  tvm_ffi_retain((void*)node);
  return (void*)node;
}

/* ---- Dropping the bindings left unused ------------------------------------------------------- */
static bool droppable(fold_ctx* c, const tvm_relax_binding_obj* b) {
  if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_VarBinding) return false;
  TVMFFIAny k = tvm_ffi_any_obj(b->var);
  if (!tvm_ffi_map_get(c->consts, &k) && !tvm_ffi_map_get(c->tuples, &k)) return false;
  const TVMFFIAny* u = tvm_ffi_map_get(c->uses, &k);
  int64_t n = 0;
  if (u) tvm_ffi_any_as_int(u, &n);
  return n <= 0;
}

static void* post_block(tvm_relax_mutator* m, const void* node) {
  fold_ctx* c = m->ctx;
  const tvm_relax_block_obj* blk = node;
  int64_t n = tvm_ffi_seq_size(blk->bindings), kept = 0;
  void* list = tvm_ffi_list_new();
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    if (droppable(c, b)) continue;
    rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(blk->bindings, i));
    ++kept;
  }
  void* out = NULL;
  if (rc == 0 && kept == n) {
    tvm_ffi_retain((void*)node);
    out = (void*)node;
  } else if (rc == 0) {
    void* arr = tvm_ffi_list_to_array(list);
    out = arr ? tvm_relax_block_new(arr, tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) : NULL;
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(list);
  return out;
}

static void* post_seq(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_seq_expr_obj* s = node;
  int64_t n = tvm_ffi_seq_size(s->blocks), kept = 0;
  for (int64_t i = 0; i < n; ++i) {
    kept += tvm_ffi_seq_size(((const tvm_relax_block_obj*)tvm_ffi_seq_obj_at(s->blocks, i))->bindings) > 0;
  }
  if (kept == n) {
    tvm_ffi_retain((void*)node);
    return (void*)node;
  }
  void* list = tvm_ffi_list_new();
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    const tvm_relax_block_obj* b = tvm_ffi_seq_obj_at(s->blocks, i);
    if (tvm_ffi_seq_size(b->bindings) > 0) rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(s->blocks, i));
  }
  void* arr = rc == 0 ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  tvm_relax_expr_obj* out = arr ? tvm_relax_seq_expr_new(arr, s->body) : NULL;
  tvm_ffi_release(arr);
  return out;
}

/* ---- The pass -------------------------------------------------------------------------------- */
static tvm_relax_function_obj* fold_function(tvm_relax_function_obj* f, void* ctx) {
  fold_ctx* c = ctx;
  tvm_ffi_dict_clear(c->consts);
  tvm_ffi_dict_clear(c->tuples);
  tvm_ffi_dict_clear(c->uses);
  tvm_relax_mutator m = {0};
  m.ctx = c;
  m.post[TVM_RELAX_KIND_Var] = post_var;
  m.post[TVM_RELAX_KIND_DataflowVar] = post_var;
  m.post[TVM_RELAX_KIND_Call] = post_call;
  m.post[TVM_RELAX_KIND_TupleGetItem] = post_get_item;
  m.post[TVM_RELAX_KIND_VarBinding] = post_binding;
  tvm_relax_function_obj* folded = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  if (!folded) return NULL;
  tvm_relax_mutator d = {0};
  d.ctx = c;
  d.post[TVM_RELAX_KIND_BindingBlock] = post_block;
  d.post[TVM_RELAX_KIND_DataflowBlock] = post_block;
  d.post[TVM_RELAX_KIND_SeqExpr] = post_seq;
  tvm_relax_function_obj* out = tvm_relax_mutate(&d, folded);
  tvm_relax_mutator_free(&d);
  tvm_ffi_release(folded);
  return out;
}

static tvm_tir_ir_module_obj* run_fold_constant(const tvm_tir_ir_module_obj* mod) {
  tvm_relax__ensure_init();
  fold_ctx c = {mod, tvm_ffi_dict_new(), tvm_ffi_dict_new(), tvm_ffi_dict_new()};
  tvm_tir_ir_module_obj* out =
      c.consts && c.tuples && c.uses ? tvm_relax__map_functions(mod, "FoldConstant", fold_function, &c)
                                     : NULL;
  tvm_ffi_release(c.consts);
  tvm_ffi_release(c.tuples);
  tvm_ffi_release(c.uses);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax_transform_fold_constant(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_fold_constant, mod);
}
