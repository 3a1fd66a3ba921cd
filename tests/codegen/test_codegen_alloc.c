/*
 * test_codegen_alloc.c: Allocate with symbolic and large sizes, inside loops and parallel loops
 * (stack with per-scope stackrestore, or the environment's tensor allocator released on every
 * exit path), and tir.call_extern / tir.call_pure_extern of C functions by name.
 */
#include <pthread.h>

#include "codegen_testing.h"

/* Allocate data (dtype float32, extents consumed) with a buffer tmp over it for body(tmp). */
typedef struct {
  tvm_tir_var_obj* data;
  tvm_tir_buffer_obj* buf;
} local_buf;

static local_buf local(const char* name, void* extent) {
  local_buf l;
  l.data = tvm_tir_ptr_var(name, TVM_TIR_FLOAT32, NULL);
  void* shape = tvm_tir_list_take(extent);
  l.buf = tvm_tir_buffer_new(&(tvm_tir_buffer_fields){
      .data = l.data, .dtype = TVM_TIR_FLOAT32, .shape = shape, .name = name});
  tvm_ffi_release(shape);
  return l;
}

static void* allocate(local_buf l, void* extent, void* body) {
  return tvm_tir_allocate_takev(ref(l.data), TVM_TIR_FLOAT32, 1, (void*[]){extent},
                                tvm_tir_decl_buffer_take(ref(l.buf), body));
}

/* B[k] = 2 * A[n - 1 - k] through tmp[n] (n symbolic: a run-time size). */
static void* make_dyn_reverse(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  tvm_tir_buffer_obj* B =
      tvm_tir_buffer_decl_takev("B", TVM_TIR_FLOAT32, 1, (void*[]){ref(n)}, NULL);
  local_buf t = local("tmp", ref(n));
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  void* inner = tvm_tir_seq_take(
      tvm_tir_serial_take(
          ref(j), tvm_tir_int(0), ref(n),
          tvm_tir_store_take(ref(t.buf),
                             tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(j)), tvm_tir_f32(2)),
                             ref(j))),
      tvm_tir_serial_take(
          ref(k), tvm_tir_int(0), ref(n),
          tvm_tir_store_take(
              ref(B),
              tvm_tir_load_take(ref(t.buf),
                                tvm_tir_sub_take(tvm_tir_sub_take(ref(n), tvm_tir_int(1)), ref(k))),
              ref(k))));
  void* f = tvm_tir_func_take("dyn_reverse", tvm_tir_list_take(ref(A), ref(B)),
                              allocate(t, ref(n), inner));
  RELEASE(n, A, B, t.data, t.buf, j, k);
  return f;
}

/* For each of 4096 rows i: Allocate tmp[m * 256] (m a scalar parameter: 7 KiB for m = 7, on the
 * stack), write 8 sparse elements, B[i] = their sum. 4096 iterations of 7 KiB overflow an 8 MiB
 * stack unless every iteration restores it. */
static void* make_alloc_in_loop(void) {
  tvm_tir_var_obj* m = tvm_tir_var("m", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 4096, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 4096);
  void* size = tvm_tir_mul_take(ref(m), tvm_tir_int(256));
  local_buf t = local("tmp", ref(size));
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT32);
  tvm_tir_var_obj* r = tvm_tir_var("r", TVM_TIR_INT32);
  void* at_k = tvm_tir_mul_take(ref(k), tvm_tir_mul_take(ref(m), tvm_tir_int(32)));
  void* at_r = tvm_tir_mul_take(ref(r), tvm_tir_mul_take(ref(m), tvm_tir_int(32)));
  void* fill = tvm_tir_serial_take(
      ref(k), tvm_tir_int(0), tvm_tir_int(8),
      tvm_tir_store_take(ref(t.buf),
                         tvm_tir_add_take(tvm_tir_load_take(ref(A), ref(i), ref(k)),
                                          tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(k))),
                         at_k));
  void* sum = tvm_tir_seq_take(
      tvm_tir_store_take(ref(B), tvm_tir_f32(0), ref(i)),
      tvm_tir_serial_take(ref(r), tvm_tir_int(0), tvm_tir_int(8),
                          tvm_tir_store_take(ref(B),
                                             tvm_tir_add_take(tvm_tir_load_take(ref(B), ref(i)),
                                                              tvm_tir_load_take(ref(t.buf), at_r)),
                                             ref(i))));
  void* body = tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(4096),
                                   allocate(t, size, tvm_tir_seq_take(fill, sum)));
  void* f = tvm_tir_func_take("alloc_in_loop", tvm_tir_list_take(ref(A), ref(m), ref(B)), body);
  RELEASE(m, A, B, t.data, t.buf, i, k, r);
  return f;
}

/* Parallel rows i of (n, n): Allocate tmp[n * 600] per row (16.8 KB for n = 7: the heap),
 * tmp[j] = A[i, j % n] * j, assert A[i, 0] != 1000, B[i, c] = tmp[c * 600 + 599]. */
static void* make_parallel_heap(void) {
  tvm_tir_var_obj* n = tvm_tir_var("n", TVM_TIR_INT32);
  tvm_tir_buffer_obj* A =
      tvm_tir_buffer_decl_takev("A", TVM_TIR_FLOAT32, 2, (void*[]){ref(n), ref(n)}, NULL);
  tvm_tir_buffer_obj* B =
      tvm_tir_buffer_decl_takev("B", TVM_TIR_FLOAT32, 2, (void*[]){ref(n), ref(n)}, NULL);
  void* size = tvm_tir_mul_take(ref(n), tvm_tir_int(600));
  local_buf t = local("tmp", ref(size));
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* c = tvm_tir_var("c", TVM_TIR_INT32);
  void* fill = tvm_tir_serial_take(
      ref(j), tvm_tir_int(0), ref(size),
      tvm_tir_store_take(
          ref(t.buf),
          tvm_tir_mul_take(tvm_tir_load_take(ref(A), ref(i), tvm_tir_floormod_take(ref(j), ref(n))),
                           tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(j))),
          ref(j)));
  void* out = tvm_tir_serial_take(
      ref(c), tvm_tir_int(0), ref(n),
      tvm_tir_store_take(
          ref(B),
          tvm_tir_load_take(ref(t.buf), tvm_tir_add_take(tvm_tir_mul_take(ref(c), tvm_tir_int(600)),
                                                         tvm_tir_int(599))),
          ref(i), ref(c)));
  void* check = tvm_tir_assert_take(
      tvm_tir_ne_take(tvm_tir_load_take(ref(A), ref(i), tvm_tir_int(0)), tvm_tir_f32(1000)),
      "row holds 1000", out);
  void* body = tvm_tir_for_take(ref(i), tvm_tir_int(0), ref(n), TVM_TIR_FOR_PARALLEL,
                                allocate(t, size, tvm_tir_seq_take(fill, check)));
  void* f = tvm_tir_func_take("parallel_heap", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(n, A, B, t.data, t.buf, i, j, c);
  return f;
}

/* A constant Allocate above the stack limit (300000 float32 = 1.2 MB): the heap. */
static void* make_large_const(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 16);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 16);
  local_buf t = local("big", tvm_tir_int(300000));
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  void* at = tvm_tir_add_take(tvm_tir_mul_take(ref(j), tvm_tir_int(18749)), tvm_tir_int(11));
  void* body = tvm_tir_serial_take(
      ref(j), tvm_tir_int(0), tvm_tir_int(16),
      tvm_tir_seq_take(
          tvm_tir_store_take(ref(t.buf), tvm_tir_load_take(ref(A), ref(j)), ref(at)),
          tvm_tir_store_take(
              ref(B), tvm_tir_sub_take(tvm_tir_load_take(ref(t.buf), ref(at)), tvm_tir_f32(1)),
              ref(j))));
  void* f = tvm_tir_func_take("large_const", tvm_tir_list_take(ref(A), ref(B)),
                              allocate(t, tvm_tir_int(300000), body));
  RELEASE(A, B, t.data, t.buf, j, at);
  return f;
}

TEST(symbolic_allocation) {
  void* f = make_dyn_reverse();
  DIFF(f, .sym = 7); /* 28 bytes: the stack */
  DIFF(f, .sym = 1);
  DIFF(f, .sym = 5000); /* 20000 bytes: the heap */
  void* g = tvm_tir_lower(f, NULL);
  /* The shape of the code: a stack path between stacksave/stackrestore, a heap path through the
   * ABI's allocator and its release. */
  TVMFFIAny ir = tvm_ffi_any_none();
  TVMFFIByteArray text;
  if (g) CHECK_OK(tvm_codegen_emit_llvm_ir(g, NULL, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) {
    CHECK(strstr(text.data, "@llvm.stacksave") != NULL);
    CHECK(strstr(text.data, "@llvm.stackrestore") != NULL);
    CHECK(strstr(text.data, "@TVMFFIEnvTensorAlloc(") != NULL);
    CHECK(strstr(text.data, "@TVMFFIObjectDecRef(") != NULL);
    CHECK(strstr(text.data, "malloc") == NULL);
  }
  tvm_ffi_any_release(&ir);
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "alloc", path) : NULL;
  void* fn = lib ? GET_FN(lib, "dyn_reverse") : NULL;
  if (fn) {
    diff_fn_(__LINE__, f, g, fn, &(cg_opts){.sym = 9});
    diff_fn_(__LINE__, f, g, fn, &(cg_opts){.sym = 6000});
  }
  RELEASE(fn, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(f, g);
}

TEST(allocation_inside_loops) {
  void* f = make_alloc_in_loop();
  DIFF(f, .sym = 7, .seed = 2);
  tvm_ffi_release(f);
  f = make_parallel_heap();
  DIFF(f, .sym = 7, .seed = 3); /* heap per row, in parallel tasks */
  DIFF(f, .sym = 2, .seed = 4); /* 4800 bytes: the stack of each task */
  tvm_ffi_release(f);
  f = make_large_const();
  DIFF(f, .seed = 5);
  tvm_ffi_release(f);
}

/* A failure while heap allocations are live releases them (LeakSanitizer checks at exit). */
TEST(allocation_released_on_errors) {
  void* f = make_parallel_heap();
  void* m;
  void* fn = jit_fn_(__LINE__, f, "parallel_heap", &m);
  if (fn) {
    enum { N = 7 };
    float a[N * N], b[N * N];
    for (int e = 0; e < N * N; ++e) a[e] = (float)e;
    int64_t shape[2] = {N, N};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 2, shape, NULL),
             tb = dl(b, TVM_TIR_FLOAT32, 2, shape, NULL);
    TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
    CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
    CHECK(b[N + 1] == a[N + (600 + 599) % N] * (600 + 599)); /* B[1, 1] */
    a[3 * N] = 1000;
    for (int rep = 0; rep < 3; ++rep)
      EXPECT_CALL_ERR(fn, args, 2, "AssertionError", "row holds 1000");
  }
  RELEASE(fn, m, f);
}

/* An allocator that always fails: the kernel returns its error. */
static int failing_allocator(DLTensor* prototype, DLManagedTensorVersioned** out, void* error_ctx,
                             void (*set_error)(void*, const char*, const char*)) {
  (void)prototype;
  *out = NULL;
  set_error(error_ctx, "MemoryError", "test allocator: no memory today");
  return -1;
}

TEST(allocation_failure_and_bad_sizes) {
  void* f = make_dyn_reverse();
  void* m;
  void* fn = jit_fn_(__LINE__, f, "dyn_reverse", &m);
  if (fn) {
    enum { N = 5000 };
    float* a = calloc(N, sizeof(float));
    float* b = calloc(N, sizeof(float));
    int64_t shape[1] = {N};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL),
             tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
    DLPackManagedTensorAllocator orig = NULL;
    CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(failing_allocator, 0, &orig));
    EXPECT_CALL_ERR(fn, args, 2, "MemoryError", "test allocator: no memory today");
    shape[0] = 10; /* 40 bytes: the stack, no allocator involved */
    CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
    CHECK_OK(TVMFFIEnvSetDLPackManagedTensorAllocator(orig, 0, NULL));
    shape[0] = N;
    a[0] = 3;
    CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
    CHECK(b[N - 1] == 6);
    free(a);
    free(b);
  }
  RELEASE(fn, m, f);
  /* A negative extent: tmp[m - 10] with m = 3. */
  tvm_tir_var_obj* mv = tvm_tir_var("m", TVM_TIR_INT32);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 1);
  local_buf t = local("tmp", tvm_tir_sub_take(ref(mv), tvm_tir_int(10)));
  void* body = allocate(t, tvm_tir_sub_take(ref(mv), tvm_tir_int(10)),
                        tvm_tir_store_take(ref(B), tvm_tir_f32(1), tvm_tir_int(0)));
  f = tvm_tir_func_take("neg_alloc", tvm_tir_list_take(ref(mv), ref(B)), body);
  fn = jit_fn_(__LINE__, f, "neg_alloc", &m);
  if (fn) {
    float b[1];
    int64_t shape[1] = {1};
    DLTensor tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[2] = {I(3), T(&tb)}, r;
    EXPECT_CALL_ERR(fn, args, 2, "ValueError",
                    "neg_alloc: Allocate of tmp: extent 0 is negative: -7");
    args[0] = I(12);
    CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
    CHECK(b[0] == 1);
  }
  RELEASE(fn, m, f, mv, B, t.data, t.buf);
  /* A size past int64: tmp[m, m, m] float32 with m = 2000000 (8e18 elements, flattened by the
   * lowering into one int64 extent: 3.2e19 bytes). */
  mv = tvm_tir_var("m", TVM_TIR_INT64);
  B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 1);
  t = local("tmp", tvm_tir_int(1));
  body = tvm_tir_allocate_takev(
      ref(t.data), TVM_TIR_FLOAT32, 3, (void*[]){ref(mv), ref(mv), ref(mv)},
      tvm_tir_decl_buffer_take(
          ref(t.buf),
          tvm_tir_seq_take(tvm_tir_store_take(ref(t.buf), tvm_tir_f32(2), tvm_tir_int(0)),
                           tvm_tir_store_take(ref(B), tvm_tir_load_take(ref(t.buf), tvm_tir_int(0)),
                                              tvm_tir_int(0)))));
  f = tvm_tir_func_take("huge_alloc", tvm_tir_list_take(ref(mv), ref(B)), body);
  fn = jit_fn_(__LINE__, f, "huge_alloc", &m);
  if (fn) {
    float b[1] = {0};
    int64_t shape[1] = {1};
    DLTensor tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[2] = {I(2000000), T(&tb)}, r;
    EXPECT_CALL_ERR(fn, args, 2, "ValueError",
                    "huge_alloc: Allocate of tmp: the size overflows int64");
    args[0] = I(3);
    CHECK_OK(tvm_ffi_function_call(fn, args, 2, &r));
    CHECK(b[0] == 2);
  }
  RELEASE(fn, m, f, mv, B, t.data, t.buf);
}

/* ---- The stack budget ------------------------------------------------------------------------ */
enum { SLOTS = 12, SLOT_ELEMS = 1 << 18 }; /* twelve 1 MiB float32 buffers */

/* Over rows i of (rows, 16) A and B (i a loop of kind ik), through SLOTS nested constant-size
 * Allocates of 1 MiB each: tmp_k[e * 256 + e % 7] = e + k for e < 1024, then
 * B[i, j] = sum_k tmp_k[q * 256 + q % 7] with q = int32(A[i, j]) + 7 + 60 * j, i.e. 12 q + 66.
 * The reads depend on the data, so the buffers stay. Each Allocate alone fits the budget;
 * together they would take 12 MiB of stack. */
static void* make_many_slots(const char* name, int64_t rows, tvm_tir_for_kind ik) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, rows, 16);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, rows, 16);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  tvm_tir_var_obj* j = tvm_tir_var("j", TVM_TIR_INT32);
  tvm_tir_var_obj* e = tvm_tir_var("e", TVM_TIR_INT32);
  tvm_tir_var_obj* q = tvm_tir_var("q", TVM_TIR_INT32);
  local_buf t[SLOTS];
  void* fill = NULL;
  void* sum = tvm_tir_f32(0);
  for (int k = 0; k < SLOTS; ++k) {
    char nm[16];
    snprintf(nm, sizeof(nm), "tmp%d", k);
    t[k] = local(nm, tvm_tir_int(SLOT_ELEMS));
    void* st = tvm_tir_store_take(
        ref(t[k].buf), tvm_tir_add_take(tvm_tir_cast_take(TVM_TIR_FLOAT32, ref(e)), tvm_tir_f32(k)),
        tvm_tir_add_take(tvm_tir_mul_take(ref(e), tvm_tir_int(256)),
                         tvm_tir_floormod_take(ref(e), tvm_tir_int(7))));
    fill = fill ? tvm_tir_seq_take(fill, st) : st;
    sum = tvm_tir_add_take(
        sum, tvm_tir_load_take(ref(t[k].buf),
                               tvm_tir_add_take(tvm_tir_mul_take(ref(q), tvm_tir_int(256)),
                                                tvm_tir_floormod_take(ref(q), tvm_tir_int(7)))));
  }
  void* qv = tvm_tir_add_take(
      tvm_tir_add_take(tvm_tir_cast_take(TVM_TIR_INT32, tvm_tir_load_take(ref(A), ref(i), ref(j))),
                       tvm_tir_int(7)),
      tvm_tir_mul_take(ref(j), tvm_tir_int(60)));
  void* body = tvm_tir_seq_take(
      tvm_tir_serial_take(ref(e), tvm_tir_int(0), tvm_tir_int(1024), fill),
      tvm_tir_serial_take(
          ref(j), tvm_tir_int(0), tvm_tir_int(16),
          tvm_tir_let_stmt_take(ref(q), qv, tvm_tir_store_take(ref(B), sum, ref(i), ref(j)))));
  for (int k = SLOTS - 1; k >= 0; --k) body = allocate(t[k], tvm_tir_int(SLOT_ELEMS), body);
  body = tvm_tir_for_take(ref(i), tvm_tir_int(0), tvm_tir_int(rows), ik, body);
  void* f = tvm_tir_func_take(name, tvm_tir_list_take(ref(A), ref(B)), body);
  for (int k = 0; k < SLOTS; ++k) RELEASE(t[k].data, t[k].buf);
  RELEASE(A, B, i, j, e, q);
  return f;
}

typedef struct {
  void* fn;
  int rc;
  float a[4 * 16], b[4 * 16];
} slots_call;

static void* call_many_slots(void* p) {
  slots_call* c = p;
  int64_t shape[2] = {4, 16};
  DLTensor ta = dl(c->a, TVM_TIR_FLOAT32, 2, shape, NULL),
           tb = dl(c->b, TVM_TIR_FLOAT32, 2, shape, NULL);
  TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
  c->rc = tvm_ffi_function_call(c->fn, args, 2, &r);
  return NULL;
}

/* Twelve 1 MiB Allocates in one function: each fits the stack alone, all of them overflow it
 * (SIGSEGV on an 8 MiB stack without a total budget). The function's budget takes the first,
 * the heap the rest; a parallel task has its own budget. */
TEST(stack_budget) {
  void* f = make_many_slots("many_slots", 4, TVM_TIR_FOR_SERIAL);
  void* g = tvm_tir_lower(f, NULL);
  TVMFFIAny ir = tvm_ffi_any_none();
  TVMFFIByteArray text;
  if (g) CHECK_OK(tvm_codegen_emit_llvm_ir(g, &(tvm_codegen_options){.opt_level = 0}, &ir));
  if (tvm_ffi_any_as_bytes(&ir, &text)) {
    int slots = 0, heap = 0;
    for (const char* p = text.data; (p = strstr(p, "alloca [262144 x float]")); ++p) slots++;
    for (const char* p = text.data; (p = strstr(p, "call i32 @TVMFFIEnvTensorAlloc(")); ++p) heap++;
    CHECK_EQ_INT(slots, 1);
    CHECK_EQ_INT(heap, SLOTS - 1);
  }
  tvm_ffi_any_release(&ir);
  /* On a thread with a 4 MiB stack, JIT and exported. */
  char path[512];
  void* jit = NULL;
  void* jfn = g ? build_fn_(__LINE__, g, "many_slots", &jit) : NULL;
  void* lib = g ? EXPORT_LOAD(g, "slots", path) : NULL;
  void* lfn = lib ? GET_FN(lib, "many_slots") : NULL;
  void* fns[2] = {jfn, lfn};
  for (int k = 0; k < 2; ++k) {
    if (!fns[k]) continue;
    slots_call c = {.fn = fns[k], .rc = -2};
    for (int e = 0; e < 64; ++e) c.a[e] = (float)(e % 7) - 3.0f;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 4 << 20);
    pthread_t th;
    CHECK_OK(pthread_create(&th, &attr, call_many_slots, &c));
    pthread_join(th, NULL);
    pthread_attr_destroy(&attr);
    CHECK_OK(c.rc);
    bool ok = true;
    for (int e = 0; e < 64; ++e) ok &= c.b[e] == 12.0f * (c.a[e] + 7 + 60 * (e % 16)) + 66.0f;
    CHECK(ok);
  }
  RELEASE(jfn, jit, lfn, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  DIFF(f, .seed = 6);
  RELEASE(f, g);
  /* Rows in parallel: each task's closure places its own slot and heap buffers. */
  f = make_many_slots("many_slots_par", 6, TVM_TIR_FOR_PARALLEL);
  DIFF(f, .seed = 7);
  tvm_ffi_release(f);
}

/* ---- call_extern ---------------------------------------------------------------------------- */
/* Exported by the test executable (ENABLE_EXPORTS) for kernels to call by name. */
int64_t cg_test_mix(int64_t a, int32_t b, double c, float d);
int64_t cg_test_mix(int64_t a, int32_t b, double c, float d) {
  return a * 3 + b - (int64_t)c + (int64_t)(d * 2);
}
static int32_t g_recorded;
void cg_test_record(int32_t v);
void cg_test_record(int32_t v) { g_recorded += v; }

/* B[i] = expf(A[i]) (pure extern), C[i] = cg_test_mix(i64(i), i, f64(i) * 0.5, A[i]) and
 * cg_test_record(i) (an extern returning void, evaluated for its effect) over 8 elements. */
static void* make_externs(void) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 8);
  tvm_tir_buffer_obj* C = tvm_tir_buffer_decl("C", TVM_TIR_INT64, 8);
  tvm_tir_var_obj* i = tvm_tir_var("i", TVM_TIR_INT32);
  void* e = tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.call_pure_extern", tvm_tir_str("expf"),
                              tvm_tir_load_take(ref(A), ref(i)));
  void* mix = tvm_tir_call_take(
      TVM_TIR_INT64, "tir.call_extern", tvm_tir_str("cg_test_mix"),
      tvm_tir_cast_take(TVM_TIR_INT64, ref(i)), ref(i),
      tvm_tir_mul_take(tvm_tir_cast_take(TVM_TIR_FLOAT64, ref(i)), tvm_tir_f64(0.5)),
      tvm_tir_load_take(ref(A), ref(i)));
  DLDataType void_t = {kDLOpaqueHandle, 0, 0};
  void* rec = tvm_tir_evaluate_take(
      tvm_tir_call_take(void_t, "tir.call_extern", tvm_tir_str("cg_test_record"), ref(i)));
  void* body = tvm_tir_serial_take(ref(i), tvm_tir_int(0), tvm_tir_int(8),
                                   tvm_tir_seq_take(tvm_tir_store_take(ref(B), e, ref(i)),
                                                    tvm_tir_store_take(ref(C), mix, ref(i)), rec));
  void* f = tvm_tir_func_take("externs", tvm_tir_list_take(ref(A), ref(B), ref(C)), body);
  RELEASE(A, B, C, i);
  return f;
}

static void run_externs(void* fn) {
  float a[8], b[8];
  int64_t c[8];
  for (int e = 0; e < 8; ++e) a[e] = (float)e * 0.25f - 1.0f;
  int64_t shape[1] = {8};
  DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL),
           tc = dl(c, TVM_TIR_INT64, 1, shape, NULL);
  TVMFFIAny args[3] = {T(&ta), T(&tb), T(&tc)}, r;
  g_recorded = 0;
  CHECK_OK(tvm_ffi_function_call(fn, args, 3, &r));
  bool ok = true;
  for (int e = 0; e < 8; ++e) {
    ok &= fabsf(b[e] - expf(a[e])) <= 1e-6f * expf(a[e]);
    ok &= c[e] == cg_test_mix(e, e, e * 0.5, a[e]);
  }
  CHECK(ok);
  CHECK_EQ_INT(g_recorded, 28); /* 0 + 1 + ... + 7 */
}

TEST(call_extern) {
  void* f = make_externs();
  void* g = tvm_tir_lower(f, NULL);
  void* m = NULL;
  void* fn = g ? build_fn_(__LINE__, g, "externs", &m) : NULL;
  if (fn) run_externs(fn);
  RELEASE(fn, m);
  /* Exported: the library's undefined symbols resolve against the executable at load. */
  char path[512];
  void* lib = g ? EXPORT_LOAD(g, "extern", path) : NULL;
  fn = lib ? GET_FN(lib, "externs") : NULL;
  if (fn) run_externs(fn);
  RELEASE(fn, lib);
  if (g && !getenv("TVM_CODEGEN_KEEP")) unlink(path);
  RELEASE(f, g);
  /* The name must be a string constant. */
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, 1);
  void* body = tvm_tir_store_take(
      ref(B), tvm_tir_call_take(TVM_TIR_FLOAT32, "tir.call_extern", tvm_tir_f32(1)),
      tvm_tir_int(0));
  f = tvm_tir_func_take("bad_extern", tvm_tir_list_take(ref(B)), body);
  CHECK(tvm_codegen_build(f, NULL, NULL) == NULL);
  CHECK_RAISED("ValueError", "call_extern needs the function name");
  RELEASE(f, B);
}

/* 1 when s holds the bytes "ab\0cd" and a final NUL: a StringImm's value reaches the callee
 * whole, not cut at its NUL. */
int32_t cg_test_bytes(const char* s, int32_t n);
int32_t cg_test_bytes(const char* s, int32_t n) {
  return n == 5 && memcmp(s, "ab\0cd", 6) == 0;
}

TEST(call_extern_string_with_nul) {
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_INT32, 1);
  void* call = tvm_tir_call_take(TVM_TIR_INT32, "tir.call_extern", tvm_tir_str("cg_test_bytes"),
                                 tvm_tir_string_imm_new("ab\0cd", 5), tvm_tir_int(5));
  void* body = tvm_tir_store_take(ref(B), call, tvm_tir_int(0));
  void* f = tvm_tir_func_take("string_bytes", tvm_tir_list_take(ref(B)), body);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  void* m = NULL;
  void* fn = g ? build_fn_(__LINE__, g, "string_bytes", &m) : NULL;
  if (fn) {
    int32_t b = -1;
    int64_t shape[1] = {1};
    DLTensor tb = dl(&b, TVM_TIR_INT32, 1, shape, NULL);
    TVMFFIAny args[1] = {T(&tb)}, r;
    CHECK_OK(tvm_ffi_function_call(fn, args, 1, &r));
    CHECK_EQ_INT(b, 1);
  }
  RELEASE(fn, m, f, g, B);
}

int main(void) {
  RUN(symbolic_allocation);
  RUN(allocation_inside_loops);
  RUN(allocation_released_on_errors);
  RUN(allocation_failure_and_bad_sizes);
  RUN(stack_budget);
  RUN(call_extern);
  RUN(call_extern_string_with_nul);
  return test_summary();
}
