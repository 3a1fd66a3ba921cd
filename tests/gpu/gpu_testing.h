/*
 * gpu_testing.h: helpers of the GPU kernel tests (the TVMScript files of tests/gpu/kernels).
 *
 *   gpu_parse(file)            a kernel file parsed (a new reference), NULL + failed check
 *   gpu_func(ir)               its first PrimFunc (borrowed from ir)
 *   gpu_buf_*                  float32 host tensors with DLTensor views and random contents
 *   gpu_ref_*                  plain C results of each kernel
 *   gpu_close(a, b, n, tol)    elementwise |a - b| <= tol * max(1, |a|, |b|), reporting the first
 */
#ifndef TVM_TESTS_GPU_GPU_TESTING_H_
#define TVM_TESTS_GPU_GPU_TESTING_H_

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <tvm/script/parser.h>
#include <tvm/tir/tir.h>
#include <tvm/tir/transform.h>

#include "script_testing.h"
#include "test_util.h"

#ifndef TVM_GPU_KERNEL_DIR
#error "TVM_GPU_KERNEL_DIR must name tests/gpu/kernels"
#endif

static inline void gpu_fail_(int line, const char* what) {
  void* e = tvm_ffi_error_take();
  fprintf(stderr, "line %d: %s: %s: %s\n", line, what, e ? tvm_ffi_error_kind(e) : "-",
          e ? tvm_ffi_error_message(e) : "-");
  tvm_ffi_release(e);
  g_test_failed_checks++;
}

#define gpu_parse(file) test_parse_file(TVM_GPU_KERNEL_DIR, (file))

/* The PrimFunc of ir (ir itself, or the first function of a module); borrowed. */
static inline const tvm_tir_prim_func_obj* gpu_func(const void* ir) {
  if (tvm_tir_kind_of(ir) == TVM_TIR_KIND_PrimFunc) return ir;
  if (tvm_tir_kind_of(ir) != TVM_TIR_KIND_IRModule) return NULL;
  const TVMFFIAny *k, *v;
  int64_t pos = tvm_ffi_map_next(((const tvm_tir_ir_module_obj*)ir)->functions, 0, &k, &v);
  return pos >= 0 ? (const tvm_tir_prim_func_obj*)v->v_obj : NULL;
}

/* A float32 host tensor of up to 2 dims. */
typedef struct {
  float* data;
  int64_t shape[2];
  int ndim;
  int64_t n;
  DLTensor t;
} gpu_buf;

static inline void gpu_buf_init(gpu_buf* b, int ndim, int64_t d0, int64_t d1, unsigned* seed) {
  b->ndim = ndim;
  b->shape[0] = d0;
  b->shape[1] = d1;
  b->n = ndim == 1 ? d0 : d0 * d1;
  b->data = calloc((size_t)b->n + 1, sizeof(float));
  for (int64_t i = 0; seed && i < b->n; ++i) {
    *seed = *seed * 1103515245u + 12345u;
    b->data[i] = (float)((int)((*seed >> 8) % 2001) - 1000) / 500.0f; /* [-2, 2] */
  }
  memset(&b->t, 0, sizeof(b->t));
  b->t.data = b->data;
  b->t.device = (DLDevice){kDLCPU, 0};
  b->t.ndim = ndim;
  b->t.dtype = (DLDataType){kDLFloat, 32, 1};
  b->t.shape = b->shape;
}

static inline void gpu_buf_free(gpu_buf* b) { free(b->data); }

static inline TVMFFIAny gpu_arg(gpu_buf* b) { return tvm_ffi_any_dltensor(&b->t); }

static inline int gpu_close_(int line, const float* a, const float* b, int64_t n, double tol) {
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double u = a[i], v = b[i];
    if (fabs(u - v) <= tol * fmax(1.0, fmax(fabs(u), fabs(v)))) continue;
    if (bad++ < 3) fprintf(stderr, "line %d: element %lld: %.9g vs %.9g\n", line, (long long)i, u, v);
  }
  if (bad) g_test_failed_checks++;
  return bad;
}
#define gpu_close(a, b, n, tol) gpu_close_(__LINE__, (a), (b), (n), (tol))

/* ---- Plain C results ------------------------------------------------------------------------ */
static inline void gpu_ref_add(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
}
static inline void gpu_ref_row_sum(const float* a, float* b, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += a[i * n + j];
    b[i] = (float)s;
  }
}
static inline void gpu_ref_matmul(const float* a, const float* b, float* c, int64_t n) {
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += (double)a[i * n + k] * b[k * n + j];
      c[i * n + j] = (float)s;
    }
}
static inline void gpu_ref_transpose(const float* a, float* b, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) b[j * m + i] = a[i * n + j];
}
static inline void gpu_ref_softmax(const float* a, float* b, int64_t m, int64_t n) {
  for (int64_t i = 0; i < m; ++i) {
    double mx = a[i * n];
    for (int64_t j = 1; j < n; ++j) mx = fmax(mx, a[i * n + j]);
    double s = 0;
    for (int64_t j = 0; j < n; ++j) s += exp(a[i * n + j] - mx);
    for (int64_t j = 0; j < n; ++j) b[i * n + j] = (float)(exp(a[i * n + j] - mx) / s);
  }
}

#endif /* TVM_TESTS_GPU_GPU_TESTING_H_ */
