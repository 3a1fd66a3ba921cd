/*
 * to_non_dataflow.c: ToNonDataflow (tvm/relax/transform.h). A mutator walk: each binding of a
 * DataflowVar binds a new Var of the same name and struct info instead (the mutator redirects the
 * later uses), and each DataflowBlock is rebuilt as an ordinary block.
 */
#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>

#include "internal.h"

static void* unflow_binding(tvm_relax_mutator* m, const void* node) {
  (void)m;
  const tvm_relax_binding_obj* b = node;
  if (tvm_relax_kind_of(b->var) != TVM_RELAX_KIND_DataflowVar) {
    tvm_ffi_retain((void*)b);
    return (void*)b;
  }
  tvm_relax_var_obj* var = tvm_relax_var_new_str(b->var->name_hint, tvm_relax_sinfo_of(b->var), false);
  if (!var) return NULL;
  tvm_relax_binding_obj* out =
      tvm_relax_kind_of(b) == TVM_RELAX_KIND_MatchCast
          ? tvm_relax_match_cast_new(var, tvm_relax_binding_value(b),
                                     ((const tvm_relax_match_cast_obj*)b)->struct_info)
          : tvm_relax_var_binding_new(var, tvm_relax_binding_value(b));
  tvm_ffi_release(var);
  return out;
}

static void* unflow_block(tvm_relax_mutator* m, const void* node) {
  (void)m;
  return tvm_relax_block_new(((const tvm_relax_block_obj*)node)->bindings, false);
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  (void)ctx;
  tvm_relax_mutator m = {0};
  m.post[TVM_RELAX_KIND_VarBinding] = unflow_binding;
  m.post[TVM_RELAX_KIND_MatchCast] = unflow_binding;
  m.post[TVM_RELAX_KIND_DataflowBlock] = unflow_block;
  tvm_relax_function_obj* out = tvm_relax_mutate(&m, f);
  tvm_relax_mutator_free(&m);
  return out;
}

static tvm_tir_ir_module_obj* run_to_non_dataflow(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "ToNonDataflow", rewrite, NULL);
}

tvm_tir_ir_module_obj* tvm_relax_transform_to_non_dataflow(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_to_non_dataflow, mod);
}
