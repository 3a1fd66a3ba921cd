/*
 * relax_script_testing.h: helpers of the Relax dialect's tests (header-only): calling `R.*`
 * builtins with hand-filled tvm_script_call structs, printing objects as TVMScript, structural
 * equality with the first mismatch reported.
 */
#ifndef TVM_TESTS_RELAX_SCRIPT_TESTING_H_
#define TVM_TESTS_RELAX_SCRIPT_TESTING_H_

#include <tvm/script/printer.h>

#include "../../libscript/src/script_relax_internal.h"
#include "relax_testing.h"

/* The error_arg of the last failed rcall (-1: the whole call, -2: the call succeeded). */
static int32_t g_error_arg = -2;

/* `R.<name>(args..., kw=...)` in context ctx with builder b (may be NULL): the result value (a
 * new reference in *out) -> 0, or -1 with the error raised. */
static inline int rcall_any(tvm_script_builder* b, tvm_script_call_ctx ctx, const char* name,
                            const TVMFFIAny* args, int32_t nargs, const char* const* kw_names,
                            const TVMFFIAny* kwargs, int32_t nkw, TVMFFIAny* out) {
  char full[96];
  snprintf(full, sizeof(full), "R.%s", name);
  tvm_script_call call;
  memset(&call, 0, sizeof(call));
  call.builder = b;
  call.name = full;
  call.ctx = ctx;
  call.num_args = nargs;
  call.args = args;
  call.num_kwargs = nkw;
  call.kw_names = kw_names;
  call.kwargs = kwargs;
  call.error_arg = -1;
  *out = tvm_ffi_any_none();
  const tvm_script_builtin* fn = tvm_script__relax_builtin_lookup(name, strlen(name));
  if (!fn) return tvm_ffi_raise("NameError", "no builtin R.%s", name);
  int rc = fn->fn(&call, out);
  g_error_arg = rc == 0 ? -2 : call.error_arg;
  return rc;
}

/* The same returning the result object (NULL: error raised, or a non-object result). */
static inline void* rcall(tvm_script_builder* b, const char* name, const TVMFFIAny* args,
                          int32_t nargs, const char* const* kw_names, const TVMFFIAny* kwargs,
                          int32_t nkw) {
  TVMFFIAny out;
  if (rcall_any(b, TVM_SCRIPT_CTX_EXPR, name, args, nargs, kw_names, kwargs, nkw, &out) != 0) {
    return NULL;
  }
  if (!tvm_ffi_any_is_object(&out)) {
    tvm_ffi_any_release(&out);
    return NULL;
  }
  return out.v_obj;
}

#define RARGS(...) ((const TVMFFIAny[]){__VA_ARGS__}), (int32_t)(sizeof((TVMFFIAny[]){__VA_ARGS__}) / sizeof(TVMFFIAny))
#define RKW(...) ((const char* const[]){__VA_ARGS__})
#define NOARGS NULL, 0
#define NOKW NULL, NULL, 0
#define AI(v) tvm_ffi_any_int(v)
#define AF(v) tvm_ffi_any_float(v)
#define AB(v) tvm_ffi_any_bool(v)
#define AS(v) tvm_ffi_any_raw_str(v)
#define AO(v) tvm_ffi_any_obj((void*)(v))
#define ANONE tvm_ffi_any_none()

/* A tuple value (ffi.Array) of the given values (borrowed), as the evaluator makes one. */
static inline void* rtuple(const TVMFFIAny* items, int32_t n) { return tvm_ffi_array_new(items, n); }
#define RTUPLE(...) rtuple(RARGS(__VA_ARGS__))

/* The TVMScript text of an object, without the header, in a static buffer. */
static inline const char* rprint(const void* obj) {
  static char text[16384];
  tvm_script_print_options opts;
  tvm_script_print_options_init(&opts);
  opts.print_header = false;
  void* s = obj ? tvm_script_print_obj(obj, &opts) : NULL;
  if (!s) {
    void* e = tvm_ffi_error_take();
    snprintf(text, sizeof(text), "<error %s: %s>", e ? tvm_ffi_error_kind(e) : "?",
             e ? tvm_ffi_error_message(e) : "null object");
    tvm_ffi_release(e);
  } else {
    /* An expression prints after the declarations of its free variables (`x: R.Tensor(...)`,
     * one line each): these tests look at the expression, its last line. */
    const char* t = tvm_ffi_str_cstr(s);
    const char* last = strrchr(t, '\n');
    bool expr = tvm_relax_is_expr(obj) && !tvm_relax_is_var(obj) &&
                tvm_relax_kind_of(obj) != TVM_RELAX_KIND_Function;
    snprintf(text, sizeof(text), "%s", expr && last ? last + 1 : t);
    tvm_ffi_release(s);
  }
  return text;
}

/* rprint, then release obj. */
static inline const char* rprint_take(void* obj) {
  const char* t = rprint(obj);
  tvm_ffi_release(obj);
  return t;
}

/* Structural equality (free variables mapped); on a mismatch both sides are printed with the
 * first difference. Borrowed arguments. */
static inline bool requal(const void* got, const void* expected) {
  if (!got || !expected) {
    void* e = tvm_ffi_error_take();
    fprintf(stderr, "  requal: a side is NULL%s%s\n", e ? ": " : "", e ? tvm_ffi_error_message(e) : "");
    tvm_ffi_release(e);
    return false;
  }
  TVMFFIAny a = tvm_ffi_any_obj((void*)got), b = tvm_ffi_any_obj((void*)expected);
  if (tvm_ffi_structural_equal(&a, &b, true, NULL, NULL) == 1) return true;
  tvm_ffi_error_clear();
  tvm_ffi_strbuf report = {0};
  tvm_script_structural_equal_report(&a, &b, true, &report);
  fprintf(stderr, "  not structurally equal:\n%s\n", tvm_ffi_strbuf_cstr(&report));
  tvm_ffi_strbuf_free(&report);
  tvm_ffi_error_clear();
  return false;
}

#endif /* TVM_TESTS_RELAX_SCRIPT_TESTING_H_ */
