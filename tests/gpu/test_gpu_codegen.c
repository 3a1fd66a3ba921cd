/*
 * test_gpu_codegen.c: CUDA code generation without a GPU. Target strings (every form and the
 * errors); the PTX of every kernel of tests/gpu/kernels (verified by LLVM, its entry, parameter
 * count, launch bounds, shared memory, barriers, thread index reads, math instructions, and, when
 * the CUDA toolkit's ptxas is installed, assembled by it for sm_80 and sm_90); float16; and the
 * build errors of what the GPU code generator refuses.
 */
#include <tvm/codegen/codegen.h>

#include "gpu_testing.h"

#ifndef TVM_PTXAS
#define TVM_PTXAS ""
#endif
#ifndef TVM_GPU_TMPDIR
#define TVM_GPU_TMPDIR "/tmp"
#endif

/* ---- Targets ---------------------------------------------------------------------------- */
static void expect_target_(int line, const char* text, int kind, const char* mcpu, int sm, const char* canon) {
  tvm_codegen_target t;
  if (tvm_codegen_target_parse(text, &t) != 0) {
    gpu_fail_(line, text);
    return;
  }
  char buf[128];
  tvm_codegen_target_str(&t, buf, sizeof(buf));
  if ((int)t.kind != kind || strcmp(t.mcpu, mcpu) != 0 || t.sm != sm || strcmp(buf, canon) != 0) {
    fprintf(stderr, "line %d: \"%s\": kind %d mcpu \"%s\" sm %d text \"%s\"\n", line, text, t.kind,
            t.mcpu, t.sm, buf);
    g_test_failed_checks++;
  }
}
#define EXPECT_TARGET(...) expect_target_(__LINE__, __VA_ARGS__)

static void expect_bad_target_(int line, const char* text, const char* part) {
  tvm_codegen_target t;
  if (tvm_codegen_target_parse(text, &t) == 0) {
    fprintf(stderr, "line %d: \"%s\" parsed\n", line, text);
    g_test_failed_checks++;
    return;
  }
  void* e = tvm_ffi_error_take();
  if (!e || strcmp(tvm_ffi_error_kind(e), "ValueError") != 0 || !strstr(tvm_ffi_error_message(e), part)) {
    fprintf(stderr, "line %d: \"%s\": %s\n", line, text, e ? tvm_ffi_error_message(e) : "-");
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}
#define EXPECT_BAD_TARGET(text, part) expect_bad_target_(__LINE__, (text), (part))

TEST(targets) {
  EXPECT_TARGET(NULL, TVM_CODEGEN_TARGET_LLVM, "", 0, "llvm");
  EXPECT_TARGET("", TVM_CODEGEN_TARGET_LLVM, "", 0, "llvm");
  EXPECT_TARGET("llvm", TVM_CODEGEN_TARGET_LLVM, "", 0, "llvm");
  EXPECT_TARGET("llvm -mcpu=haswell", TVM_CODEGEN_TARGET_LLVM, "haswell", 0, "llvm -mcpu=haswell");
  EXPECT_TARGET("  llvm   --mcpu=znver3 ", TVM_CODEGEN_TARGET_LLVM, "znver3", 0, "llvm -mcpu=znver3");
  EXPECT_TARGET("cuda", TVM_CODEGEN_TARGET_CUDA, "", 0, "cuda");
  EXPECT_TARGET("cuda -arch=sm_90", TVM_CODEGEN_TARGET_CUDA, "sm_90", 90, "cuda -arch=sm_90");
  EXPECT_TARGET("cuda -arch=sm_90a", TVM_CODEGEN_TARGET_CUDA, "sm_90a", 90, "cuda -arch=sm_90a");
  EXPECT_TARGET("nvptx -mcpu=sm_80", TVM_CODEGEN_TARGET_CUDA, "sm_80", 80, "cuda -arch=sm_80");
  EXPECT_BAD_TARGET("rocm", "unknown target kind \"rocm\" (known: llvm, cuda)");
  EXPECT_BAD_TARGET("cuda -arch=90", "-arch expects sm_<major><minor> such as sm_90, got \"90\"");
  EXPECT_BAD_TARGET("cuda -arch=sm_9x", "got \"sm_9x\"");
  EXPECT_BAD_TARGET("cuda -arch=sm_100", "sm_100 is not a compute capability LLVM 19's NVPTX backend knows");
  EXPECT_BAD_TARGET("cuda -arch=sm_80a", "sm_80a is not a compute capability");
  EXPECT_BAD_TARGET("cuda -mcpu=haswell", "got \"haswell\"");
  EXPECT_BAD_TARGET("llvm -arch=sm_90", "unknown option -arch for target kind llvm (known: -mcpu)");
  EXPECT_BAD_TARGET("cuda -max_threads=5", "unknown option -max_threads for target kind cuda (known: -arch)");
  EXPECT_BAD_TARGET("cuda -arch", "option \"-arch\" has no value");
  EXPECT_BAD_TARGET("cuda sm_90", "expected an option -key=value, got \"sm_90\"");
  EXPECT_BAD_TARGET("cuda -arch=sm_80 -arch=sm_90", "the architecture is given twice");
  /* used by the build itself */
  void* f = gpu_parse("add.py");
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  CHECK(g && tvm_codegen_build(g, "opencl", NULL) == NULL);
  void* e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "unknown target kind \"opencl\""));
  tvm_ffi_release(e);
  TVMFFIAny out;
  CHECK(g && tvm_codegen_emit_ptx(g, "llvm", NULL, &out) != 0);
  e = tvm_ffi_error_take();
  CHECK(e && strstr(tvm_ffi_error_message(e), "is not a CUDA target"));
  tvm_ffi_release(e);
  tvm_ffi_release(f);
  tvm_ffi_release(g);
}

/* ---- PTX ---------------------------------------------------------------------------------- */
static int count(const char* text, const char* part) {
  int n = 0;
  for (const char* p = text; (p = strstr(p, part)); p += strlen(part)) n++;
  return n;
}

/* The PTX of a lowered kernel file (a malloc'ed string), NULL + failed check. */
static char* ptx_of_(int line, const char* file, const char* target) {
  void* f = test_parse_file_(line, TVM_GPU_KERNEL_DIR, file);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  TVMFFIAny out = tvm_ffi_any_none();
  char* text = NULL;
  if (!g || tvm_codegen_emit_ptx(g, target, NULL, &out) != 0) {
    gpu_fail_(line, file);
  } else {
    TVMFFIByteArray b;
    tvm_ffi_any_as_bytes(&out, &b);
    text = malloc(b.size + 1);
    memcpy(text, b.data, b.size);
    text[b.size] = 0;
  }
  tvm_ffi_any_release(&out);
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  return text;
}
#define ptx_of(file, target) ptx_of_(__LINE__, (file), (target))

/* Assemble with the toolkit's ptxas when there is one. */
static void ptxas_(int line, const char* ptx, const char* name, const char* arch) {
  if (!TVM_PTXAS[0]) return;
  char path[512], cmd[1200];
  snprintf(path, sizeof(path), "%s/%s_%s.ptx", TVM_GPU_TMPDIR, name, arch);
  FILE* fp = fopen(path, "wb");
  if (!fp) return;
  fputs(ptx, fp);
  fclose(fp);
  snprintf(cmd, sizeof(cmd), "'%s' -arch=%s '%s' -o /dev/null", TVM_PTXAS, arch, path);
  int rc = system(cmd);
  if (rc != 0) {
    fprintf(stderr, "line %d: ptxas -arch=%s rejects %s (kept)\n", line, arch, path);
    g_test_failed_checks++;
  } else {
    remove(path);
  }
}
#define PTXAS(ptx, name, arch) ptxas_(__LINE__, (ptx), (name), (arch))

typedef struct {
  const char* file;
  const char* entry;
  int params;
  int min_bar;    /* bar.sync at least */
  int shared;     /* .shared arrays (static) */
  const char* maxntid;
  const char* also; /* another instruction that must be there, or NULL */
} ptx_case;

static const ptx_case kPtx[] = {
    {"add.py", "add_kernel", 4, 0, 0, ".maxntid 128, 1, 1", "%tid.x"},
    {"row_sum.py", "row_sum_kernel", 3, 8, 1, ".maxntid 128, 1, 1", "ld.shared.f32"},
    {"matmul_tiled.py", "matmul_kernel", 4, 2, 2, ".maxntid 16, 16, 1", "%tid.y"},
    {"matmul_sched.py", "matmul_sched_kernel", 3, 2, 2, ".maxntid 16, 16, 1", "st.shared.f32"},
    {"transpose.py", "transpose_kernel", 4, 1, 1, ".maxntid 16, 16, 1", "%ctaid.y"},
    {"softmax.py", "softmax_kernel", 3, 16, 1, ".maxntid 128, 1, 1", "ex2.approx"},
    /* break / continue: branches out of and back into the row loop, no barrier */
    {"row_scan.py", "row_scan_kernel", 2, 0, 0, ".maxntid 32, 1, 1", "setp.gt.f32"},
    /* tvm_thread_allreduce: warp + shared partials + warp; warp shuffles only (with groups,
     * two values); a shared tree */
    {"row_sum_allreduce.py", "row_sum_allreduce_kernel", 3, 2, 1, ".maxntid 128, 1, 1", "shfl.sync.down.b32"},
    {"softmax_warp.py", "softmax_warp_kernel", 3, 0, 0, ".maxntid 32, 4, 1", "shfl.sync.idx.b32"},
    {"row_argmax.py", "row_argmax_kernel", 3, 0, 0, ".maxntid 32, 1, 1", "activemask.b32"},
    {"col_sum_tree.py", "col_sum_tree_kernel", 3, 7, 1, ".maxntid 16, 24, 1", "ld.shared.f32"},
    {"row_sum_upstream.py", "row_sum_upstream_kernel", 2, 2, 1, ".maxntid 128, 1, 1", "shfl.sync.idx.b32"},
    /* virtual threads injected: serial code, the tiles in shared memory */
    {"matmul_vthread.py", "matmul_vthread_kernel", 3, 2, 2, ".maxntid 16, 8, 1", "fma.rn.f32"},
    /* shuffles written out under a leftover reduce_scope: its reducer's Vars are no parameters */
    {"row_sum_shuffled.py", "row_sum_shuffled_kernel", 2, 0, 0, ".maxntid 32, 1, 1", "shfl.sync.down.b32"},
    /* local temporaries at the root: moved into the kernel, registers there */
    {"row_sum_root_local.py", "row_sum_root_local_kernel", 2, 0, 0, ".maxntid 32, 1, 1", "shfl.sync.down.b32"},
};

TEST(ptx_of_every_kernel) {
  for (size_t k = 0; k < sizeof(kPtx) / sizeof(kPtx[0]); ++k) {
    const ptx_case* c = &kPtx[k];
    char* ptx = ptx_of(c->file, "cuda -arch=sm_80");
    if (!ptx) continue;
    char entry[128];
    snprintf(entry, sizeof(entry), ".visible .entry %s(", c->entry);
    CHECK(strstr(ptx, entry) != NULL);
    CHECK(strstr(ptx, ".target sm_80") && strstr(ptx, ".version 7.0"));
    const char* params = strstr(ptx, entry);
    const char* close = params ? strchr(params, ')') : NULL;
    int np = 0;
    for (const char* p = params; p && close && (p = strstr(p, ".param .")) && p < close; p += 8) np++;
    CHECK_EQ_INT(np, c->params);
    CHECK(count(ptx, "bar.sync") >= c->min_bar);
    if (c->min_bar == 0) CHECK_EQ_INT(count(ptx, "bar.sync"), 0);
    CHECK_EQ_INT(count(ptx, ".shared .align 16"), c->shared);
    CHECK(strstr(ptx, c->maxntid) != NULL);
    CHECK(strstr(ptx, "%ctaid.x") && strstr(ptx, "%tid.x"));
    if (c->also) CHECK(strstr(ptx, c->also) != NULL);
    CHECK(!strstr(ptx, "call.uni")); /* no function calls: everything inline, no libdevice */
    if (g_test_failed_checks) fprintf(stderr, "(%s)\n", c->file);
    PTXAS(ptx, c->entry, "sm_80");
    free(ptx);
    ptx = ptx_of(c->file, "cuda -arch=sm_90");
    if (ptx) {
      CHECK(strstr(ptx, ".target sm_90") && strstr(ptx, ".version 7.8"));
      PTXAS(ptx, c->entry, "sm_90");
    }
    free(ptx);
  }
}

#define HEAD "from tvm.script import tirx as T\n@T.prim_func\n"

static char* ptx_text_(int line, const char* text, const char* target) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(text, strlen(text), &opts);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  TVMFFIAny out = tvm_ffi_any_none();
  char* r = NULL;
  if (g && tvm_codegen_emit_ptx(g, target, NULL, &out) == 0) {
    TVMFFIByteArray b;
    tvm_ffi_any_as_bytes(&out, &b);
    r = strndup(b.data, b.size);
  }
  (void)line;
  tvm_ffi_any_release(&out);
  tvm_ffi_release(f);
  tvm_ffi_release(g);
  return r;
}

/* float16 in memory, float32 arithmetic, converted by cvt; sigmoid/tanh without libdevice. */
TEST(float16_and_math) {
  char* ptx = ptx_text_(__LINE__,
                        HEAD "def h(A: T.Buffer((256,), \"float16\"), B: T.Buffer((256,), \"float16\")):\n"
                             "    for bx in T.thread_binding(2, thread=\"blockIdx.x\"):\n"
                             "        for tx in T.thread_binding(128, thread=\"threadIdx.x\"):\n"
                             "            B[bx * 128 + tx] = T.sigmoid(A[bx * 128 + tx]) + T.tanh(A[bx * 128 + tx]) * T.float16(2)\n",
                        "cuda -arch=sm_80");
  CHECK(ptx != NULL);
  if (!ptx) {
    gpu_fail_(__LINE__, "float16 kernel");
    return;
  }
  CHECK(strstr(ptx, "cvt.f32.f16") && strstr(ptx, "cvt.rn.f16.f32"));
  CHECK(strstr(ptx, "ex2.approx"));
  CHECK(strstr(ptx, "ld.global.nc.u16") || strstr(ptx, "ld.global.nc.b16"));
  PTXAS(ptx, "h", "sm_80");
  free(ptx);
}

/* float32 erf (GELU's) written out by expand_f64_math: computed in float64, no libdevice call. */
TEST(erf) {
  char* ptx = ptx_text_(__LINE__,
                        HEAD "def e(A: T.Buffer((128,), \"float32\"), B: T.Buffer((128,), \"float32\")):\n"
                             "    for tx in T.thread_binding(128, thread=\"threadIdx.x\"):\n"
                             "        B[tx] = T.erf(A[tx])\n",
                        "cuda -arch=sm_80");
  CHECK(ptx != NULL);
  if (!ptx) {
    gpu_fail_(__LINE__, "erf kernel");
    return;
  }
  CHECK(strstr(ptx, "cvt.f64.f32") && strstr(ptx, "fma.rn.f64"));
  CHECK(strstr(ptx, "call") == NULL); /* no libdevice call */
  PTXAS(ptx, "e", "sm_80");
  free(ptx);
}

/* A division by a run-time value is checked: a zero divisor traps (two checks in one kernel:
 * each leaves no unterminated block behind). */
TEST(checked_division) {
  char* ptx = ptx_text_(__LINE__,
                        HEAD "def q(A: T.Buffer((64,), \"int32\"), B: T.Buffer((64,), \"int32\"), n: T.int32):\n"
                             "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                             "        B[tx] = A[tx] // n + A[tx] % (n + 1)\n",
                        "cuda -arch=sm_80");
  CHECK(ptx != NULL);
  if (!ptx) {
    gpu_fail_(__LINE__, "division kernel");
    return;
  }
  CHECK(strstr(ptx, "trap"));
  PTXAS(ptx, "q", "sm_80");
  free(ptx);
}

/* float64 exp, log, tanh, erf, sin, pow, ... written out as arithmetic (expand_f64_math): no libdevice,
 * no calls; fma.rn.f64 from the polynomials, cvt.rni from nearbyint. */
TEST(float64_math) {
  char* ptx = ptx_text_(__LINE__,
                        HEAD "def m(A: T.Buffer((256,), \"float64\"), B: T.Buffer((256,), \"float64\")):\n"
                             "    for tx in T.thread_binding(256, thread=\"threadIdx.x\"):\n"
                             "        B[tx] = T.exp(A[tx]) + T.log(A[tx]) + T.tanh(A[tx]) + T.erf(A[tx]) + T.sin(A[tx]) + T.pow(A[tx], B[tx]) + T.Cast(\"float64\", T.erf(T.Cast(\"float32\", A[tx])))\n",
                        "cuda -arch=sm_80");
  CHECK(ptx != NULL);
  if (!ptx) {
    gpu_fail_(__LINE__, "float64 math kernel");
    return;
  }
  CHECK(strstr(ptx, "fma.rn.f64") && strstr(ptx, "cvt.rni.f64.f64") && strstr(ptx, "div.rn.f64"));
  CHECK(!strstr(ptx, "call.uni") && !strstr(ptx, ".extern .func"));
  PTXAS(ptx, "m", "sm_80");
  free(ptx);
}

/* Dynamic shared memory: one extern array, each allocation at its offset. */
TEST(dynamic_shared_memory) {
  char* ptx = ptx_text_(__LINE__,
                        HEAD "def d(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
                             "    bx = T.launch_thread(\"blockIdx.x\", 2)\n"
                             "    s1 = T.decl_buffer((20,), \"float32\", scope=\"shared.dyn\")\n"
                             "    s2 = T.decl_buffer((32,), \"float32\", scope=\"shared.dyn\")\n"
                             "    tx = T.launch_thread(\"threadIdx.x\", 32)\n"
                             "    s2[tx] = A[bx * 32 + tx]\n"
                             "    s1[tx % 20] = A[bx * 32 + tx]\n"
                             "    T.tvm_storage_sync(\"shared\")\n"
                             "    B[bx * 32 + tx] = s2[31 - tx] + s1[tx % 20]\n",
                        "cuda -arch=sm_80");
  CHECK(ptx && strstr(ptx, ".extern .shared .align 16 .b8 __tvm_dyn_shared[]"));
  CHECK(ptx && (strstr(ptx, ", 80;") || strstr(ptx, "+80]"))); /* s2 after s1's 80 bytes */
  if (ptx) PTXAS(ptx, "d", "sm_80");
  free(ptx);
}

/* ---- What the GPU code generator refuses ----------------------------------------------------- */
static void expect_ptx_error_(int line, const char* text, const char* kind, const char* part) {
  char* ptx = ptx_text_(line, text, "cuda -arch=sm_80");
  if (ptx) {
    fprintf(stderr, "line %d: expected %s\n", line, kind);
    g_test_failed_checks++;
    free(ptx);
    return;
  }
  void* e = tvm_ffi_error_take();
  if (!e || strcmp(tvm_ffi_error_kind(e), kind) != 0 || !strstr(tvm_ffi_error_message(e), part)) {
    fprintf(stderr, "line %d: got %s: %s\n", line, e ? tvm_ffi_error_kind(e) : "-",
            e ? tvm_ffi_error_message(e) : "-");
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
}
#define EXPECT_PTX_ERROR(text, kind, part) expect_ptx_error_(__LINE__, (text), (kind), (part))

#define AB "def k(A: T.Buffer((64,), \"float32\"), B: T.Buffer((64,), \"float32\")):\n"
#define ABD "def k(A: T.Buffer((64,), \"float64\"), B: T.Buffer((64,), \"float64\")):\n"

TEST(refused) {
  EXPECT_PTX_ERROR(HEAD AB "    for i in range(64):\n        B[i] = A[i]\n", "ValueError",
                   "function k launches no GPU kernel");
  EXPECT_PTX_ERROR(HEAD ABD "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                            "        B[tx] = T.atan(A[tx])\n",
                   "NotImplementedError", "tir.atan in a CUDA kernel needs libdevice");
  EXPECT_PTX_ERROR(HEAD AB "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                           "        B[tx] = T.asin(A[tx])\n",
                   "NotImplementedError", "tir.asin in a CUDA kernel needs libdevice");
  EXPECT_PTX_ERROR(HEAD AB "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                           "        B[tx] = T.call_extern(\"float32\", \"myfn\", A[tx])\n",
                   "NotImplementedError", "tir.call_extern in a CUDA kernel is not supported");
  EXPECT_PTX_ERROR(HEAD AB "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                           "        g = T.decl_buffer((4,), \"float32\")\n"
                           "        g[0] = A[tx]\n"
                           "        B[tx] = g[0]\n",
                   "NotImplementedError", "scope \"global\" inside a CUDA kernel");
  /* a barrier in a launch narrower than the block */
  EXPECT_PTX_ERROR(HEAD AB "    bx = T.launch_thread(\"blockIdx.x\", 1)\n"
                           "    sh = T.decl_buffer((64,), \"float32\", scope=\"shared\")\n"
                           "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                           "        sh[tx] = A[tx]\n"
                           "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                           "        T.tvm_storage_sync(\"shared\")\n"
                           "        B[tx] = sh[63 - tx]\n",
                   "ValueError", "a barrier some threads skip deadlocks");
  EXPECT_PTX_ERROR(HEAD AB "    for tx in T.thread_binding(2048, thread=\"threadIdx.x\"):\n"
                           "        B[tx % 64] = A[tx % 64]\n",
                   "ValueError", "2048 x 1 x 1 threads per block: CUDA allows at most 1024");
  /* a virtual thread whose barrier cannot be split out exactly */
  EXPECT_PTX_ERROR(HEAD AB "    for v in T.thread_binding(2, thread=\"vthread.x\"):\n"
                           "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                           "            if v == 0:\n"
                           "                T.tvm_storage_sync(\"shared\")\n"
                           "            B[v * 32 + tx] = A[v * 32 + tx]\n",
                   "NotImplementedError", "depends on the virtual thread cannot be split exactly");
}

/* The shuffles of the allreduce kernels: shfl.sync.down per step and value, shfl.sync.idx per
 * broadcast, the mask from activemask; the tree has none. */
TEST(ptx_warp_shuffles) {
  static const struct {
    const char* file;
    int down, idx, activemask;
  } k[] = {
      {"softmax_warp.py", 10, 2, 2},
      {"row_argmax.py", 10, 2, 1},
      {"row_sum_allreduce.py", 7, 1, 1},
      {"col_sum_tree.py", 0, 0, 0},
  };
  for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); ++i) {
    char* ptx = ptx_of(k[i].file, "cuda -arch=sm_80");
    if (!ptx) continue;
    int down = count(ptx, "shfl.sync.down.b32"), idx = count(ptx, "shfl.sync.idx.b32");
    int am = count(ptx, "activemask.b32");
    if (down != k[i].down || idx != k[i].idx || am != k[i].activemask) {
      fprintf(stderr, "%s: %d shfl.sync.down, %d shfl.sync.idx, %d activemask\n", k[i].file, down,
              idx, am);
      g_test_failed_checks++;
    }
    /* width 32, the whole warp: c = 0x1f */
    if (k[i].down) CHECK(strstr(ptx, ", 31, ") != NULL);
    free(ptx);
  }
  /* every shuffle form and type: up with a sub-warp width (c = (32 - 8) << 8 = 6144), idx with
   * width 16 (c = 4127), a 64-bit value as two halves, a 16-bit one widened */
  char* ptx = ptx_text_(__LINE__,
                        HEAD "def s(A: T.Buffer((64,), \"float64\"), B: T.Buffer((64,), \"float16\"), C: T.Buffer((64,), \"int32\")):\n"
                             "    for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                             "        A[tx] = T.tvm_warp_shuffle_up(T.uint32(4294967295), A[tx], 1, 8, 32)\n"
                             "        B[tx] = T.tvm_warp_shuffle(T.uint32(4294967295), B[tx], 3, 16, 32)\n"
                             "        C[tx] = T.tvm_warp_shuffle_down(T.tvm_warp_activemask(), C[tx], 2, 32, 32)\n",
                        "cuda -arch=sm_80");
  CHECK(ptx != NULL);
  if (ptx) {
    CHECK_EQ_INT(count(ptx, "shfl.sync.up.b32"), 2);
    CHECK_EQ_INT(count(ptx, "shfl.sync.idx.b32"), 1);
    CHECK_EQ_INT(count(ptx, "shfl.sync.down.b32"), 1);
    CHECK(strstr(ptx, "6144") && strstr(ptx, "4127"));
    PTXAS(ptx, "s", "sm_80");
    free(ptx);
  }
}

int main(void) {
  RUN(targets);
  RUN(ptx_of_every_kernel);
  RUN(ptx_warp_shuffles);
  RUN(float16_and_math);
  RUN(erf);
  RUN(checked_division);
  RUN(float64_math);
  RUN(dynamic_shared_memory);
  RUN(refused);
  return test_summary();
}
