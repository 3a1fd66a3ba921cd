/*
 * thread_pool.c: the parallel runtime (tvm_ffi_parallel_launch) and upstream's
 * TVMBackendParallelLaunch over it.
 *
 * A pool of TVM_NUM_THREADS - 1 workers (default: the cores this process may run on) is
 * started on first use. Compiled kernels launch one job per parallel loop, one task per pool
 * thread, many times per inference, so the design keeps a launch to a few stores and loads
 * while the workers are awake, and never makes the caller wait for a worker that has not
 * started one of its tasks:
 *
 * - A job is published in the pool's fields (fn, closure, num_tasks, the failure record) and
 *   the claim word, (generation << 32) | next task, then the generation word is bumped.
 * - Tasks are claimed by compare-and-swap on the claim word. The caller runs task 0, then
 *   claims like any worker; a worker that wakes late finds the tasks taken and goes back to
 *   waiting. A worker reads the job's fields after loading the claim word and runs a task only
 *   if its swap on that same word succeeds: the job cannot have ended (and its fields cannot
 *   have been overwritten by the next job) while one of its tasks was unclaimed.
 * - The caller waits until the done count reaches num_tasks, not for the workers to check in.
 * - Waiting (a worker for the next job, the caller for the last task) first spins for a while
 *   (TVM_THREAD_SPIN_US, default 200 us; pause instructions, then sched_yield between checks
 *   so that an oversubscribed machine runs other threads), then sleeps on a futex. Kernels of
 *   one inference follow each other within microseconds, so the workers stay awake across an
 *   inference and a launch costs no system call; an idle process sleeps.
 * - The generation, claim and done words and the job's fields are on separate cache lines
 *   (the spinning workers read the generation; every finishing task writes done).
 *
 * Launches from inside a task, or while another thread holds the pool, run serially in the
 * calling thread (no deadlock, no oversubscription). The first failure (by task id) wins: its
 * error is moved off the thread that raised it and re-raised on the caller's. Workers are
 * joined at exit; a forked child starts a pool of its own.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define MAX_THREADS 1024    /* TVM_NUM_THREADS and the core count are clamped to this */
#define DEFAULT_SPIN_US 200 /* how long a waiting thread spins before it sleeps */
#define MAX_SPIN_US 1000000 /* TVM_THREAD_SPIN_US is clamped to this */
#define PAUSE_ONLY_NS 2000  /* spin on pause alone this long, then yield between checks */

/* Failure of a job: the lowest failed task id's code and error (g_pool.fail_lock). */
typedef struct {
  int task; /* INT_MAX if none */
  int rc;
  void* err; /* its error, moved from the thread that ran it */
} par_failure;

#define CACHE_LINE 64

static struct {
  /* The current job's fields, written by the launcher before it publishes the claim word and
   * read (relaxed) by the workers after loading it. */
  _Alignas(CACHE_LINE) tvm_ffi_parallel_fn fn;
  void* closure;
  int num_tasks;
  par_failure* fail;
  /* (generation << 32) | the next task to claim */
  _Alignas(CACHE_LINE) uint64_t claim;
  /* futex word: the last published generation (bumped at shutdown too) */
  _Alignas(CACHE_LINE) uint32_t gen;
  int sleepers; /* workers in, or about to enter, the futex wait on gen */
  int shutdown;
  /* futex word: tasks of the current job finished */
  _Alignas(CACHE_LINE) uint32_t done;
  int caller_sleeping;                              /* the launcher waits on done in the futex */
  _Alignas(CACHE_LINE) pthread_mutex_t launch_lock; /* held by the launching thread */
  pthread_mutex_t fail_lock;
  pthread_t* threads;
  int num_workers;
  long spin_ns;
} g_pool = {.launch_lock = PTHREAD_MUTEX_INITIALIZER, .fail_lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_mutex_t g_pool_start_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_pool_started; /* atomic; reset in a forked child, whose pool has no threads */
static pthread_once_t g_threads_once = PTHREAD_ONCE_INIT;
static int g_num_threads;
static __thread bool t_in_parallel; /* inside a task: nested launches run serially */

/* ---- Pool size and spin time ------------------------------------------------------------ */

/* A decimal count (saturating at `max`), or -1 when unset or not a decimal. */
static long env_count(const char* name, long max) {
  const char* env = getenv(name);
  if (!env || !*env) return -1;
  long v = 0;
  const char* p = env;
  for (; *p >= '0' && *p <= '9'; ++p) {
    if (v <= max) v = v * 10 + (*p - '0');
  }
  if (*p != '\0') return -1;
  return v > max ? max : v;
}

static void compute_num_threads(void) {
  long v = env_count("TVM_NUM_THREADS", MAX_THREADS);
  int n = v > 0 ? (int)v : 0; /* anything else: the core count */
  if (n == 0) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0) n = CPU_COUNT(&set);
    if (n <= 0) {
      long c = sysconf(_SC_NPROCESSORS_ONLN);
      n = c > 0 ? (c > MAX_THREADS ? MAX_THREADS : (int)c) : 1;
    }
  }
  g_num_threads = n > MAX_THREADS ? MAX_THREADS : n;
}

int tvm_ffi_parallel_num_threads(void) {
  pthread_once(&g_threads_once, compute_num_threads);
  return g_num_threads;
}

/* ---- Waiting: spin, then sleep on a futex ------------------------------------------------ */

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  __asm__ volatile("yield" ::: "memory");
#endif
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void futex_wait(uint32_t* word, uint32_t expected) {
  syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, expected, NULL, NULL, 0);
}

static void futex_wake(uint32_t* word, int n) {
  syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* Spin until *word != value (true) or the spin time has passed (false). */
static bool spin_while_equal(const uint32_t* word, uint32_t value) {
  if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value) return true;
  long limit = g_pool.spin_ns;
  if (limit <= 0) return false;
  int64_t start = now_ns();
  for (unsigned i = 1;; ++i) {
    cpu_relax();
    if (__atomic_load_n(word, __ATOMIC_ACQUIRE) != value) return true;
    if ((i & 63) == 0) {
      int64_t spent = now_ns() - start;
      if (spent > limit) return false;
      if (spent > PAUSE_ONLY_NS) sched_yield();
    }
  }
}

/* ---- Jobs --------------------------------------------------------------------------------- */

/* Record a failed task: keep the lowest task id's code and error. Called on the thread that
 * ran the task, so the raised error is moved off that thread. */
static void record_failure(par_failure* f, int task, int rc) {
  void* err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  pthread_mutex_lock(&g_pool.fail_lock);
  if (task < f->task) {
    void* old = f->err;
    f->task = task;
    f->rc = rc;
    f->err = err;
    err = old;
  }
  pthread_mutex_unlock(&g_pool.fail_lock);
  tvm_ffi_release(err);
}

/* A finished task of the current job (num_tasks of them): the last one wakes a sleeping
 * launcher. */
static void task_done(int num_tasks) {
  uint32_t d = __atomic_add_fetch(&g_pool.done, 1, __ATOMIC_SEQ_CST);
  if (d == (uint32_t)num_tasks && __atomic_load_n(&g_pool.caller_sleeping, __ATOMIC_SEQ_CST))
    futex_wake(&g_pool.done, 1);
}

/* Claim and run tasks of the job of generation `gen` until none is left (or a newer job is
 * published). */
static void run_tasks(uint32_t gen) {
  for (;;) {
    uint64_t c = __atomic_load_n(&g_pool.claim, __ATOMIC_ACQUIRE);
    if ((uint32_t)(c >> 32) != gen) return;
    tvm_ffi_parallel_fn fn = __atomic_load_n(&g_pool.fn, __ATOMIC_RELAXED);
    void* closure = __atomic_load_n(&g_pool.closure, __ATOMIC_RELAXED);
    int num_tasks = __atomic_load_n(&g_pool.num_tasks, __ATOMIC_RELAXED);
    par_failure* fail = __atomic_load_n(&g_pool.fail, __ATOMIC_RELAXED);
    uint32_t t = (uint32_t)c;
    if (t >= (uint32_t)num_tasks) return;
    if (!__atomic_compare_exchange_n(&g_pool.claim, &c, c + 1, false, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      continue;
    /* Task t is ours: the job lives (and its fields stay) until we report it done. */
    int rc = fn((int)t, num_tasks, closure);
    if (rc != 0) record_failure(fail, (int)t, rc);
    task_done(num_tasks);
  }
}

static void* worker_main(void* arg) {
  (void)arg;
  t_in_parallel = true;
  /* A job published before this thread started is left to the launcher and the others. */
  uint32_t seen = (uint32_t)(__atomic_load_n(&g_pool.claim, __ATOMIC_ACQUIRE) >> 32);
  for (;;) {
    if (!spin_while_equal(&g_pool.gen, seen)) {
      __atomic_add_fetch(&g_pool.sleepers, 1, __ATOMIC_SEQ_CST);
      while (__atomic_load_n(&g_pool.gen, __ATOMIC_SEQ_CST) == seen) futex_wait(&g_pool.gen, seen);
      __atomic_sub_fetch(&g_pool.sleepers, 1, __ATOMIC_SEQ_CST);
    }
    if (__atomic_load_n(&g_pool.shutdown, __ATOMIC_ACQUIRE)) break;
    seen = __atomic_load_n(&g_pool.gen, __ATOMIC_ACQUIRE);
    run_tasks(seen);
  }
  return NULL;
}

/* Publish a new generation of g_pool.gen and wake the sleeping workers. */
static void bump_generation(uint32_t gen) {
  __atomic_store_n(&g_pool.gen, gen, __ATOMIC_SEQ_CST);
  if (__atomic_load_n(&g_pool.sleepers, __ATOMIC_SEQ_CST) > 0) futex_wake(&g_pool.gen, INT_MAX);
}

/* ---- Start, stop, fork -------------------------------------------------------------------- */

/* At exit: wake every worker with shutdown set and join it, so no thread outlives main. */
static void pool_stop(void) {
  __atomic_store_n(&g_pool.shutdown, 1, __ATOMIC_RELEASE);
  bump_generation(__atomic_load_n(&g_pool.gen, __ATOMIC_RELAXED) + 1);
  for (int i = 0; i < g_pool.num_workers; ++i) pthread_join(g_pool.threads[i], NULL);
  tvm_ffi_free(g_pool.threads);
  g_pool.threads = NULL;
  g_pool.num_workers = 0;
}

/* In a forked child only the forking thread exists: forget the parent's workers (and any lock
 * state copied mid-use) so the next launch starts a fresh pool. */
static void pool_after_fork_child(void) {
  tvm_ffi_free(g_pool.threads);
  g_pool.threads = NULL;
  g_pool.num_workers = 0;
  g_pool.shutdown = 0;
  g_pool.sleepers = 0;
  g_pool.caller_sleeping = 0;
  pthread_mutex_init(&g_pool.launch_lock, NULL);
  pthread_mutex_init(&g_pool.fail_lock, NULL);
  pthread_mutex_init(&g_pool_start_lock, NULL);
  g_pool_started = 0;
}

static void pool_start(void) {
  long spin_us = env_count("TVM_THREAD_SPIN_US", MAX_SPIN_US);
  g_pool.spin_ns = (spin_us >= 0 ? spin_us : DEFAULT_SPIN_US) * 1000;
  int want = tvm_ffi_parallel_num_threads() - 1;
  if (want <= 0) return;
  g_pool.threads = (pthread_t*)tvm_ffi_malloc((size_t)want * sizeof(pthread_t));
  if (!g_pool.threads) {
    tvm_ffi_error_clear(); /* run serially instead */
    return;
  }
  /* Workers block all signals: they belong to the application's own threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int n = 0;
  for (; n < want; ++n) {
    if (pthread_create(&g_pool.threads[n], NULL, worker_main, NULL) != 0)
      break; /* run with the workers we have */
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  g_pool.num_workers = n;
  static bool hooks_installed;
  if (!hooks_installed) {
    hooks_installed = true;
    atexit(pool_stop);
    pthread_atfork(NULL, NULL, pool_after_fork_child);
  }
}

static void pool_ensure_started(void) {
  if (__atomic_load_n(&g_pool_started, __ATOMIC_ACQUIRE)) return;
  pthread_mutex_lock(&g_pool_start_lock);
  if (!g_pool_started) {
    pool_start();
    __atomic_store_n(&g_pool_started, 1, __ATOMIC_RELEASE);
  }
  pthread_mutex_unlock(&g_pool_start_lock);
}

/* ---- Launch ------------------------------------------------------------------------------- */

/* Run tasks one after another on this thread; stops at the first failure. */
static int run_serial(tvm_ffi_parallel_fn fn, void* closure, int num_tasks) {
  for (int t = 0; t < num_tasks; ++t) {
    int rc = fn(t, num_tasks, closure);
    if (rc != 0) {
      if (!tvm_ffi_error_pending()) {
        tvm_ffi_raise("RuntimeError", "parallel task %d of %d failed with code %d", t, num_tasks,
                      rc);
      }
      return rc;
    }
  }
  return 0;
}

/* Wait (spin, then sleep) until every task of the current job is done. */
static void wait_done(int num_tasks) {
  uint32_t d;
  while ((d = __atomic_load_n(&g_pool.done, __ATOMIC_ACQUIRE)) != (uint32_t)num_tasks) {
    if (spin_while_equal(&g_pool.done, d)) continue;
    __atomic_store_n(&g_pool.caller_sleeping, 1, __ATOMIC_SEQ_CST);
    while ((d = __atomic_load_n(&g_pool.done, __ATOMIC_SEQ_CST)) != (uint32_t)num_tasks)
      futex_wait(&g_pool.done, d);
    __atomic_store_n(&g_pool.caller_sleeping, 0, __ATOMIC_RELAXED);
  }
}

int tvm_ffi_parallel_launch(tvm_ffi_parallel_fn fn, void* closure, int num_tasks) {
  if (!fn) return tvm_ffi_raise("ValueError", "tvm_ffi_parallel_launch: fn is NULL");
  if (num_tasks < 0) {
    return tvm_ffi_raise("ValueError", "tvm_ffi_parallel_launch: num_tasks %d is negative",
                         num_tasks);
  }
  if (num_tasks == 0) num_tasks = tvm_ffi_parallel_num_threads();
  if (num_tasks == 1 || t_in_parallel) return run_serial(fn, closure, num_tasks);
  pool_ensure_started();
  if (g_pool.num_workers == 0 || pthread_mutex_trylock(&g_pool.launch_lock) != 0) {
    return run_serial(fn, closure, num_tasks);
  }
  par_failure fail = {.task = INT_MAX};
  /* Publish: the fields, then the claim word (task 0 is the caller's), then the generation.
   * The previous job is over (every task done), so no worker reads the fields now. */
  uint32_t gen = __atomic_load_n(&g_pool.gen, __ATOMIC_RELAXED) + 1;
  __atomic_store_n(&g_pool.fn, fn, __ATOMIC_RELAXED);
  __atomic_store_n(&g_pool.closure, closure, __ATOMIC_RELAXED);
  __atomic_store_n(&g_pool.num_tasks, num_tasks, __ATOMIC_RELAXED);
  __atomic_store_n(&g_pool.fail, &fail, __ATOMIC_RELAXED);
  __atomic_store_n(&g_pool.done, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&g_pool.claim, ((uint64_t)gen << 32) | 1u, __ATOMIC_RELEASE);
  bump_generation(gen);

  t_in_parallel = true;
  int rc0 = fn(0, num_tasks, closure);
  if (rc0 != 0) record_failure(&fail, 0, rc0);
  task_done(num_tasks);
  run_tasks(gen);
  t_in_parallel = false;
  wait_done(num_tasks);
  pthread_mutex_unlock(&g_pool.launch_lock);

  if (fail.task == INT_MAX) return 0;
  if (fail.err) {
    TVMFFIErrorSetRaised(fail.err);
    tvm_ffi_release(fail.err);
  } else {
    tvm_ffi_raise("RuntimeError", "parallel task %d of %d failed with code %d", fail.task,
                  num_tasks, fail.rc);
  }
  return fail.rc;
}

/* ==== TVMBackendParallelLaunch ============================================================ */
/* Upstream TVM's types (include/tvm/runtime/c_backend_api.h); sync_handle serves
 * TVMBackendParallelBarrier, which this runtime does not provide (it is NULL). */
typedef struct {
  void* sync_handle;
  int32_t num_task;
} backend_group_env;
typedef int (*backend_lambda)(int task_id, backend_group_env* penv, void* cdata);

typedef struct {
  backend_lambda flambda;
  void* cdata;
} backend_job;

static int backend_task(int task_id, int num_tasks, void* closure) {
  const backend_job* job = (const backend_job*)closure;
  backend_group_env env = {NULL, num_tasks};
  return job->flambda(task_id, &env, job->cdata);
}

/* int TVMBackendParallelLaunch(FTVMParallelLambda, void* cdata, int num_task): 0, or the failed
 * task's code with its error raised on the caller (num_task 0 = the pool size). */
static int backend_parallel_launch(backend_lambda flambda, void* cdata, int num_task) {
  if (!flambda) return tvm_ffi_raise("ValueError", "TVMBackendParallelLaunch: flambda is NULL");
  backend_job job = {flambda, cdata};
  return tvm_ffi_parallel_launch(backend_task, &job, num_task);
}

void tvm_ffi__init_thread_pool(void) {
  void* launch = (void*)backend_parallel_launch;
  /* Allocation failure at start-up leaves loaded libraries' parallel loops serial. */
  if (TVMFFIEnvModRegisterContextSymbol("__TVMBackendParallelLaunch", launch) != 0 ||
      TVMFFIEnvRegisterCAPI("TVMBackendParallelLaunch", launch) != 0)
    tvm_ffi_error_clear();
}
