/* test_env.c: streams, the DLPack allocator, TVMFFIEnvTensorAlloc, the C API registry and the
 * parallel runtime (env.c). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "test_util.h"

static const DLDataType kF32 = {kDLFloat, 32, 1};

/* ---- Streams ----------------------------------------------------------------------------- */

static void* other_thread_streams(void* arg) {
  int* ok = (int*)arg;
  /* Streams are per thread: nothing set on the main thread is visible here. */
  *ok = TVMFFIEnvGetStream(kDLCUDA, 0) == NULL && TVMFFIEnvGetStream(kDLCUDA, 1000) == NULL;
  void* orig = (void*)1;
  *ok &= TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0x5, &orig) == 0 && orig == NULL;
  *ok &= TVMFFIEnvSetStream(kDLCUDA, 5000, (void*)0x6, NULL) == 0; /* freed at thread exit */
  *ok &= TVMFFIEnvGetStream(kDLCUDA, 0) == (void*)0x5;
  *ok &= TVMFFIEnvGetStream(kDLCUDA, 5000) == (void*)0x6;
  return NULL;
}

TEST(streams) {
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == NULL);
  TVMFFIStreamHandle orig = (void*)1;
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0xA, &orig));
  CHECK(orig == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == (void*)0xA);
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, (void*)0xB, &orig));
  CHECK(orig == (void*)0xA);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 1) == NULL);
  CHECK(TVMFFIEnvGetStream(kDLROCM, 0) == NULL);
  /* Ids and types beyond the fixed table. */
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 1000, (void*)0xC, NULL));
  CHECK_OK(TVMFFIEnvSetStream(100, 5, (void*)0xD, NULL));
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, INT32_MAX, (void*)0xE, NULL));
  for (int i = 0; i < 20; ++i) {
    CHECK_OK(TVMFFIEnvSetStream(kDLVulkan, 100 + i, (void*)(intptr_t)(i + 1), NULL));
  }
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 1000) == (void*)0xC);
  CHECK(TVMFFIEnvGetStream(100, 5) == (void*)0xD);
  CHECK(TVMFFIEnvGetStream(100, 6) == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, INT32_MAX) == (void*)0xE);
  CHECK(TVMFFIEnvGetStream(kDLVulkan, 119) == (void*)20);
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 1000, (void*)0xF, &orig));
  CHECK(orig == (void*)0xC);

  pthread_t th;
  int ok = 0;
  CHECK_EQ_INT(pthread_create(&th, NULL, other_thread_streams, &ok), 0);
  pthread_join(th, NULL);
  CHECK(ok);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == (void*)0xB); /* untouched by the other thread */

  CHECK_EQ_INT(TVMFFIEnvSetStream(-1, 0, NULL, NULL), -1);
  CHECK_RAISED("ValueError", "invalid device (type -1, id 0)");
  CHECK_EQ_INT(TVMFFIEnvSetStream(kDLCUDA, -3, NULL, NULL), -1);
  CHECK_RAISED("ValueError", "id -3");
  CHECK(TVMFFIEnvGetStream(-1, 0) == NULL);
  CHECK(TVMFFIEnvGetStream(kDLCUDA, -1) == NULL);
  CHECK_OK(TVMFFIEnvSetStream(kDLCUDA, 0, NULL, NULL));
  CHECK(TVMFFIEnvGetStream(kDLCUDA, 0) == NULL);
}

/* ---- Allocators -------------------------------------------------------------------------- */

static int g_custom_calls;
static int g_custom_deleted;
static int g_fail_mode; /* 0 ok, 1 SetError, 2 silent failure, 3 wrong shape, 4 NULL result */

static void custom_deleter(DLManagedTensorVersioned* self) {
  g_custom_deleted++;
  tvm_ffi_free(self->manager_ctx);
  tvm_ffi_free(self);
}

/* A test allocator: plain (unaligned-guarantee) memory with the prototype's layout. */
static int custom_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                        void (*set_error)(void*, const char*, const char*)) {
  g_custom_calls++;
  if (g_fail_mode == 1) {
    set_error(ctx, "MemoryError", "custom pool exhausted");
    return -1;
  }
  if (g_fail_mode == 2) return 7;
  if (g_fail_mode == 4) {
    *out = NULL;
    return 0;
  }
  DLManagedTensorVersioned* m =
      (DLManagedTensorVersioned*)tvm_ffi_calloc(1, sizeof(DLManagedTensorVersioned) + 16 * 8);
  int64_t* shape = (int64_t*)(m + 1);
  int64_t n = 1;
  for (int i = 0; i < proto->ndim; ++i) {
    shape[i] = proto->shape[i] + (g_fail_mode == 3 ? 1 : 0);
    n *= proto->shape[i];
  }
  m->version.major = 1;
  m->manager_ctx = tvm_ffi_malloc((size_t)n * 4 + 1);
  m->deleter = custom_deleter;
  m->dl_tensor = *proto;
  m->dl_tensor.data = m->manager_ctx;
  m->dl_tensor.shape = shape;
  m->dl_tensor.strides = NULL;
  *out = m;
  return 0;
}

static int other_alloc(DLTensor* proto, DLManagedTensorVersioned** out, void* ctx,
                       void (*set_error)(void*, const char*, const char*)) {
  return custom_alloc(proto, out, ctx, set_error);
}

static void* other_thread_allocator(void* arg) {
  DLPackManagedTensorAllocator* seen = (DLPackManagedTensorAllocator*)arg;
  *seen = TVMFFIEnvGetDLPackManagedTensorAllocator();
  return NULL;
}

static DLPackManagedTensorAllocator allocator_in_new_thread(void) {
  pthread_t th;
  DLPackManagedTensorAllocator seen = NULL;
  pthread_create(&th, NULL, other_thread_allocator, &seen);
  pthread_join(th, NULL);
  return seen;
}

TEST(allocator_override) {
  DLPackManagedTensorAllocator def = TVMFFIEnvGetDLPackManagedTensorAllocator();
  CHECK(def != NULL);
  DLPackManagedTensorAllocator orig = NULL;
  /* Thread-local override: other threads keep the default. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(custom_alloc, 0, &orig));
  CHECK(orig == def);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == custom_alloc);
  CHECK(allocator_in_new_thread() == def);
  /* Global: new threads see it; this thread sees it as its own too. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(other_alloc, 1, &orig));
  CHECK(orig == custom_alloc);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == other_alloc);
  CHECK(allocator_in_new_thread() == other_alloc);
  /* Clearing this thread's override falls back to the global one. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, &orig));
  CHECK(orig == other_alloc);
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == other_alloc);
  /* Clearing the global one restores ours. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 1, NULL));
  CHECK(TVMFFIEnvGetDLPackManagedTensorAllocator() == def);
  CHECK(allocator_in_new_thread() == def);
}

TEST(env_tensor_alloc_default) {
  int64_t shape[2] = {3, 4};
  DLTensor proto;
  memset(&proto, 0, sizeof(proto));
  proto.device.device_type = kDLCPU;
  proto.ndim = 2;
  proto.shape = shape;
  proto.dtype = kF32;
  TVMFFIObjectHandle t = NULL;
  CHECK_OK(TVMFFIEnvTensorAlloc(&proto, &t));
  if (!t) return;
  DLTensor* d = tvm_ffi_tensor_dl(t);
  CHECK_EQ_INT((uintptr_t)d->data % 64, 0);
  CHECK_EQ_INT(d->strides[0], 4);
  CHECK_EQ_INT(d->strides[1], 1);
  CHECK(d->shape != shape);
  for (int i = 0; i < 12; ++i) ((float*)d->data)[i] = 1.0f;
  tvm_ffi_release(t);

  /* Prototype strides are honoured (column-major here) and the buffer covers them. */
  int64_t col[2] = {1, 3};
  proto.strides = col;
  CHECK_OK(TVMFFIEnvTensorAlloc(&proto, &t));
  d = tvm_ffi_tensor_dl(t);
  CHECK_EQ_INT(d->strides[0], 1);
  CHECK_EQ_INT(d->strides[1], 3);
  ((float*)d->data)[2 * 1 + 3 * 3] = 2.0f; /* the last element */
  tvm_ffi_release(t);
  proto.strides = NULL;

  proto.ndim = 0;
  CHECK_OK(TVMFFIEnvTensorAlloc(&proto, &t));
  *(float*)tvm_ffi_tensor_dl(t)->data = 3.0f;
  tvm_ffi_release(t);
  proto.ndim = 2;

  /* The default allocator through its own ABI, with a caller's error context. */
  DLPackManagedTensorAllocator def = TVMFFIEnvGetDLPackManagedTensorAllocator();
  DLManagedTensorVersioned* m = NULL;
  CHECK_EQ_INT(def(&proto, &m, NULL, NULL), 0);
  CHECK(m != NULL && m->version.major == 1 && m->version.minor == 1);
  CHECK(m->dl_tensor.strides != NULL);
  if (m) m->deleter(m);
}

static char g_err_kind[64];
static char g_err_msg[512];
static void collect_error(void* ctx, const char* kind, const char* message) {
  (*(int*)ctx)++;
  snprintf(g_err_kind, sizeof(g_err_kind), "%s", kind);
  snprintf(g_err_msg, sizeof(g_err_msg), "%s", message);
}

TEST(default_allocator_errors) {
  DLPackManagedTensorAllocator def = TVMFFIEnvGetDLPackManagedTensorAllocator();
  int64_t shape[2] = {2, 2};
  DLTensor proto;
  memset(&proto, 0, sizeof(proto));
  proto.device.device_type = kDLCUDA;
  proto.device.device_id = 1;
  proto.ndim = 2;
  proto.shape = shape;
  proto.dtype = kF32;
  DLManagedTensorVersioned* m = NULL;
  int calls = 0;
  CHECK(def(&proto, &m, &calls, collect_error) != 0);
  CHECK_EQ_INT(calls, 1);
  CHECK_STR_EQ(g_err_kind, "RuntimeError");
  CHECK_STR_CONTAINS(g_err_msg, "no allocator for device cuda:1");
  proto.device.device_type = 99;
  CHECK(def(&proto, &m, &calls, collect_error) != 0);
  CHECK_STR_CONTAINS(g_err_msg, "device type 99:1");
  proto.device.device_type = kDLCPU;
  proto.dtype.bits = 0;
  CHECK(def(&proto, &m, &calls, collect_error) != 0);
  CHECK_STR_EQ(g_err_kind, "ValueError");
  CHECK_STR_CONTAINS(g_err_msg, "no size");
  proto.dtype = kF32;
  int64_t huge[2] = {INT64_C(1) << 62, INT64_C(1) << 62};
  proto.shape = huge;
  CHECK(def(&proto, &m, &calls, collect_error) != 0);
  CHECK_STR_EQ(g_err_kind, "ValueError");
  CHECK_STR_CONTAINS(g_err_msg, "overflows int64");
  int64_t hidden[3] = {INT64_C(1) << 40, 0, INT64_C(1) << 40};
  proto.shape = hidden;
  proto.ndim = 3;
  CHECK_EQ_INT(def(&proto, &m, &calls, collect_error), 0);
  CHECK(m != NULL && m->dl_tensor.strides[0] == (INT64_C(1) << 40));
  if (m) m->deleter(m);
  m = NULL;
  int64_t hidden_bad[3] = {0, INT64_C(1) << 40, INT64_C(1) << 40};
  proto.shape = hidden_bad;
  CHECK(def(&proto, &m, &calls, collect_error) != 0);
  CHECK_STR_CONTAINS(g_err_msg, "strides overflow int64");
  proto.ndim = 2;
  int64_t neg_stride[2] = {-1, 1};
  proto.shape = shape;
  proto.strides = neg_stride;
  CHECK(def(&proto, &m, &calls, collect_error) != 0);
  CHECK_STR_CONTAINS(g_err_msg, "negative stride");
  CHECK(def(NULL, &m, &calls, collect_error) != 0);
  CHECK_STR_CONTAINS(g_err_msg, "NULL");
  CHECK_EQ_INT(calls, 7);
  CHECK(m == NULL);
  /* Errors went to the callback, not to this thread's error slot. */
  CHECK(!tvm_ffi_error_pending());
}

TEST(env_tensor_alloc_errors) {
  int64_t shape[2] = {2, 3};
  DLTensor proto;
  memset(&proto, 0, sizeof(proto));
  proto.device.device_type = kDLCUDA;
  proto.ndim = 2;
  proto.shape = shape;
  proto.dtype = kF32;
  TVMFFIObjectHandle t = (void*)1;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("RuntimeError", "no allocator for device cuda:0");
  CHECK(t == NULL);
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(NULL, &t), -1);
  CHECK_RAISED("ValueError", "prototype is NULL");
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, NULL), -1);
  CHECK_RAISED("ValueError", "out is NULL");
  proto.device.device_type = kDLCPU;
  int64_t neg[2] = {2, -1};
  proto.shape = neg;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("ValueError", "dimension 1 has negative extent -1");
  proto.shape = NULL;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("ValueError", "shape is NULL");
  proto.ndim = -2;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("ValueError", "ndim -2 is negative");
  proto.ndim = 2;
  proto.shape = shape;

  /* A custom allocator: success, each failure mode, and the deleter called exactly once. */
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(custom_alloc, 0, NULL));
  g_custom_calls = g_custom_deleted = 0;
  g_fail_mode = 0;
  CHECK_OK(TVMFFIEnvTensorAlloc(&proto, &t));
  CHECK_EQ_INT(g_custom_calls, 1);
  CHECK(tvm_ffi_tensor_dl(t)->strides != NULL); /* filled in by the import */
  CHECK_EQ_INT(tvm_ffi_tensor_dl(t)->strides[0], 3);
  tvm_ffi_release(t);
  CHECK_EQ_INT(g_custom_deleted, 1);
  g_fail_mode = 1;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("MemoryError", "custom pool exhausted");
  g_fail_mode = 2;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("RuntimeError", "failed (code 7) without an error");
  g_fail_mode = 3;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("RuntimeError", "differs from the prototype");
  CHECK_EQ_INT(g_custom_deleted, 2);
  g_fail_mode = 4;
  CHECK_EQ_INT(TVMFFIEnvTensorAlloc(&proto, &t), -1);
  CHECK_RAISED("RuntimeError", "returned no tensor");
  g_fail_mode = 0;
  /* tvm_ffi_tensor_empty uses the environment allocator off-CPU. */
  proto.device.device_type = kDLCUDA;
  void* e = tvm_ffi_tensor_empty(shape, 2, kF32, proto.device);
  CHECK(e != NULL);
  CHECK_EQ_INT(tvm_ffi_tensor_dl(e)->device.device_type, kDLCUDA);
  tvm_ffi_release(e);
  CHECK_EQ_INT(g_custom_deleted, 3);
  CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(NULL, 0, NULL));
}

/* ---- Host environment -------------------------------------------------------------------- */

static int dummy_api_a(void) { return 1; }
static int dummy_api_b(void) { return 2; }

TEST(host_env) {
  CHECK_EQ_INT(TVMFFIEnvCheckSignals(), 0);
  CHECK(tvm_ffi_env_capi_lookup("test.api") == NULL);
  CHECK_OK(TVMFFIEnvRegisterCAPI("test.api", (void*)dummy_api_a));
  CHECK(tvm_ffi_env_capi_lookup("test.api") == (void*)dummy_api_a);
  CHECK_OK(TVMFFIEnvRegisterCAPI("test.api", (void*)dummy_api_b));
  CHECK(tvm_ffi_env_capi_lookup("test.api") == (void*)dummy_api_b);
  char name[32];
  for (int i = 0; i < 40; ++i) {
    snprintf(name, sizeof(name), "test.api%d", i);
    CHECK_OK(TVMFFIEnvRegisterCAPI(name, (void*)(intptr_t)(i + 1)));
  }
  CHECK(tvm_ffi_env_capi_lookup("test.api39") == (void*)40);
  CHECK(tvm_ffi_env_capi_lookup("test.api") == (void*)dummy_api_b);
  CHECK(tvm_ffi_env_capi_lookup(NULL) == NULL);
  CHECK_EQ_INT(TVMFFIEnvRegisterCAPI(NULL, NULL), -1);
  CHECK_RAISED("ValueError", "empty name");
  CHECK_EQ_INT(TVMFFIEnvRegisterCAPI("", NULL), -1);
  CHECK_RAISED("ValueError", "empty name");
}

/* ---- Parallel launch --------------------------------------------------------------------- */

typedef struct {
  int counts[4096];
  pthread_t task0_thread;
} par_state;

static int count_task(int task, int num_tasks, void* closure) {
  par_state* s = (par_state*)closure;
  if (task == 0) s->task0_thread = pthread_self();
  __atomic_fetch_add(&s->counts[task], 1, __ATOMIC_RELAXED);
  return num_tasks > 4096 ? -1 : 0;
}

static void check_counts(par_state* s, int n) {
  int bad = 0;
  for (int i = 0; i < n; ++i) bad += s->counts[i] != 1;
  CHECK_EQ_INT(bad, 0);
}

static int g_expected_threads; /* 0 when TVM_NUM_THREADS came from outside */

TEST(parallel_basic) {
  int nthreads = tvm_ffi_parallel_num_threads();
  CHECK(nthreads >= 1);
  if (g_expected_threads) CHECK_EQ_INT(nthreads, g_expected_threads);
  static par_state s;
  memset(&s, 0, sizeof(s));
  CHECK_OK(tvm_ffi_parallel_launch(count_task, &s, 0)); /* one task per thread */
  check_counts(&s, nthreads);
  CHECK(pthread_equal(s.task0_thread, pthread_self()));
  /* Many more tasks than threads, repeatedly. */
  for (int rep = 0; rep < 50; ++rep) {
    memset(&s, 0, sizeof(s));
    CHECK_OK(tvm_ffi_parallel_launch(count_task, &s, 1000 + rep));
    check_counts(&s, 1000 + rep);
    CHECK(pthread_equal(s.task0_thread, pthread_self()));
  }
  memset(&s, 0, sizeof(s));
  CHECK_OK(tvm_ffi_parallel_launch(count_task, &s, 1));
  check_counts(&s, 1);
  memset(&s, 0, sizeof(s));
  CHECK_OK(tvm_ffi_parallel_launch(count_task, &s, 2));
  check_counts(&s, 2);
}

typedef struct {
  int64_t partial[64];
} sum_state;

/* Sum of 0..9999 split statically over the tasks. */
static int sum_task(int task, int num_tasks, void* closure) {
  sum_state* s = (sum_state*)closure;
  int64_t n = 10000, begin = n * task / num_tasks, end = n * (task + 1) / num_tasks, acc = 0;
  for (int64_t i = begin; i < end; ++i) acc += i;
  s->partial[task] = acc;
  return 0;
}

TEST(parallel_sum) {
  for (int tasks = 1; tasks <= 64; tasks *= 2) {
    sum_state s;
    memset(&s, 0, sizeof(s));
    CHECK_OK(tvm_ffi_parallel_launch(sum_task, &s, tasks));
    int64_t total = 0;
    for (int i = 0; i < tasks; ++i) total += s.partial[i];
    CHECK_EQ_INT(total, INT64_C(10000) * 9999 / 2);
  }
}

static int failing_task(int task, int num_tasks, void* closure) {
  (void)num_tasks;
  (void)closure;
  if (task == 3 || task == 6) {
    tvm_ffi_raise(task == 3 ? "ValueError" : "TypeError", "task %d failed", task);
    return -task;
  }
  if (task == 7) return 9; /* fails without raising */
  return 0;
}

static int silent_task(int task, int num_tasks, void* closure) { return task == 2 ? 5 : 0; }

TEST(parallel_errors) {
  for (int rep = 0; rep < 20; ++rep) {
    CHECK_EQ_INT(tvm_ffi_parallel_launch(failing_task, NULL, 8), -3);
    CHECK_RAISED("ValueError", "task 3 failed");
  }
  CHECK_EQ_INT(tvm_ffi_parallel_launch(silent_task, NULL, 4), 5);
  CHECK_RAISED("RuntimeError", "parallel task 2 of 4 failed with code 5");
  CHECK_EQ_INT(tvm_ffi_parallel_launch(failing_task, NULL, 7), -3);
  CHECK_RAISED("ValueError", "task 3 failed");
  CHECK_EQ_INT(tvm_ffi_parallel_launch(NULL, NULL, 4), -1);
  CHECK_RAISED("ValueError", "fn is NULL");
  CHECK_EQ_INT(tvm_ffi_parallel_launch(count_task, NULL, -1), -1);
  CHECK_RAISED("ValueError", "num_tasks -1 is negative");
}

typedef struct {
  int64_t sums[16];
  int same_thread[16];
} nest_state;

typedef struct {
  pthread_t outer;
  int64_t acc;
  int same;
} inner_state;

static int inner_task(int task, int num_tasks, void* closure) {
  inner_state* s = (inner_state*)closure;
  s->acc += task; /* serial: no race */
  s->same &= pthread_equal(s->outer, pthread_self()) != 0;
  return 0;
}

static int outer_task(int task, int num_tasks, void* closure) {
  nest_state* s = (nest_state*)closure;
  inner_state in = {pthread_self(), 0, 1};
  if (tvm_ffi_parallel_launch(inner_task, &in, 10) != 0) return -1;
  s->sums[task] = in.acc;
  s->same_thread[task] = in.same;
  if (task == 5) return tvm_ffi_parallel_launch(failing_task, NULL, 4); /* nested failure */
  return 0;
}

TEST(parallel_nested) {
  nest_state s;
  memset(&s, 0, sizeof(s));
  CHECK_OK(tvm_ffi_parallel_launch(outer_task, &s, 5));
  for (int i = 0; i < 5; ++i) {
    CHECK_EQ_INT(s.sums[i], 45);
    CHECK(s.same_thread[i]);
  }
  memset(&s, 0, sizeof(s));
  CHECK_EQ_INT(tvm_ffi_parallel_launch(outer_task, &s, 6), -3);
  CHECK_RAISED("ValueError", "task 3 failed");
}

static void* launcher_thread(void* arg) {
  int* ok = (int*)arg;
  *ok = 1;
  for (int rep = 0; rep < 30; ++rep) {
    sum_state s;
    memset(&s, 0, sizeof(s));
    *ok &= tvm_ffi_parallel_launch(sum_task, &s, 16) == 0;
    int64_t total = 0;
    for (int i = 0; i < 16; ++i) total += s.partial[i];
    *ok &= total == INT64_C(10000) * 9999 / 2;
  }
  return NULL;
}

TEST(parallel_concurrent_launchers) {
  pthread_t th[3];
  int ok[3] = {0, 0, 0};
  for (int i = 0; i < 3; ++i) pthread_create(&th[i], NULL, launcher_thread, &ok[i]);
  for (int i = 0; i < 3; ++i) pthread_join(th[i], NULL);
  for (int i = 0; i < 3; ++i) CHECK(ok[i]);
}

/* A forked child has none of the parent's pool threads; its launches must still run. */
TEST(parallel_after_fork) {
  sum_state s;
  memset(&s, 0, sizeof(s));
  CHECK_OK(tvm_ffi_parallel_launch(sum_task, &s, 8)); /* the pool is running */
  pid_t pid = fork();
  CHECK(pid >= 0);
  if (pid == 0) {
    int ok = 1;
    for (int rep = 0; rep < 5; ++rep) {
      memset(&s, 0, sizeof(s));
      ok &= tvm_ffi_parallel_launch(sum_task, &s, 8) == 0;
      int64_t total = 0;
      for (int i = 0; i < 8; ++i) total += s.partial[i];
      ok &= total == INT64_C(10000) * 9999 / 2;
    }
    _exit(ok ? 0 : 1);
  }
  int status = 0;
  CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Launches back to back, as compiled kernels make them (one per parallel loop, a few tasks
 * each): two closures used in turn, so that a worker running a stale job's function or closure
 * shows up as a count in the wrong closure; a failing launch every 97th, so that a failure
 * cannot leak into the next job; optional busy work in each task (without it the launcher
 * often claims every task before a worker arrives, and the workers' join and leave go
 * untested); optional pauses between launches (the workers go to sleep and must be woken). True
 * when every task of every launch ran exactly once. */
typedef struct {
  int counts[8];
  int num_tasks;
  int work; /* iterations of busy work per task: long enough for the workers to join */
} storm_state;

static int storm_task(int task, int num_tasks, void* closure) {
  storm_state* s = (storm_state*)closure;
  volatile double x = 1.0; /* volatile: the work is not optimized away */
  for (int i = 0; i < s->work; ++i) x = x * 0.999 + 1e-3;
  __atomic_fetch_add(&s->counts[task], 1, __ATOMIC_RELAXED);
  if (num_tasks != s->num_tasks) return -7;
  return 0;
}

static int storm_failing_task(int task, int num_tasks, void* closure) {
  storm_task(task, num_tasks, closure);
  return task == num_tasks - 1 ? tvm_ffi_raise("ValueError", "last task failed") : 0;
}

static bool launch_storm(int launches, int pause_every, int work) {
  static const int kTasks[] = {2, 3, 2, 5, 8, 2};
  storm_state st[2];
  memset(st, 0, sizeof(st));
  bool ok = true;
  for (int i = 0; i < launches && ok; ++i) {
    storm_state* s = &st[i & 1];
    storm_state* other = &st[(i & 1) ^ 1];
    memset(s, 0, sizeof(*s));
    s->num_tasks = kTasks[i % 6];
    s->work = work;
    int other_before = 0;
    for (int t = 0; t < 8; ++t) other_before += other->counts[t];
    bool fail = i % 97 == 96;
    int rc = tvm_ffi_parallel_launch(fail ? storm_failing_task : storm_task, s, s->num_tasks);
    if (fail) {
      void* e = tvm_ffi_error_take();
      ok &= rc == -1 && e && strcmp(tvm_ffi_error_kind(e), "ValueError") == 0;
      tvm_ffi_release(e);
    } else {
      ok &= rc == 0 && !tvm_ffi_error_pending();
    }
    for (int t = 0; t < 8; ++t) ok &= s->counts[t] == (t < s->num_tasks);
    int other_after = 0;
    for (int t = 0; t < 8; ++t) other_after += other->counts[t];
    ok &= other_after == other_before;
    if (pause_every && i % pause_every == 0) usleep(300);
  }
  return ok;
}

TEST(parallel_many_small_launches) {
  CHECK(launch_storm(20000, 0, 0));  /* the launcher often runs every task itself */
  CHECK(launch_storm(5000, 0, 500)); /* the workers join launches */
}

/* The same in forked children whose pools (started afresh after fork) wait differently:
 * TVM_THREAD_SPIN_US=0, every wait a condition-variable sleep; 20, the workers fall asleep in the
 * pauses and spin between the launches in a burst. */
TEST(parallel_sleeping_workers) {
  static const char* const kSpin[] = {"0", "20"};
  for (int k = 0; k < 2; ++k) {
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
      setenv("TVM_THREAD_SPIN_US", kSpin[k], 1);
      _exit(launch_storm(k == 0 ? 3000 : 2000, k == 0 ? 0 : 50, 200) ? 0 : 1);
    }
    int status = 0;
    CHECK_EQ_INT(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
}

/* ---- TVMBackendParallelLaunch ------------------------------------------------------------ */
/* Upstream TVM's types (c_backend_api.h): what generated code passes. */
typedef struct {
  void* sync_handle;
  int32_t num_task;
} group_env;
typedef int (*lambda_fn)(int task_id, group_env* penv, void* cdata);
typedef int (*launch_fn)(lambda_fn flambda, void* cdata, int num_task);

/* Registered at init under "TVMBackendParallelLaunch" (C API registry; the same function is the
 * "__TVMBackendParallelLaunch" context symbol written into loaded libraries, tested by
 * tests/codegen/test_codegen_parallel.c): every task runs once and sees the group's size; a
 * failure raises on the caller. */
static atomic_int g_task_sum;
static int sum_lambda(int task_id, group_env* penv, void* cdata) {
  atomic_fetch_add(&g_task_sum, task_id + 1);
  if (penv->num_task != *(int*)cdata) return -5;
  return 0;
}
static int failing_lambda(int task_id, group_env* penv, void* cdata) {
  (void)penv;
  (void)cdata;
  if (task_id == 3) return tvm_ffi_raise("ValueError", "task 3 failed");
  return 0;
}

TEST(backend_parallel_launch_adapter) {
  launch_fn launch = (launch_fn)tvm_ffi_env_capi_lookup("TVMBackendParallelLaunch");
  CHECK(launch != NULL);
  if (!launch) return;
  int n = 9;
  atomic_store(&g_task_sum, 0);
  CHECK_OK(launch(sum_lambda, &n, 9));
  CHECK_EQ_INT(atomic_load(&g_task_sum), 45);
  n = tvm_ffi_parallel_num_threads();
  atomic_store(&g_task_sum, 0);
  CHECK_OK(launch(sum_lambda, &n, 0)); /* 0 tasks: the pool size */
  CHECK_EQ_INT(atomic_load(&g_task_sum), n * (n + 1) / 2);
  CHECK(launch(failing_lambda, NULL, 6) != 0);
  CHECK_RAISED("ValueError", "task 3 failed");
  CHECK(launch(NULL, NULL, 2) != 0);
  CHECK_RAISED("ValueError", "flambda is NULL");
}

int main(void) {
  /* The pool size is read at first parallel use; set it unless the environment already did. */
  if (!getenv("TVM_NUM_THREADS")) {
    setenv("TVM_NUM_THREADS", "3", 1);
    g_expected_threads = 3;
  }
  RUN(streams);
  RUN(allocator_override);
  RUN(env_tensor_alloc_default);
  RUN(default_allocator_errors);
  RUN(env_tensor_alloc_errors);
  RUN(host_env);
  RUN(parallel_basic);
  RUN(parallel_sum);
  RUN(parallel_errors);
  RUN(parallel_nested);
  RUN(parallel_concurrent_launchers);
  RUN(parallel_after_fork);
  RUN(parallel_many_small_launches);
  RUN(parallel_sleeping_workers);
  RUN(backend_parallel_launch_adapter);
  return test_summary();
}
