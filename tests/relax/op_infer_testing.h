/*
 * op_infer_testing.h: helpers for the operator inference tests (test_op_*.c): tensor struct
 * infos written as dim lists ("n, 4", "?3" for an unknown shape of ndim 3, "*" for an unknown
 * ndim), tuple struct infos of them, attribute maps that take their values, and the struct info
 * of a call as text.
 */
#ifndef TVM_TESTS_RELAX_OP_INFER_TESTING_H_
#define TVM_TESTS_RELAX_OP_INFER_TESTING_H_

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "relax_testing.h"

/* Symbolic dims by name: the same name is the same int64 tir.Var throughout a test program. */
static tvm_tir_var_obj* g_oi_vars[16];
static int g_oi_nvars;

static tvm_tir_var_obj* oi_var(const char* name, size_t len) {
  for (int i = 0; i < g_oi_nvars; ++i) {
    const char* n = tvm_ffi_str_cstr(g_oi_vars[i]->name_hint);
    if (strlen(n) == len && memcmp(n, name, len) == 0) return g_oi_vars[i];
  }
  char buf[32];
  snprintf(buf, sizeof(buf), "%.*s", (int)len, name);
  return g_oi_vars[g_oi_nvars++] = tvm_tir_var_new(buf, I64);
}

static void oi_free_vars(void) {
  for (int i = 0; i < g_oi_nvars; ++i) tvm_ffi_release(g_oi_vars[i]);
  g_oi_nvars = 0;
}

/* One dim: an int, a name, or name+int (new reference). */
static tvm_tir_expr_obj* oi_dim(const char** p) {
  while (**p == ' ') ++*p;
  tvm_tir_expr_obj* d;
  if (isdigit((unsigned char)**p)) {
    d = tvm_tir_const_int(I64, strtoll(*p, (char**)p, 10));
  } else {
    const char* s = *p;
    while (isalnum((unsigned char)**p) || **p == '_') ++*p;
    d = (tvm_tir_expr_obj*)oi_var(s, (size_t)(*p - s));
    tvm_ffi_retain(d);
  }
  if (**p == '+') {
    ++*p;
    tvm_tir_expr_obj* k = tvm_tir_const_int(I64, strtoll(*p, (char**)p, 10));
    tvm_tir_expr_obj* sum = tvm_tir_add(d, k);
    tvm_ffi_release(d);
    tvm_ffi_release(k);
    d = sum;
  }
  while (**p == ' ' || **p == ',') ++*p;
  return d;
}

/* The dims of a spec as an ffi.Array (new reference). */
static void* oi_dims(const char* spec) {
  void* dims[16] = {0};
  int n = 0;
  for (const char* p = spec; *p;) dims[n++] = oi_dim(&p);
  void* arr = tvm_ffi_array_of_objects(dims, n);
  for (int i = 0; i < n; ++i) tvm_ffi_release(dims[i]);
  return arr;
}

/* A tensor struct info: "2, n" dims; "?3" unknown shape of ndim 3; "*" unknown ndim. */
static tvm_relax_sinfo_obj* T(const char* spec, DLDataType dtype) {
  if (spec[0] == '*') return tvm_relax_tensor_sinfo_new(NULL, dtype, TVM_RELAX_UNKNOWN_NDIM, NULL);
  if (spec[0] == '?') return tvm_relax_tensor_sinfo_new(NULL, dtype, atoi(spec + 1), NULL);
  void* arr = oi_dims(spec);
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_of_dims(arr, dtype);
  tvm_ffi_release(arr);
  return s;
}

/* A shape struct info of the dims of spec ("?2": unknown values of ndim 2). */
static tvm_relax_sinfo_obj* SH(const char* spec) {
  if (spec[0] == '?') return tvm_relax_shape_sinfo_new(NULL, atoi(spec + 1));
  void* arr = oi_dims(spec);
  tvm_relax_sinfo_obj* s = tvm_relax_shape_sinfo_new(arr, TVM_RELAX_UNKNOWN_NDIM);
  tvm_ffi_release(arr);
  return s;
}

/* A tuple struct info of the n struct infos given (taken). */
static inline tvm_relax_sinfo_obj* TUP(int n, ...) {
  void* f[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) f[i] = va_arg(ap, tvm_relax_sinfo_obj*);
  va_end(ap);
  void* arr = tvm_ffi_array_of_objects(f, n);
  for (int i = 0; i < n; ++i) tvm_ffi_release(f[i]);
  tvm_relax_sinfo_obj* s = tvm_relax_tuple_sinfo_new(arr);
  tvm_ffi_release(arr);
  return s;
}

/* Attribute values (owned: oi_attrs takes them). */
static inline TVMFFIAny AI(int64_t v) { return tvm_ffi_any_int(v); }
static inline TVMFFIAny AB(bool v) { return tvm_ffi_any_bool(v); }
static inline TVMFFIAny AF(double v) { return tvm_ffi_any_float(v); }
static inline TVMFFIAny AS(const char* s) { return tvm_ffi_string(s); }
/* A list of n ints (passed as int). */
static inline TVMFFIAny AL(int n, ...) {
  TVMFFIAny items[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_int(va_arg(ap, int));
  va_end(ap);
  return tvm_ffi_any_obj(tvm_ffi_array_new(items, n));
}

/* A list of n floats (passed as double). */
static inline TVMFFIAny AFL(int n, ...) {
  TVMFFIAny items[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) items[i] = tvm_ffi_any_float(va_arg(ap, double));
  va_end(ap);
  return tvm_ffi_any_obj(tvm_ffi_array_new(items, n));
}

/* An ffi.Map of n (name, value) pairs; the values are released. */
static void* oi_attrs(int n, ...) {
  TVMFFIAny keys[16], vals[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) {
    keys[i] = tvm_ffi_string(va_arg(ap, const char*));
    vals[i] = va_arg(ap, TVMFFIAny);
  }
  va_end(ap);
  void* m = tvm_ffi_map_new(keys, vals, n);
  for (int i = 0; i < n; ++i) {
    tvm_ffi_any_release(&keys[i]);
    tvm_ffi_any_release(&vals[i]);
  }
  return m;
}

/* The struct info text of calling op on Vars of the n given struct infos (taken) with attrs
 * (taken, may be NULL); NULL with the error left raised when the call is refused. */
static const char* infer(const char* op, void* attrs, int n, ...) {
  static char text[512];
  void* vars[8];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) {
    char name[16];
    snprintf(name, sizeof(name), "a%d", i);
    vars[i] = rt_var_take(name, va_arg(ap, tvm_relax_sinfo_obj*));
  }
  va_end(ap);
  void* args = tvm_ffi_array_of_objects(vars, n);
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  tvm_relax_expr_obj* call =
      info ? tvm_relax_call_new(tvm_relax_op(info->id), args, attrs, NULL, NULL) : NULL;
  const char* out = NULL;
  if (call) {
    snprintf(text, sizeof(text), "%s", rt_sinfo_text(call));
    out = text;
  }
  tvm_ffi_release(call);
  tvm_ffi_release(args);
  for (int i = 0; i < n; ++i) tvm_ffi_release(vars[i]);
  tvm_ffi_release(attrs);
  return out;
}

#define F16 tvm_tir_dtype_float(16)
#define I32 tvm_tir_dtype_int(32)
#define UNK TVM_RELAX_DTYPE_UNKNOWN
#define CHECK_INFER(expected, ...) CHECK_STR_EQ(infer(__VA_ARGS__), expected)
/* A refused call: error kind and a part of its message. */
#define CHECK_INFER_FAILS(kind, part, ...)   \
  do {                                       \
    CHECK(infer(__VA_ARGS__) == NULL);       \
    CHECK_RAISED(kind, part);                \
  } while (0)

#endif /* TVM_TESTS_RELAX_OP_INFER_TESTING_H_ */
