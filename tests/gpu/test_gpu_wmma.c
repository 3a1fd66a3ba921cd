/*
 * test_gpu_wmma.c: tensor cores (the WMMA intrinsics of upstream TVMScript). The tensor-core
 * kernels of tests/gpu/kernels interpreted on random float16 inputs against plain C (the exact
 * semantics of docs/tir-decisions.md "Tensor cores": each mma_sync element C + the products
 * summed in double in k order, rounded once) at every lowering stage, and against a float64
 * matmul within rounding; the interpreter's errors where a warp's operation cannot be exact;
 * their PTX (verified by LLVM, the wmma instructions expected, assembled by ptxas when the CUDA
 * toolkit is installed) and the code generator's errors.
 */
#include <tvm/codegen/codegen.h>
#include <tvm/script/printer.h>

#include "gpu_testing.h"

#ifndef TVM_PTXAS
#define TVM_PTXAS ""
#endif
#ifndef TVM_GPU_TMPDIR
#define TVM_GPU_TMPDIR "/tmp"
#endif

/* ---- float16 ------------------------------------------------------------------------------ */
static float h2f(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : ldexp(m + 1024, e - 25);
  return (float)((h & 0x8000) ? -v : v); /* finite values only here */
}

/* Round a double to the nearest float16 (ties to even); finite values in range only. */
static uint16_t f2h(double v) {
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  double a = fabs(v);
  if (a == 0) return sign;
  int e;
  frexp(a, &e);                           /* a in [2^(e-1), 2^e) */
  int E = e - 1;                          /* its exponent */
  if (E < -14) E = -14;                   /* subnormals: the unit 2^-24 */
  double m = nearbyint(ldexp(a, 10 - E)); /* the default rounding mode: ties to even */
  if (m >= 2048) {
    m /= 2;
    E += 1;
  }
  if (m < 1024) return (uint16_t)(sign | (uint16_t)m);
  return (uint16_t)(sign | (uint16_t)((E + 15) << 10) | (uint16_t)((int)m - 1024));
}

typedef struct {
  void* data;
  int64_t shape[2];
  DLTensor t;
  int64_t n;
  int bits;
} hbuf;

static void hbuf_init(hbuf* b, int64_t d0, int64_t d1, int bits, unsigned* seed) {
  b->shape[0] = d0;
  b->shape[1] = d1;
  b->n = d0 * d1;
  b->bits = bits;
  b->data = calloc((size_t)b->n + 1, (size_t)bits / 8);
  for (int64_t i = 0; seed && i < b->n; ++i) {
    *seed = *seed * 1103515245u + 12345u;
    ((uint16_t*)b->data)[i] =
        f2h((double)((int)((*seed >> 8) % 2001) - 1000) / 500.0); /* [-2, 2] */
  }
  memset(&b->t, 0, sizeof(b->t));
  b->t.data = b->data;
  b->t.device = (DLDevice){kDLCPU, 0};
  b->t.ndim = 2;
  b->t.dtype = (DLDataType){kDLFloat, (uint8_t)bits, 1};
  b->t.shape = b->shape;
}

static double hval(const hbuf* b, int64_t i) {
  return b->bits == 16 ? h2f(((const uint16_t*)b->data)[i]) : ((const float*)b->data)[i];
}

/* ---- The kernels against plain C ---------------------------------------------------------- */
typedef struct {
  const char* file;
  const char* name;
  int64_t m, n, k;
  bool b_transposed; /* B given as (n, k) */
  int c_bits;
} wmma_case;

static const wmma_case kCases[] = {
    {"matmul_wmma.py", "matmul_wmma", 64, 64, 64, false, 32},
    {"matmul_wmma_f16.py", "matmul_wmma_f16", 32, 64, 48, true, 16},
};

/* The defined result: for each 16-deep k step, D = C + the products (a double sum in k order),
 * rounded to the accumulator's dtype; and a float64 matmul. */
static void reference(const wmma_case* c, const hbuf* a, const hbuf* b, double* exact,
                      double* f64) {
  for (int64_t i = 0; i < c->m; ++i)
    for (int64_t j = 0; j < c->n; ++j) {
      double acc = 0, full = 0;
      for (int64_t k0 = 0; k0 < c->k; k0 += 16) {
        double s = acc;
        for (int64_t kk = k0; kk < k0 + 16; ++kk) {
          double p =
              hval(a, i * c->k + kk) * hval(b, c->b_transposed ? j * c->k + kk : kk * c->n + j);
          s += p;
          full += p;
        }
        acc = c->c_bits == 32 ? (double)(float)s : (double)h2f(f2h(s));
      }
      exact[i * c->n + j] = acc;
      f64[i * c->n + j] = full;
    }
}

static int run(const wmma_case* c, const void* ir, hbuf* bufs) {
  unsigned seed = 11;
  hbuf_init(&bufs[0], c->m, c->k, 16, &seed);
  if (c->b_transposed)
    hbuf_init(&bufs[1], c->n, c->k, 16, &seed);
  else
    hbuf_init(&bufs[1], c->k, c->n, 16, &seed);
  hbuf_init(&bufs[2], c->m, c->n, c->c_bits, NULL);
  TVMFFIAny args[3];
  for (int k = 0; k < 3; ++k) args[k] = tvm_ffi_any_dltensor(&bufs[k].t);
  bool mod = tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule;
  return tvm_tir_interp_run(ir, mod ? c->name : NULL, args, 3, NULL);
}

static void check_case(const wmma_case* c) {
  enum { NS = 7 };
  void* st[NS] = {NULL};
  const char* names[NS] = {
      "parsed",      "tvm_tir_lower",          "lower_thread_bindings", "inject_virtual_thread",
      "thread_sync", "lower_thread_allreduce", "split_host_device"};
  st[0] = gpu_parse(c->file);
  st[1] = st[0] ? tvm_tir_lower(st[0], NULL) : NULL;
  st[2] = st[1] ? tvm_tir_transform_lower_thread_bindings(st[1]) : NULL;
  st[3] = st[2] ? tvm_tir_transform_inject_virtual_thread(st[2]) : NULL;
  st[4] = st[3] ? tvm_tir_transform_thread_sync(st[3]) : NULL;
  st[5] = st[4] ? tvm_tir_transform_lower_thread_allreduce(st[4]) : NULL;
  st[6] = st[5] ? tvm_tir_transform_split_host_device(st[5]) : NULL;
  if (!st[NS - 1]) gpu_fail_(__LINE__, c->file);
  double* exact = calloc((size_t)(c->m * c->n), sizeof(double));
  double* f64 = calloc((size_t)(c->m * c->n), sizeof(double));
  for (int s = 0; s < NS && st[s]; ++s) {
    hbuf b[3];
    if (run(c, st[s], b) != 0) {
      fprintf(stderr, "%s after %s:\n", c->file, names[s]);
      gpu_fail_(__LINE__, "interpreter run failed");
    } else {
      reference(c, &b[0], &b[1], exact, f64);
      int bad = 0;
      double tol = c->c_bits == 32 ? 1e-5 : 4e-3; /* float32 / float16 accumulation */
      for (int64_t i = 0; i < c->m * c->n; ++i) {
        double v = hval(&b[2], i);
        bool ok =
            v == exact[i] && fabs(v - f64[i]) <= tol * fmax(1.0, fabs(f64[i])) * (double)c->k / 16;
        if (!ok && bad++ < 3)
          fprintf(stderr, "%s after %s: element %lld: %.9g, defined %.9g, float64 %.9g\n", c->file,
                  names[s], (long long)i, v, exact[i], f64[i]);
      }
      if (bad) g_test_failed_checks++;
      /* not all zeros: the inputs are random and non-zero */
      double norm = 0;
      for (int64_t i = 0; i < c->m * c->n; ++i) norm += fabs(hval(&b[2], i));
      CHECK(norm > c->m * c->n * 0.1);
    }
    for (int k = 0; k < 3; ++k) free(b[k].data);
  }
  free(exact);
  free(f64);
  for (int s = 0; s < NS; ++s) tvm_ffi_release(st[s]);
}

TEST(kernels_against_c_and_every_stage) {
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) check_case(&kCases[k]);
}

/* The kernels and their lowered forms print and parse back to equal IR (the WMMA calls, the
 * fragment scopes). */
TEST(print_parse_roundtrip) {
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    void* f = gpu_parse(kCases[k].file);
    void* g = f ? tvm_tir_lower(f, NULL) : NULL;
    void* forms[2] = {f, g};
    for (int j = 0; j < 2 && forms[j]; ++j) {
      void* text = tvm_script_print_obj(forms[j], NULL);
      tvm_script_parse_options opts;
      tvm_script_parse_options_init(&opts);
      const char* t = text ? tvm_ffi_str_cstr(text) : "";
      void* back = text ? tvm_script_parse(t, strlen(t), &opts) : NULL;
      TVMFFIAny a = tvm_ffi_any_obj(forms[j]), b = tvm_ffi_any_obj(back);
      if (!back || tvm_ffi_structural_equal(&a, &b, false, NULL, NULL) != 1) {
        fprintf(stderr, "%s (%s): the printed form does not parse back equal\n%s\n", kCases[k].file,
                j ? "lowered" : "parsed", t);
        gpu_fail_(__LINE__, kCases[k].file);
      }
      tvm_ffi_release(text);
      tvm_ffi_release(back);
    }
    tvm_ffi_release(f);
    tvm_ffi_release(g);
  }
}

/* ---- Interpreter errors ----------------------------------------------------------------- */
#define HEAD                           \
  "from tvm.script import tirx as T\n" \
  "@T.prim_func\n"                     \
  "def k(A: T.Buffer((16, 16), \"float16\"), C: T.Buffer((16, 16), \"float32\")):\n"

/* Run an (A: 16x16 float16, C: 16x16 float32) kernel; expect an error of kind with part. */
static void expect_interp_error_(int line, const char* text, const char* kind, const char* part) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(text, strlen(text), &opts);
  if (!f) {
    gpu_fail_(line, "parse failed");
    return;
  }
  hbuf a, c;
  unsigned seed = 3;
  hbuf_init(&a, 16, 16, 16, &seed);
  hbuf_init(&c, 16, 16, 32, NULL);
  TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&a.t), tvm_ffi_any_dltensor(&c.t)};
  int rc = tvm_tir_interp_run(f, NULL, args, 2, NULL);
  void* e = rc != 0 ? tvm_ffi_error_take() : NULL;
  if (!e || strcmp(tvm_ffi_error_kind(e), kind) != 0 || !strstr(tvm_ffi_error_message(e), part)) {
    fprintf(stderr, "line %d: expected %s with \"%s\", got %s: %s\n", line, kind, part,
            e ? tvm_ffi_error_kind(e) : "success", e ? tvm_ffi_error_message(e) : "");
    g_test_failed_checks++;
  }
  tvm_ffi_release(e);
  tvm_ffi_release(f);
  free(a.data);
  free(c.data);
}
#define EXPECT_INTERP_ERROR(text, kind, part) expect_interp_error_(__LINE__, (text), (kind), (part))

#define FRAGS_(ind)                                                              \
  ind "Af = T.decl_buffer((16, 16), \"float16\", scope=\"wmma.matrix_a\")\n" ind \
      "Bf = T.decl_buffer((16, 16), \"float16\", scope=\"wmma.matrix_b\")\n" ind \
      "Cf = T.decl_buffer((16, 16), \"float32\", scope=\"wmma.accumulator\")\n"
#define FRAGS FRAGS_("    ")
#define FRAGS8 FRAGS_("        ")
#define LOAD_A "T.tvm_access_ptr(T.type_annotation(\"float16\"), A.data, 0, 256, 1)"
#define STORE_C "T.tvm_access_ptr(T.type_annotation(\"float32\"), C.data, 0, 256, 2)"

/* A one-warp product C = A A, the fragments inside the launch. */
#define ONE_WARP_BODY_(ind)                                                                 \
  ind "T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.float32(1))\n" ind                     \
      "T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, " LOAD_A ", 16, \"row_major\")\n" ind \
      "T.tvm_load_matrix_sync(Bf.data, 16, 16, 16, 0, " LOAD_A ", 16, \"row_major\")\n" ind \
      "T.tvm_mma_sync(Cf.data, 0, Af.data, 0, Bf.data, 0, Cf.data, 0)\n" ind                \
      "T.tvm_store_matrix_sync(Cf.data, 16, 16, 16, 0, " STORE_C ", 16, \"row_major\")\n"
#define ONE_WARP_BODY ONE_WARP_BODY_("        ")

TEST(interpreter_one_warp_exact) {
  /* C = 1 + A A, every element checked against plain C */
  const char* text = HEAD
      "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
      "        Af = T.decl_buffer((16, 16), \"float16\", scope=\"wmma.matrix_a\")\n"
      "        Bf = T.decl_buffer((16, 16), \"float16\", scope=\"wmma.matrix_b\")\n"
      "        Cf = T.decl_buffer((16, 16), \"float32\", "
      "scope=\"wmma.accumulator\")\n" ONE_WARP_BODY;
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(text, strlen(text), &opts);
  CHECK(f != NULL);
  if (!f) return;
  hbuf a, c;
  unsigned seed = 5;
  hbuf_init(&a, 16, 16, 16, &seed);
  hbuf_init(&c, 16, 16, 32, NULL);
  TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&a.t), tvm_ffi_any_dltensor(&c.t)};
  if (tvm_tir_interp_run(f, NULL, args, 2, NULL) != 0) gpu_fail_(__LINE__, "one warp");
  int bad = 0;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j) {
      double s = 1;
      for (int k = 0; k < 16; ++k) s += hval(&a, i * 16 + k) * hval(&a, k * 16 + j);
      if ((float)s != ((float*)c.data)[i * 16 + j]) bad++;
    }
  CHECK_EQ_INT(bad, 0);
  tvm_ffi_release(f);
  free(a.data);
  free(c.data);
}

TEST(interpreter_errors) {
  /* half a warp */
  EXPECT_INTERP_ERROR(
      HEAD "    for tx in T.thread_binding(16, thread=\"threadIdx.x\"):\n" FRAGS8 ONE_WARP_BODY,
      "RuntimeError", "needs all 32 threads of the warp");
  /* an operand that differs between the lanes */
  EXPECT_INTERP_ERROR(
      HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
           "        T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.Cast(\"float32\", tx))\n",
      "RuntimeError", "differs between the threads of warp 0");
  /* two warps, one fragment per block (allocated outside the launch) */
  EXPECT_INTERP_ERROR(
      HEAD FRAGS
      "    for ty in T.thread_binding(2, thread=\"threadIdx.y\"):\n"
      "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" ONE_WARP_BODY_(
          "            "),
      "NotImplementedError", "use the same fragment memory Cf");
  /* two warps, each its own fragment index of a block-level buffer: exact, runs */
  /* outside every thread launch */
  EXPECT_INTERP_ERROR(HEAD FRAGS "    T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.float32(0))\n",
                      "NotImplementedError", "outside a GPU thread launch");
  /* a product of a fragment never loaded */
  EXPECT_INTERP_ERROR(HEAD
                      "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                      "        T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.float32(0))\n"
                      "        T.tvm_mma_sync(Cf.data, 0, Af.data, 0, Bf.data, 0, Cf.data, 0)\n",
                      "RuntimeError", "was never filled or loaded");
  /* a shape the tensor cores do not take */
  EXPECT_INTERP_ERROR(HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                           "        T.tvm_fill_fragment(Cf.data, 8, 8, 8, 0, T.float32(0))\n",
                      "ValueError", "m=8 n=8 k=8");
  /* a fragment index past the allocation */
  EXPECT_INTERP_ERROR(HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                           "        T.tvm_fill_fragment(Cf.data, 16, 16, 16, 1, T.float32(0))\n",
                      "IndexError", "lies outside its allocation");
  /* a matrix row past the end of A */
  EXPECT_INTERP_ERROR(
      HEAD
      "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
      "        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, "
      "T.tvm_access_ptr(T.type_annotation(\"float16\"), A.data, 16, 256, 1), 16, \"row_major\")\n",
      "IndexError", "row 15 of the matrix");
  /* a matrix 16 bytes into A: not 256-bit aligned */
  EXPECT_INTERP_ERROR(
      HEAD
      "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
      "        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, "
      "T.tvm_access_ptr(T.type_annotation(\"float16\"), A.data, 8, 256, 1), 16, \"col_major\")\n",
      "ValueError", "16 bytes into its allocation");
  /* a stride that is not a multiple of 16 bytes */
  EXPECT_INTERP_ERROR(HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                           "        T.tvm_store_matrix_sync(Cf.data, 16, 16, 16, 0, " STORE_C
                           ", 18, \"row_major\")\n",
                      "ValueError", "stride 18");
  /* a fragment operand that is not a fragment */
  EXPECT_INTERP_ERROR(HEAD
                      "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                      "        T.tvm_fill_fragment(C.data, 16, 16, 16, 0, T.float32(0))\n",
                      "TypeError", "wmma.matrix_a, wmma.matrix_b or wmma.accumulator");
  /* storing a matrix_a fragment */
  EXPECT_INTERP_ERROR(HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                           "        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, " LOAD_A
                           ", 16, \"row_major\")\n"
                           "        T.tvm_store_matrix_sync(Af.data, 16, 16, 16, 0, " STORE_C
                           ", 16, \"row_major\")\n",
                      "TypeError", "stores an accumulator fragment");
}

/* Two warps, each using its own fragment (index ty) of one block-level accumulator: exact. */
TEST(interpreter_fragment_index_per_warp) {
  const char* text =
      "from tvm.script import tirx as T\n"
      "@T.prim_func\n"
      "def k(A: T.Buffer((16, 16), \"float16\"), C: T.Buffer((32, 16), \"float32\")):\n"
      "    Cf = T.decl_buffer((2, 16, 16), \"float32\", scope=\"wmma.accumulator\")\n"
      "    for ty in T.thread_binding(2, thread=\"threadIdx.y\"):\n"
      "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
      "            T.tvm_fill_fragment(Cf.data, 16, 16, 16, ty, T.Cast(\"float32\", ty + 1))\n"
      "            T.tvm_store_matrix_sync(Cf.data, 16, 16, 16, ty, "
      "T.tvm_access_ptr(T.type_annotation(\"float32\"), C.data, ty * 256, 256, 2), 16, "
      "\"row_major\")\n";
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(text, strlen(text), &opts);
  CHECK(f != NULL);
  if (!f) return;
  hbuf a, c;
  unsigned seed = 5;
  hbuf_init(&a, 16, 16, 16, &seed);
  hbuf_init(&c, 32, 16, 32, NULL);
  TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&a.t), tvm_ffi_any_dltensor(&c.t)};
  if (tvm_tir_interp_run(f, NULL, args, 2, NULL) != 0) gpu_fail_(__LINE__, "two warps");
  int bad = 0;
  for (int i = 0; i < 512; ++i) bad += ((float*)c.data)[i] != (i < 256 ? 1.0f : 2.0f);
  CHECK_EQ_INT(bad, 0);
  tvm_ffi_release(f);
  free(a.data);
  free(c.data);
}

/* ---- PTX -------------------------------------------------------------------------------- */
static char* ptx_of(void* g, const char* target) {
  TVMFFIAny out = tvm_ffi_any_none();
  char* text = NULL;
  if (g && tvm_codegen_emit_ptx(g, target, NULL, &out) == 0) {
    TVMFFIByteArray b;
    tvm_ffi_any_as_bytes(&out, &b);
    text = malloc(b.size + 1);
    memcpy(text, b.data, b.size);
    text[b.size] = 0;
  }
  tvm_ffi_any_release(&out);
  return text;
}

static void ptxas(const char* ptx, const char* name) {
  if (!TVM_PTXAS[0]) return;
  char path[512], cmd[1200];
  snprintf(path, sizeof(path), "%s/%s_wmma.ptx", TVM_GPU_TMPDIR, name);
  FILE* fp = fopen(path, "wb");
  if (!fp) return;
  fputs(ptx, fp);
  fclose(fp);
  snprintf(cmd, sizeof(cmd), "'%s' -arch=sm_80 '%s' -o /dev/null", TVM_PTXAS, path);
  if (system(cmd) != 0) {
    fprintf(stderr, "ptxas rejects %s (kept)\n", path);
    g_test_failed_checks++;
  } else {
    remove(path);
  }
}

static int count(const char* text, const char* part) {
  int n = 0;
  for (const char* p = text; (p = strstr(p, part)); p += strlen(part)) n++;
  return n;
}

TEST(ptx_of_the_kernels) {
  static const struct {
    const char* file;
    const char* entry;
    const char* want[4];
  } cases[] = {
      {"matmul_wmma.py",
       "matmul_wmma_kernel",
       {"wmma.load.a.sync.aligned.row.m16n16k16", "wmma.load.b.sync.aligned.row.m16n16k16",
        "wmma.mma.sync.aligned.row.row.m16n16k16.f32.f32",
        "wmma.store.d.sync.aligned.row.m16n16k16"}},
      {"matmul_wmma_f16.py",
       "matmul_wmma_f16_kernel",
       {"wmma.load.a.sync.aligned.row.m16n16k16", "wmma.load.b.sync.aligned.col.m16n16k16",
        "wmma.mma.sync.aligned.row.col.m16n16k16.f16.f16",
        "wmma.store.d.sync.aligned.row.m16n16k16"}},
  };
  for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); ++c) {
    void* f = gpu_parse(cases[c].file);
    void* g = f ? tvm_tir_lower(f, NULL) : NULL;
    char* ptx = ptx_of(g, "cuda -arch=sm_80");
    if (!ptx) {
      gpu_fail_(__LINE__, cases[c].file);
    } else {
      char entry[128];
      snprintf(entry, sizeof(entry), ".visible .entry %s(", cases[c].entry);
      CHECK(strstr(ptx, entry) != NULL);
      for (int w = 0; w < 4; ++w)
        if (!strstr(ptx, cases[c].want[w])) {
          fprintf(stderr, "%s: no %s in its PTX\n", cases[c].file, cases[c].want[w]);
          g_test_failed_checks++;
        }
      CHECK(!strstr(ptx, "call.uni"));
      CHECK(!strstr(ptx, ".local")); /* the fragments live in registers */
      if (c == 0) CHECK(count(ptx, "bar.sync") >= 2 && count(ptx, ".shared .align 32") == 2);
      ptxas(ptx, cases[c].entry);
      free(ptx);
    }
    tvm_ffi_release(f);
    tvm_ffi_release(g);
  }
}

static void expect_ptx_error_(int line, const char* text, const char* target, const char* kind,
                              const char* part) {
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  void* f = tvm_script_parse(text, strlen(text), &opts);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  char* ptx = g ? ptx_of(g, target) : NULL;
  void* e = ptx ? NULL : tvm_ffi_error_take();
  if (!e || strcmp(tvm_ffi_error_kind(e), kind) != 0 || !strstr(tvm_ffi_error_message(e), part)) {
    fprintf(stderr, "line %d: expected %s with \"%s\", got %s: %s\n", line, kind, part,
            e ? tvm_ffi_error_kind(e) : "PTX", e ? tvm_ffi_error_message(e) : ptx);
    g_test_failed_checks++;
  }
  free(ptx);
  tvm_ffi_release(e);
  tvm_ffi_release(f);
  tvm_ffi_release(g);
}
#define EXPECT_PTX_ERROR(text, target, kind, part) \
  expect_ptx_error_(__LINE__, (text), (target), (kind), (part))

TEST(codegen_errors) {
  const char* one_warp =
      HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8 ONE_WARP_BODY;
  EXPECT_PTX_ERROR(one_warp, "cuda -arch=sm_61", "ValueError", "needs sm_70 or later");
  /* an element of a fragment read directly */
  EXPECT_PTX_ERROR(HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                        "        T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.float32(0))\n"
                        "        C[0, tx % 16] = Cf[0, tx % 16]\n",
                   "cuda -arch=sm_80", "NotImplementedError", "an element of tensor-core fragment");
  /* a fragment loaded in two layouts */
  EXPECT_PTX_ERROR(HEAD "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS8
                        "        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, " LOAD_A
                        ", 16, \"row_major\")\n"
                        "        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, " LOAD_A
                        ", 16, \"col_major\")\n",
                   "cuda -arch=sm_80", "ValueError", "loaded both row_major and col_major");
  /* float32 A fragments */
  EXPECT_PTX_ERROR(HEAD
                   "    for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n"
                   "        Af = T.decl_buffer((16, 16), \"float32\", scope=\"wmma.matrix_a\")\n"
                   "        T.tvm_fill_fragment(Af.data, 16, 16, 16, 0, T.float32(0))\n",
                   "cuda -arch=sm_80", "NotImplementedError", "of dtype float32");
  /* a launch guard some lanes skip (two launches of threadIdx.x with different extents in
   * one kernel) */
  EXPECT_PTX_ERROR(HEAD "    for bx in T.thread_binding(1, thread=\"blockIdx.x\"):\n"
                        "        for tx in T.thread_binding(64, thread=\"threadIdx.x\"):\n"
                        "            C[tx // 16, tx % 16] = T.float32(0)\n"
                        "        for tx in T.thread_binding(32, thread=\"threadIdx.x\"):\n" FRAGS_("            ")
                        "            T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.float32(0))\n"
                        "            T.tvm_store_matrix_sync(Cf.data, 16, 16, 16, 0, " STORE_C ", 16, \"row_major\")\n",
                   "cuda -arch=sm_80", "ValueError", "needs the whole warp");
}

int main(void) {
  RUN(kernels_against_c_and_every_stage);
  RUN(print_parse_roundtrip);
  RUN(interpreter_one_warp_exact);
  RUN(interpreter_errors);
  RUN(interpreter_fragment_index_per_warp);
  RUN(ptx_of_the_kernels);
  RUN(codegen_errors);
  return test_summary();
}
