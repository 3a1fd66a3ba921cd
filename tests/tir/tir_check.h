/*
 * tir_check.h: checks for libtir tests, on top of test_util.h.
 *
 *   EXPECT_ERROR("TypeError", call, "part", ...)   call returned NULL and raised an error of that
 *                                                  kind whose message contains every part
 *   EXPECT_OK(obj)                                 obj is non-NULL (else prints the raised error)
 *   RELEASE(a, b, ...)                             release each (NULL-safe)
 *   ARR(a, b, ...)                                 a temporary ffi.Array of the objects, alive
 *                                                  until tir_release_temps() (end of main)
 */
#ifndef TVM_TESTS_TIR_TIR_CHECK_H_
#define TVM_TESTS_TIR_TIR_CHECK_H_

#include "test_util.h"
#include "tir_testing.h"

static inline void tir_expect_error_(int line, void* result, const char* kind,
                                     const char* const* parts) {
  if (result) {
    fprintf(stderr, "%s:%d: expected a %s, the call succeeded\n", __FILE__, line, kind);
    g_test_failed_checks++;
    tvm_ffi_release(result);
    return;
  }
  void* e = tvm_ffi_error_take();
  if (!e) {
    fprintf(stderr, "%s:%d: expected a raised %s, none raised\n", __FILE__, line, kind);
    g_test_failed_checks++;
    return;
  }
  const char* msg = tvm_ffi_error_message(e);
  bool ok = strcmp(tvm_ffi_error_kind(e), kind) == 0;
  for (const char* const* p = parts; ok && *p; ++p) ok = strstr(msg, *p) != NULL;
  if (!ok) {
    fprintf(stderr, "%s:%d: expected %s containing", __FILE__, line, kind);
    for (const char* const* p = parts; *p; ++p) fprintf(stderr, " \"%s\"", *p);
    fprintf(stderr, "\n  got %s: %s\n", tvm_ffi_error_kind(e), msg);
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}
#define EXPECT_ERROR(kind, call, ...) \
  tir_expect_error_(__LINE__, (void*)(call), (kind), (const char* const[]){__VA_ARGS__, NULL})

static inline bool tir_expect_ok_(int line, const void* obj) {
  if (obj) return true;
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "%s:%d: unexpected failure: %s: %s\n", __FILE__, line,
          e ? tvm_ffi_error_kind(e) : "?", e ? tvm_ffi_error_message(e) : "(no error raised)");
  tvm_ffi_release(e);
  g_test_failed_checks++;
  return false;
}
#define EXPECT_OK(obj) tir_expect_ok_(__LINE__, (obj))

static inline void tir_release_all_(void* const* objs, size_t n) {
  for (size_t i = 0; i < n; ++i) tvm_ffi_release(objs[i]);
}
#define RELEASE(...)                             \
  tir_release_all_((void* const[]){__VA_ARGS__}, \
                   sizeof((void* const[]){__VA_ARGS__}) / sizeof(void*))

/* Temporaries: objects kept alive until tir_release_temps(). */
static void* g_tir_temps;
static inline void* tir_temp(void* obj) {
  if (!obj) return NULL;
  if (!g_tir_temps) g_tir_temps = tvm_ffi_list_new();
  TVMFFIAny item = tvm_ffi_any_obj(obj);
  tvm_ffi_list_push(g_tir_temps, &item);
  tvm_ffi_release(obj);
  return obj;
}
static inline void tir_release_temps(void) {
  tvm_ffi_release(g_tir_temps);
  g_tir_temps = NULL;
}
#define ARR(...)                                                  \
  tir_temp(tvm_ffi_array_of_objects((void* const[]){__VA_ARGS__}, \
                                    sizeof((void* const[]){__VA_ARGS__}) / sizeof(void*)))

/* Text of a dtype, for CHECK_STR_EQ. */
#define DT(e) (tvm_tir_dtype_str(tvm_tir_expr_dtype(e)).s)

#endif /* TVM_TESTS_TIR_TIR_CHECK_H_ */
