/* codegen_baseline.c: the gcc -O3 -march=native baselines of codegen_bench (CMakeLists.txt). */
#include "codegen_baseline.h"

__attribute__((noinline)) void cg_baseline_add(const float* restrict a, const float* restrict b,
                                               float* restrict c, int64_t n) {
  for (int64_t e = 0; e < n; ++e) c[e] = a[e] + b[e];
}

__attribute__((noinline)) void cg_baseline_matmul(const float* restrict a,
                                                  const float* restrict b, float* restrict c,
                                                  int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    float* restrict crow = c + i * n;
    for (int64_t j = 0; j < n; ++j) crow[j] = 0.0f;
    for (int64_t k = 0; k < n; ++k) {
      float aik = a[i * n + k];
      const float* restrict brow = b + k * n;
      for (int64_t j = 0; j < n; ++j) crow[j] += aik * brow[j];
    }
  }
}

__attribute__((noinline)) void cg_baseline_matmul_tiled(const float* restrict a,
                                                        const float* restrict b,
                                                        float* restrict c, int64_t n) {
  for (int64_t io = 0; io < n; io += CG_TILE_I) {
    for (int64_t jo = 0; jo < n; jo += CG_TILE_J) {
      for (int64_t i = io; i < io + CG_TILE_I; ++i)
        for (int64_t j = jo; j < jo + CG_TILE_J; ++j) c[i * n + j] = 0.0f;
      for (int64_t ko = 0; ko < n; ko += CG_TILE_K) {
        for (int64_t i = io; i < io + CG_TILE_I; ++i) {
          for (int64_t k = ko; k < ko + CG_TILE_K; ++k) {
            float aik = a[i * n + k];
            for (int64_t j = jo; j < jo + CG_TILE_J; ++j) c[i * n + j] += aik * b[k * n + j];
          }
        }
      }
    }
  }
}
