/*
 * parse_bound_args.h: a builtin's arguments bound to its signature, and their conversions with
 * the offending argument located on failure. Shared by the builtin tables
 * (parse_tir_builtins_expr.c, parse_tir_builtins_stmt.c); private to libscript.
 *
 *   bound_args a;
 *   if (bind(&a, call, "extent, binding, dtype=", 3) != 0) return -1;
 *   tvm_tir_expr_obj* e = arg_expr(&a, 0);   // NULL + TypeError naming 'extent', error_arg set
 *
 * The conversions name the argument in their error messages ("argument 'dtype' of T.Cast"), and
 * formatting that name costs more than most conversions. They run first with no name and, only
 * when that fails, again with it: a conversion depends on the value alone, so the second run
 * fails the same way, raising the message (or succeeds after a transient MemoryError, and its
 * result is used).
 */
#ifndef TVM_SCRIPT_PARSE_BOUND_ARGS_H_
#define TVM_SCRIPT_PARSE_BOUND_ARGS_H_

#include "parse_internal.h"

#define BOUND_MAX_ARGS 12

typedef struct {
  tvm_script_call* call;
  const char* spec;
  TVMFFIAny v[BOUND_MAX_ARGS];
} bound_args;

static inline int bind(bound_args* a, tvm_script_call* call, const char* spec, int n) {
  a->call = call;
  a->spec = spec;
  return tvm_script__bind_args(call, spec, a->v, n);
}

/* Parameter i was given and is not None. */
static inline bool given(const bound_args* a, int i) {
  return tvm_script_arg_given(&a->v[i]) && !tvm_ffi_any_is_none(&a->v[i]);
}

/* Point error_arg at parameter i; returns NULL for `return fail(...)` in pointer functions. */
static inline void* fail(bound_args* a, int i) {
  a->call->error_arg = tvm_script__arg_index(a->call, a->spec, i);
  return NULL;
}

#define WHAT(a, i) tvm_script__arg_what((a)->call, (a)->spec, (i), what, sizeof(what))

static inline tvm_tir_expr_obj* arg_expr(bound_args* a, int i) {
  const TVMFFIAny* v = &a->v[i];
  if (tvm_ffi_any_is_object(v) && tvm_script__is_expr(v->v_obj)) { /* the common case */
    tvm_ffi_retain(v->v_obj);
    return (tvm_tir_expr_obj*)v->v_obj;
  }
  tvm_tir_expr_obj* e = tvm_script__value_to_expr(v, ""); /* (a Python int inline) */
  if (e) return e;
  char what[160];
  tvm_ffi_error_clear();
  e = tvm_script__value_to_expr_slow(v, WHAT(a, i));
  return e ? e : fail(a, i);
}

static inline int arg_dtype(bound_args* a, int i, DLDataType* out) {
  if (tvm_script__value_to_dtype(&a->v[i], "", out) == 0) return 0;
  char what[160];
  tvm_ffi_error_clear();
  if (tvm_script__value_to_dtype(&a->v[i], WHAT(a, i), out) == 0) return 0;
  fail(a, i);
  return -1;
}

static inline int arg_int(bound_args* a, int i, int64_t* out) {
  if (tvm_script__value_to_int(&a->v[i], "", out) == 0) return 0;
  char what[160];
  tvm_ffi_error_clear();
  if (tvm_script__value_to_int(&a->v[i], WHAT(a, i), out) == 0) return 0;
  fail(a, i);
  return -1;
}

static inline const char* arg_cstr(bound_args* a, int i) {
  const char* s = tvm_script__value_to_cstr(&a->v[i], "");
  if (s) return s;
  char what[160];
  tvm_ffi_error_clear();
  s = tvm_script__value_to_cstr(&a->v[i], WHAT(a, i));
  return s ? s : fail(a, i);
}

static inline void* arg_expr_array(bound_args* a, int i) {
  void* arr = tvm_script__value_to_expr_array(&a->v[i], "");
  if (arr) return arr;
  char what[160];
  tvm_ffi_error_clear();
  arr = tvm_script__value_to_expr_array(&a->v[i], WHAT(a, i));
  return arr ? arr : fail(a, i);
}

#endif /* TVM_SCRIPT_PARSE_BOUND_ARGS_H_ */
