/*
 * kill_after_last_use.c: KillAfterLastUse (tvm/relax/transform.h). The lifetimes come from
 * tvm_relax__liveness; after the binding of each value's last top-level use, a binding
 * `_ = R.memory.kill_tensor(t)` (or kill_storage) releases it, so the VM frees its memory then
 * rather than when the function returns.
 */
#include <tvm/relax/transform.h>

#include "internal.h"

static bool is_root(const tvm_relax_binding_obj* b) {
  if (tvm_relax_kind_of(b) != TVM_RELAX_KIND_VarBinding) return false;
  int32_t id = tvm_relax__call_op_id(tvm_relax_binding_value(b));
  return id == TVM_RELAX_OP_memory_alloc_tensor || id == TVM_RELAX_OP_builtin_alloc_tensor ||
         id == TVM_RELAX_OP_memory_alloc_storage;
}

/* _ = R.memory.kill_tensor(var) / kill_storage(var) appended to list. */
static int emit_kill(void* list, tvm_relax_var_obj* var, bool storage) {
  tvm_relax_expr_obj* call =
      tvm_relax_call_op(storage ? "relax.memory.kill_storage" : "relax.memory.kill_tensor", NULL, 1, var);
  tvm_relax_var_obj* unit = call ? tvm_relax_var_new("_", tvm_relax_sinfo_of(call), false) : NULL;
  tvm_relax_binding_obj* b = unit ? tvm_relax_var_binding_new(unit, call) : NULL;
  TVMFFIAny item = tvm_ffi_any_obj(b);
  int rc = b ? tvm_ffi_list_push(list, &item) : -1;
  tvm_ffi_release(b), tvm_ffi_release(unit), tvm_ffi_release(call);
  return rc;
}

static tvm_relax_function_obj* rewrite(tvm_relax_function_obj* f, void* ctx) {
  tvm_relax__liveness l;
  if (tvm_relax__liveness_init(&l, ctx, f, is_root) != 0) {
    tvm_relax__liveness_free(&l);
    return NULL;
  }
  /* kills[pos]: the first token killed after position pos, chained by next[]. */
  int64_t* head = tvm_ffi_calloc((size_t)(l.count + 1), sizeof(int64_t));
  int64_t* next = tvm_ffi_calloc((size_t)(l.n + 1), sizeof(int64_t));
  void* lists = tvm_ffi_list_new();
  int rc = head && next && lists ? 0 : -1;
  bool any = false;
  for (int64_t p = 0; rc == 0 && p <= l.count; ++p) head[p] = -1;
  /* In reverse so each chain lists its tokens in allocation order. */
  for (int64_t t = l.n - 1; rc == 0 && t >= 0; --t) {
    if (l.escapes[t]) continue;
    next[t] = head[l.last[t]];
    head[l.last[t]] = t;
    any = true;
  }
  tvm_relax_function_obj* out = NULL;
  if (rc == 0 && !any) {
    tvm_ffi_retain(f);
    out = f;
  } else if (rc == 0) {
    const tvm_relax_seq_expr_obj* seq = (const void*)f->body;
    int64_t pos = 0;
    for (int64_t i = 0; rc == 0 && i < tvm_ffi_seq_size(seq->blocks); ++i) {
      const tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, i);
      void* list = tvm_ffi_list_new();
      TVMFFIAny item = tvm_ffi_any_obj(list);
      rc = list && tvm_ffi_list_push(lists, &item) == 0 ? 0 : -1;
      tvm_ffi_release(list);
      for (int64_t j = 0; rc == 0 && j < tvm_ffi_seq_size(blk->bindings); ++j, ++pos) {
        rc = tvm_ffi_list_push(list, tvm_ffi_seq_at(blk->bindings, j));
        for (int64_t t = head[pos]; rc == 0 && t >= 0; t = next[t]) {
          tvm_relax_var_obj* root = tvm_ffi_seq_obj_at(l.roots, t);
          rc = emit_kill(list, root, tvm_relax_kind_of(tvm_relax_sinfo_of(root)) != TVM_RELAX_KIND_TensorStructInfo);
        }
      }
    }
    if (rc == 0) out = tvm_relax__function_with_blocks(f, lists);
  }
  tvm_ffi_free(head);
  tvm_ffi_free(next);
  tvm_ffi_release(lists);
  tvm_relax__liveness_free(&l);
  return out;
}

static tvm_tir_ir_module_obj* run_kill_after_last_use(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__map_functions(mod, "KillAfterLastUse", rewrite, (void*)mod);
}

tvm_tir_ir_module_obj* tvm_relax_transform_kill_after_last_use(const tvm_tir_ir_module_obj* mod) {
  return tvm_relax__pass_set_aside(run_kill_after_last_use, mod);
}
