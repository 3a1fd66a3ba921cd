/*
 * test_gpu_interp.c: the GPU kernels of tests/gpu/kernels run in the reference interpreter on
 * the CPU against plain C results, and again after each lowering step (tvm_tir_lower, then the
 * GPU passes lower_thread_bindings, thread_sync, split_host_device) with the same results bit
 * for bit; the interpreter's barrier semantics (lockstep phases, errors where a barrier cannot be
 * placed) and the GPU passes' output and errors.
 */
#include "gpu_testing.h"

/* A kernel file, the shapes of its buffers (the last nout are outputs), its C reference. */
typedef struct {
  const char* file;
  const char* name;
  int nbuf, nout;
  int ndim[3];
  int64_t dims[3][2];
  void (*ref)(gpu_buf* b);
  double tol;
  double stage_tol; /* 0: every lowering stage gives the same bits; else within this */
} kernel_case;

static void ref_add(gpu_buf* b) { gpu_ref_add(b[0].data, b[1].data, b[2].data, b[0].n); }
static void ref_row_sum(gpu_buf* b) { gpu_ref_row_sum(b[0].data, b[1].data, b[0].shape[0], 256); }
static void ref_matmul(gpu_buf* b) { gpu_ref_matmul(b[0].data, b[1].data, b[2].data, b[0].shape[0]); }
static void ref_transpose(gpu_buf* b) {
  gpu_ref_transpose(b[0].data, b[1].data, b[0].shape[0], b[0].shape[1]);
}
static void ref_softmax(gpu_buf* b) { gpu_ref_softmax(b[0].data, b[1].data, b[0].shape[0], 256); }
static void ref_row_scan(gpu_buf* b) {
  for (int64_t r = 0; r < b[0].shape[0]; ++r) {
    float s = 0;
    for (int64_t j = 0; j < b[0].shape[1]; ++j) {
      float a = b[0].data[r * b[0].shape[1] + j];
      if (a > 1.5f) break;
      if (a < 0) continue;
      s += a;
    }
    b[1].data[r] = s;
  }
}

static void ref_col_sum(gpu_buf* b) {
  int64_t n = b[0].shape[1];
  for (int64_t j = 0; j < n; ++j) {
    double s = 0;
    for (int64_t i = 0; i < 24; ++i) s += b[0].data[i * n + j];
    b[1].data[j] = (float)s;
  }
}
static void ref_argmax(gpu_buf* b) {
  for (int64_t r = 0; r < b[0].shape[0]; ++r) {
    int64_t best = 0;
    for (int64_t j = 1; j < 32; ++j)
      if (b[0].data[r * 32 + j] > b[0].data[r * 32 + best]) best = j;
    b[1].data[r] = (float)best;
  }
}

static void ref_row_sum128(gpu_buf* b) { gpu_ref_row_sum(b[0].data, b[1].data, 128, 128); }
static void ref_row_sum32(gpu_buf* b) { gpu_ref_row_sum(b[0].data, b[1].data, 64, 32); }
static void ref_row_sum64x128(gpu_buf* b) { gpu_ref_row_sum(b[0].data, b[1].data, 64, 128); }

static const kernel_case kCases[] = {
    {"add.py", "add", 3, 1, {1, 1, 1}, {{1000}, {1000}, {1000}}, ref_add, 0},
    {"row_sum.py", "row_sum", 2, 1, {2, 1}, {{6, 256}, {6}}, ref_row_sum, 1e-5},
    {"matmul_tiled.py",
     "matmul",
     3,
     1,
     {2, 2, 2},
     {{48, 48}, {48, 48}, {48, 48}},
     ref_matmul,
     1e-5},
    {"matmul_sched.py",
     "matmul_sched",
     3,
     1,
     {2, 2, 2},
     {{64, 64}, {64, 64}, {64, 64}},
     ref_matmul,
     1e-5},
    {"transpose.py", "transpose", 2, 1, {2, 2}, {{37, 21}, {21, 37}}, ref_transpose, 0},
    {"softmax.py", "softmax", 2, 1, {2, 2}, {{5, 256}, {5, 256}}, ref_softmax, 1e-6},
    {"row_scan.py", "row_scan", 2, 1, {2, 1}, {{64, 32}, {64}}, ref_row_scan, 0},
    /* tvm_thread_allreduce: two-stage (warp + shared + warp), warp only with groups, a shared
     * tree over a non-lowest axis of 24 threads, and a two-value reducer */
    {"row_sum_allreduce.py", "row_sum_allreduce", 2, 1, {2, 1}, {{6, 256}, {6}}, ref_row_sum, 1e-5, 1e-5},
    {"softmax_warp.py", "softmax_warp", 2, 1, {2, 2}, {{8, 256}, {8, 256}}, ref_softmax, 1e-6, 1e-6},
    {"col_sum_tree.py", "col_sum_tree", 2, 1, {2, 1}, {{24, 48}, {48}}, ref_col_sum, 1e-5, 1e-5},
    {"row_argmax.py", "row_argmax", 2, 1, {2, 1}, {{64, 32}, {64}}, ref_argmax, 0, 0},
    /* upstream's form: a block around the allreduce, the result buffer at the root */
    {"row_sum_upstream.py", "row_sum_upstream", 2, 1, {2, 1}, {{128, 128}, {128}}, ref_row_sum128, 1e-5, 1e-5},
    /* warp shuffles written out, under the reduce_scope attribute upstream leaves */
    {"row_sum_shuffled.py", "row_sum_shuffled", 2, 1, {2, 1}, {{64, 32}, {64}}, ref_row_sum32, 1e-5, 1e-5},
    /* "local" temporaries at the root, outside the launch: each thread's own (the lockstep run
     * of the allreduce copies them per thread) */
    {"row_sum_root_local.py", "row_sum_root_local", 2, 1, {2, 1}, {{64, 128}, {64}}, ref_row_sum64x128, 1e-5, 1e-5},
    /* a virtual thread holding barriers */
    {"matmul_vthread.py",
     "matmul_vthread",
     3,
     1,
     {2, 2, 2},
     {{64, 64}, {64, 64}, {64, 64}},
     ref_matmul,
     1e-5},
};

/* Run function `name` of ir on fresh buffers (inputs from seed 7); b receives them. */
static int run_case(const kernel_case* c, const void* ir, gpu_buf* b) {
  unsigned seed = 7;
  TVMFFIAny args[3];
  for (int k = 0; k < c->nbuf; ++k) {
    gpu_buf_init(&b[k], c->ndim[k], c->dims[k][0], c->dims[k][1], k < c->nbuf - c->nout ? &seed : NULL);
    args[k] = gpu_arg(&b[k]);
  }
  bool mod = tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule;
  return tvm_tir_interp_run(ir, mod ? c->name : NULL, args, c->nbuf, NULL);
}

static void free_bufs(const kernel_case* c, gpu_buf* b) {
  for (int k = 0; k < c->nbuf; ++k) gpu_buf_free(&b[k]);
}

/* The stages of one kernel: parsed, lowered, then each GPU pass. */
static void check_case(const kernel_case* c) {
  enum { NS = 7 };
  void* st[NS] = {NULL};
  const char* names[NS] = {"parsed",      "tvm_tir_lower",          "lower_thread_bindings",
                           "inject_virtual_thread", "thread_sync", "lower_thread_allreduce",
                           "split_host_device"};
  st[0] = gpu_parse(c->file);
  if (!st[0]) return;
  st[1] = tvm_tir_lower(st[0], NULL);
  st[2] = st[1] ? tvm_tir_transform_lower_thread_bindings(st[1]) : NULL;
  st[3] = st[2] ? tvm_tir_transform_inject_virtual_thread(st[2]) : NULL;
  st[4] = st[3] ? tvm_tir_transform_thread_sync(st[3]) : NULL;
  st[5] = st[4] ? tvm_tir_transform_lower_thread_allreduce(st[4]) : NULL;
  st[6] = st[5] ? tvm_tir_transform_split_host_device(st[5]) : NULL;
  if (!st[NS - 1]) gpu_fail_(__LINE__, c->file);
  gpu_buf first[3], ref[3];
  if (run_case(c, st[0], first) != 0) {
    gpu_fail_(__LINE__, c->file);
  } else {
    /* the C reference on the same inputs */
    for (int k = 0; k < c->nbuf; ++k) {
      gpu_buf_init(&ref[k], c->ndim[k], c->dims[k][0], c->dims[k][1], NULL);
      if (k < c->nbuf - c->nout) memcpy(ref[k].data, first[k].data, (size_t)first[k].n * 4);
    }
    c->ref(ref);
    for (int k = c->nbuf - c->nout; k < c->nbuf; ++k) {
      if (gpu_close(first[k].data, ref[k].data, first[k].n, c->tol))
        fprintf(stderr, "%s: the interpreter differs from the C reference\n", c->file);
    }
    free_bufs(c, ref);
    for (int s = 1; s < NS && st[s]; ++s) {
      gpu_buf b[3];
      if (run_case(c, st[s], b) != 0) {
        fprintf(stderr, "%s after %s:\n", c->file, names[s]);
        gpu_fail_(__LINE__, "interpreter run failed");
      } else {
        for (int k = c->nbuf - c->nout; k < c->nbuf; ++k)
          if (c->stage_tol > 0 ? gpu_close(b[k].data, first[k].data, b[k].n, c->stage_tol) != 0
                               : memcmp(b[k].data, first[k].data, (size_t)b[k].n * 4) != 0) {
            fprintf(stderr, "%s: the result changes after %s\n", c->file, names[s]);
            g_test_failed_checks++;
          }
      }
      free_bufs(c, b);
    }
  }
  free_bufs(c, first);
  for (int s = 0; s < NS; ++s) tvm_ffi_release(st[s]);
}

TEST(kernels_against_c_and_every_stage) {
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) check_case(&kCases[k]);
}

/* ---- Barrier semantics ------------------------------------------------------------------ */
static void* parse_text_(int line, const char* text) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* ir = tvm_script_parse(text, strlen(text), &opts);
  if (!ir) gpu_fail_(line, "parse failed");
  return ir;
}
#define parse_text(t) parse_text_(__LINE__, (t))

/* Run a kernel of (A: (n,), B: (n,)) float32 with A[i] = i + 1, B zero; B's data in out. */
static int run_ab(const void* ir, int64_t n, float* out) {
  gpu_buf a, b;
  gpu_buf_init(&a, 1, n, 0, NULL);
  gpu_buf_init(&b, 1, n, 0, NULL);
  for (int64_t i = 0; i < n; ++i) a.data[i] = (float)(i + 1);
  TVMFFIAny args[2] = {gpu_arg(&a), gpu_arg(&b)};
  bool mod = tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule;
  int rc = tvm_tir_interp_run(ir, mod ? "k" : NULL, args, 2, NULL);
  memcpy(out, b.data, (size_t)n * 4);
  gpu_buf_free(&a);
  gpu_buf_free(&b);
  return rc;
}

#define KERNEL_HEAD                                                                   \
  "from tvm.script import tirx as T\n"                                                \
  "@T.prim_func\n"                                                                    \
  "def k(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"

/* Each thread reads its neighbour's element after a barrier: correct only if every thread has
 * written before any reads (run one thread after another, thread 0 would read a zero). */
TEST(barrier_runs_threads_in_lockstep) {
  void* f = parse_text(KERNEL_HEAD
                       "    sh = T.decl_buffer((64,), \"float32\", scope=\"shared\")\n"
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        sh[tx] = A[tx] * T.float32(2)\n"
                       "        T.tvm_storage_sync(\"shared\")\n"
                       "        B[tx] = sh[(tx + 1) % 64]\n");
  float out[64];
  if (f && run_ab(f, 64, out) == 0) {
    for (int i = 0; i < 64; ++i) CHECK(out[i] == (float)(2 * ((i + 1) % 64 + 1)));
  } else if (f) {
    gpu_fail_(__LINE__, "run");
  }
  tvm_ffi_release(f);
}

/* A shared allocation inside the thread launch is the block's, shared by its threads. */
TEST(shared_allocation_inside_launch_is_per_block) {
  void* f = parse_text(KERNEL_HEAD
                       "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
                       "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                       "    sh = T.decl_buffer((32,), \"float32\", scope=\"shared\")\n"
                       "    loc = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                       "    loc[0] = A[bx * 32 + tx]\n"
                       "    sh[tx] = loc[0]\n"
                       "    T.tvm_storage_sync(\"shared\")\n"
                       "    B[bx * 32 + tx] = sh[31 - tx] + loc[0]\n");
  float out[64];
  if (f && run_ab(f, 64, out) == 0) {
    for (int i = 0; i < 64; ++i) {
      int b = i / 32, t = i % 32;
      CHECK(out[i] == (float)(b * 32 + (31 - t) + 1) + (float)(i + 1));
    }
  } else if (f) {
    gpu_fail_(__LINE__, "run");
  }
  tvm_ffi_release(f);
}

/* T.alloc_buffer after T.launch_thread, outside any block (upstream's statement-level
 * allocation): the shared one is the block's, the local one each thread's, as T.decl_buffer; the
 * same kernel runs after each GPU pass (tests/corpus/tir/alloc_buffer_in_stmt.py has it too). */
TEST(alloc_buffer_inside_launch_thread) {
  void* f = parse_text(KERNEL_HEAD
                       "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
                       "    sh = T.alloc_buffer((32,), \"float32\", scope=\"shared\")\n"
                       "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                       "    loc = T.alloc_buffer((1,), \"float32\", scope=\"local\")\n"
                       "    loc[0] = A[bx * 32 + tx]\n"
                       "    sh[tx] = loc[0]\n"
                       "    T.tvm_storage_sync(\"shared\")\n"
                       "    B[bx * 32 + tx] = sh[31 - tx] + loc[0]\n");
  void* st[4] = {f, NULL, NULL, NULL};
  st[1] = f ? tvm_tir_lower(f, NULL) : NULL;
  st[2] = st[1] ? tvm_tir_transform_lower_thread_bindings(st[1]) : NULL;
  st[3] = st[2] ? tvm_tir_transform_thread_sync(st[2]) : NULL;
  if (f && !st[3]) gpu_fail_(__LINE__, "lowering");
  for (int s = 0; s < 4 && st[s]; ++s) {
    float out[64];
    if (run_ab(st[s], 64, out) == 0) {
      for (int i = 0; i < 64; ++i) {
        int b = i / 32, t = i % 32;
        CHECK(out[i] == (float)(b * 32 + (31 - t) + 1) + (float)(i + 1));
      }
    } else {
      fprintf(stderr, "stage %d:\n", s);
      gpu_fail_(__LINE__, "run");
    }
  }
  for (int s = 0; s < 4; ++s) tvm_ffi_release(st[s]);
}

static void expect_run_error_(int line, const char* text, const char* kind, const char* part) {
  void* f = parse_text_(line, text);
  float out[64];
  if (!f) return;
  if (run_ab(f, 64, out) == 0) {
    fprintf(stderr, "line %d: expected %s\n", line, kind);
    g_test_failed_checks++;
  } else {
    void* e = tvm_ffi_error_take();
    if (!e || strcmp(tvm_ffi_error_kind(e), kind) != 0 || !strstr(tvm_ffi_error_message(e), part)) {
      fprintf(stderr, "line %d: got %s: %s\n", line, e ? tvm_ffi_error_kind(e) : "-",
              e ? tvm_ffi_error_message(e) : "-");
      g_test_failed_checks++;
    }
    tvm_ffi_release(e);
  }
  tvm_ffi_release(f);
}
#define EXPECT_RUN_ERROR(text, kind, part) expect_run_error_(__LINE__, (text), (kind), (part))

TEST(barrier_errors) {
  /* a barrier only half the threads reach */
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        if tx < 32:\n"
                   "            T.tvm_storage_sync(\"shared\")\n"
                   "        B[tx] = A[tx]\n",
                   "RuntimeError", "only some of the GPU threads");
  /* a loop around a barrier whose trip count depends on the thread */
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        for i in range(tx % 3):\n"
                   "            T.tvm_storage_sync(\"shared\")\n"
                   "        B[tx] = A[tx]\n",
                   "RuntimeError", "differs between GPU threads");
  /* a barrier in a function the thread loop calls: not placed, an error */
  {
    const char* text =
        "from tvm.script import ir as I\n"
        "from tvm.script import tirx as T\n"
        "@I.ir_module\n"
        "class Module:\n"
        "    @T.prim_func\n"
        "    def sync():\n"
        "        T.tvm_storage_sync(\"shared\")\n"
        "    @T.prim_func\n"
        "    def k(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
        "        for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
        "            T.evaluate(T.call_extern(\"void\", \"sync\"))\n"
        "            B[tx] = A[tx]\n";
    void* m = parse_text(text);
    gpu_buf a, b;
    gpu_buf_init(&a, 1, 64, 0, NULL);
    gpu_buf_init(&b, 1, 64, 0, NULL);
    TVMFFIAny args[2] = {gpu_arg(&a), gpu_arg(&b)};
    if (m) {
      CHECK(tvm_tir_interp_run(m, "k", args, 2, NULL) != 0);
      void* e = tvm_ffi_error_take();
      CHECK(e && strcmp(tvm_ffi_error_kind(e), "NotImplementedError") == 0);
      CHECK(e && strstr(tvm_ffi_error_message(e), "one after another"));
      tvm_ffi_release(e);
    }
    gpu_buf_free(&a);
    gpu_buf_free(&b);
    tvm_ffi_release(m);
  }
}

/* A barrier outside every thread loop is a no-op (the loops before it have finished). */
TEST(barrier_between_thread_loops_is_a_no_op) {
  void* f = parse_text(KERNEL_HEAD
                       "    sh = T.decl_buffer((64,), \"float32\", scope=\"shared\")\n"
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        sh[tx] = A[tx]\n"
                       "    T.tvm_storage_sync(\"shared\")\n"
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        B[tx] = sh[63 - tx]\n");
  float out[64];
  if (f && run_ab(f, 64, out) == 0) {
    for (int i = 0; i < 64; ++i) CHECK(out[i] == (float)(64 - i));
  } else if (f) {
    gpu_fail_(__LINE__, "run");
  }
  tvm_ffi_release(f);
}

/* ---- The passes ----------------------------------------------------------------------------- */
static int count_barriers(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Call &&
      tvm_tir_is_builtin(((const tvm_tir_call_obj*)node)->op, TVM_TIR_BUILTIN_tvm_storage_sync))
    ++*(int*)v->ctx;
  return TVM_TIR_VISIT_CONTINUE;
}

static int barriers_in(const void* ir) {
  int n = 0;
  tvm_tir_visitor v = {0};
  v.pre_default = count_barriers;
  v.ctx = &n;
  tvm_tir_visit(&v, ir);
  tvm_tir_visitor_free(&v);
  return n;
}

/* matmul_sched writes the shared tiles in one thread loop and reads them in the next: a
 * barrier between them and one at the end of the ko loop (the next iteration overwrites the
 * tiles), and one before C is written from acc... which is local: none there. */
TEST(thread_sync_inserts_the_barriers_of_sibling_loops) {
  void* f = gpu_parse("matmul_sched.py");
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  void* h = g ? tvm_tir_transform_lower_thread_bindings(g) : NULL;
  void* s = h ? tvm_tir_transform_thread_sync(h) : NULL;
  CHECK(s != NULL);
  if (s) {
    CHECK_EQ_INT(barriers_in(h), 0);
    CHECK_EQ_INT(barriers_in(s), 2);
    void* again = tvm_tir_transform_thread_sync(s); /* idempotent */
    CHECK(again && barriers_in(again) == 2);
    tvm_ffi_release(again);
  }
  /* a kernel with its barriers written gets none more */
  void* r = gpu_parse("row_sum.py");
  void* rl = r ? tvm_tir_lower(r, NULL) : NULL;
  void* rs = rl ? tvm_tir_transform_thread_sync(rl) : NULL;
  CHECK(rs && barriers_in(rs) == barriers_in(rl));
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  tvm_ffi_release(h);
  tvm_ffi_release(s);
  tvm_ffi_release(r);
  tvm_ffi_release(rl);
  tvm_ffi_release(rs);
}

static int count_launch_attrs(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_For &&
      ((const tvm_tir_for_obj*)node)->kind == TVM_TIR_FOR_THREAD_BINDING)
    ((int*)v->ctx)[0]++;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_AttrStmt &&
      strcmp(tvm_ffi_str_cstr(((const tvm_tir_attr_stmt_obj*)node)->attr_key), "thread_extent") == 0)
    ((int*)v->ctx)[1]++;
  return TVM_TIR_VISIT_CONTINUE;
}

TEST(lower_thread_bindings) {
  void* f = gpu_parse("add.py");
  void* g = f ? tvm_tir_transform_lower_thread_bindings(f) : NULL;
  CHECK(g != NULL);
  if (g) {
    int counts[2] = {0, 0};
    tvm_tir_visitor v = {0};
    v.pre_default = count_launch_attrs;
    v.ctx = counts;
    tvm_tir_visit(&v, g);
    tvm_tir_visitor_free(&v);
    CHECK_EQ_INT(counts[0], 0);
    CHECK_EQ_INT(counts[1], 2);
    CHECK(tvm_tir_verify_well_formed(g) == 0);
  }
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  /* a non-zero start: the loop variable becomes v + min */
  void* w = parse_text(KERNEL_HEAD
                       "    for tx in T.thread_binding(4, 36, thread=\"threadIdx.x\"):\n"
                       "        B[tx] = A[tx]\n");
  void* wl = w ? tvm_tir_transform_lower_thread_bindings(w) : NULL;
  float o1[64], o2[64];
  CHECK(wl && run_ab(w, 64, o1) == 0 && run_ab(wl, 64, o2) == 0);
  CHECK(memcmp(o1, o2, sizeof(o1)) == 0);
  CHECK(o1[3] == 0.0f && o1[4] == 5.0f && o1[35] == 36.0f && o1[36] == 0.0f);
  tvm_ffi_release(w);
  tvm_ffi_release(wl);
  /* an unknown tag */
  void* u = parse_text(KERNEL_HEAD
                       "    for tx in T.thread_binding(64, thread=\"warpIdx.q\"):\n"
                       "        B[tx] = A[tx]\n");
  void* ul = u ? tvm_tir_transform_lower_thread_bindings(u) : NULL;
  CHECK(u && !ul);
  void* e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "ValueError") == 0 &&
        strstr(tvm_ffi_error_message(e), "unknown thread tag \"warpIdx.q\""));
  tvm_ffi_release(e);
  tvm_ffi_release(u);
}

static const tvm_tir_prim_func_obj* module_func(const void* mod, const char* name) {
  void* f = tvm_tir_ir_module_lookup(mod, name);
  tvm_ffi_release(f); /* the module holds it */
  return f;
}

TEST(split_host_device) {
  void* f = gpu_parse("matmul_tiled.py");
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  void* m = g ? tvm_tir_transform_split_host_device(g) : NULL;
  CHECK(m && tvm_tir_kind_of(m) == TVM_TIR_KIND_IRModule);
  if (m) {
    const tvm_tir_prim_func_obj* host = module_func(m, "matmul");
    const tvm_tir_prim_func_obj* kern = module_func(m, "matmul_kernel");
    CHECK(host && kern);
    if (kern) {
      const TVMFFIAny* cc = tvm_ffi_map_get_str(kern->func.attrs, "calling_conv");
      CHECK(cc && cc->v_int64 == 2);
      const TVMFFIAny* lp = tvm_ffi_map_get_str(kern->func.attrs, "tir.kernel_launch_params");
      CHECK(lp && tvm_ffi_seq_size(lp->v_obj) == 4);
      if (lp && tvm_ffi_seq_size(lp->v_obj) == 4) {
        TVMFFIByteArray t0, t3;
        CHECK(tvm_ffi_any_as_bytes(tvm_ffi_seq_at(lp->v_obj, 0), &t0) && t0.size == 10 &&
              memcmp(t0.data, "blockIdx.x", 10) == 0);
        CHECK(tvm_ffi_any_as_bytes(tvm_ffi_seq_at(lp->v_obj, 3), &t3) && t3.size == 11 &&
              memcmp(t3.data, "threadIdx.y", 11) == 0);
      }
      /* A, B, C data pointers, then n */
      CHECK_EQ_INT(tvm_tir_array_size(kern->params), 4);
      if (tvm_tir_array_size(kern->params) == 4) {
        CHECK(tvm_tir_dtype_is_handle(((tvm_tir_var_obj*)tvm_tir_array_at(kern->params, 0))->expr.dtype));
        CHECK(!tvm_tir_dtype_is_handle(((tvm_tir_var_obj*)tvm_tir_array_at(kern->params, 3))->expr.dtype));
      }
      CHECK(tvm_tir_verify_well_formed(kern) == 0);
    }
    if (host) CHECK(tvm_tir_verify_well_formed(host) == 0);
  }
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  tvm_ffi_release(m);
  /* host code touching memory */
  void* h = parse_text(KERNEL_HEAD
                       "    B[0] = A[0]\n"
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        B[tx] = A[tx]\n");
  void* hl = h ? tvm_tir_transform_lower_thread_bindings(h) : NULL;
  void* hs = hl ? tvm_tir_transform_split_host_device(hl) : NULL;
  CHECK(hl && !hs);
  void* e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "ValueError") == 0 &&
        strstr(tvm_ffi_error_message(e), "host code"));
  tvm_ffi_release(e);
  tvm_ffi_release(h);
  tvm_ffi_release(hl);
  /* host allocations left in host code: shared memory two kernels use (it cannot carry values
   * between kernel launches), global memory (a device workspace: not supported) */
  static const struct {
    const char* scope;
    const char* kind;
    const char* part;
  } host_alloc[] = {
      {"shared", "ValueError", "a \"shared\" allocation in host code used by more than one kernel"},
      {"global", "NotImplementedError", "allocates global memory: device memory allocated by the host"},
  };
  for (int k = 0; k < 2; ++k) {
    char text[1024];
    snprintf(text, sizeof(text),
             KERNEL_HEAD "    sh = T.alloc_buffer((64,), \"float32\", scope=\"%s\")\n"
                         "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                         "        sh[tx] = A[tx]\n"
                         "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                         "        B[tx] = sh[63 - tx]\n",
             host_alloc[k].scope);
    void* a = parse_text(text);
    void* al = a ? tvm_tir_lower(a, NULL) : NULL;
    void* ab = al ? tvm_tir_transform_lower_thread_bindings(al) : NULL;
    void* as = ab ? tvm_tir_transform_split_host_device(ab) : NULL;
    CHECK(ab && !as);
    e = tvm_ffi_error_take();
    CHECK(e && strcmp(tvm_ffi_error_kind(e), host_alloc[k].kind) == 0 &&
          strstr(tvm_ffi_error_message(e), host_alloc[k].part));
    tvm_ffi_release(e);
    tvm_ffi_release(a);
    tvm_ffi_release(al);
    tvm_ffi_release(ab);
  }
  /* a launch extent the kernel computes */
  void* x = parse_text(KERNEL_HEAD
                       "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
                       "    tx = T.launch_thread(\"threadIdx.x\", 32 - bx)\n"
                       "    B[bx * 32 + tx] = A[bx * 32 + tx]\n");
  void* xs = x ? tvm_tir_transform_split_host_device(x) : NULL;
  CHECK(x && !xs);
  e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "the extent of the threadIdx.x launch depends on bx"));
  tvm_ffi_release(e);
  tvm_ffi_release(x);
}

/* shared.dyn allocations: laid out one after another, the total an attribute. */
TEST(split_dyn_shared) {
  void* f = parse_text(KERNEL_HEAD
                       "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
                       "    s1 = T.decl_buffer((20,), \"float32\", scope=\"shared.dyn\")\n"
                       "    s2 = T.decl_buffer((32,), \"float32\", scope=\"shared.dyn\")\n"
                       "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                       "    s2[tx] = A[bx * 32 + tx]\n"
                       "    if tx < 20:\n"
                       "        s1[tx] = A[bx * 32 + tx]\n"
                       "    T.tvm_storage_sync(\"shared\")\n"
                       "    B[bx * 32 + tx] = s2[31 - tx] + T.if_then_else(tx < 20, s1[19 - tx], T.float32(0))\n");
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  void* m = g ? tvm_tir_transform_split_host_device(g) : NULL;
  CHECK(m != NULL);
  if (m) {
    const tvm_tir_prim_func_obj* kern = module_func(m, "k_kernel");
    const TVMFFIAny* total = kern ? tvm_ffi_map_get_str(kern->func.attrs, "tir.dyn_shared_bytes") : NULL;
    int64_t v = -1;
    CHECK(total && tvm_tir_as_const_int(total->v_obj, &v) && v == 80 + 128);
    float o1[64], o2[64];
    CHECK(run_ab(f, 64, o1) == 0);
    gpu_buf a, b;
    gpu_buf_init(&a, 1, 64, 0, NULL);
    gpu_buf_init(&b, 1, 64, 0, NULL);
    for (int i = 0; i < 64; ++i) a.data[i] = (float)(i + 1);
    TVMFFIAny args[2] = {gpu_arg(&a), gpu_arg(&b)};
    CHECK(tvm_tir_interp_run(m, "k", args, 2, NULL) == 0);
    memcpy(o2, b.data, sizeof(o2));
    CHECK(memcmp(o1, o2, sizeof(o1)) == 0);
    CHECK(o1[0] == 32.0f + 20.0f);
    gpu_buf_free(&a);
    gpu_buf_free(&b);
  }
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  tvm_ffi_release(m);
}


/* ---- Warp shuffles and allreduce in the interpreter ----------------------------------------- */
/* Each thread of two warps reads its partners: shuffle_down by 3 in segments of 16 (its own value
 * past the segment), shuffle of lane 5 of each segment of 8, shuffle_up by 2 (its own value below
 * lane 2), activemask of the even threads. A[i] = i + 1. */
TEST(warp_shuffles_read_the_partner_lane) {
  void* f = parse_text(KERNEL_HEAD
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        B[tx] = T.tvm_warp_shuffle_down(T.uint32(4294967295), A[tx], 3, 16, 32)"
                       " + T.tvm_warp_shuffle(T.uint32(4294967295), A[tx], 5, 8, 32) * T.float32(100)"
                       " + T.tvm_warp_shuffle_up(T.uint32(4294967295), A[tx], 2, 32, 32) * T.float32(10000)\n"
                       "        if tx % 2 == 0:\n"
                       "            m: T.uint32 = T.tvm_warp_activemask()\n"
                       "            A[tx] = T.Cast(\"float32\", m & T.uint32(255))\n");
  float out[64];
  gpu_buf a, b;
  gpu_buf_init(&a, 1, 64, 0, NULL);
  gpu_buf_init(&b, 1, 64, 0, NULL);
  for (int64_t i = 0; i < 64; ++i) a.data[i] = (float)(i + 1);
  TVMFFIAny args[2] = {gpu_arg(&a), gpu_arg(&b)};
  if (f && tvm_tir_interp_run(f, NULL, args, 2, NULL) == 0) {
    memcpy(out, b.data, sizeof(out));
    for (int i = 0; i < 64; ++i) {
      int lane = i % 32, base = i - lane;
      int down = lane + 3 < lane / 16 * 16 + 16 ? lane + 3 : lane;
      int idx = lane / 8 * 8 + 5;
      int up = lane >= 2 ? lane - 2 : lane;
      float want = (float)(base + down + 1) + (float)(base + idx + 1) * 100 + (float)(base + up + 1) * 10000;
      if (out[i] != want) {
        fprintf(stderr, "thread %d: %g, want %g\n", i, out[i], want);
        g_test_failed_checks++;
      }
      CHECK(i % 2 ? a.data[i] == (float)(i + 1) : a.data[i] == 85.0f); /* 0x55 */
    }
  } else if (f) {
    gpu_fail_(__LINE__, "run");
  }
  gpu_buf_free(&a);
  gpu_buf_free(&b);
  tvm_ffi_release(f);
}

#define ALLREDUCE_SUM(value, cond, result, vars)                                            \
  "with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), \"reduce_scope\", "      \
  "T.reinterpret(\"handle\", T.uint64(0))):\n"                                              \
  "                T.tvm_thread_allreduce(T.uint32(1), " value ", " cond ", " result ", " vars ")\n"

/* Allreduce groups: over threadIdx.x within each threadIdx.y row, with a condition. */
TEST(allreduce_groups_and_condition) {
  void* f = parse_text(KERNEL_HEAD
                       "    for ty in T.thread_binding(4, thread=\"threadIdx.y\"):\n"
                       "        for tx in T.thread_binding(16, thread=\"threadIdx.x\"):\n"
                       "            r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                       "            " ALLREDUCE_SUM("A[ty * 16 + tx]", "tx % 3 != 0", "r.data", "tx")
                       "            B[ty * 16 + tx] = r[0]\n");
  float out[64];
  if (f && run_ab(f, 64, out) == 0) {
    for (int i = 0; i < 64; ++i) {
      float want = 0;
      for (int t = 0; t < 16; ++t)
        if (t % 3 != 0) want += (float)(i / 16 * 16 + t + 1);
      CHECK(out[i] == want);
    }
    /* the lowered forms give the same: a warp reduction of width 16 */
    void* low = tvm_tir_transform_lower_thread_allreduce(f);
    CHECK(low != NULL);
    float out2[64];
    if (low && run_ab(low, 64, out2) == 0) {
      CHECK(memcmp(out, out2, sizeof(out)) == 0);
    } else {
      gpu_fail_(__LINE__, "lowered run");
    }
    tvm_ffi_release(low);
  } else if (f) {
    gpu_fail_(__LINE__, "run");
  }
  tvm_ffi_release(f);
}

/* A condition guarding a load that would be out of bounds where it is false: the value is not
 * evaluated there, before lowering and after (two-stage over 64 threads). */
TEST(allreduce_condition_guards_the_value) {
  void* f = parse_text(KERNEL_HEAD
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                       "        " ALLREDUCE_SUM("A[tx + 40]", "tx < 24", "r.data", "tx")
                       "        B[tx] = r[0]\n");
  void* low = f ? tvm_tir_transform_lower_thread_allreduce(f) : NULL;
  float want = 0, out[64];
  for (int t = 0; t < 24; ++t) want += (float)(t + 41);
  for (int k = 0; k < 2; ++k) {
    void* ir = k ? low : f;
    if (ir && run_ab(ir, 64, out) == 0) {
      for (int i = 0; i < 64; ++i) CHECK(out[i] == want);
    } else {
      gpu_fail_(__LINE__, k ? "lowered run" : "run");
    }
  }
  tvm_ffi_release(low);
  tvm_ffi_release(f);
}

TEST(warp_and_allreduce_errors) {
  /* a shuffle reading a lane whose thread does not run it */
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        if tx < 16:\n"
                   "            B[tx] = T.tvm_warp_shuffle_down(T.uint32(4294967295), A[tx], 8, 32, 32)\n",
                   "RuntimeError", "not running this statement");
  /* a lane outside the mask */
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        B[tx] = T.tvm_warp_shuffle(T.uint32(1), A[tx], 1, 32, 32)\n",
                   "RuntimeError", "mask");
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        B[tx] = T.tvm_warp_shuffle(T.uint32(4294967295), A[tx], 1, 12, 32)\n",
                   "ValueError", "width 12");
  /* outside every thread launch */
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    B[0] = T.tvm_warp_shuffle(T.uint32(4294967295), A[0], 1, 32, 32)\n",
                   "NotImplementedError", "cannot run the threads of a warp together");
  /* allreduce without its reducer, under a divergent branch, over a serial loop variable */
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                   "        T.tvm_thread_allreduce(T.uint32(1), A[tx], T.bool(True), r.data, tx)\n"
                   "        B[tx] = r[0]\n",
                   "ValueError", "reduce_scope");
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                   "        if tx < 8:\n"
                   "            " ALLREDUCE_SUM("A[tx]", "T.bool(True)", "r.data", "tx")
                   "        B[tx] = r[0]\n",
                   "RuntimeError", "only some of the GPU threads");
  EXPECT_RUN_ERROR(KERNEL_HEAD
                   "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                   "        r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                   "        for i in range(2):\n"
                   "            " ALLREDUCE_SUM("A[tx]", "T.bool(True)", "r.data", "i")
                   "        B[tx] = r[0]\n",
                   "ValueError", "not a thread variable");
}

/* The three lowered forms, by what they hold; and the pass's errors. */
typedef struct {
  int shuffles, activemask, barriers, shared;
} ar_counts;

static int count_ar(tvm_tir_visitor* v, const void* node) {
  ar_counts* c = v->ctx;
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Call) {
    const void* op = ((const tvm_tir_call_obj*)node)->op;
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle) ||
        tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_shuffle_down))
      c->shuffles++;
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_warp_activemask)) c->activemask++;
    if (tvm_tir_is_builtin(op, TVM_TIR_BUILTIN_tvm_storage_sync)) c->barriers++;
  }
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_Allocate) {
    const char* sc = tvm_tir_pointer_type_scope(((const tvm_tir_allocate_obj*)node)->buffer_var->type_annotation);
    if (sc && strcmp(sc, "shared") == 0) c->shared++;
  }
  return TVM_TIR_VISIT_CONTINUE;
}

static ar_counts lowered_counts(const char* file) {
  ar_counts c = {0};
  void* f = gpu_parse(file);
  void* l = f ? tvm_tir_lower(f, NULL) : NULL;
  void* b = l ? tvm_tir_transform_lower_thread_bindings(l) : NULL;
  void* r = b ? tvm_tir_transform_lower_thread_allreduce(b) : NULL;
  if (!r) {
    gpu_fail_(__LINE__, file);
  } else {
    tvm_tir_visitor v = {0};
    v.ctx = &c;
    v.pre_default = count_ar;
    tvm_tir_visit(&v, gpu_func(r)->body);
    tvm_tir_visitor_free(&v);
  }
  tvm_ffi_release(f);
  tvm_ffi_release(l);
  tvm_ffi_release(b);
  tvm_ffi_release(r);
  return c;
}

TEST(lower_thread_allreduce_forms) {
  /* warp: two reductions of 5 shuffle-down steps and a broadcast, no barrier or shared memory */
  ar_counts w = lowered_counts("softmax_warp.py");
  CHECK(w.shuffles == 12 && w.activemask == 2 && w.barriers == 0 && w.shared == 0);
  /* two values shuffled together */
  ar_counts a = lowered_counts("row_argmax.py");
  CHECK(a.shuffles == 12 && a.barriers == 0 && a.shared == 0);
  /* two-stage: 5 steps, the partials, 2 steps over 4 warps, a broadcast; two barriers */
  ar_counts t = lowered_counts("row_sum_allreduce.py");
  CHECK(t.shuffles == 8 && t.barriers == 2 && t.shared == 1);
  /* tree over 24 threads: a barrier after the writes, after each of 5 steps, after the read */
  ar_counts tr = lowered_counts("col_sum_tree.py");
  CHECK(tr.shuffles == 0 && tr.barriers == 7 && tr.shared == 1);
  /* errors: no reducer; a symbolic thread extent */
  void* f = parse_text(KERNEL_HEAD
                       "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                       "        r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                       "        T.tvm_thread_allreduce(T.uint32(1), A[tx], T.bool(True), r.data, tx)\n"
                       "        B[tx] = r[0]\n");
  void* b = f ? tvm_tir_transform_lower_thread_bindings(f) : NULL;
  CHECK(b && !tvm_tir_transform_lower_thread_allreduce(b));
  void* e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "reduce_scope"));
  tvm_ffi_release(e);
  tvm_ffi_release(b);
  tvm_ffi_release(f);
  f = parse_text("from tvm.script import tirx as T\n"
                 "@T.prim_func\n"
                 "def k(a: T.handle, b: T.handle):\n"
                 "    n = T.int32()\n"
                 "    A = T.match_buffer(a, (n,), \"float32\")\n"
                 "    B = T.match_buffer(b, (1,), \"float32\")\n"
                 "    for tx in T.thread_binding(n, thread=\"threadIdx.x\"):\n"
                 "        r = T.decl_buffer((1,), \"float32\", scope=\"local\")\n"
                 "        " ALLREDUCE_SUM("A[tx]", "T.bool(True)", "r.data", "tx")
                 "        B[0] = r[0]\n");
  b = f ? tvm_tir_transform_lower_thread_bindings(f) : NULL;
  CHECK(b && !tvm_tir_transform_lower_thread_allreduce(b));
  e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "NotImplementedError") == 0 &&
        strstr(tvm_ffi_error_message(e), "non-constant extent"));
  tvm_ffi_release(e);
  tvm_ffi_release(b);
  tvm_ffi_release(f);
}

static int count_vthreads(tvm_tir_visitor* v, const void* node) {
  if (tvm_tir_kind_of(node) == TVM_TIR_KIND_AttrStmt &&
      strcmp(tvm_ffi_str_cstr(((const tvm_tir_attr_stmt_obj*)node)->attr_key), "virtual_thread") == 0)
    ++*(int*)v->ctx;
  return TVM_TIR_VISIT_CONTINUE;
}

/* inject_virtual_thread: a virtual thread without a barrier becomes a serial loop, one with a
 * barrier is split (a local allocation one per virtual thread); both run as before. What cannot
 * be split exactly is an error. */
TEST(inject_virtual_thread) {
  static const char* const ok[] = {
      KERNEL_HEAD "    for v in T.thread_binding(2, thread=\"vthread.x\"):\n"
                  "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                  "            B[v * 32 + tx] = A[v * 32 + tx] * T.float32(3)\n",
      /* each virtual thread keeps its own accumulator across the barrier */
      KERNEL_HEAD "    sh = T.decl_buffer((64,), \"float32\", scope=\"shared\")\n"
                  "    for v in T.thread_binding(2, thread=\"vthread.x\"):\n"
                  "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                  "            acc = T.decl_buffer((2,), \"float32\", scope=\"local\")\n"
                  "            acc[1] = A[v * 32 + tx]\n"
                  "            sh[v * 32 + tx] = acc[1] * T.float32(2)\n"
                  "            T.tvm_storage_sync(\"shared\")\n"
                  "            B[v * 32 + tx] = sh[63 - v * 32 - tx] + acc[1]\n",
  };
  for (int k = 0; k < 2; ++k) {
    void* f = parse_text(ok[k]);
    void* l = f ? tvm_tir_lower(f, NULL) : NULL;
    void* b = l ? tvm_tir_transform_lower_thread_bindings(l) : NULL;
    void* g = b ? tvm_tir_transform_inject_virtual_thread(b) : NULL;
    float want[64], got[64];
    if (!g || run_ab(b, 64, want) != 0 || run_ab(g, 64, got) != 0) {
      gpu_fail_(__LINE__, "inject_virtual_thread");
    } else {
      CHECK(memcmp(want, got, sizeof(want)) == 0);
      int n = 0;
      tvm_tir_visitor v = {0};
      v.pre_default = count_vthreads;
      v.ctx = &n;
      tvm_tir_visit(&v, g);
      tvm_tir_visitor_free(&v);
      CHECK_EQ_INT(n, 0);
      for (int i = 0; i < 64; ++i)
        CHECK(k == 0 ? want[i] == 3.0f * (float)(i + 1) : want[i] == 2.0f * (float)(64 - i) + (float)(i + 1));
    }
    tvm_ffi_release(f);
    tvm_ffi_release(b);
    tvm_ffi_release(l);
    tvm_ffi_release(g);
  }
  void* f = parse_text(KERNEL_HEAD "    for v in T.thread_binding(2, thread=\"vthread.x\"):\n"
                                   "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                                   "            for i in range(v + 1):\n"
                                   "                T.tvm_storage_sync(\"shared\")\n"
                                   "            B[v * 32 + tx] = A[v * 32 + tx]\n");
  void* b = f ? tvm_tir_transform_lower_thread_bindings(f) : NULL;
  CHECK(b && !tvm_tir_transform_inject_virtual_thread(b));
  void* e = tvm_ffi_error_take();
  CHECK(e && strcmp(tvm_ffi_error_kind(e), "NotImplementedError") == 0 &&
        strstr(tvm_ffi_error_message(e), "a barrier under a loop that depends on the virtual thread"));
  tvm_ffi_release(e);
  tvm_ffi_release(b);
  tvm_ffi_release(f);
}

int main(void) {
  RUN(kernels_against_c_and_every_stage);
  RUN(barrier_runs_threads_in_lockstep);
  RUN(shared_allocation_inside_launch_is_per_block);
  RUN(alloc_buffer_inside_launch_thread);
  RUN(barrier_errors);
  RUN(barrier_between_thread_loops_is_a_no_op);
  RUN(thread_sync_inserts_the_barriers_of_sibling_loops);
  RUN(lower_thread_bindings);
  RUN(split_host_device);
  RUN(split_dyn_shared);
  RUN(warp_shuffles_read_the_partner_lane);
  RUN(allreduce_groups_and_condition);
  RUN(allreduce_condition_guards_the_value);
  RUN(warp_and_allreduce_errors);
  RUN(lower_thread_allreduce_forms);
  RUN(inject_virtual_thread);
  return test_summary();
}
