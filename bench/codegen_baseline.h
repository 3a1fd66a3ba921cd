/* codegen_baseline.h: the C baselines of codegen_bench, compiled with -O3 -march=native in
 * codegen_baseline.c (noinline, so the benchmark times exactly these loops). */
#ifndef TVM_BENCH_CODEGEN_BASELINE_H_
#define TVM_BENCH_CODEGEN_BASELINE_H_

#include <stdint.h>

/* Tile sizes of the scheduled matmul, shared with the TIR kernel built in codegen_bench.c. */
enum { CG_TILE_I = 64, CG_TILE_J = 256, CG_TILE_K = 64 };

/* c[e] = a[e] + b[e] for e < n. */
void cg_baseline_add(const float* restrict a, const float* restrict b, float* restrict c,
                     int64_t n);
/* Row-major n x n: C = A * B in loop order i, k, j (j innermost, contiguous in B and C). */
void cg_baseline_matmul(const float* restrict a, const float* restrict b, float* restrict c,
                        int64_t n);
/* The same product tiled: (i, j) blocks of CG_TILE_I x CG_TILE_J, k in CG_TILE_K steps outside
 * the rows of the block, j innermost; n a multiple of the tile sizes. */
void cg_baseline_matmul_tiled(const float* restrict a, const float* restrict b,
                              float* restrict c, int64_t n);

#endif /* TVM_BENCH_CODEGEN_BASELINE_H_ */
