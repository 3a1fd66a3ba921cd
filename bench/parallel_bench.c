/*
 * parallel_bench.c: the thread pool's cost per parallel launch (libtvmffi env.c,
 * tvm_ffi_parallel_launch), the way compiled kernels use it: one task per pool thread.
 *
 *   parallel_bench [--threads N]    (default: TVM_NUM_THREADS, else 2)
 *
 * Rows:
 *   - empty launches back to back: the launch + wake + join cost with nothing to do;
 *   - launches whose tasks each do W us of work, back to back: wall time against running the
 *     same tasks serially on one thread (the speed-up a kernel of that size gets);
 *   - empty launches separated by G us of serial work on the calling thread (the gaps between
 *     parallel kernels of one inference: VM overhead, serial kernels): whether the workers are
 *     still awake when the next launch comes.
 * Each row gives wall us per launch, the process's CPU us per launch (user + system: what
 * spinning workers cost the machine) and its voluntary context switches per launch (threads
 * going to sleep: independent of how loaded the machine is). Median of 7 runs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <tvm/ffi/ffi.h>

#include "bench_util.h"

static volatile double g_sink;

/* About `iters` dependent multiply-adds (a fixed amount of work per task). */
static void work(long iters) {
  double x = 1.0;
  for (long i = 0; i < iters; ++i) x = x * 0.999999 + 1e-7;
  g_sink = x;
}

typedef struct {
  long iters;
} job_arg;

static int task(int task_id, int num_tasks, void* closure) {
  (void)task_id, (void)num_tasks;
  work(((const job_arg*)closure)->iters);
  return 0;
}

/* CPU ns of the process (every thread), and its voluntary context switches (a thread going
 * to sleep) in *sleeps. */
static double cpu_ns(double* sleeps) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  *sleeps = (double)u.ru_nvcsw;
  return ((double)u.ru_utime.tv_sec + (double)u.ru_stime.tv_sec) * 1e9 +
         ((double)u.ru_utime.tv_usec + (double)u.ru_stime.tv_usec) * 1e3;
}

/* Median over 7 runs of (wall, cpu ns, sleeps) per launch of `n` launches, each after `gap`
 * iterations of serial work; serial: the tasks run one after another on this thread instead. */
static void measure(long iters, long gap, int n, int threads, bool serial, double* wall,
                    double* cpu, double* sleeps) {
  double ws[7], cs[7], ss[7];
  job_arg a = {iters};
  for (int r = 0; r < 7; ++r) {
    double s0, s1;
    double c0 = cpu_ns(&s0), t0 = bench_now_ns();
    for (int i = 0; i < n; ++i) {
      if (gap) work(gap);
      if (serial) {
        for (int t = 0; t < threads; ++t) task(t, threads, &a);
      } else if (tvm_ffi_parallel_launch(task, &a, 0) != 0) {
        fprintf(stderr, "parallel_bench: launch failed\n");
        exit(1);
      }
    }
    ws[r] = (bench_now_ns() - t0) / n;
    cs[r] = (cpu_ns(&s1) - c0) / n;
    ss[r] = (s1 - s0) / n;
  }
  qsort(ws, 7, sizeof(double), bench_cmp_double);
  qsort(cs, 7, sizeof(double), bench_cmp_double);
  qsort(ss, 7, sizeof(double), bench_cmp_double);
  *wall = ws[3];
  *cpu = cs[3];
  *sleeps = ss[3];
}

int main(int argc, char** argv) {
  if (argc == 3 && strcmp(argv[1], "--threads") == 0) {
    setenv("TVM_NUM_THREADS", argv[2], 1);
  } else if (argc != 1) {
    fprintf(stderr, "usage: parallel_bench [--threads N]\n");
    return 2;
  } else if (!getenv("TVM_NUM_THREADS")) {
    setenv("TVM_NUM_THREADS", "2", 1);
  }
  int threads = tvm_ffi_parallel_num_threads();
  /* calibrate: iterations per us (the fastest of 9 runs: a loaded machine only slows runs) */
  double best = 1e30;
  for (int r = 0; r < 9; ++r) {
    double t0 = bench_now_ns();
    work(200000);
    double t = bench_now_ns() - t0;
    if (t < best) best = t;
  }
  double per_us = 200000.0 / (best / 1e3);
  tvm_ffi_parallel_launch(task, &(job_arg){0}, 0); /* start the pool */

  printf("thread pool: %d threads (tvm_ffi_parallel_launch, one task per thread)\n", threads);
  printf("%-34s %10s %10s %10s %10s\n", "row", "wall us", "cpu us", "sleeps", "speed-up");
  double w, c, s, ws, cs, ss;
  measure(0, 0, 20000, threads, false, &w, &c, &s);
  printf("%-34s %10.2f %10.2f %10.3f %10s\n", "empty launch, back to back", w / 1e3, c / 1e3, s,
         "");
  static const double kWork[] = {1, 5, 20, 100};
  for (size_t k = 0; k < sizeof(kWork) / sizeof(kWork[0]); ++k) {
    long it = (long)(kWork[k] * per_us);
    int n = (int)(200000.0 / (kWork[k] * threads + 5));
    measure(it, 0, n, threads, false, &w, &c, &s);
    measure(it, 0, n, threads, true, &ws, &cs, &ss);
    char row[64];
    snprintf(row, sizeof(row), "tasks of %g us each", kWork[k]);
    printf("%-34s %10.2f %10.2f %10.3f %9.2fx\n", row, w / 1e3, c / 1e3, s, ws / w);
  }
  static const double kGap[] = {5, 50, 500};
  for (size_t k = 0; k < sizeof(kGap) / sizeof(kGap[0]); ++k) {
    long g = (long)(kGap[k] * per_us);
    int n = (int)(200000.0 / (kGap[k] + 5));
    measure(0, g, n, threads, false, &w, &c, &s);
    measure(0, g, n, threads, true, &ws, &cs, &ss);
    char row[64];
    snprintf(row, sizeof(row), "empty launch after %g us serial", kGap[k]);
    printf("%-34s %10.2f %10.2f %10.3f %10s\n", row, (w - ws) / 1e3, (c - cs) / 1e3, s - ss, "");
  }
  printf(
      "(sleeps: voluntary context switches per launch; after-gap rows: minus the gap's own;\n"
      " cpu counts every thread)\n");
  return 0;
}
