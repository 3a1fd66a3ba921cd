/*
 * values_testing.h: random inputs for Relax functions and the comparison of their results
 * (header-only, shared by the Relax, codegen and script tests).
 *
 * One xorshift generator per test binary (seeded the same in every binary, so a failure
 * reproduces); tensors of random float32 in [-2, 2), never zeros.
 */
#ifndef TVM_TESTS_RELAX_VALUES_TESTING_H_
#define TVM_TESTS_RELAX_VALUES_TESTING_H_

#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <tvm/ffi/ffi.h>
#include <tvm/tir/tir.h>

static uint64_t g_rv_rng = 0x9E3779B97F4A7C15ull;

/* Uniform in [-2, 2). */
static inline double rv_rnd(void) {
  g_rv_rng ^= g_rv_rng << 13, g_rv_rng ^= g_rv_rng >> 7, g_rv_rng ^= g_rv_rng << 17;
  return (double)(g_rv_rng >> 11) / 9007199254740992.0 * 4.0 - 2.0;
}

/* A float32 or float64 CPU tensor of uniform values in [-2, 2). */
static inline void* rv_rand_dtype(DLDataType dtype, int ndim, const int64_t* shape) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, dtype, (DLDevice){kDLCPU, 0});
  int64_t n = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t));
  void* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < n; ++i) {
    if (dtype.bits == 64) {
      ((double*)p)[i] = rv_rnd();
    } else {
      ((float*)p)[i] = (float)rv_rnd();
    }
  }
  return t;
}

static inline void* rv_rand(int ndim, const int64_t* shape) {
  return rv_rand_dtype(tvm_tir_dtype_float(32), ndim, shape);
}

/* Uniform in [lo, hi). */
static inline int64_t rv_rnd_int(int64_t lo, int64_t hi) {
  return lo + (int64_t)((rv_rnd() + 2.0) / 4.0 * (double)(hi - lo));
}

/* An int64 tensor of uniform values in [lo, hi). */
static inline void* rv_rand_int(int ndim, const int64_t* shape, int64_t lo, int64_t hi) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, tvm_tir_dtype_int(64), (DLDevice){kDLCPU, 0});
  int64_t n = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t));
  int64_t* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < n; ++i) p[i] = rv_rnd_int(lo, hi);
  return t;
}

/* Element i of a CPU tensor (float, int, uint or bool of 8 to 64 bits) as a double. */
static inline double rv_elem(const DLTensor* t, int64_t i) {
  const char* p = (const char*)t->data + t->byte_offset;
  if (t->dtype.code == kDLFloat) {
    return t->dtype.bits == 64 ? ((const double*)p)[i] : ((const float*)p)[i];
  }
  bool is_signed = t->dtype.code == kDLInt;
  switch (t->dtype.bits) {
    case 64: return is_signed ? (double)((const int64_t*)p)[i] : (double)((const uint64_t*)p)[i];
    case 32: return is_signed ? (double)((const int32_t*)p)[i] : (double)((const uint32_t*)p)[i];
    case 16: return is_signed ? (double)((const int16_t*)p)[i] : (double)((const uint16_t*)p)[i];
    default: return is_signed ? (double)((const int8_t*)p)[i] : (double)((const uint8_t*)p)[i];
  }
}

/* How many parts of two values differ (0 when they agree): tensors (same dtype and shape;
 * float elements within rel_tol * (1 + |want|), rel_tol 0 meaning bit for bit; integer elements
 * exactly), tuples field by field, shapes, ints and bools. A kind or structure mismatch is 1. */
static inline int rv_differ(const TVMFFIAny* got, const TVMFFIAny* want, double rel_tol) {
  if (got->type_index != want->type_index) return 1;
  switch (got->type_index) {
    case kTVMFFIArray: {
      if (tvm_ffi_seq_size(got->v_obj) != tvm_ffi_seq_size(want->v_obj)) return 1;
      int bad = 0;
      for (int64_t i = 0; i < tvm_ffi_seq_size(got->v_obj); ++i) {
        bad += rv_differ(tvm_ffi_seq_at(got->v_obj, i), tvm_ffi_seq_at(want->v_obj, i), rel_tol);
      }
      return bad;
    }
    case kTVMFFIInt:
    case kTVMFFIBool: return got->v_int64 != want->v_int64;
    case kTVMFFIShape: {
      int64_t n = tvm_ffi_shape_ndim(got->v_obj);
      return n != tvm_ffi_shape_ndim(want->v_obj) ||
             memcmp(tvm_ffi_shape_data(got->v_obj), tvm_ffi_shape_data(want->v_obj),
                    (size_t)n * sizeof(int64_t)) != 0;
    }
    case kTVMFFITensor: break;
    default: return 1;
  }
  const DLTensor* x = tvm_ffi_tensor_dl(got->v_obj);
  const DLTensor* y = tvm_ffi_tensor_dl(want->v_obj);
  if (x->ndim != y->ndim || x->dtype.code != y->dtype.code || x->dtype.bits != y->dtype.bits) {
    return 1;
  }
  for (int i = 0; i < x->ndim; ++i) {
    if (x->shape[i] != y->shape[i]) return 1;
  }
  int64_t n = tvm_ffi_dltensor_numel(x);
  if (rel_tol == 0) {
    return memcmp((const char*)x->data + x->byte_offset, (const char*)y->data + y->byte_offset,
                  (size_t)tvm_ffi_dltensor_nbytes(x)) != 0;
  }
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    double u = rv_elem(x, i), v = rv_elem(y, i);
    if (x->dtype.code == kDLFloat ? !(fabs(u - v) <= rel_tol * (1 + fabs(v))) : u != v) ++bad;
  }
  return bad;
}

#endif /* TVM_TESTS_RELAX_VALUES_TESTING_H_ */
