/*
 * pipeline.c: the build pipeline (the passes that take a Relax module to what VMCodeGen
 * compiles), the pass runner, and helpers the passes share.
 */
#include <tvm/relax/analysis.h>
#include <tvm/relax/transform.h>

#include "internal.h"

/* ---- Helpers --------------------------------------------------------------------------------- */
tvm_tir_ir_module_obj* tvm_relax__map_functions(const tvm_tir_ir_module_obj* mod, const char* pass,
                                                tvm_relax__func_rewrite fn, void* ctx) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule)) {
    tvm_ffi_raise("TypeError", "%s: an IRModule is required", pass);
    return NULL;
  }
  void* funcs = tvm_ffi_dict_new();
  int rc = funcs ? 0 : -1;
  bool changed = false;
  const TVMFFIAny *k, *v;
  for (int64_t pos = 0; rc == 0 && (pos = tvm_ffi_map_next(mod->functions, pos, &k, &v)) >= 0;) {
    if (tvm_relax_kind_of(v->v_obj) != TVM_RELAX_KIND_Function) {
      rc = tvm_ffi_dict_set(funcs, k, v);
      continue;
    }
    tvm_relax_function_obj* nf = fn((tvm_relax_function_obj*)v->v_obj, ctx);
    if (!nf) {
      tvm_ffi_raise_context("%s: function %s", pass,
                            tvm_ffi_str_cstr(((tvm_tir_global_var_obj*)k->v_obj)->name_hint));
      rc = -1;
      break;
    }
    changed |= (void*)nf != v->v_obj;
    TVMFFIAny nv = tvm_ffi_any_obj(nf);
    rc = tvm_ffi_dict_set(funcs, k, &nv);
    tvm_ffi_release(nf);
  }
  tvm_tir_ir_module_obj* out = rc == 0 ? tvm_relax__module_with(mod, funcs, changed) : NULL;
  tvm_ffi_release(funcs);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax__pass_set_aside(tvm_relax_pass_fn run,
                                                 const tvm_tir_ir_module_obj* mod) {
  void* stale = tvm_ffi_error_take();
  tvm_tir_ir_module_obj* out = run(mod);
  tvm_ffi_error_give_back(stale);
  return out;
}

tvm_tir_ir_module_obj* tvm_relax__module_with(const tvm_tir_ir_module_obj* mod, void* funcs,
                                              bool changed) {
  if (!changed) {
    tvm_ffi_retain((void*)mod);
    return (tvm_tir_ir_module_obj*)mod;
  }
  void* map = tvm_ffi_dict_to_map(funcs);
  tvm_tir_ir_module_obj* out = map ? tvm_tir_ir_module_new(map, mod->attrs) : NULL;
  tvm_ffi_release(map);
  return out;
}

tvm_tir_global_var_obj* tvm_relax__prim_func_global_var(const char* name, const void* func) {
  tvm_relax_sinfo_obj* s = tvm_relax_expr_sinfo(func);
  tvm_tir_global_var_obj* gv = s ? tvm_relax_global_var_new(name, s) : NULL;
  tvm_ffi_release(s);
  return gv;
}

int32_t tvm_relax__call_op_id(const void* expr) {
  if (tvm_relax_kind_of(expr) != TVM_RELAX_KIND_Call) return -1;
  const tvm_relax_op_info* info = tvm_relax_op_info_of(((const tvm_relax_call_obj*)expr)->op);
  return info ? (int32_t)info->id : -1;
}

tvm_relax_function_obj* tvm_relax__function_with_blocks(tvm_relax_function_obj* f, void* lists) {
  const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
  int64_t n = tvm_ffi_seq_size(seq->blocks);
  TVMFFIAny* blocks = tvm_ffi_calloc((size_t)(n ? n : 1), sizeof(TVMFFIAny));
  if (!blocks) return NULL;
  int64_t i = 0;
  for (; i < n; ++i) {
    const tvm_relax_block_obj* old = tvm_ffi_seq_obj_at(seq->blocks, i);
    void* arr = tvm_ffi_list_to_array(tvm_ffi_seq_obj_at(lists, i));
    tvm_relax_block_obj* b =
        arr ? tvm_relax_block_new(arr, tvm_relax_kind_of(old) == TVM_RELAX_KIND_DataflowBlock) : NULL;
    tvm_ffi_release(arr);
    if (!b) break;
    blocks[i] = tvm_ffi_any_obj(b);
  }
  if (i < n) {
    for (int64_t j = 0; j < i; ++j) tvm_ffi_any_release(&blocks[j]);
    tvm_ffi_free(blocks);
    return NULL;
  }
  void* arr = tvm_ffi_array_new_take(blocks, n);
  tvm_ffi_free(blocks);
  tvm_relax_expr_obj* body = arr ? tvm_relax_seq_expr_new(arr, seq->body) : NULL;
  tvm_ffi_release(arr);
  tvm_relax_function_obj* out =
      body ? tvm_relax_function_new(f->params, body, f->ret_struct_info, f->is_pure, f->func.attrs)
           : NULL;
  tvm_ffi_release(body);
  return out;
}

/* ---- The pipeline ---------------------------------------------------------------------------- */
/* The order matters: local functions are lifted first, so that every later pass sees module
 * functions only; kernels must exist (and carry their op pattern) before constants are folded
 * through them and before they are fused, and be fused before call_tir is rewritten; the
 * kernels that folding and reshape views left uncalled (and bindings left unused) go before
 * the lowering passes see them, and before LLVM compiles them;
 * reshapes are recognized while blocks are still dataflow blocks; the rewrite puts impure calls
 * into blocks that must no longer be dataflow blocks, in functions allowed to hold them;
 * planning works on the allocations the rewrite made; kills go after the last uses of the
 * planned tensors and storages (a reshape view's uses count as its tensor's); the builtins and
 * prim-value functions are made last, for VMCodeGen. */
static const tvm_relax_pass k_build_pipeline[] = {
    {"LambdaLift", tvm_relax_transform_lambda_lift},
    {"LegalizeOps", tvm_relax_transform_legalize_ops},
    {"AnnotateTIROpPattern", tvm_relax_transform_annotate_tir_op_pattern},
    {"FoldConstant", tvm_relax_transform_fold_constant},
    {"FuseOps", tvm_relax_transform_fuse_ops},
    {"FuseTIR", tvm_relax_transform_fuse_tir},
    {"RewriteDataflowReshape", tvm_relax_transform_rewrite_dataflow_reshape},
    {"DeadCodeElimination", tvm_relax_transform_dead_code_elimination},
    {"ToNonDataflow", tvm_relax_transform_to_non_dataflow},
    {"RemovePurityChecking", tvm_relax_transform_remove_purity_checking},
    {"CallTIRRewrite", tvm_relax_transform_call_tir_rewrite},
    {"StaticPlanBlockMemory", tvm_relax_transform_static_plan_block_memory},
    {"KillAfterLastUse", tvm_relax_transform_kill_after_last_use},
    {"LowerRuntimeBuiltin", tvm_relax_transform_lower_runtime_builtin},
    {"ComputePrimValue", tvm_relax_transform_compute_prim_value},
};

int64_t tvm_relax_build_pipeline_passes(const tvm_relax_pass** out) {
  if (out) *out = k_build_pipeline;
  return (int64_t)(sizeof(k_build_pipeline) / sizeof(k_build_pipeline[0]));
}

tvm_tir_ir_module_obj* tvm_relax_run_passes(const tvm_tir_ir_module_obj* mod,
                                           const tvm_relax_pass* passes, int64_t n) {
  return tvm_relax_run_passes_observed(mod, passes, n, NULL, NULL);
}

static tvm_tir_ir_module_obj* run_passes(const tvm_tir_ir_module_obj* mod,
                                         const tvm_relax_pass* passes, int64_t n,
                                         tvm_relax_pass_observer observer, void* ctx) {
  tvm_relax__ensure_init();
  if (!tvm_tir_is(mod, TVM_TIR_KIND_IRModule) || n < 0 || (n > 0 && !passes)) {
    tvm_ffi_raise("TypeError", "tvm_relax_run_passes: an IRModule and a list of passes are required");
    return NULL;
  }
  tvm_ffi_retain((void*)mod);
  tvm_tir_ir_module_obj* cur = (tvm_tir_ir_module_obj*)mod;
  for (int64_t i = 0; i < n && cur; ++i) {
    if (!passes[i].run) {
      tvm_ffi_raise("TypeError", "tvm_relax_run_passes: pass %lld has no function", (long long)i);
      tvm_ffi_release(cur);
      return NULL;
    }
    tvm_tir_ir_module_obj* next = passes[i].run(cur);
    if (!next) {
      tvm_ffi_raise_context("%s", passes[i].name);
    }
#ifndef NDEBUG
    /* Issue 17: every pass's result is checked in debug builds, so a pass that breaks an
     * invariant is named at once instead of failing somewhere downstream. */
    else if (tvm_relax_verify_well_formed(next) != 0) {
      tvm_ffi_raise_context("the result of %s is not well formed", passes[i].name);
      tvm_ffi_release(next);
      next = NULL;
    }
#endif
    if (next && observer && observer(ctx, passes[i].name, next) != 0) {
      tvm_ffi_raise_context("after %s", passes[i].name);
      tvm_ffi_release(next);
      next = NULL;
    }
    tvm_ffi_release(cur);
    cur = next;
  }
  return cur;
}

tvm_tir_ir_module_obj* tvm_relax_run_passes_observed(const tvm_tir_ir_module_obj* mod,
                                                    const tvm_relax_pass* passes, int64_t n,
                                                    tvm_relax_pass_observer observer, void* ctx) {
  /* A stale error the caller left raised is set aside: the passes read a raised error as their
   * own failure (ffi.h, tvm_ffi_error_take). */
  void* stale = tvm_ffi_error_take();
  tvm_tir_ir_module_obj* r = run_passes(mod, passes, n, observer, ctx);
  tvm_ffi_error_give_back(stale);
  return r;
}

tvm_tir_ir_module_obj* tvm_relax_build_pipeline(const tvm_tir_ir_module_obj* mod) {
  const tvm_relax_pass* p;
  int64_t n = tvm_relax_build_pipeline_passes(&p);
  return tvm_relax_run_passes(mod, p, n);
}
