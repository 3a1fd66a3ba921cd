/*
 * legalize_testing.h: helpers of the LegalizeOps kernel tests (header-only): a
 * one-call model legalized and run by the reference evaluator, element comparison. Random
 * tensors come from values_testing.h.
 */
#ifndef TVM_TESTS_LEGALIZE_TESTING_H_
#define TVM_TESTS_LEGALIZE_TESTING_H_

#include <math.h>
#include <stdlib.h>
#include <tvm/relax/eval.h>

#include "relax_testing.h"
#include "values_testing.h"

static inline const float* lg_f(const void* t) { return tvm_ffi_tensor_dl(t)->data; }

/* The struct info of a tensor value (constant dims). */
static inline tvm_relax_sinfo_obj* lg_sinfo_of(const void* t) {
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  return tvm_relax_tensor_sinfo_of_ints(dl->shape, dl->ndim, dl->dtype);
}

/* main(params) { v = call; return v } legalized (NULL + error). Checks that the call became a
 * call_tir: the module gained a kernel. */
static inline tvm_tir_ir_module_obj* lg_legalize(void* params, tvm_relax_expr_obj* call) {
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(bb, call, NULL) : NULL;
  tvm_tir_global_var_obj* gv = v ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  if (legal && tvm_ffi_map_size(legal->functions) <= tvm_ffi_map_size(mod->functions)) {
    tvm_ffi_raise("ValueError", "test: the call was not legalized");
    tvm_ffi_release(legal);
    legal = NULL;
  }
  tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(v);
  tvm_relax_bb_free(bb);
  return legal;
}

/* Legalize main(params) { call } and evaluate it on args; 0 or -1 + error. Releases call. */
static inline int lg_eval(void* params, tvm_relax_expr_obj* call, const TVMFFIAny* args, int nargs,
                          TVMFFIAny* out) {
  tvm_tir_ir_module_obj* legal = lg_legalize(params, call);
  int rc = legal ? tvm_relax_eval(legal, "main", args, nargs, out) : -1;
  tvm_ffi_release(legal);
  tvm_ffi_release(call);
  return rc;
}

/* The number of elements of got (float32) that differ from want beyond tol (relative), or 1000
 * when got is not a float tensor of n elements. */
static inline int lg_bad(const TVMFFIAny* got, const double* want, int64_t n, double tol) {
  if (got->type_index != kTVMFFITensor) return 1000;
  const DLTensor* dl = tvm_ffi_tensor_dl(got->v_obj);
  if (tvm_ffi_dltensor_numel(dl) != n || dl->dtype.code != kDLFloat || dl->dtype.bits != 32) return 1000;
  const float* p = dl->data;
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    if (isnan(want[i]) ? !isnan(p[i]) : !(fabs(p[i] - want[i]) <= tol * (1 + fabs(want[i])))) {
      ++bad; /* (a NaN wanted matches a NaN) */
    }
  }
  return bad;
}

/* Whether tensor t has exactly the given shape. */
static inline bool lg_shape_is(const void* t, int ndim, const int64_t* shape) {
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  if (dl->ndim != ndim) return false;
  for (int i = 0; i < ndim; ++i) {
    if (dl->shape[i] != shape[i]) return false;
  }
  return true;
}

/* An ffi.Array of ints. */
static inline void* lg_ints(int n, const int64_t* v) {
  TVMFFIAny a[16];
  for (int i = 0; i < n; ++i) a[i] = tvm_ffi_any_int(v[i]);
  return tvm_ffi_array_new(a, n);
}

/* The 4-d array src (dims cs) with axis a packed by factor f into the logical axes (cs with
 * cs[a] / f at a, then f), which pos places (NCHW4c: 0 1 2 3 4; NHWC4c: 0 3 1 2 4; a = 1 packs
 * C of NCHW, a = 0 O of OIHW): dst[.., i / f, .., i % f] = src[.., i, ..]; *ds the packed dims.
 * The oracle of a packed-layout kernel is its unpacked one, packed. */
static inline void lg_pack_axis(const double* src, const int64_t* cs, int a, int64_t f,
                                const int* pos, double* dst, int64_t* ds) {
  int64_t ls[5] = {cs[0], cs[1], cs[2], cs[3], f};
  ls[a] = cs[a] / f;
  for (int k = 0; k < 5; ++k) ds[pos[k]] = ls[k];
  int64_t i[4];
  for (i[0] = 0; i[0] < cs[0]; ++i[0])
    for (i[1] = 0; i[1] < cs[1]; ++i[1])
      for (i[2] = 0; i[2] < cs[2]; ++i[2])
        for (i[3] = 0; i[3] < cs[3]; ++i[3]) {
          int64_t li[5] = {i[0], i[1], i[2], i[3], i[a] % f}, pi[5];
          li[a] = i[a] / f;
          for (int k = 0; k < 5; ++k) pi[pos[k]] = li[k];
          int64_t at = (((pi[0] * ds[1] + pi[1]) * ds[2] + pi[2]) * ds[3] + pi[3]) * ds[4] + pi[4];
          dst[at] = src[((i[0] * cs[1] + i[1]) * cs[2] + i[2]) * cs[3] + i[3]];
        }
}

/* lg_pack_axis of C (axis 1) of an NCHW array. */
static inline void lg_pack_nchw(const double* src, const int64_t* cs, int64_t f, const int* pos,
                                double* dst, int64_t* ds) {
  lg_pack_axis(src, cs, 1, f, pos, dst, ds);
}

/* A float32 tensor of the 4-d float32 tensor t with axis a packed as lg_pack_axis does. */
static inline void* lg_packed_tensor_axis(const void* t, int a, int64_t f, const int* pos) {
  const DLTensor* dl = tvm_ffi_tensor_dl(t);
  int64_t n = tvm_ffi_dltensor_numel(dl), ds[5];
  double* buf = malloc(sizeof(double) * (size_t)n * 2);
  for (int64_t i = 0; i < n; ++i) buf[i] = lg_f(t)[i];
  lg_pack_axis(buf, dl->shape, a, f, pos, buf + n, ds);
  void* u = tvm_ffi_tensor_empty(ds, 5, dl->dtype, (DLDevice){kDLCPU, 0});
  float* dst = tvm_ffi_tensor_dl(u)->data;
  for (int64_t i = 0; i < n; ++i) dst[i] = (float)buf[n + i];
  free(buf);
  return u;
}

/* lg_packed_tensor_axis of C (axis 1) of an NCHW tensor. */
static inline void* lg_packed_tensor(const void* t, int64_t f, const int* pos) {
  return lg_packed_tensor_axis(t, 1, f, pos);
}

#endif /* TVM_TESTS_LEGALIZE_TESTING_H_ */
