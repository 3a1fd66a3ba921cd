/*
 * codegen_testing.h: helpers of the libcodegen tests.
 *
 *   DIFF(f, ...)       lower f to g, compile g with the JIT, run the interpreter on f and the
 *                      compiled code on the same random arguments (fixed seed, never zero;
 *                      every Var of a shape and every int scalar parameter = opts.sym) and
 *                      compare every buffer (integers exactly, floats within a relative
 *                      tolerance of the dtype)
 *   jit_fn_(line, f, name, &mod)  lower + build + get_function: a new Function reference, or
 *                      NULL (check failed)
 *   diff_fn_(line, oracle, g, fn, opts)  the comparison of DIFF for an already built fn
 *   EXPECT_CALL_ERR    a call returning -1 with an error of a kind whose message contains a part
 *   make_binary        C = A <op> B over 2-D buffers, the inner loop of a given kind
 *   EXPORT_LOAD(g, tag, path)  export g to a .so and load it through ffi.Module.load_from_file.so
 *   GET_FN(mod, name)  a module's function (a new reference)
 *   cg_undefined_symbols(path, allow_libm)  an exported library references only TVMFFI* (and libm)
 */
#ifndef TVM_TESTS_CODEGEN_CODEGEN_TESTING_H_
#define TVM_TESTS_CODEGEN_CODEGEN_TESTING_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tvm/codegen/codegen.h>
#include <tvm/tir/transform.h>
#include <unistd.h>

#include "test_transform.h"
#include "tir_testing.h"

enum { CG_MAX_PARAMS = 8 };

typedef struct {
  int n;
  TVMFFIAny args[CG_MAX_PARAMS];
  DLTensor t[CG_MAX_PARAMS];
  int64_t shape[CG_MAX_PARAMS][8];
  void* data[CG_MAX_PARAMS];
  size_t numel[CG_MAX_PARAMS];
  DLDataType dt[CG_MAX_PARAMS];
} cg_args;

typedef struct {
  int64_t sym;   /* value of symbolic dims and scalar int params (0 = 7) */
  unsigned seed; /* 0 = 1234 */
  int wide;      /* integers over the whole range of the type (wrap-around), not -99..99 */
} cg_opts;

static inline void cg_args_free(cg_args* a) {
  for (int k = 0; k < a->n; ++k) free(a->data[k]);
}

/* A random non-zero element of dtype t into p. */
static inline void cg_random_elem(DLDataType t, unsigned* st, int wide, char* p) {
  int r = (int)(rand_r(st) % 199) - 99;
  if (r == 0) r = 42;
  if (wide && t.code != kDLFloat && t.code != kDLBfloat) {
    r = (int)(rand_r(st) & 0xFFFF) - 0x8000;
    if (r == 0) r = 77;
  }
  if (t.code == kDLBfloat) {
    float x = (float)r / 16.0f; /* exactly representable in bfloat16 */
    uint32_t u;
    memcpy(&u, &x, 4);
    uint16_t hi = (uint16_t)(u >> 16);
    memcpy(p, &hi, 2);
  } else if (t.code == kDLFloat && t.bits == 16) {
    _Float16 h = (_Float16)((float)r / 16.0f);
    memcpy(p, &h, 2);
  } else if (t.code == kDLFloat && t.bits == 32) {
    *(float*)p = (float)r / 16.0f;
  } else if (t.code == kDLFloat && t.bits == 64) {
    *(double*)p = (double)r / 16.0;
  } else if (t.bits == 64) {
    *(int64_t*)p = wide ? ((int64_t)r << 40) + r : r;
  } else if (t.bits == 32) {
    *(int32_t*)p = wide ? (int32_t)((uint32_t)r << 15) + r : r;
  } else if (t.bits == 16) {
    *(int16_t*)p = (int16_t)r;
  } else {
    *(int8_t*)p = (int8_t)r;
  }
}

/* A dimension of a parameter buffer: a constant, or an expression (+, -, *) of constants and
 * Vars, every Var (a symbolic dim or an int scalar parameter) taking the value sym. */
static inline int64_t cg_eval_dim(const void* e, int64_t sym) {
  int64_t v;
  if (tvm_tir_as_const_int(e, &v)) return v;
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_Cast) return cg_eval_dim(((const tvm_tir_cast_obj*)e)->value, sym);
  if (k != TVM_TIR_KIND_Add && k != TVM_TIR_KIND_Sub && k != TVM_TIR_KIND_Mul) return sym;
  const tvm_tir_binary_obj* b = e;
  int64_t x = cg_eval_dim(b->a, sym), y = cg_eval_dim(b->b, sym);
  return k == TVM_TIR_KIND_Add ? x + y : k == TVM_TIR_KIND_Sub ? x - y : x * y;
}

static inline bool cg_make_args(const tvm_tir_prim_func_obj* f, const cg_opts* o, cg_args* a) {
  memset(a, 0, sizeof(*a));
  unsigned st = o->seed ? o->seed : 1234;
  int64_t sym = o->sym ? o->sym : 7;
  a->n = (int)tvm_tir_array_size(f->params);
  if (a->n > CG_MAX_PARAMS) return false;
  for (int k = 0; k < a->n; ++k) {
    TVMFFIAny key = tvm_ffi_any_obj(tvm_tir_array_at(f->params, k));
    const TVMFFIAny* b = tvm_ffi_map_get(f->buffer_map, &key);
    if (!b) {
      a->args[k] = tvm_ffi_any_int(sym);
      continue;
    }
    const tvm_tir_buffer_obj* buf = (const tvm_tir_buffer_obj*)b->v_obj;
    int ndim = (int)tvm_tir_buffer_ndim(buf);
    int64_t numel = 1;
    for (int d = 0; d < ndim; ++d) {
      int64_t v = cg_eval_dim(tvm_tir_array_at(buf->shape, d), sym);
      a->shape[k][d] = v;
      numel *= v;
    }
    /* Vector dtypes are filled and compared lane by lane, as scalars. */
    DLDataType et = tvm_tir_dtype_element(buf->dtype);
    size_t esize = (size_t)tvm_ffi_dtype_bytes(et);
    int64_t scalars = numel * buf->dtype.lanes;
    a->numel[k] = (size_t)scalars;
    a->dt[k] = et;
    a->data[k] = calloc((size_t)scalars + 1, esize);
    for (int64_t e = 0; e < scalars; ++e)
      cg_random_elem(et, &st, o->wide, (char*)a->data[k] + e * esize);
    a->t[k] = dl(a->data[k], buf->dtype, ndim, a->shape[k], NULL);
    a->args[k] = tvm_ffi_any_dltensor(&a->t[k]);
  }
  return true;
}

static inline double cg_elem_f(DLDataType t, const char* p) {
  if (t.code == kDLBfloat) {
    uint16_t hi;
    memcpy(&hi, p, 2);
    uint32_t u = (uint32_t)hi << 16;
    float x;
    memcpy(&x, &u, 4);
    return (double)x;
  }
  if (t.bits == 16) {
    _Float16 h;
    memcpy(&h, p, 2);
    return (double)h;
  }
  return t.bits == 32 ? (double)*(const float*)p : *(const double*)p;
}

/* Compare buffer k of a and b; returns the number of differing elements (reported). */
static inline int cg_compare(int line, const cg_args* a, const cg_args* b, int k) {
  DLDataType t = a->dt[k];
  size_t es = (size_t)tvm_ffi_dtype_bytes(t);
  int bad = 0;
  for (size_t e = 0; e < a->numel[k]; ++e) {
    const char* x = (const char*)a->data[k] + e * es;
    const char* y = (const char*)b->data[k] + e * es;
    bool same;
    if (t.code == kDLFloat || t.code == kDLBfloat) {
      double u = cg_elem_f(t, x), v = cg_elem_f(t, y);
      double tol = t.code == kDLBfloat ? 1e-2 : t.bits == 16 ? 2e-3 : t.bits == 32 ? 1e-5 : 1e-12;
      same = fabs(u - v) <= tol * fmax(1.0, fmax(fabs(u), fabs(v)));
      if (!same && bad < 3)
        fprintf(stderr, "line %d: param %d elem %zu: interp %.9g vs compiled %.9g\n", line, k, e, u,
                v);
    } else {
      same = memcmp(x, y, es) == 0;
      if (!same && bad < 3) {
        int64_t u = 0, v = 0;
        memcpy(&u, x, es);
        memcpy(&v, y, es);
        fprintf(stderr, "line %d: param %d elem %zu: interp 0x%llx vs compiled 0x%llx\n", line, k,
                e, (unsigned long long)u, (unsigned long long)v);
      }
    }
    if (!same) bad++;
  }
  return bad;
}

/* Build the lowered function g and get its function (a new reference), or NULL with a failed
 * check; *out_mod receives the module (a new reference). */
static inline void* build_fn_(int line, const void* g, const char* name, void** out_mod) {
  *out_mod = NULL;
  void* m = tvm_codegen_build(g, "llvm", NULL);
  if (!m) {
    interp_fail_(line, "codegen build failed");
    return NULL;
  }
  void* fn = NULL;
  if (tvm_ffi_module_get_function(m, name, false, &fn) != 0 || !fn) {
    interp_fail_(line, "get_function failed");
    tvm_ffi_release(m);
    return NULL;
  }
  *out_mod = m;
  return fn;
}

/* Lower f, build it, get its function (a new reference), or NULL with a failed check. */
static inline void* jit_fn_(int line, const void* f, const char* name, void** out_mod) {
  *out_mod = NULL;
  void* g = tvm_tir_lower(f, NULL);
  if (!g) {
    interp_fail_(line, "lowering failed");
    return NULL;
  }
  void* fn = build_fn_(line, g, name, out_mod);
  tvm_ffi_release(g);
  return fn;
}

/* Run the interpreter on `oracle` and `fn` (g compiled) on the same arguments and compare.
 * oracle is g itself or the function g was lowered from (same parameters). */
static inline void diff_fn_(int line, const void* oracle, const void* g, void* fn,
                            const cg_opts* o) {
  cg_args a, b;
  if (!cg_make_args(g, o, &a) || !cg_make_args(g, o, &b)) {
    fprintf(stderr, "line %d: too many parameters\n", line);
    g_test_failed_checks++;
    return;
  }
  TVMFFIAny ra = tvm_ffi_any_none(), rb;
  if (tvm_tir_interp_run(oracle, NULL, a.args, a.n, &ra) != 0) {
    interp_fail_(line, "interpreter run failed");
  } else if (tvm_ffi_function_call(fn, b.args, b.n, &rb) != 0) {
    interp_fail_(line, "compiled run failed");
  } else {
    for (int k = 0; k < a.n; ++k)
      if (a.data[k] && cg_compare(line, &a, &b, k) != 0) {
        fprintf(stderr, "line %d: parameter %d differs between interpreter and compiled code\n",
                line, k);
        g_test_failed_checks++;
      }
  }
  tvm_ffi_any_release(&ra);
  cg_args_free(&a);
  cg_args_free(&b);
}

/* The oracle is the interpreter on the original function f: lowering and code generation
 * together must preserve its meaning. */
static inline void diff_(int line, void* f, const cg_opts* o) {
  if (!tir_expect_ok_(line, f)) return;
  void* g = tvm_tir_lower(f, NULL);
  if (!g) {
    interp_fail_(line, "lowering failed");
    return;
  }
  void* m;
  void* fn = build_fn_(line, g, tvm_tir_func_global_symbol(g), &m);
  if (fn) diff_fn_(line, f, g, fn, o);
  tvm_ffi_release(fn);
  tvm_ffi_release(m);
  tvm_ffi_release(g);
}
/* DIFF(f, .seed = 3, ...): f borrowed. */
#define DIFF(f, ...) diff_(__LINE__, (f), &(cg_opts){__VA_ARGS__})

/* ---- Shared kernels and export helpers ---------------------------------------------------- */
/* C[i, j] = A[i, j] <op> B[i, j] over (rows, cols) buffers of dtype t; j a loop of kind jk. */
static inline void* make_binary(const char* name, DLDataType t, int64_t rows, int64_t cols,
                                tvm_tir_kind op, tvm_tir_for_kind jk) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", t, rows, cols);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", t, rows, cols);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", t, rows, cols);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* store =
      tvm_tir_store_take(ref(C),
                         tvm_tir_binary_take(op, tvm_tir_load_take(ref(A), ref(i), ref(j)),
                                             tvm_tir_load_take(ref(B), ref(i), ref(j))),
                         ref(i), ref(j));
  void* body =
      tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(rows),
                          tvm_tir_for_take(ref(j), tvm_tir_int(0), tvm_tir_int(cols), jk, store));
  void* f = tvm_tir_func_take(name, tvm_tir_list_take(ref(A), ref(B), ref(C)), body);
  RELEASE(A, B, C, i, j);
  return f;
}

/* Export g (borrowed) to a fresh shared library under the test directory, its path written to
 * path (the caller unlinks it), and load it through the ABI global ffi.Module.load_from_file.so
 * as any tvm-ffi runtime would: the module (a new reference), or NULL with a failed check. */
static inline void* cg_export_load_(int line, const void* g, const char* tag, char* path,
                                    size_t path_size) {
  static int counter;
  snprintf(path, path_size, "%s/codegen_%s_%d_%d.so", TVM_CODEGEN_TEST_TMPDIR, tag, (int)getpid(),
           counter++);
  if (tvm_codegen_export(g, path, NULL) != 0) {
    interp_fail_(line, "export failed");
    return NULL;
  }
  void* load = tvm_ffi_global_get("ffi.Module.load_from_file.so");
  TVMFFIAny args[2] = {tvm_ffi_any_raw_str(path), tvm_ffi_any_raw_str("so")};
  TVMFFIAny lib = tvm_ffi_any_none();
  if (!load || tvm_ffi_function_call(load, args, 2, &lib) != 0) {
    interp_fail_(line, "loading the exported library failed");
    tvm_ffi_release(load);
    return NULL;
  }
  tvm_ffi_release(load);
  void* mod = tvm_ffi_any_as_object(&lib, kTVMFFIModule);
  if (!mod) {
    interp_fail_(line, "the exported library did not load as a module");
    tvm_ffi_any_release(&lib);
  }
  return mod; /* the reference lib held */
}
#define EXPORT_LOAD(g, tag, path) cg_export_load_(__LINE__, (g), (tag), (path), sizeof(path))

/* Function `name` of module mod (a new reference), or NULL with a failed check. */
static inline void* cg_get_fn_(int line, void* mod, const char* name) {
  void* fn = NULL;
  if (!mod || tvm_ffi_module_get_function(mod, name, false, &fn) != 0 || !fn) {
    interp_fail_(line, "get_function failed");
    return NULL;
  }
  return fn;
}
#define GET_FN(mod, name) cg_get_fn_(__LINE__, (mod), (name))

/* Call fn and expect -1 with an error of `kind` whose message contains `part`. */
#define EXPECT_CALL_ERR(fn, args, n, kind, part)             \
  do {                                                       \
    TVMFFIAny r_;                                            \
    int rc_ = tvm_ffi_function_call((fn), (args), (n), &r_); \
    CHECK_EQ_INT(rc_, -1);                                   \
    if (rc_ == -1) CHECK_RAISED(kind, part);                 \
  } while (0)

/* Every undefined dynamic symbol of the library at path is a TVMFFI* function, a weak symbol of
 * the C runtime's start files or, with allow_libm, a libm function; returns the number of
 * TVMFFI* references (each other symbol fails the current test). */
/* Compiled-mode model libraries (TEST_EXEC_MODE set: exec_mode_testing.h) also call libvm's
 * tvm_vm_tir_* functions; bytecode-mode ones must not. */
#ifdef TEST_EXEC_MODE
#define CG_ALLOW_VM_TIR 1
#else
#define CG_ALLOW_VM_TIR 0
#endif
static inline int cg_undefined_symbols(const char* path, bool allow_libm) {
  static const char* libm[] = {"expf",   "exp",   "logf",  "log",   "tanhf", "tanh",   "erff",
                               "erf",    "powf",  "pow",   "sqrtf", "sqrt",  "roundf", "round",
                               "floorf", "floor", "fmodf", "fmod",  NULL};
  char cmd[600];
  snprintf(cmd, sizeof(cmd), "nm -D --undefined-only '%s'", path);
  FILE* p = popen(cmd, "r");
  CHECK(p != NULL);
  if (!p) return 0;
  char line[512];
  int n_ffi = 0;
  while (fgets(line, sizeof(line), p)) {
    char type[8] = {0}, name[400] = {0};
    if (sscanf(line, " %7s %399s", type, name) != 2) continue;
    char* at = strchr(name, '@');
    if (at) *at = 0;
    if (strncmp(name, "TVMFFI", 6) == 0) {
      n_ffi++;
      continue;
    }
    if (strcmp(type, "w") == 0) continue; /* __cxa_finalize, __gmon_start__, ... */
    if (CG_ALLOW_VM_TIR && strncmp(name, "tvm_vm_tir_", 11) == 0) continue;
    bool ok = false;
    for (int k = 0; allow_libm && libm[k]; ++k) ok = ok || strcmp(name, libm[k]) == 0;
    if (!ok) fprintf(stderr, "unexpected undefined symbol in %s: %s\n", path, name);
    CHECK(ok);
  }
  CHECK_EQ_INT(pclose(p), 0);
  return n_ffi;
}

#endif /* TVM_TESTS_CODEGEN_CODEGEN_TESTING_H_ */
