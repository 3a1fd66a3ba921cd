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

/* A block named "m" with the given match_buffers (an Array/List of MatchBufferRegion) and
 * body, realized with no iter vars. Takes both arguments. */
void* tvm_tir_testing_block_with_matches(void* match_buffers, void* body);

/*
 * Three aliases of A (int32, shape (4, 6)): S (2, 3) = A[1:3, 2:5]; S2 (3,) = A[3:4, 0:3]
 * (fewer dimensions); S3 (1, 2) = A[2:3, 4:6] with symbolic strides (s0, s1) and elem_offset
 * off, which the match binds. match_buffers lists the three MatchBufferRegions.
 */
typedef struct {
  tvm_tir_buffer_obj *A, *S, *S2, *S3;
  tvm_tir_var_obj *off, *s0, *s1;
  void* match_buffers;
} tvm_tir_testing_aliases;
/* Fills *out (every member a new reference); 0, or -1 with an error raised and *out empty. */
int tvm_tir_testing_make_aliases(tvm_tir_testing_aliases* out);
void tvm_tir_testing_aliases_release(tvm_tir_testing_aliases* a);

#endif /* TVM_TESTS_TIR_TIR_TESTING_H_ */
