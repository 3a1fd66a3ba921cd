/*
 * test_interp.h: helpers of the interpreter tests (test_interp*.c), on top of tir_check.h.
 *
 *   EVAL_I(params, expr, args...)   build f(params) { return expr } (consumed), run it on the
 *   EVAL_F(params, expr, args...)   arguments and return the result as int64 / double (a
 *                                   failure is a failed check)
 *   EVAL_ERR(kind, part, params, expr, args...)   the run fails with kind, message has part
 *   RUN_OK(f, args...) / RUN_ERR(kind, part, f, args...)   the same for a built function
 *   ret_take(v)                     Evaluate(tir.ret(v))
 *   dl(data, dtype, ndim, shape, strides)   a host DLTensor
 */
#ifndef TVM_TESTS_TIR_TEST_INTERP_H_
#define TVM_TESTS_TIR_TEST_INTERP_H_

#include <tvm/tir/interp.h>

#include "tir_check.h"

static inline void* ref(void* obj) { return tvm_tir_ref(obj); }
static inline TVMFFIAny I(int64_t v) { return tvm_ffi_any_int(v); }
static inline TVMFFIAny F(double v) { return tvm_ffi_any_float(v); }
static inline TVMFFIAny T(DLTensor* t) { return tvm_ffi_any_dltensor(t); }

static inline DLTensor dl(void* data, DLDataType dtype, int32_t ndim, int64_t* shape,
                          int64_t* strides) {
  DLTensor t;
  memset(&t, 0, sizeof(t));
  t.data = data;
  t.device.device_type = kDLCPU;
  t.ndim = ndim;
  t.dtype = dtype;
  t.shape = shape;
  t.strides = strides;
  return t;
}

/* Evaluate(tir.ret(value)), value consumed. */
static inline void* ret_take(void* value) {
  DLDataType t = value ? tvm_tir_expr_dtype(value) : TVM_TIR_VOID;
  return tvm_tir_evaluate_take(tvm_tir_call_take(t, "tir.ret", value));
}
static inline void* ret_func_named_take(const char* name, void* params, void* value) {
  return tvm_tir_func_take(name, params, ret_take(value));
}
static inline void* ret_func_take(void* params, void* value) {
  return ret_func_named_take("f", params, value);
}

static inline void interp_fail_(int line, const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "line %d: %s: %s: %s\n", line, what, e ? tvm_ffi_error_kind(e) : "?",
          e ? tvm_ffi_error_message(e) : "(no error raised)");
  tvm_ffi_release(e);
  g_test_failed_checks++;
}

/* Run f (borrowed); true on success (else a failed check). */
static inline bool run_ok_(int line, void* f, const TVMFFIAny* args, int n, TVMFFIAny* out) {
  if (!tir_expect_ok_(line, f)) return false;
  if (tvm_tir_interp_run(f, NULL, args, n, out) == 0) return true;
  interp_fail_(line, "run failed");
  return false;
}

static inline void run_err_(int line, const char* kind, const char* part, void* f,
                            const TVMFFIAny* args, int n) {
  TVMFFIAny out;
  if (!tir_expect_ok_(line, f)) return;
  if (tvm_tir_interp_run(f, NULL, args, n, &out) == 0) {
    fprintf(stderr, "line %d: expected %s, the run succeeded\n", line, kind);
    g_test_failed_checks++;
    tvm_ffi_any_release(&out);
    return;
  }
  void* e = tvm_ffi_error_take();
  if (!e || strcmp(tvm_ffi_error_kind(e), kind) != 0 || !strstr(tvm_ffi_error_message(e), part)) {
    fprintf(stderr, "line %d: expected %s containing \"%s\", got %s: %s\n", line, kind, part,
            e ? tvm_ffi_error_kind(e) : "nothing", e ? tvm_ffi_error_message(e) : "");
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}

static inline int64_t eval_i_(int line, void* params, void* value, const TVMFFIAny* args, int n) {
  void* f = ret_func_take(params, value);
  TVMFFIAny out = tvm_ffi_any_none();
  int64_t v = INT64_MIN;
  if (run_ok_(line, f, args, n, &out) && !tvm_ffi_any_as_int(&out, &v)) {
    fprintf(stderr, "line %d: result is a %s, not an int\n", line, tvm_ffi_any_type_name(&out));
    g_test_failed_checks++;
  }
  tvm_ffi_release(f);
  return v;
}

static inline double eval_f_(int line, void* params, void* value, const TVMFFIAny* args, int n) {
  void* f = ret_func_take(params, value);
  TVMFFIAny out = tvm_ffi_any_none();
  double v = -12345.678;
  if (run_ok_(line, f, args, n, &out) && out.type_index != kTVMFFIFloat) {
    fprintf(stderr, "line %d: result is a %s, not a float\n", line, tvm_ffi_any_type_name(&out));
    g_test_failed_checks++;
  } else if (out.type_index == kTVMFFIFloat) {
    v = out.v_float64;
  }
  tvm_ffi_release(f);
  return v;
}

static inline void eval_err_(int line, const char* kind, const char* part, void* params,
                             void* value, const TVMFFIAny* args, int n) {
  void* f = ret_func_take(params, value);
  run_err_(line, kind, part, f, args, n);
  tvm_ffi_release(f);
}

#define INTERP_ARGS(...) \
  (TVMFFIAny[]){__VA_ARGS__}, (int)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny))
#define EVAL_I(params, value, ...) eval_i_(__LINE__, (params), (value), INTERP_ARGS(__VA_ARGS__))
#define EVAL_F(params, value, ...) eval_f_(__LINE__, (params), (value), INTERP_ARGS(__VA_ARGS__))
#define EVAL_ERR(kind, part, params, value, ...) \
  eval_err_(__LINE__, (kind), (part), (params), (value), INTERP_ARGS(__VA_ARGS__))
#define RUN_OK(f, ...) run_ok_(__LINE__, (f), INTERP_ARGS(__VA_ARGS__), &(TVMFFIAny){0})
#define RUN_OK0(f) run_ok_(__LINE__, (f), NULL, 0, &(TVMFFIAny){0})
#define RUN_ERR(kind, part, f, ...) \
  run_err_(__LINE__, (kind), (part), (f), INTERP_ARGS(__VA_ARGS__))

#endif /* TVM_TESTS_TIR_TEST_INTERP_H_ */
