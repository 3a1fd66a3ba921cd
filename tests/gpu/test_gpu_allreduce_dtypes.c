/*
 * test_gpu_allreduce_dtypes.c: lower_thread_allreduce's warp shuffles for values that are not
 * 32-bit (int8, float16, int64, float64): the warp form (32 threads) and the two-stage form (64
 * threads) chosen for them, interpreted against plain C at every GPU lowering stage, and their
 * PTX: 8- and 16-bit values shuffled widened to 32 bits, 64-bit ones as two 32-bit shuffles.
 */
#include <stdint.h>
#include <tvm/codegen/codegen.h>

#include "gpu_testing.h"

typedef struct {
  const char* dtype;
  const char* reducer; /* the combiner's body in x, y */
  const char* identity;
  int bits;
  bool is_float;
} dt_case;

static const dt_case kTypes[] = {
    {"int8", "x + y", "T.int8(0)", 8, false},
    {"float16", "T.max(x, y)", "T.float16(-65504)", 16, true},
    {"int64", "x + y", "T.int64(0)", 64, false},
    {"float64", "T.max(x, y)", "T.float64(-1e308)", 64, true},
};

/* One row per block, R threads reducing it. */
static char* kernel_text(const dt_case* t, int R) {
  static char buf[2048];
  snprintf(
      buf, sizeof(buf),
      "from tvm.script import tirx as T\n"
      "@T.prim_func\n"
      "def k(A: T.Buffer((4, %d), \"%s\"), B: T.Buffer((4,), \"%s\")):\n"
      "    for bx in T.thread_binding(4, thread=\"blockIdx.x\"):\n"
      "        for tx in T.thread_binding(%d, thread=\"threadIdx.x\"):\n"
      "            red = T.decl_buffer((1,), \"%s\", scope=\"local\")\n"
      "            with T.attr(T.comm_reducer(lambda x, y: %s, [%s]), \"reduce_scope\", "
      "T.reinterpret(\"handle\", T.uint64(0))):\n"
      "                T.tvm_thread_allreduce(T.uint32(1), A[bx, tx], T.bool(True), red.data, tx)\n"
      "            if tx == 0:\n"
      "                B[bx] = red[0]\n",
      R, t->dtype, t->dtype, R, t->dtype, t->reducer, t->identity);
  return buf;
}

static float h2f(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 0 ? ldexp(m, -24) : ldexp(m + 1024, e - 25);
  return (float)((h & 0x8000) ? -v : v);
}

/* Random elements: float16 / float64 from a few significant bits, integers over the width
 * (int64 beyond 32 bits, so both halves matter). */
static void fill(const dt_case* t, void* data, int64_t n, unsigned seed) {
  for (int64_t i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    uint64_t r = seed >> 4;
    seed = seed * 1103515245u + 12345u;
    r = (r << 28) ^ (seed >> 4);
    if (t->bits == 8)
      ((int8_t*)data)[i] = (int8_t)r;
    else if (t->bits == 16)
      ((uint16_t*)data)[i] = (uint16_t)((r % 0x7800) | ((r >> 20) & 1 ? 0x8000 : 0)); /* finite */
    else if (!t->is_float)
      ((int64_t*)data)[i] = (int64_t)(r << 8);
    else
      ((double*)data)[i] = ldexp((double)(int64_t)(r % 2000001) - 1000000, (int)(r % 40) - 20);
  }
}

static double elem(const dt_case* t, const void* data, int64_t i) {
  if (t->bits == 8) return ((const int8_t*)data)[i];
  if (t->bits == 16) return h2f(((const uint16_t*)data)[i]);
  return t->is_float ? ((const double*)data)[i] : (double)((const int64_t*)data)[i];
}

static void reference(const dt_case* t, const void* a, int R, void* out) {
  for (int r = 0; r < 4; ++r) {
    if (t->bits == 8) {
      uint8_t s = 0;
      for (int j = 0; j < R; ++j) s = (uint8_t)(s + (uint8_t)((const int8_t*)a)[r * R + j]);
      ((int8_t*)out)[r] = (int8_t)s;
    } else if (t->bits == 64 && !t->is_float) {
      uint64_t s = 0;
      for (int j = 0; j < R; ++j) s += (uint64_t)((const int64_t*)a)[r * R + j];
      ((int64_t*)out)[r] = (int64_t)s;
    } else if (t->bits == 16) {
      int best = 0;
      for (int j = 1; j < R; ++j)
        if (elem(t, a, r * R + j) > elem(t, a, r * R + best)) best = j;
      ((uint16_t*)out)[r] = ((const uint16_t*)a)[r * R + best];
    } else {
      double m = -1e308;
      for (int j = 0; j < R; ++j) m = fmax(m, ((const double*)a)[r * R + j]);
      ((double*)out)[r] = m;
    }
  }
}

static int run(const dt_case* t, const void* ir, int R, void* a, void* b) {
  int64_t sa[2] = {4, R}, sb[1] = {4};
  DLDataType dt = {(uint8_t)(t->is_float ? kDLFloat : kDLInt), (uint8_t)t->bits, 1};
  DLTensor ta = {a, {kDLCPU, 0}, 2, dt, sa, NULL, 0};
  DLTensor tb = {b, {kDLCPU, 0}, 1, dt, sb, NULL, 0};
  TVMFFIAny args[2] = {tvm_ffi_any_dltensor(&ta), tvm_ffi_any_dltensor(&tb)};
  bool mod = tvm_tir_kind_of(ir) == TVM_TIR_KIND_IRModule;
  return tvm_tir_interp_run(ir, mod ? "k" : NULL, args, 2, NULL);
}

typedef struct {
  const void* op;
  int n;
} count_ctx;

static int count_call(tvm_tir_visitor* v, const void* node) {
  count_ctx* c = v->ctx;
  if (((const tvm_tir_call_obj*)node)->op == c->op) c->n++;
  return TVM_TIR_VISIT_CONTINUE;
}

static int calls_in(const void* mod, const char* op) {
  count_ctx c = {tvm_tir_op_get(op), 0};
  tvm_tir_visitor v = {0};
  v.pre[TVM_TIR_KIND_Call] = count_call;
  v.ctx = &c;
  tvm_tir_visit(&v, mod);
  tvm_tir_visitor_free(&v);
  tvm_ffi_release((void*)c.op);
  return c.n;
}

static int count(const char* text, const char* part) {
  int n = 0;
  for (const char* p = text; (p = strstr(p, part)); p += strlen(part)) n++;
  return n;
}

static void check(const dt_case* t, int R) {
  const char* text = kernel_text(t, R);
  tvm_script_parse_options opts;
  tvm_script_parse_options_init(&opts);
  enum { NS = 7 };
  void* st[NS] = {NULL};
  st[0] = tvm_script_parse(text, strlen(text), &opts);
  st[1] = st[0] ? tvm_tir_lower(st[0], NULL) : NULL;
  st[2] = st[1] ? tvm_tir_transform_lower_thread_bindings(st[1]) : NULL;
  st[3] = st[2] ? tvm_tir_transform_inject_virtual_thread(st[2]) : NULL;
  st[4] = st[3] ? tvm_tir_transform_thread_sync(st[3]) : NULL;
  st[5] = st[4] ? tvm_tir_transform_lower_thread_allreduce(st[4]) : NULL;
  st[6] = st[5] ? tvm_tir_transform_split_host_device(st[5]) : NULL;
  if (!st[NS - 1]) gpu_fail_(__LINE__, t->dtype);
  size_t eb = (size_t)t->bits / 8;
  void* a = calloc((size_t)(4 * R), eb);
  void* want = calloc(4, eb);
  fill(t, a, 4 * R, 99);
  reference(t, a, R, want);
  for (int s = 0; s < NS && st[s]; ++s) {
    void* b = calloc(4, eb);
    if (run(t, st[s], R, a, b) != 0) {
      fprintf(stderr, "%s R=%d stage %d:\n", t->dtype, R, s);
      gpu_fail_(__LINE__, "interpreter run failed");
    } else if (memcmp(b, want, 4 * eb) != 0) {
      fprintf(stderr, "%s R=%d stage %d: %g %g %g %g, want %g %g %g %g\n", t->dtype, R, s,
              elem(t, b, 0), elem(t, b, 1), elem(t, b, 2), elem(t, b, 3), elem(t, want, 0),
              elem(t, want, 1), elem(t, want, 2), elem(t, want, 3));
      g_test_failed_checks++;
    }
    free(b);
  }
  int downs_ir = 0;
  if (st[5]) {
    /* the shuffle forms, not the shared tree: 5 shuffle_down steps of the warp reduction, one
     * more for the second stage's two partials */
    downs_ir = calls_in(st[5], "tir.tvm_warp_shuffle_down");
    CHECK_EQ_INT(downs_ir, R == 32 ? 5 : 6);
    CHECK_EQ_INT(calls_in(st[5], "tir.tvm_thread_allreduce"), 0);
  }
  /* PTX: one 32-bit shuffle per step, two for a 64-bit value */
  TVMFFIAny out = tvm_ffi_any_none();
  if (st[1] && tvm_codegen_emit_ptx(st[1], "cuda -arch=sm_80", NULL, &out) == 0) {
    TVMFFIByteArray bytes;
    tvm_ffi_any_as_bytes(&out, &bytes);
    char* ptx = strndup(bytes.data, bytes.size);
    int per = t->bits == 64 ? 2 : 1, steps = downs_ir;
    int downs = count(ptx, "shfl.sync.down.b32");
    if (downs != per * steps) {
      fprintf(stderr, "%s R=%d: %d shfl.sync.down.b32, expected %d\n", t->dtype, R, downs,
              per * steps);
      g_test_failed_checks++;
    }
    CHECK(!strstr(ptx, "call.uni"));
    free(ptx);
  } else {
    gpu_fail_(__LINE__, "PTX");
  }
  tvm_ffi_any_release(&out);
  free(a);
  free(want);
  for (int s = 0; s < NS; ++s) tvm_ffi_release(st[s]);
}

TEST(warp_and_two_stage_forms_of_narrow_and_wide_values) {
  for (size_t k = 0; k < sizeof(kTypes) / sizeof(kTypes[0]); ++k) {
    check(&kTypes[k], 32);
    check(&kTypes[k], 64);
  }
}

int main(void) {
  RUN(warp_and_two_stage_forms_of_narrow_and_wide_values);
  return test_summary();
}
