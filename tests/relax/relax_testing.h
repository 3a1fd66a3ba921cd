/*
 * relax_testing.h: small helpers shared by librelax's tests (header-only).
 */
#ifndef TVM_TESTS_RELAX_TESTING_H_
#define TVM_TESTS_RELAX_TESTING_H_

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <tvm/relax/relax.h>
#include <tvm/tir/tir.h>

#include "test_util.h"

#define F32 tvm_tir_dtype_float(32)
#define I64 tvm_tir_dtype_int(64)

/* R.Tensor of constant dims (n of them, then the dims) and dtype. */
static inline tvm_relax_sinfo_obj* rt_tensor(DLDataType dtype, int ndim, ...) {
  int64_t dims[8];
  va_list ap;
  va_start(ap, ndim);
  for (int i = 0; i < ndim; ++i) dims[i] = va_arg(ap, int64_t);
  va_end(ap);
  return tvm_relax_tensor_sinfo_of_ints(dims, ndim, dtype);
}

/* R.Tensor whose dims are PrimExprs or NULL for "the next int" (dims given as void*). */
static inline tvm_relax_sinfo_obj* rt_tensor_sym(DLDataType dtype, int ndim, void* const* dims) {
  void* arr = tvm_ffi_array_of_objects(dims, ndim);
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_of_dims(arr, dtype);
  tvm_ffi_release(arr);
  return s;
}

/* The one-line text of a struct info, in a static buffer (tests only). */
static inline const char* rt_text(const void* sinfo) {
  static char buf[512];
  tvm_ffi_strbuf b = {0};
  tvm_relax_sinfo_text(&b, sinfo);
  snprintf(buf, sizeof(buf), "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return buf;
}

/* The text of an expression's struct info. */
static inline const char* rt_sinfo_text(const void* expr) {
  return expr ? rt_text(tvm_relax_sinfo_of(expr)) : "(null expr)";
}

/* An ffi.Array of the given objects (borrowed). */
static inline void* rt_array(int n, ...) {
  void* objs[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) objs[i] = va_arg(ap, void*);
  va_end(ap);
  return tvm_ffi_array_of_objects(objs, n);
}

/* An ffi.Map of string keys to values: rt_attrs(n, "key", TVMFFIAny value, ...). */
static inline void* rt_attrs(int n, ...) {
  TVMFFIAny keys[16], vals[16];
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; ++i) {
    keys[i] = tvm_ffi_string(va_arg(ap, const char*));
    vals[i] = va_arg(ap, TVMFFIAny);
  }
  va_end(ap);
  void* m = tvm_ffi_map_new(keys, vals, n);
  for (int i = 0; i < n; ++i) tvm_ffi_any_release(&keys[i]);
  return m;
}

/* A Var of a struct info (the sinfo is released: the call takes it). */
static inline tvm_relax_var_obj* rt_var_take(const char* name, tvm_relax_sinfo_obj* sinfo) {
  tvm_relax_var_obj* v = tvm_relax_var_new(name, sinfo, false);
  tvm_ffi_release(sinfo);
  return v;
}

/* Call an operator by name with up to 4 args and attrs (borrowed, may be NULL). */
#define RT_CALL(name, attrs, ...) tvm_relax_call_op(name, attrs, RT_NARGS(__VA_ARGS__), __VA_ARGS__)
#define RT_NARGS(...) RT_NARGS_(__VA_ARGS__, 6, 5, 4, 3, 2, 1)
#define RT_NARGS_(a, b, c, d, e, f, n, ...) n

/* The call's struct info text equals text (the call is released); a failed call is reported
 * with its error. */
#define RT_EXPECT_SINFO(call_expr, text)                              \
  do {                                                                \
    tvm_relax_expr_obj* c_ = (call_expr);                             \
    if (!c_) {                                                        \
      void* e_ = tvm_ffi_error_take();                                \
      fprintf(stderr, "%s:%d: call failed: %s\n", __FILE__, __LINE__, \
              e_ ? tvm_ffi_error_message(e_) : "?");                  \
      tvm_ffi_release(e_);                                            \
      g_test_failed_checks++;                                         \
    } else {                                                          \
      CHECK_STR_EQ(rt_sinfo_text(c_), text);                          \
      tvm_ffi_release(c_);                                            \
    }                                                                 \
  } while (0)

/* The call fails with an error of kind whose message contains part. */
#define RT_EXPECT_CALL_ERROR(call_expr, kind, part) \
  do {                                              \
    tvm_relax_expr_obj* c_ = (call_expr);           \
    CHECK(c_ == NULL);                              \
    tvm_ffi_release(c_);                            \
    CHECK_RAISED(kind, part);                       \
  } while (0)

/* The struct info of `call` as text (the call released), or "<kind: message>" of the error
 * raised when call is NULL, checked to start with want; a failure names the test's line. */
static inline void rt_check_call_(int line, tvm_relax_expr_obj* call, const char* want) {
  tvm_ffi_strbuf b = {0};
  if (call) {
    tvm_relax_sinfo_text(&b, tvm_relax_sinfo_of(call));
  } else {
    void* e = tvm_ffi_error_take();
    tvm_ffi_strbuf_printf(&b, "<%s: %s>", e ? tvm_ffi_error_kind(e) : "?",
                          e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
  }
  if (strncmp(tvm_ffi_strbuf_cstr(&b), want, strlen(want)) != 0) {
    fprintf(stderr, "line %d: got %s\n  want %s...\n", line, tvm_ffi_strbuf_cstr(&b), want);
    g_test_failed_checks++;
  }
  tvm_ffi_strbuf_free(&b);
  tvm_ffi_release(call);
}
#define rt_check_call(call, want) rt_check_call_(__LINE__, (call), (want))

#endif /* TVM_TESTS_RELAX_TESTING_H_ */
