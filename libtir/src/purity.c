/*
 * purity.c: whether a PrimFunc is pure, upstream's tir.analysis.is_pure_function: its body
 * stores only into buffers it allocates itself (an Allocate's buffer_var; a store through any
 * other buffer, a parameter's or a block's alloc_buffer, is an effect) and calls no operator
 * whose effect kind is UPDATE_STATE / OPAQUE, and no function that is not an operator. A
 * declaration without a body is not pure. Relax takes a PrimFunc called directly (not through
 * call_tir) as pure or not by this (relax/wellformed.c).
 */
#include "internal.h"

typedef struct {
  const void** allocated; /* the buffer_vars of the Allocates met so far */
  int64_t n, cap;
} purity_walk;

enum { PURE = 0, IMPURE = 1, FAILED = 2 };

static bool allocated_here(const purity_walk* w, const void* data) {
  for (int64_t i = 0; i < w->n; ++i) {
    if (w->allocated[i] == data) return true;
  }
  return false;
}

/* A walk callback (parents first, so an Allocate is met before the stores of its body). */
static int check_node(const void* obj, void* ctx) {
  purity_walk* w = ctx;
  switch (tir_kind_of(obj)) {
    case TVM_TIR_KIND_Allocate: {
      if (w->n == w->cap) {
        int64_t cap = w->cap ? 2 * w->cap : 8;
        const void** a = tvm_ffi_realloc(w->allocated, (size_t)cap * sizeof(void*));
        if (!a) return FAILED;
        w->allocated = a;
        w->cap = cap;
      }
      w->allocated[w->n++] = ((const tvm_tir_allocate_obj*)obj)->buffer_var;
      return PURE;
    }
    case TVM_TIR_KIND_BufferStore: {
      const tvm_tir_buffer_obj* buf = ((const tvm_tir_buffer_store_obj*)obj)->buffer;
      return buf && allocated_here(w, buf->data) ? PURE : IMPURE;
    }
    case TVM_TIR_KIND_Call: {
      const void* op = ((const tvm_tir_call_obj*)obj)->op;
      if (!tir_is(op, TVM_TIR_KIND_Op)) return IMPURE;
      return ((const tvm_tir_op_obj*)op)->call_effect_kind == TVM_TIR_EFFECT_UPDATE_STATE ? IMPURE
                                                                                            : PURE;
    }
    default:
      return PURE;
  }
}

bool tvm_tir_prim_func_is_pure(const tvm_tir_prim_func_obj* func) {
  if (!tir_is(func, TVM_TIR_KIND_PrimFunc) || !func->body) return false;
  purity_walk w = {NULL, 0, 0};
  int r = tvm_tir__walk(func->body, false, check_node, &w);
  tvm_ffi_free(w.allocated);
  if (r == FAILED) tvm_ffi_error_clear(); /* (out of memory: not known to be pure) */
  return r == PURE;
}
