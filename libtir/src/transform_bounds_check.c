/* transform_bounds_check.c: pass bounds_check (tvm/tir/transform.h), the opt-in guard of every
 * buffer access for compiled code. Each BufferLoad / BufferStore with scalar indices gets its
 * first index replaced by
 *
 *   tir.bounds_check("<buffer name>", index_0, ..., index_{n-1}, shape_0, ..., shape_{n-1})
 *
 * (an op registered on first use, TVM_TIR_BOUNDS_CHECK_OP, with an effect so that no pass moves
 * or drops it)
 *
 * whose value is index_0 once every 0 <= index_k < shape_k holds, and which otherwise raises
 * IndexError "buffer A: index [i, j] is out of bounds for shape [m, n]" with the values at run
 * time (the code generator emits it; the interpreter checks every access anyway). It is an
 * expression, so a load under tir.if_then_else (a padding border) is checked only where it is
 * evaluated. It runs on the multi-dimensional accesses, before flatten_buffers, so the message
 * is in the user's indices. Vector indices (a user-written Ramp) are left unchecked. */
#include "transform_internal.h"

static const char kPass[] = "bounds_check";

/* The guarded indices of an access to buf (a new Array), or NULL + error; *changed false (and
 * the array NULL without error) when there is nothing to guard. */
static void* guarded(const tvm_tir_buffer_obj* buf, void* indices, bool* changed) {
  *changed = false;
  int64_t n = tvm_tir_array_size(indices);
  if (n == 0 || n != tvm_tir_array_size(buf->shape)) return NULL;
  for (int64_t k = 0; k < n; ++k)
    if (tvm_tir_expr_dtype(tvm_tir_array_at(indices, k)).lanes != 1) return NULL;
  tvm_tir_op_obj* op =
      tvm_tir_op_register(TVM_TIR_BOUNDS_CHECK_OP, -1, TVM_TIR_EFFECT_UPDATE_STATE);
  void** args = op ? tvm_ffi_calloc((size_t)(2 * n + 1), sizeof(void*)) : NULL;
  void* r = NULL;
  if (args) {
    args[0] = tvm_tir_str(tvm_tir_buffer_name(buf));
    for (int64_t k = 0; k < n; ++k) {
      args[1 + k] = tvm_tir_ref(tvm_tir_array_at(indices, k));
      args[1 + n + k] = tvm_tir_ref(tvm_tir_array_at(buf->shape, k));
    }
    void* arr = args[0] ? tir_array(args, 2 * n + 1) : NULL;
    const tvm_tir_expr_obj* i0 = tvm_tir_array_at(indices, 0);
    tvm_tir_expr_obj* call = arr ? tvm_tir_call_new(i0->dtype, op, arr) : NULL;
    if (call) {
      void** idx = tvm_ffi_calloc((size_t)n, sizeof(void*));
      if (idx) {
        idx[0] = call;
        for (int64_t k = 1; k < n; ++k) idx[k] = tvm_tir_ref(tvm_tir_array_at(indices, k));
        r = tir_array(idx, n);
        for (int64_t k = 0; k < n; ++k) tvm_ffi_release(idx[k]);
        tvm_ffi_free(idx);
      } else {
        tvm_ffi_release(call);
      }
    }
    tvm_ffi_release(arr);
    for (int64_t k = 0; k < 2 * n + 1; ++k) tvm_ffi_release(args[k]);
    tvm_ffi_free(args);
  }
  tvm_ffi_release(op);
  *changed = r != NULL;
  return r;
}

static void* check_load(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_buffer_load_obj* n = node;
  bool changed;
  void* idx = guarded(n->buffer, n->indices, &changed);
  if (!changed) return tvm_ffi_error_pending() ? NULL : tvm_tir_ref((void*)n);
  void* r = tvm_tir_buffer_load_new(n->buffer, idx);
  tvm_ffi_release(idx);
  return r;
}

static void* check_store(tvm_tir_mutator* m, const void* node) {
  (void)m;
  const tvm_tir_buffer_store_obj* n = node;
  bool changed;
  void* idx = guarded(n->buffer, n->indices, &changed);
  if (!changed) return tvm_ffi_error_pending() ? NULL : tvm_tir_ref((void*)n);
  void* r = tvm_tir_buffer_store_new(n->buffer, n->value, idx);
  tvm_ffi_release(idx);
  return r;
}

static void* run(const tvm_tir_prim_func_obj* f) {
  tvm_tir_mutator m = {0};
  m.post[TVM_TIR_KIND_BufferLoad] = check_load;
  m.post[TVM_TIR_KIND_BufferStore] = check_store;
  tvm_tir_stmt_obj* body = tvm_tir_mutate(&m, f->body);
  if (!body) return NULL;
  void* r = tvm_tir__xform_with_body(f, body);
  tvm_ffi_release(body);
  return r;
}

void* tvm_tir_transform_bounds_check(const void* mod_or_func) {
  return tvm_tir__xform_apply(mod_or_func, kPass, run);
}
