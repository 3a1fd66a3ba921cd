/* bench_util.h: timing helpers shared by the benchmarks (median of repeated runs). */
#ifndef TVM_BENCH_BENCH_UTIL_H_
#define TVM_BENCH_BENCH_UTIL_H_

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline double bench_now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static inline int bench_cmp_double(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

/* Median over `repeats` runs of the per-iteration time of BODY executed `iters` times. */
#define BENCH_MEDIAN_NS(out, repeats, iters, BODY)                    \
  do {                                                                \
    double samples_[64];                                              \
    int reps_ = (repeats) > 64 ? 64 : (repeats);                      \
    for (int r_ = 0; r_ < reps_; ++r_) {                              \
      double t0_ = bench_now_ns();                                    \
      for (long i_ = 0; i_ < (long)(iters); ++i_) {                   \
        BODY;                                                         \
      }                                                               \
      samples_[r_] = (bench_now_ns() - t0_) / (double)(iters);        \
    }                                                                 \
    qsort(samples_, (size_t)reps_, sizeof(double), bench_cmp_double); \
    (out) = samples_[reps_ / 2];                                      \
  } while (0)

/* Keep a value alive so the compiler cannot drop the computation. */
#define BENCH_KEEP(x) __asm__ volatile("" : : "g"(x) : "memory")

#endif /* TVM_BENCH_BENCH_UTIL_H_ */
