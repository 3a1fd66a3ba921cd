/*
 * call_tir_rewrite.c: CallTIRRewrite (tvm/relax/transform.h), upstream's form:
 *   lv = R.call_tir(f, (x, y), out_sinfo)
 * becomes
 *   alloc = R.builtin.alloc_tensor(R.shape(dims), R.dtype(dt), R.prim_value(0))
 *   _ = f(x, y, alloc)
 *   lv = alloc                       (tuple outputs: one alloc per field, lv = (alloc, ...))
 * A mutator walk whose post hook on ordinary blocks expands the bindings; lv keeps its Var (the
 * allocation has exactly the call's struct info), so no use needs redirecting.
 *
 * R.call_dps_packed("f", (x,), out_sinfo) is rewritten the same way, the callee the ExternFunc
 * (a packed function found by name at run time). R.call_tir_inplace(f, (x, y), out_sinfo,
 * inplace_indices=[1, -1]) allocates only the outputs whose index is -1 and passes only those
 * after the inputs (`_ = f(x, y, alloc)`); an in-place output is the input it names
 * (`lv = (y, alloc)`), as upstream's CallTIRRewrite does. A call with tir_vars (R.shape([n]))
 * becomes `_ = R.vm.call_tir_dyn(f, (x, alloc, R.shape([n])))`, the shape's values passed after
 * the tensors at run time; R.call_tir_with_grad is rewritten as the call_tir it is.
 */
#include <stdio.h>

#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>

#include "internal.h"

typedef struct {
  int64_t n_alloc; /* for the names alloc, alloc1, ... of one function */
} rw_ctx;

static int push_binding(void* list, tvm_relax_var_obj* var, tvm_relax_expr_obj* value) {
  tvm_relax_binding_obj* b = var && value ? tvm_relax_var_binding_new(var, value) : NULL;
  TVMFFIAny item = tvm_ffi_any_obj(b);
  int rc = b ? tvm_ffi_list_push(list, &item) : -1;
  tvm_ffi_release(b);
  return rc;
}

/* alloc = R.builtin.alloc_tensor(...) for an output of struct info s; the new Var or NULL. */
static tvm_relax_var_obj* emit_alloc(rw_ctx* c, void* list, const tvm_relax_sinfo_obj* s) {
  void* dims = tvm_relax_tensor_sinfo_dims(s);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TensorStructInfo || !dims ||
      tvm_relax_dtype_is_unknown(((const tvm_relax_tensor_sinfo_obj*)s)->dtype)) {
    tvm_ffi_raise("ValueError", "call_tir's outputs must be tensors of known shape and dtype");
    return NULL;
  }
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_new(dims);
  tvm_relax_expr_obj* dt = tvm_relax_dtype_imm_new(((const tvm_relax_tensor_sinfo_obj*)s)->dtype);
  tvm_relax_expr_obj* dev = tvm_relax_prim_value_int64(0);
  tvm_relax_expr_obj* call =
      shape && dt && dev ? tvm_relax_call_op("relax.builtin.alloc_tensor", NULL, 3, shape, dt, dev) : NULL;
  char name[32];
  if (c->n_alloc == 0) snprintf(name, sizeof(name), "alloc");
  else snprintf(name, sizeof(name), "alloc%lld", (long long)c->n_alloc);
  c->n_alloc++;
  tvm_relax_var_obj* var = call ? tvm_relax_var_new(name, tvm_relax_sinfo_of(call), false) : NULL;
  int rc = push_binding(list, var, call);
  tvm_ffi_release(call), tvm_ffi_release(dev), tvm_ffi_release(dt), tvm_ffi_release(shape);
  if (rc != 0) {
    tvm_ffi_release(var);
    return NULL;
  }
  return var;
}

/* The in-place input of output i of a call_tir_inplace (its inplace_indices[i]), else -1. */
static int64_t inplace_index(const tvm_relax_call_obj* call, int64_t i) {
  const TVMFFIAny* a = tvm_relax_call_attr(call, "inplace_indices");
  int64_t idx = -1;
  if (tvm_relax__call_op_id(call) == TVM_RELAX_OP_call_tir_inplace && a && a->type_index == kTVMFFIArray &&
      i < tvm_ffi_seq_size(a->v_obj)) {
    tvm_ffi_any_as_int(tvm_ffi_seq_at(a->v_obj, i), &idx);
  }
  return idx;
}

/* The bindings replacing `b` (a call_tir, call_tir_inplace or call_dps_packed binding) appended
 * to list. */
static int expand(rw_ctx* c, void* list, const tvm_relax_binding_obj* b, const tvm_relax_call_obj* call) {
  const void* callee = tvm_ffi_seq_obj_at(call->args, 0);
  const tvm_relax_expr_obj* in = tvm_ffi_seq_obj_at(call->args, 1);
  const char* op = tvm_relax_op_info_of(call->op)->name;
  bool dyn = tvm_ffi_seq_size(call->args) > 2; /* tir_vars: through vm.call_tir_dyn */
  if (tvm_relax_kind_of(in) != TVM_RELAX_KIND_Tuple) {
    return tvm_ffi_raise("ValueError", "binding of %s: %s's arguments must be a tuple expression",
                         tvm_relax_var_name(b->var), op);
  }
  const tvm_relax_sinfo_obj* os = tvm_ffi_seq_obj_at(call->sinfo_args, 0);
  bool tuple_out = tvm_relax_kind_of(os) == TVM_RELAX_KIND_TupleStructInfo;
  void* ofields = tuple_out ? ((const tvm_relax_tuple_sinfo_obj*)os)->fields : NULL;
  int64_t nout = tuple_out ? tvm_ffi_seq_size(ofields) : 1;
  void* outs = tvm_ffi_list_new();
  void* args = tvm_ffi_list_new();
  int rc = outs && args ? 0 : -1;
  void* fields = ((const tvm_relax_tuple_obj*)in)->fields;
  for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(fields); ++i) {
    rc = tvm_ffi_list_push(args, tvm_ffi_seq_at(fields, i));
  }
  for (int64_t i = 0; rc == 0 && i < nout; ++i) {
    int64_t in_place = inplace_index(call, i);
    if (in_place >= 0 && in_place < tvm_ffi_seq_size(fields)) {
      rc = tvm_ffi_list_push(outs, tvm_ffi_seq_at(fields, in_place));
      continue;
    }
    tvm_relax_var_obj* v = emit_alloc(c, list, tuple_out ? tvm_ffi_seq_obj_at(ofields, i) : os);
    TVMFFIAny item = tvm_ffi_any_obj(v);
    rc = v && tvm_ffi_list_push(outs, &item) == 0 && tvm_ffi_list_push(args, &item) == 0 ? 0 : -1;
    tvm_ffi_release(v);
  }
  if (rc != 0) {
    tvm_ffi_raise_context("binding of %s", tvm_relax_var_name(b->var));
  } else {
    /* _ = f(x, y, alloc): the kernel writes its outputs in place; with tir_vars,
     * _ = R.vm.call_tir_dyn(f, (x, y, alloc, R.shape([n]))), as upstream. */
    if (dyn) rc = tvm_ffi_list_push(args, tvm_ffi_seq_at(call->args, 2));
    void* arr = rc == 0 ? tvm_ffi_list_to_array(args) : NULL;
    tvm_relax_expr_obj* kcall = NULL;
    if (arr && dyn) {
      tvm_relax_expr_obj* tup = tvm_relax_tuple_new(arr);
      kcall = tup ? tvm_relax_call_op("relax.vm.call_tir_dyn", NULL, 2, callee, tup) : NULL;
      tvm_ffi_release(tup);
    } else if (arr) {
      kcall = tvm_relax_call_new((void*)callee, arr, NULL, NULL, call->expr.span);
    }
    tvm_ffi_release(arr);
    tvm_relax_var_obj* unit = kcall ? tvm_relax_var_new("_", tvm_relax_sinfo_of(kcall), false) : NULL;
    rc = push_binding(list, unit, kcall);
    tvm_ffi_release(unit), tvm_ffi_release(kcall);
    /* lv = alloc, or lv = (alloc, alloc1, ...) */
    tvm_relax_expr_obj* value = NULL;
    if (rc == 0 && tuple_out) {
      void* oarr = tvm_ffi_list_to_array(outs);
      value = oarr ? tvm_relax_tuple_new(oarr) : NULL;
      tvm_ffi_release(oarr);
    } else if (rc == 0) {
      value = tvm_ffi_seq_obj_at(outs, 0);
      tvm_ffi_retain(value);
    }
    if (rc == 0) rc = push_binding(list, b->var, value);
    tvm_ffi_release(value);
  }
  tvm_ffi_release(outs);
  tvm_ffi_release(args);
  return rc;
}

static bool is_call_tir_binding(const tvm_relax_binding_obj* b) {
  if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_VarBinding) return false;
  int32_t id = tvm_relax__call_op_id(tvm_relax_binding_value(b));
  return id == TVM_RELAX_OP_call_tir || id == TVM_RELAX_OP_call_tir_inplace ||
         id == TVM_RELAX_OP_call_dps_packed || id == TVM_RELAX_OP_call_tir_with_grad;
}

static void* rewrite_block(tvm_relax_mutator* m, const void* node) {
  const tvm_relax_block_obj* blk = node;
  int64_t n = tvm_ffi_seq_size(blk->bindings), first = -1;
  for (int64_t i = 0; i < n && first < 0; ++i) {
    if (is_call_tir_binding(tvm_ffi_seq_obj_at(blk->bindings, i))) first = i;
  }
  if (first < 0) {
    tvm_ffi_retain((void*)blk);
    return (void*)blk;
  }
  if (tvm_relax_kind_of(blk) == TVM_RELAX_KIND_DataflowBlock) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, first);
    tvm_ffi_raise("ValueError",
                  "binding of %s: call_tir in a dataflow block (its rewrite is impure: run "
                  "ToNonDataflow first)",
                  tvm_relax_var_name(b->var));
    return NULL;
  }
  void* list = tvm_ffi_list_new();
  int rc = list ? 0 : -1;
  for (int64_t i = 0; rc == 0 && i < n; ++i) {
    const tvm_relax_binding_obj* b = tvm_ffi_seq_obj_at(blk->bindings, i);
    if (is_call_tir_binding(b)) {
      rc = expand(m->ctx, list, b, (const void*)tvm_relax_binding_value(b));
    } else {
      rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(blk->bindings, i));
    }
  }
  void* arr = rc == 0 ? tvm_ffi_list_to_array(list) : NULL;
  tvm_ffi_release(list);
  tvm_relax_block_obj* out = arr ? tvm_relax_block_new(arr, false) : NULL;
  tvm_ffi_release(arr);
  return out;
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  (void)ctx;
  rw_ctx c = {0};
  tvm_relax_mutator m = {0};
  m.ctx = &c;
  m.post[TVM_RELAX_KIND_BindingBlock] = rewrite_block;
  m.post[TVM_RELAX_KIND_DataflowBlock] = rewrite_block;
  tvm_relax_function_obj* out = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  return out;
}

static tvm_tir_ir_module_obj* run_call_tir_rewrite(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "CallTIRRewrite", rewrite, NULL);
}

tvm_tir_ir_module_obj* tvm_relax_transform_call_tir_rewrite(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_call_tir_rewrite, mod);
}
