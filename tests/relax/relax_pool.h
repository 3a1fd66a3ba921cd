/*
 * relax_pool.h: building small Relax models in tests without counting references (header-only).
 * Every object made through these helpers is kept by the builder's pool and released by
 * rp_finish; a failing step prints its error and marks the builder failed, and rp_finish then
 * returns NULL.
 *
 *   rp m;
 *   rp_begin(&m, "main", 1, rp_param(&m, "x", rt_tensor(F32, 1, (int64_t)4)));
 *   tvm_relax_var_obj* y = rp_emit(&m, rp_call(&m, "relax.exp", NULL, 1, x), "y");
 *   tvm_tir_ir_module_obj* mod = rp_finish(&m, (tvm_relax_expr_obj*)y);
 */
#ifndef TVM_TESTS_RELAX_POOL_H_
#define TVM_TESTS_RELAX_POOL_H_

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tvm/relax/relax.h>

typedef struct {
  tvm_relax_block_builder* bb;
  void* pool;   /* ffi.List of every object made */
  void* params; /* ffi.List of the parameters */
  int failed;
} rp;

static inline void rp_fail(rp* m, const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "model builder: %s failed: %s\n", what, e ? tvm_ffi_error_message(e) : "?");
  tvm_ffi_release(e);
  m->failed = 1;
}

/* Keep obj (a new reference, taken) in the pool; returns it (borrowed from then on). */
static inline void* rp_keep(rp* m, void* obj) {
  if (!obj) {
    if (!m->failed) rp_fail(m, "a constructor");
    return NULL;
  }
  TVMFFIAny a = tvm_ffi_any_obj(obj);
  tvm_ffi_list_push(m->pool, &a);
  tvm_ffi_release(obj);
  return obj;
}

static inline void rp_init(rp* m) {
  m->bb = tvm_relax_bb_new(NULL);
  m->pool = tvm_ffi_list_new();
  m->params = tvm_ffi_list_new();
  m->failed = !m->bb || !m->pool || !m->params;
}

/* A parameter of struct info sinfo (taken). */
static inline tvm_relax_var_obj* rp_param(rp* m, const char* name, tvm_relax_sinfo_obj* sinfo) {
  rp_keep(m, sinfo);
  tvm_relax_var_obj* v = sinfo ? rp_keep(m, tvm_relax_var_new(name, sinfo, false)) : NULL;
  TVMFFIAny a = tvm_ffi_any_obj(v);
  if (v) tvm_ffi_list_push(m->params, &a);
  return v;
}

/* Begin function `name` over the parameters made so far (rp_param), pure. */
static inline void rp_begin(rp* m, const char* name) {
  void* arr = m->failed ? NULL : tvm_ffi_list_to_array(m->params);
  if (!arr || tvm_relax_bb_function_begin(m->bb, name, arr, NULL, true) != 0) {
    if (!m->failed) rp_fail(m, "function_begin");
  }
  tvm_ffi_release(arr);
}

static inline void rp_dataflow(rp* m) {
  if (!m->failed && tvm_relax_bb_dataflow_begin(m->bb) != 0) rp_fail(m, "dataflow_begin");
}

static inline void rp_block_end(rp* m) {
  if (!m->failed && tvm_relax_bb_block_end(m->bb) != 0) rp_fail(m, "block_end");
}

/* Emit expr (borrowed) as a binding (a dataflow output with output). */
static inline tvm_relax_var_obj* rp_emit_ex(rp* m, tvm_relax_expr_obj* expr, const char* name,
                                            bool output) {
  if (m->failed || !expr) {
    m->failed = 1;
    return NULL;
  }
  tvm_relax_var_obj* v = output ? tvm_relax_bb_emit_output(m->bb, expr, name)
                                : tvm_relax_bb_emit(m->bb, expr, name);
  if (!v) rp_fail(m, name);
  return v ? rp_keep(m, v) : NULL;
}
#define rp_emit(m, expr, name) rp_emit_ex((m), (expr), (name), false)
#define rp_output(m, expr, name) rp_emit_ex((m), (expr), (name), true)

/* R.<op>(args...) (args borrowed), kept. */
static inline tvm_relax_expr_obj* rp_call(rp* m, const char* op, void* attrs, int n, ...) {
  void* args[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) args[i] = va_arg(ap, void*);
  va_end(ap);
  for (int i = 0; i < n; ++i) {
    if (!args[i]) m->failed = 1;
  }
  if (m->failed) return NULL;
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  void* arr = info ? tvm_ffi_array_of_objects(args, n) : NULL;
  tvm_relax_expr_obj* c = arr ? tvm_relax_call_new(tvm_relax_op(info->id), arr, attrs, NULL, NULL) : NULL;
  tvm_ffi_release(arr);
  if (!c) rp_fail(m, op);
  return c ? rp_keep(m, c) : NULL;
}

/* A tuple of n expressions (borrowed), kept. */
static inline tvm_relax_expr_obj* rp_tuple(rp* m, int n, ...) {
  void* f[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) f[i] = va_arg(ap, void*);
  va_end(ap);
  if (m->failed) return NULL;
  void* arr = tvm_ffi_array_of_objects(f, n);
  tvm_relax_expr_obj* t = arr ? tvm_relax_tuple_new(arr) : NULL;
  tvm_ffi_release(arr);
  return rp_keep(m, t);
}

/* R.shape([dims...]) of PrimExprs (borrowed), kept. */
static inline tvm_relax_expr_obj* rp_shape(rp* m, int n, void* const* dims) {
  if (m->failed) return NULL;
  void* arr = tvm_ffi_array_of_objects((void**)dims, n);
  tvm_relax_expr_obj* s = arr ? tvm_relax_shape_expr_new(arr) : NULL;
  tvm_ffi_release(arr);
  return rp_keep(m, s);
}

/* End the function with result ret; the module (a new reference), or NULL after a failure. */
static inline tvm_tir_ir_module_obj* rp_finish(rp* m, tvm_relax_expr_obj* ret) {
  tvm_tir_ir_module_obj* mod = NULL;
  if (!m->failed && ret) {
    tvm_tir_global_var_obj* g = tvm_relax_bb_function_end(m->bb, ret, NULL);
    mod = g ? tvm_relax_bb_module(m->bb) : NULL;
    if (!mod) rp_fail(m, "function_end");
    tvm_ffi_release(g);
  }
  tvm_relax_bb_free(m->bb);
  tvm_ffi_release(m->pool);
  tvm_ffi_release(m->params);
  return mod;
}

#endif /* TVM_TESTS_RELAX_POOL_H_ */
