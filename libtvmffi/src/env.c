/*
 * env.c: the environment half of the ABI (extra/c_env_api.h) and the parallel runtime.
 *
 * - Streams: per thread, per (device_type, device_id). A fixed table covers the common case
 *   (device types < STREAM_TYPES, ids < STREAM_IDS) without allocating; other pairs go to a
 *   per-thread list freed when the thread exits.
 * - DLPack allocator: a per-thread override, else the process-wide one, else ours (CPU only,
 *   64-byte aligned data, DLPack 1.1 versioned tensors with compact strides).
 * - C API registry: host-provided symbols by name (TVMFFIEnvRegisterCAPI).
 * - Parallel launch: a pool of TVM_NUM_THREADS - 1 workers (default: the cores this process
 *   may run on) started on first use. A launch publishes its job and bumps a generation
 *   counter under the pool mutex; idle workers spin briefly on the generation
 *   (TVM_THREAD_SPIN_US, default 50), then sleep on a condition variable. The caller runs
 *   task 0 and then claims tasks like any worker, so any number of tasks runs on any pool size;
 *   it waits only for the workers that joined its job (same spin, then sleep). Launches from inside a task, or while another thread holds the pool, run
 *   serially in the calling thread (no deadlock, no oversubscription). The first failure (by
 *   task id) wins: its error is moved off the thread that raised it and re-raised on the
 *   caller's. Workers are joined at exit; a forked child starts a pool of its own.
 * - TVMBackendParallelLaunch: upstream TVM's backend entry point for parallel loops, adapted
 *   over the pool and registered at init as the context symbol "__TVMBackendParallelLaunch"
 *   (written into that pointer variable of every library loaded afterwards, as upstream's
 *   runtime does) and as the C API "TVMBackendParallelLaunch" (for in-process JITs).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

/* ==== Streams ============================================================================ */

#define STREAM_TYPES 20 /* DLPack device types run up to kDLTrn = 18 */
#define STREAM_IDS 8

typedef struct {
  int32_t device_type;
  int32_t device_id;
  TVMFFIStreamHandle stream;
} stream_entry;

typedef struct {
  TVMFFIStreamHandle fixed[STREAM_TYPES][STREAM_IDS];
  stream_entry* extra; /* pairs outside the fixed table; tvm_ffi_malloc'd */
  size_t extra_size;
  size_t extra_cap;
} stream_table;

static __thread stream_table t_streams;
static pthread_key_t g_streams_key;
static pthread_once_t g_streams_key_once = PTHREAD_ONCE_INIT;

/* Runs at thread exit for threads that used the extra list. */
static void free_stream_extra(void* table) {
  stream_table* t = (stream_table*)table;
  tvm_ffi_free(t->extra);
  t->extra = NULL;
  t->extra_size = t->extra_cap = 0;
}

static void make_streams_key(void) { pthread_key_create(&g_streams_key, free_stream_extra); }

static stream_entry* find_extra(int32_t device_type, int32_t device_id) {
  for (size_t i = 0; i < t_streams.extra_size; ++i) {
    stream_entry* e = &t_streams.extra[i];
    if (e->device_type == device_type && e->device_id == device_id) return e;
  }
  return NULL;
}

int TVMFFIEnvSetStream(int32_t device_type, int32_t device_id, TVMFFIStreamHandle stream,
                       TVMFFIStreamHandle* opt_out_original_stream) {
  if (device_type < 0 || device_id < 0) {
    return tvm_ffi_raise("ValueError", "TVMFFIEnvSetStream: invalid device (type %d, id %d)",
                         (int)device_type, (int)device_id);
  }
  TVMFFIStreamHandle* slot;
  if (device_type < STREAM_TYPES && device_id < STREAM_IDS) {
    slot = &t_streams.fixed[device_type][device_id];
  } else {
    stream_entry* e = find_extra(device_type, device_id);
    if (!e) {
      if (t_streams.extra_size == t_streams.extra_cap) {
        size_t cap = t_streams.extra_cap ? 2 * t_streams.extra_cap : 4;
        stream_entry* grown =
            (stream_entry*)tvm_ffi_realloc(t_streams.extra, cap * sizeof(stream_entry));
        if (!grown) return -1;
        if (!t_streams.extra) {
          /* First use on this thread: arrange for the list to be freed at thread exit. */
          pthread_once(&g_streams_key_once, make_streams_key);
          pthread_setspecific(g_streams_key, &t_streams);
        }
        t_streams.extra = grown;
        t_streams.extra_cap = cap;
      }
      e = &t_streams.extra[t_streams.extra_size++];
      e->device_type = device_type;
      e->device_id = device_id;
      e->stream = NULL;
    }
    slot = &e->stream;
  }
  if (opt_out_original_stream) *opt_out_original_stream = *slot;
  *slot = stream;
  return 0;
}

TVMFFIStreamHandle TVMFFIEnvGetStream(int32_t device_type, int32_t device_id) {
  if (device_type < 0 || device_id < 0) return NULL;
  if (device_type < STREAM_TYPES && device_id < STREAM_IDS) {
    return t_streams.fixed[device_type][device_id];
  }
  stream_entry* e = find_extra(device_type, device_id);
  return e ? e->stream : NULL;
}

/* ==== DLPack tensor allocator ============================================================ */

static const char* device_name(int32_t device_type) {
  switch (device_type) {
    case kDLCPU: return "cpu";
    case kDLCUDA: return "cuda";
    case kDLCUDAHost: return "cuda_host";
    case kDLOpenCL: return "opencl";
    case kDLVulkan: return "vulkan";
    case kDLMetal: return "metal";
    case kDLVPI: return "vpi";
    case kDLROCM: return "rocm";
    case kDLROCMHost: return "rocm_host";
    case kDLExtDev: return "ext_dev";
    case kDLCUDAManaged: return "cuda_managed";
    case kDLOneAPI: return "oneapi";
    case kDLWebGPU: return "webgpu";
    case kDLHexagon: return "hexagon";
    case kDLMAIA: return "maia";
    case kDLTrn: return "trn";
    default: return NULL;
  }
}

/* Hand the error raised on this thread to an allocator's SetError callback. */
static void report_raised(void* error_ctx, void (*set_error)(void*, const char*, const char*)) {
  void* err = tvm_ffi_error_take();
  if (set_error) {
    set_error(error_ctx, err ? tvm_ffi_error_kind(err) : "MemoryError",
              err ? tvm_ffi_error_message(err) : "out of memory");
  }
  tvm_ffi_release(err);
}

/* The default allocator's tensors: one block { DLManagedTensorVersioned, shape, strides };
 * manager_ctx is the data block. */
static void cpu_tensor_deleter(DLManagedTensorVersioned* self) {
  tvm_ffi_free(self->manager_ctx);
  tvm_ffi_free(self);
}

static int cpu_allocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                         void (*set_error)(void* error_ctx, const char* kind,
                                           const char* message)) {
  if (!prototype || !out) {
    if (set_error) set_error(error_ctx, "ValueError", "DLPack allocator: prototype or out is NULL");
    return -1;
  }
  *out = NULL;
  if (prototype->device.device_type != kDLCPU) {
    const char* name = device_name(prototype->device.device_type);
    tvm_ffi_strbuf b = {0};
    tvm_ffi_strbuf_printf(&b, "no allocator for device ");
    if (name) tvm_ffi_strbuf_puts(&b, name);
    else tvm_ffi_strbuf_printf(&b, "type %d", (int)prototype->device.device_type);
    tvm_ffi_strbuf_printf(&b,
                          ":%d: the default DLPack allocator of libtvmffi only allocates CPU "
                          "memory; install one with TVMFFIEnvSetDLPackManagedTensorAllocator",
                          (int)prototype->device.device_id);
    if (set_error) set_error(error_ctx, "RuntimeError", tvm_ffi_strbuf_cstr(&b));
    tvm_ffi_strbuf_free(&b);
    return -1;
  }
  int32_t ndim = prototype->ndim;
  const int64_t* strides = prototype->strides;
  const char* bad = NULL;
  if (ndim < 0 || (ndim > 0 && !prototype->shape)) {
    bad = "DLPack allocator: the prototype has a negative ndim or no shape";
  }
  for (int32_t i = 0; !bad && i < ndim; ++i) {
    if (prototype->shape[i] < 0) bad = "DLPack allocator: the prototype has a negative dimension";
    if (strides && strides[i] < 0) bad = "DLPack allocator: the prototype has a negative stride";
  }
  if (!bad && (prototype->dtype.bits == 0 || prototype->dtype.lanes == 0)) {
    bad = "DLPack allocator: the prototype's data type has no size";
  }
  if (bad) {
    if (set_error) set_error(error_ctx, "ValueError", bad);
    return -1;
  }
  /* Bytes to allocate: those of numel elements when compact; with strides, those of the
   * elements the layout spans, 1 + sum(stride * (dim - 1)), or none when a dim is 0.
   * tvm_ffi_dltensor_nbytes checks overflow. */
  DLTensor sizing = *prototype;
  int64_t span = 1;
  if (strides) {
    for (int32_t i = 0; i < ndim; ++i) {
      int64_t step;
      if (prototype->shape[i] == 0) {
        span = 0;
        break;
      }
      if (__builtin_mul_overflow(strides[i], prototype->shape[i] - 1, &step) ||
          __builtin_add_overflow(span, step, &span)) {
        if (set_error) {
          set_error(error_ctx, "ValueError",
                    "DLPack allocator: the strided layout overflows int64");
        }
        return -1;
      }
    }
    sizing.ndim = 1;
    sizing.shape = &span;
  }
  int64_t nbytes = tvm_ffi_dltensor_nbytes(&sizing);
  if (nbytes < 0) {
    report_raised(error_ctx, set_error);
    return -1;
  }
  /* Compact strides can overflow even when numel does not (a zero dim hides the others). */
  for (int64_t i = ndim - 1, s = 1; i > 0 && !strides; --i) {
    if (__builtin_mul_overflow(s, prototype->shape[i] > 0 ? prototype->shape[i] : 1, &s)) {
      if (set_error) {
        set_error(error_ctx, "ValueError", "DLPack allocator: the strides overflow int64");
      }
      return -1;
    }
  }
  size_t head = sizeof(DLManagedTensorVersioned) + 2 * (size_t)ndim * sizeof(int64_t);
  DLManagedTensorVersioned* m = (DLManagedTensorVersioned*)tvm_ffi_malloc(head);
  void* data = m ? tvm_ffi_aligned_alloc(64, (size_t)nbytes) : NULL;
  if (!data) {
    tvm_ffi_free(m);
    report_raised(error_ctx, set_error);
    return -1;
  }
  int64_t* shape = (int64_t*)(m + 1);
  int64_t* out_strides = shape + ndim;
  if (ndim) memcpy(shape, prototype->shape, (size_t)ndim * sizeof(int64_t));
  if (strides) {
    if (ndim) memcpy(out_strides, strides, (size_t)ndim * sizeof(int64_t));
  } else {
    int64_t s = 1; /* checked above */
    for (int32_t i = ndim - 1; i >= 0; --i) {
      out_strides[i] = s;
      if (i > 0) s *= shape[i] > 0 ? shape[i] : 1;
    }
  }
  m->version.major = 1;
  m->version.minor = 1;
  m->manager_ctx = data;
  m->deleter = cpu_tensor_deleter;
  m->flags = 0;
  m->dl_tensor.data = data;
  m->dl_tensor.device = prototype->device;
  m->dl_tensor.ndim = ndim;
  m->dl_tensor.dtype = prototype->dtype;
  m->dl_tensor.shape = shape;
  m->dl_tensor.strides = out_strides;
  m->dl_tensor.byte_offset = 0;
  *out = m;
  return 0;
}

static __thread DLPackManagedTensorAllocator t_allocator; /* NULL: use the global one */
static DLPackManagedTensorAllocator g_allocator;          /* NULL: use cpu_allocator */

DLPackManagedTensorAllocator TVMFFIEnvGetDLPackManagedTensorAllocator(void) {
  if (t_allocator) return t_allocator;
  DLPackManagedTensorAllocator g = __atomic_load_n(&g_allocator, __ATOMIC_ACQUIRE);
  return g ? g : cpu_allocator;
}

/* As upstream: the thread's allocator is always set (NULL clears the override); with
 * write_to_global_context the process-wide one too (NULL restores ours). The original is the
 * allocator this thread saw before the call. */
int TVMFFIEnvSetDLPackManagedTensorAllocator(
    DLPackManagedTensorAllocator allocator, int write_to_global_context,
    DLPackManagedTensorAllocator* opt_out_original_allocator) {
  DLPackManagedTensorAllocator current = TVMFFIEnvGetDLPackManagedTensorAllocator();
  if (write_to_global_context) __atomic_store_n(&g_allocator, allocator, __ATOMIC_RELEASE);
  t_allocator = allocator;
  if (opt_out_original_allocator) *opt_out_original_allocator = current;
  return 0;
}

/* SetError for allocators called by TVMFFIEnvTensorAlloc: raise here, note it in *error_ctx. */
static void raise_from_allocator(void* error_ctx, const char* kind, const char* message) {
  *(int*)error_ctx = 1;
  TVMFFIErrorSetRaisedFromCStr(kind ? kind : "RuntimeError", message ? message : "");
}

int TVMFFIEnvTensorAlloc(DLTensor* prototype, TVMFFIObjectHandle* out) {
  static const char fname[] = "TVMFFIEnvTensorAlloc";
  if (!out) return tvm_ffi_raise("ValueError", "%s: out is NULL", fname);
  *out = NULL;
  if (!prototype) return tvm_ffi_raise("ValueError", "%s: prototype is NULL", fname);
  if (prototype->ndim < 0) {
    return tvm_ffi_raise("ValueError", "%s: ndim %d is negative", fname, (int)prototype->ndim);
  }
  if (prototype->ndim > 0 && !prototype->shape) {
    return tvm_ffi_raise("ValueError", "%s: shape is NULL", fname);
  }
  for (int32_t i = 0; i < prototype->ndim; ++i) {
    if (prototype->shape[i] < 0) {
      return tvm_ffi_raise("ValueError", "%s: dimension %d has negative extent %lld", fname,
                           (int)i, (long long)prototype->shape[i]);
    }
  }
  DLPackManagedTensorAllocator alloc = TVMFFIEnvGetDLPackManagedTensorAllocator();
  DLManagedTensorVersioned* m = NULL;
  int reported = 0;
  int rc = alloc(prototype, &m, &reported, raise_from_allocator);
  if (rc != 0) {
    if (!reported) {
      tvm_ffi_raise("RuntimeError", "%s: the allocator failed (code %d) without an error", fname,
                    rc);
    }
    return -1;
  }
  if (!m) return tvm_ffi_raise("RuntimeError", "%s: the allocator returned no tensor", fname);
  /* A tensor that does not match the request would be misused by the caller. */
  const DLTensor* got = &m->dl_tensor;
  bool same = got->ndim == prototype->ndim &&
              tvm_ffi_dtype_equal(got->dtype, prototype->dtype) &&
              got->device.device_type == prototype->device.device_type &&
              got->device.device_id == prototype->device.device_id &&
              (got->ndim == 0 ||
               (got->shape && memcmp(got->shape, prototype->shape,
                                     (size_t)got->ndim * sizeof(int64_t)) == 0));
  if (!same) {
    if (m->deleter) m->deleter(m);
    return tvm_ffi_raise("RuntimeError",
                         "%s: the allocator returned a tensor whose shape, dtype or device "
                         "differs from the prototype",
                         fname);
  }
  if (TVMFFITensorFromDLPackVersioned(m, 0, 0, out) != 0) {
    if (m->deleter) m->deleter(m); /* ownership stayed with us */
    return -1;
  }
  return 0;
}

/* ==== Host environment ==================================================================== */

int TVMFFIEnvCheckSignals(void) {
  /* No host interpreter owns signals here; a C host polls its own flags. */
  return 0;
}

typedef struct {
  char* name;
  void* symbol;
} capi_entry;

static pthread_mutex_t g_capi_lock = PTHREAD_MUTEX_INITIALIZER;
static capi_entry* g_capi;
static size_t g_capi_size, g_capi_cap;

int TVMFFIEnvRegisterCAPI(const char* name, void* symbol) {
  if (!name || !name[0]) return tvm_ffi_raise("ValueError", "TVMFFIEnvRegisterCAPI: empty name");
  int rc = 0;
  pthread_mutex_lock(&g_capi_lock);
  size_t i = 0;
  while (i < g_capi_size && strcmp(g_capi[i].name, name) != 0) ++i;
  if (i < g_capi_size) {
    g_capi[i].symbol = symbol; /* re-registration replaces */
  } else {
    if (g_capi_size == g_capi_cap) {
      size_t cap = g_capi_cap ? 2 * g_capi_cap : 8;
      capi_entry* grown = (capi_entry*)tvm_ffi_realloc(g_capi, cap * sizeof(capi_entry));
      if (grown) {
        g_capi = grown;
        g_capi_cap = cap;
      }
    }
    char* copy = g_capi_size < g_capi_cap ? tvm_ffi_strndup(name, strlen(name)) : NULL;
    if (copy) {
      g_capi[g_capi_size].name = copy;
      g_capi[g_capi_size].symbol = symbol;
      g_capi_size++;
    } else {
      rc = -1; /* MemoryError raised by the allocator */
    }
  }
  pthread_mutex_unlock(&g_capi_lock);
  return rc;
}

void* tvm_ffi_env_capi_lookup(const char* name) {
  if (!name) return NULL;
  void* found = NULL;
  pthread_mutex_lock(&g_capi_lock);
  for (size_t i = 0; i < g_capi_size; ++i) {
    if (strcmp(g_capi[i].name, name) == 0) {
      found = g_capi[i].symbol;
      break;
    }
  }
  pthread_mutex_unlock(&g_capi_lock);
  return found;
}

/* ==== Parallel launch ===================================================================== */

#define MAX_THREADS 1024   /* TVM_NUM_THREADS and the core count are clamped to this */
#define DEFAULT_SPIN_US 50 /* how long a waiting thread spins before it sleeps */
#define MAX_SPIN_US 10000  /* TVM_THREAD_SPIN_US is clamped to this */

/* One launch; lives on the launching thread's stack until every worker that joined it left. */
typedef struct {
  tvm_ffi_parallel_fn fn;
  void* closure;
  int num_tasks;
  int next_task;   /* atomic: the next task to claim */
  int max_workers; /* workers that may join (pool lock) */
  int joined;      /* workers that joined (pool lock) */
  int active;      /* workers that joined and have not left; written under the pool lock */
  int fail_task;   /* lowest failed task id, INT_MAX if none (pool lock) */
  int fail_rc;
  void* fail_err; /* its error, moved from the thread that ran it */
} par_job;

/* Handoff: the launcher publishes `job` and bumps `gen` together under `lock`; a worker waits
 * for gen != the generation it last saw, then (under `lock`) joins `job` if it is still open.
 * The launcher closes the job (job = NULL, under `lock`) once every task is claimed and waits
 * until the job's `active` count is 0. Every wait spins for at most spin_ns, reading the word
 * atomically, then sleeps on its condition variable in a predicate loop under `lock`. */
static struct {
  pthread_mutex_t lock;
  pthread_cond_t work_cv;      /* workers wait here for a new generation */
  pthread_cond_t done_cv;      /* the launcher waits here for its job's active count to reach 0 */
  pthread_mutex_t launch_lock; /* held by the thread that owns the pool for a launch */
  pthread_t* threads;
  int num_workers;
  int sleepers;        /* workers in pthread_cond_wait on work_cv (lock) */
  bool joiner_waiting; /* the launcher is in pthread_cond_wait on done_cv (lock) */
  bool shutdown;       /* lock */
  uint64_t start_gen;  /* gen when the workers were created: what they have seen */
  par_job* job;        /* the open job, or NULL (lock) */
  long spin_ns;
  /* Written under lock (atomically: spinning threads read it); on its own cache line, away
   * from the lock word that every launch writes. */
  _Alignas(64) uint64_t gen;
  char gen_pad[64 - sizeof(uint64_t)];
} g_pool = {.lock = PTHREAD_ADAPTIVE_MUTEX_INITIALIZER_NP,
            .work_cv = PTHREAD_COND_INITIALIZER,
            .done_cv = PTHREAD_COND_INITIALIZER,
            .launch_lock = PTHREAD_MUTEX_INITIALIZER};

static pthread_mutex_t g_pool_start_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_pool_started; /* atomic; reset in a forked child, whose pool has no threads */
static pthread_once_t g_threads_once = PTHREAD_ONCE_INIT;
static int g_num_threads;
static __thread bool t_in_parallel; /* inside a task: nested launches run serially */

/* A positive decimal from the environment, saturating at `max`; -1 when unset or not one. */
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

/* ---- Bounded spinning ------------------------------------------------------------------- */

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

static bool gen_moved(const void* seen) {
  return __atomic_load_n(&g_pool.gen, __ATOMIC_ACQUIRE) != *(const uint64_t*)seen;
}

static bool job_left(const void* job) {
  return __atomic_load_n(&((const par_job*)job)->active, __ATOMIC_ACQUIRE) == 0;
}

/* Check ready(arg) until it holds (true) or the spin time has passed (false). Only a shortcut:
 * callers re-check their predicate under the pool lock before they sleep. */
static bool spin_until(bool (*ready)(const void*), const void* arg) {
  if (ready(arg)) return true;
  long limit = g_pool.spin_ns;
  if (limit <= 0) return false;
  int64_t deadline = now_ns() + limit;
  for (;;) {
    for (int i = 0; i < 16; ++i) {
      cpu_relax();
      if (ready(arg)) return true;
    }
    if (now_ns() >= deadline) return false;
  }
}

/* ---- Jobs and workers ------------------------------------------------------------------- */

/* Record a failed task: keep the lowest task id's code and error. Called on the thread that
 * ran the task, so the raised error is moved off that thread. */
static void record_failure(par_job* job, int task, int rc) {
  void* err = NULL;
  TVMFFIErrorMoveFromRaised(&err);
  pthread_mutex_lock(&g_pool.lock);
  if (task < job->fail_task) {
    void* old = job->fail_err;
    job->fail_task = task;
    job->fail_rc = rc;
    job->fail_err = err;
    err = old;
  }
  pthread_mutex_unlock(&g_pool.lock);
  tvm_ffi_release(err);
}

static void run_tasks(par_job* job) {
  for (;;) {
    int t = __atomic_fetch_add(&job->next_task, 1, __ATOMIC_RELAXED);
    if (t >= job->num_tasks) break;
    int rc = job->fn(t, job->num_tasks, job->closure);
    if (rc != 0) record_failure(job, t, rc);
  }
}

static void* worker_main(void* arg) {
  (void)arg;
  t_in_parallel = true;
  uint64_t seen = g_pool.start_gen; /* written before this thread was created */
  for (;;) {
    spin_until(gen_moved, &seen);
    pthread_mutex_lock(&g_pool.lock);
    while (!g_pool.shutdown && __atomic_load_n(&g_pool.gen, __ATOMIC_RELAXED) == seen) {
      g_pool.sleepers++;
      pthread_cond_wait(&g_pool.work_cv, &g_pool.lock);
      g_pool.sleepers--;
    }
    if (g_pool.shutdown) break;
    seen = __atomic_load_n(&g_pool.gen, __ATOMIC_RELAXED);
    par_job* job = g_pool.job;
    /* Join only an open job with room and unclaimed tasks (a late worker has nothing to do). */
    if (job && (job->joined == job->max_workers ||
                __atomic_load_n(&job->next_task, __ATOMIC_RELAXED) >= job->num_tasks)) {
      job = NULL;
    }
    if (job) {
      job->joined++;
      __atomic_store_n(&job->active, job->active + 1, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&g_pool.lock);
    if (!job) continue;
    run_tasks(job);
    pthread_mutex_lock(&g_pool.lock);
    int left = job->active - 1;
    __atomic_store_n(&job->active, left, __ATOMIC_RELEASE); /* the launcher may return now */
    bool wake = left == 0 && g_pool.joiner_waiting;
    pthread_mutex_unlock(&g_pool.lock);
    /* After the unlock, so that the launcher does not wake into a held mutex; an extra
     * signal is harmless (every waiter re-checks its predicate). */
    if (wake) pthread_cond_signal(&g_pool.done_cv);
  }
  pthread_mutex_unlock(&g_pool.lock);
  return NULL;
}

/* At exit: wake every worker with shutdown set and join it, so no thread outlives main. */
static void pool_stop(void) {
  pthread_mutex_lock(&g_pool.lock);
  g_pool.shutdown = true;
  __atomic_store_n(&g_pool.gen, g_pool.gen + 1, __ATOMIC_RELEASE); /* ends the spinning */
  pthread_cond_broadcast(&g_pool.work_cv);
  pthread_mutex_unlock(&g_pool.lock);
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
  g_pool.sleepers = 0;
  g_pool.joiner_waiting = false;
  g_pool.shutdown = false;
  g_pool.job = NULL;
  pthread_mutexattr_t attr;
  pthread_mutexattr_init(&attr);
  pthread_mutexattr_settype(&attr, PTHREAD_MUTEX_ADAPTIVE_NP);
  pthread_mutex_init(&g_pool.lock, &attr);
  pthread_mutexattr_destroy(&attr);
  pthread_cond_init(&g_pool.work_cv, NULL);
  pthread_cond_init(&g_pool.done_cv, NULL);
  pthread_mutex_init(&g_pool.launch_lock, NULL);
  pthread_mutex_init(&g_pool_start_lock, NULL);
  g_pool_started = 0;
}

static void pool_start(void) {
  int want = tvm_ffi_parallel_num_threads() - 1;
  if (want <= 0) return;
  long spin_us = env_count("TVM_THREAD_SPIN_US", MAX_SPIN_US);
  g_pool.spin_ns = (spin_us >= 0 ? spin_us : DEFAULT_SPIN_US) * 1000;
  g_pool.threads = (pthread_t*)tvm_ffi_malloc((size_t)want * sizeof(pthread_t));
  if (!g_pool.threads) {
    tvm_ffi_error_clear(); /* run serially instead */
    return;
  }
  pthread_mutex_lock(&g_pool.lock);
  g_pool.start_gen = g_pool.gen; /* no launch uses the pool before it has started */
  pthread_mutex_unlock(&g_pool.lock);
  /* Workers block all signals: they belong to the application's own threads. */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  int n = 0;
  for (; n < want; ++n) {
    if (pthread_create(&g_pool.threads[n], NULL, worker_main, NULL) != 0) {
      break; /* run with the workers we have */
    }
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

/* Run tasks one after another on this thread; stops at the first failure. */
static int run_serial(tvm_ffi_parallel_fn fn, void* closure, int num_tasks) {
  for (int t = 0; t < num_tasks; ++t) {
    uint64_t mark = tvm_ffi_error_mark();
    int rc = fn(t, num_tasks, closure);
    if (rc != 0) {
      if (!tvm_ffi_error_raised_since(mark)) {
        tvm_ffi_raise("RuntimeError", "parallel task %d of %d failed with code %d", t, num_tasks,
                      rc);
      }
      return rc;
    }
  }
  return 0;
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
  int helpers = num_tasks - 1 < g_pool.num_workers ? num_tasks - 1 : g_pool.num_workers;
  par_job job = {.fn = fn,
                 .closure = closure,
                 .num_tasks = num_tasks,
                 .next_task = 1,
                 .max_workers = helpers,
                 .fail_task = INT_MAX};
  pthread_mutex_lock(&g_pool.lock);
  g_pool.job = &job;
  __atomic_store_n(&g_pool.gen, g_pool.gen + 1, __ATOMIC_RELEASE);
  int wake = helpers < g_pool.sleepers ? helpers : g_pool.sleepers;
  pthread_mutex_unlock(&g_pool.lock);
  for (int i = 0; i < wake; ++i) pthread_cond_signal(&g_pool.work_cv); /* as in worker_main */

  t_in_parallel = true;
  int rc0 = fn(0, num_tasks, closure);
  if (rc0 != 0) record_failure(&job, 0, rc0);
  run_tasks(&job);
  t_in_parallel = false;

  /* Every task is claimed: close the job, then wait for the workers that joined it. */
  pthread_mutex_lock(&g_pool.lock);
  g_pool.job = NULL;
  pthread_mutex_unlock(&g_pool.lock);
  if (!spin_until(job_left, &job)) {
    pthread_mutex_lock(&g_pool.lock);
    while (__atomic_load_n(&job.active, __ATOMIC_RELAXED) > 0) {
      g_pool.joiner_waiting = true;
      pthread_cond_wait(&g_pool.done_cv, &g_pool.lock);
    }
    g_pool.joiner_waiting = false;
    pthread_mutex_unlock(&g_pool.lock);
  }
  pthread_mutex_unlock(&g_pool.launch_lock);

  if (job.fail_task == INT_MAX) return 0;
  if (job.fail_err) {
    TVMFFIErrorSetRaised(job.fail_err);
    tvm_ffi_release(job.fail_err);
  } else {
    tvm_ffi_raise("RuntimeError", "parallel task %d of %d failed with code %d", job.fail_task,
                  num_tasks, job.fail_rc);
  }
  return job.fail_rc;
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

/* The environment registers no types or global functions (everything here is reached through
 * the C ABI); init creates the thread-exit key of the stream lists and registers the parallel
 * launch entry point for loaded libraries. TVM_NUM_THREADS is read at first parallel use, not
 * here, so a program may still set it in main(). */
void tvm_ffi__init_env(void) {
  pthread_once(&g_streams_key_once, make_streams_key);
  void* launch = (void*)backend_parallel_launch;
  /* Allocation failure at start-up leaves loaded libraries' parallel loops serial. */
  if (TVMFFIEnvModRegisterContextSymbol("__TVMBackendParallelLaunch", launch) != 0 ||
      TVMFFIEnvRegisterCAPI("TVMBackendParallelLaunch", launch) != 0)
    tvm_ffi_error_clear();
}
