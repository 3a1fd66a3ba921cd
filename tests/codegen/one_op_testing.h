/*
 * one_op_testing.h: one-operator models for the operator kernel tests (test_relax_*_ops.c).
 * main(p0.., extra) = op(p0.., extra) is built with the BlockBuilder and legalized, then run
 * twice: by the Relax reference evaluator (the kernel in libtir's interpreter) and compiled to a
 * VM executable (the exec mode of exec_mode_testing.h) run in libvm; each result is compared with
 * values the test computed with plain C loops (oot_check_op_error: both runs fail alike).
 *
 * Include after relax_testing.h (CHECK), values_testing.h and exec_mode_testing.h.
 */
#ifndef TVM_TESTS_CODEGEN_ONE_OP_TESTING_H_
#define TVM_TESTS_CODEGEN_ONE_OP_TESTING_H_

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/vm/vm.h>

/* The expected outputs of a call: one tensor (n = 1), or the fields of a tuple of two. */
typedef struct {
  int n;
  DLDataType dt[2];
  const double* want[2];
  int64_t count[2];
  double tol; /* relative: |got - want| <= tol * (1 + |want|); 0 for exact */
} oot_expect;

static inline oot_expect oot_one(DLDataType dt, const double* want, int64_t n, double tol) {
  return (oot_expect){1, {dt, dt}, {want, NULL}, {n, 0}, tol};
}

/* Elements of got differing from want beyond tol (relative); 1000 when got is no tensor of
 * n elements of dtype dt. The first three differences are printed. */
static inline int oot_bad(const TVMFFIAny* got, DLDataType dt, const double* want, int64_t n,
                          double tol) {
  if (got->type_index != kTVMFFITensor) return 1000;
  const DLTensor* dl = tvm_ffi_tensor_dl(got->v_obj);
  if (tvm_ffi_dltensor_numel(dl) != n || !tvm_ffi_dtype_equal(dl->dtype, dt)) return 1000;
  int k = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (!(fabs(rv_elem(dl, i) - want[i]) <= tol * (1 + fabs(want[i])))) {
      if (k < 3)
        fprintf(stderr, "  element %lld: got %g, want %g\n", (long long)i, rv_elem(dl, i), want[i]);
      ++k;
    }
  }
  return k;
}

static inline int oot_bad_all(const TVMFFIAny* got, const oot_expect* e) {
  if (e->n == 1) return oot_bad(got, e->dt[0], e->want[0], e->count[0], e->tol);
  if (got->type_index != kTVMFFIArray || tvm_ffi_seq_size(got->v_obj) != e->n) return 1000;
  int b = 0;
  for (int i = 0; i < e->n; ++i) {
    b += oot_bad(tvm_ffi_seq_at(got->v_obj, i), e->dt[i], e->want[i], e->count[i], e->tol);
  }
  return b;
}

#define OOT_MAX_TENSORS 6

/* main(p0..pn) = op(p0..pn, extra) legalized, one parameter per tensor (borrowed, at most
 * OOT_MAX_TENSORS),
 * extra (borrowed, optional) a last argument that is no parameter (an R.shape, ...); NULL +
 * error, also when the call was not legalized into a kernel. */
static inline tvm_tir_ir_module_obj* oot_model(const char* op, void* attrs, int n, void** tensors,
                                               tvm_relax_expr_obj* extra) {
  tvm_relax_var_obj* params[OOT_MAX_TENSORS];
  if (n > OOT_MAX_TENSORS) {
    tvm_ffi_raise("ValueError", "test: at most %d tensors", OOT_MAX_TENSORS);
    return NULL;
  }
  void* args[OOT_MAX_TENSORS + 1];
  for (int i = 0; i < n; ++i) {
    const DLTensor* dl = tvm_ffi_tensor_dl(tensors[i]);
    char name[16];
    snprintf(name, sizeof(name), "p%d", i);
    params[i] = rt_var_take(name, tvm_relax_tensor_sinfo_of_ints(dl->shape, dl->ndim, dl->dtype));
    args[i] = params[i];
  }
  if (extra) args[n] = extra;
  void* parr = tvm_ffi_array_of_objects((void**)params, n);
  void* aarr = tvm_ffi_array_of_objects(args, n + (extra ? 1 : 0));
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", parr, NULL, true);
  const tvm_relax_op_info* info = tvm_relax_op_info_find(op, strlen(op));
  tvm_relax_expr_obj* call =
      info ? tvm_relax_call_new(tvm_relax_op(info->id), aarr, attrs, NULL, NULL) : NULL;
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(bb, call, NULL) : NULL;
  tvm_tir_global_var_obj* gv =
      v ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  /* the call became a kernel */
  if (legal && tvm_ffi_map_size(legal->functions) != 2) {
    tvm_ffi_raise("ValueError", "test: %s was not legalized", op);
    tvm_ffi_release(legal);
    legal = NULL;
  }
  tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(v), tvm_ffi_release(call);
  tvm_relax_bb_free(bb);
  tvm_ffi_release(parr), tvm_ffi_release(aarr);
  for (int i = 0; i < n; ++i) tvm_ffi_release(params[i]);
  return legal;
}

/* Function fname of mod on args, interpreted (when `eval`) and compiled, each against e;
 * differences are reported under `what`. */
static inline void oot_run_both(tvm_tir_ir_module_obj* mod, const char* fname, const char* what,
                                TVMFFIAny* args, int n, const oot_expect* e, bool eval) {
  TVMFFIAny got;
  if (eval) {
    CHECK_OK(tvm_relax_eval(mod, fname, args, n, &got));
    int b = oot_bad_all(&got, e);
    if (b) fprintf(stderr, "%s interpreted: %d bad elements\n", what, b);
    CHECK_EQ_INT(b, 0);
    tvm_ffi_any_release(&got);
  }
  tvm_vm_executable* exec = test_mode(tvm_codegen_relax_build(mod, test_opts()));
  if (!exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  if (vm) {
    CHECK_OK(tvm_vm_invoke(vm, fname, args, n, &got));
    int b = oot_bad_all(&got, e);
    if (b) fprintf(stderr, "%s compiled: %d bad elements\n", what, b);
    CHECK_EQ_INT(b, 0);
    tvm_ffi_any_release(&got);
    tvm_vm_release(vm);
  }
  tvm_ffi_release(exec);
}

/* op on tensors (+ extra; attrs and extra borrowed), interpreted and compiled, against e.
 * Releases the tensors. */
static inline void oot_check_op(const char* op, void* attrs, int n, void** tensors,
                                tvm_relax_expr_obj* extra, const oot_expect* e) {
  tvm_tir_ir_module_obj* mod = oot_model(op, attrs, n, tensors, extra);
  if (!mod) CHECK_OK(-1);
  TVMFFIAny args[OOT_MAX_TENSORS];
  for (int i = 0; i < n && i < OOT_MAX_TENSORS; ++i) args[i] = tvm_ffi_any_obj(tensors[i]);
  if (mod) oot_run_both(mod, "main", op, args, n, e, true);
  tvm_ffi_release(mod);
  for (int i = 0; i < n; ++i) tvm_ffi_release(tensors[i]);
}

/* main of mod (legalized) on tensors (borrowed) fails interpreted and compiled, each with an
 * error of kind whose message holds part (a kernel's assertion); op names it in reports. */
static inline void oot_run_both_error(tvm_tir_ir_module_obj* mod, const char* op, int n,
                                      void** tensors, const char* kind, const char* part) {
  TVMFFIAny args[OOT_MAX_TENSORS], got = tvm_ffi_any_none();
  for (int i = 0; i < n && i < OOT_MAX_TENSORS; ++i) args[i] = tvm_ffi_any_obj(tensors[i]);
  tvm_vm_executable* exec = mod ? test_mode(tvm_codegen_relax_build(mod, test_opts())) : NULL;
  if (mod && !exec) CHECK_OK(-1);
  tvm_vm* vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
  for (int w = 0; w < 2 && vm; ++w) {
    int rc = w ? tvm_vm_invoke(vm, "main", args, n, &got)
               : tvm_relax_eval(mod, "main", args, n, &got);
    if (rc == 0) fprintf(stderr, "%s %s: no error\n", op, w ? "compiled" : "interpreted");
    CHECK(rc != 0);
    CHECK_RAISED(kind, part);
    tvm_ffi_any_release(&got);
  }
  tvm_vm_release(vm);
  tvm_ffi_release(exec);
}

/* op on tensors (+ extra; attrs and extra borrowed) fails interpreted and compiled, each with an
 * error of kind whose message holds part (a kernel's assertion). Releases the tensors. */
static inline void oot_check_op_error(const char* op, void* attrs, int n, void** tensors,
                                      tvm_relax_expr_obj* extra, const char* kind,
                                      const char* part) {
  tvm_tir_ir_module_obj* mod = oot_model(op, attrs, n, tensors, extra);
  if (!mod) CHECK_OK(-1);
  oot_run_both_error(mod, op, n, tensors, kind, part);
  tvm_ffi_release(mod);
  for (int i = 0; i < n; ++i) tvm_ffi_release(tensors[i]);
}

#endif /* TVM_TESTS_CODEGEN_ONE_OP_TESTING_H_ */
