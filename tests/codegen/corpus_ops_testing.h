/*
 * corpus_ops_testing.h: operator kernel tests over one Relax corpus file. The file is parsed,
 * legalized and compiled once (corpus_ops_setup); expect2 runs one of its functions both ways,
 * in the reference evaluator on the legalized module (the kernels in libtir's interpreter) and
 * in the VM on the compiled one, and checks each result element by element against values the
 * test computes with plain C loops; expect2_error checks that both fail with one error. Include
 * after relax_testing.h, exec_mode_testing.h, script_testing.h and values_testing.h.
 */
#ifndef TVM_TESTS_CODEGEN_CORPUS_OPS_TESTING_H_
#define TVM_TESTS_CODEGEN_CORPUS_OPS_TESTING_H_

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

/* The corpus module legalized (for the evaluator) and compiled (for the VM), and the relative
 * tolerance of a result element: |got - want| <= rtol * (1 + |want|) (0: exact); NaN matches
 * NaN. */
static struct {
  tvm_tir_ir_module_obj* legal;
  tvm_vm_executable* exec;
  tvm_vm* vm;
  double rtol;
} g_ops;

static inline void corpus_ops_setup(const char* file, double rtol) {
  g_ops.rtol = rtol;
  tvm_tir_ir_module_obj* mod = test_parse_file(TVM_CORPUS_DIR "/relax", file);
  g_ops.legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (mod && !g_ops.legal) CHECK_OK(-1);
  g_ops.exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (mod && !g_ops.exec) CHECK_OK(-1);
  g_ops.vm = g_ops.exec ? tvm_vm_create(g_ops.exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  tvm_ffi_release(mod);
}

static inline void corpus_ops_teardown(void) {
  tvm_vm_release(g_ops.vm);
  tvm_ffi_release(g_ops.exec);
  tvm_ffi_release(g_ops.legal);
}

/* Elements of result r that differ from want (a tensor of the given shape and dtype); 1000
 * when r is no such tensor. The first few differences are printed. */
static inline int mismatches(const TVMFFIAny* r, int ndim, const int64_t* shape, DLDataType dt,
                      const double* want) {
  if (r->type_index != kTVMFFITensor) return 1000;
  const DLTensor* t = tvm_ffi_tensor_dl(r->v_obj);
  if (t->ndim != ndim || !tvm_ffi_dtype_equal(t->dtype, dt)) return 1000;
  int64_t n = 1;
  for (int i = 0; i < ndim; ++i) {
    if (t->shape[i] != shape[i]) {
      fprintf(stderr, "  dim %d: got %lld, want %lld\n", i, (long long)t->shape[i],
              (long long)shape[i]);
      return 1000;
    }
    n *= shape[i];
  }
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double got = rv_elem(t, i);
    if (got == want[i] || (isnan(got) && isnan(want[i]))) continue; /* (NaN matches NaN) */
    if (!(fabs(got - want[i]) <= g_ops.rtol * (1 + fabs(want[i])))) {
      if (bad < 4) fprintf(stderr, "  element %lld: got %g, want %g\n", (long long)i, got, want[i]);
      ++bad;
    }
  }
  return bad;
}

/* fn on args both ways: out[0] the evaluator's result, out[1] the VM's (None when failed). */
static inline bool run2(const char* fn, void** args, int n, TVMFFIAny out[2]) {
  TVMFFIAny a[8];
  for (int i = 0; i < n && i < 8; ++i) a[i] = tvm_ffi_any_obj(args[i]);
  out[0] = out[1] = tvm_ffi_any_none();
  CHECK(n <= 8 && g_ops.legal != NULL && g_ops.vm != NULL); /* corpus_ops_setup built both */
  if (n > 8 || !g_ops.legal || !g_ops.vm) return false;
  int rc0 = tvm_relax_eval(g_ops.legal, fn, a, n, &out[0]);
  CHECK_OK(rc0);
  int rc1 = tvm_vm_invoke(g_ops.vm, fn, a, n, &out[1]);
  CHECK_OK(rc1);
  return rc0 == 0 && rc1 == 0;
}

/* Both results of fn on args match want (shape, dtype, values). */
static inline void expect2(const char* fn, void** args, int n, int ndim, const int64_t* shape,
                    DLDataType dt, const double* want) {
  TVMFFIAny r[2];
  if (run2(fn, args, n, r)) {
    for (int w = 0; w < 2; ++w) {
      int bad = mismatches(&r[w], ndim, shape, dt, want);
      if (bad) {
        fprintf(stderr, "%s (%s): %d elements differ\n", fn, w ? "compiled" : "evaluator", bad);
      }
      CHECK_EQ_INT(bad, 0);
    }
  }
  tvm_ffi_any_release(&r[0]), tvm_ffi_any_release(&r[1]);
}

/* fn on args fails both ways, each with an error of kind whose message holds part (a kernel's
 * assertion on its inputs). */
static inline void expect2_error(const char* fn, void** args, int n, const char* kind,
                                 const char* part) {
  TVMFFIAny a[8], r = tvm_ffi_any_none();
  for (int i = 0; i < n && i < 8; ++i) a[i] = tvm_ffi_any_obj(args[i]);
  CHECK(n <= 8 && g_ops.legal != NULL && g_ops.vm != NULL); /* corpus_ops_setup built both */
  if (n > 8 || !g_ops.legal || !g_ops.vm) return;
  for (int w = 0; w < 2; ++w) {
    int rc = w ? tvm_vm_invoke(g_ops.vm, fn, a, n, &r) : tvm_relax_eval(g_ops.legal, fn, a, n, &r);
    if (rc == 0) fprintf(stderr, "%s (%s): no error\n", fn, w ? "compiled" : "evaluator");
    CHECK(rc != 0);
    CHECK_RAISED(kind, part);
    tvm_ffi_any_release(&r);
  }
}

static inline void* tensor(int ndim, const int64_t* shape, DLDataType t) {
  return tvm_ffi_tensor_empty(shape, ndim, t, (DLDevice){kDLCPU, 0});
}

static inline void release_all(void** t, int n) {
  for (int i = 0; i < n; ++i) tvm_ffi_release(t[i]);
}

#endif /* TVM_TESTS_CODEGEN_CORPUS_OPS_TESTING_H_ */
