/*
 * tir_testing.h: IR generators shared by libtir's tests and the benchmarks. Each returns a new
 * reference, or NULL with an error raised.
 */
#ifndef TVM_TESTS_TIR_TIR_TESTING_H_
#define TVM_TESTS_TIR_TIR_TESTING_H_

#include <tvm/tir/tir.h>

/*
 * A PrimFunc "large_func" of about 40 * n nodes: params A, B (float32 buffers of n elements,
 * n >= 1) and a sequence of n statements, the i-th a serial loop j in [0, 8) storing
 * B[(i + j) % n] = A[(i * 7 + j) % n] * float(i) + 1, every fourth guarded by an IfThenElse and
 * every eighth wrapped in a LetStmt. Used by the benchmarks (construction, structural hash,
 * JSON) and by the tests.
 */
tvm_tir_prim_func_obj* tvm_tir_testing_make_large_func(int64_t n);

/*
 * C[m, n] += A[m, k] * B[k, n] as an SBlock with init, over float32 buffers. `tag` suffixes
 * every variable and buffer name (so two calls with different tags are alpha-equivalent);
 * the loop extents are the shapes.
 */
tvm_tir_prim_func_obj* tvm_tir_testing_make_matmul(const char* tag, int64_t m, int64_t n,
                                                   int64_t k);

#endif /* TVM_TESTS_TIR_TIR_TESTING_H_ */
