/*
 * test_codegen_vexp.c: the inline exp of float32 vectors (codegen_llvm.c, vexp_f32) against
 * libm's expf, at 4, 8 and 16 lanes (128-, 256- and 512-bit vectors; LLVM splits what the host
 * lacks): within 2 ulp where the result is a normal float, within one denormal step below,
 * and exactly +inf / +0 / NaN / 1 at the edges (overflow, underflow, NaN, +-0, +-inf). The
 * vectorized sigmoid (1 / (1 + exp(-x))) is checked the same way at a tolerance.
 */
#include "codegen_testing.h"

enum { N = 4096 };

/* for io: for t vectorized(lanes): B[io * lanes + t] = op(A[io * lanes + t]) */
static void* make_vec(const char* op, int lanes) {
  tvm_tir_buffer_obj* A = tvm_tir_buffer_decl("A", TVM_TIR_FLOAT32, N);
  tvm_tir_buffer_obj* B = tvm_tir_buffer_decl("B", TVM_TIR_FLOAT32, N);
  tvm_tir_var_obj *io = tvm_tir_var("io", TVM_TIR_INT32), *t = tvm_tir_var("t", TVM_TIR_INT32);
  void* idx = tvm_tir_add_take(tvm_tir_mul_take(ref(io), tvm_tir_int(lanes)), ref(t));
  void* st = tvm_tir_store_take(ref(B), tvm_tir_call_take(TVM_TIR_FLOAT32, op, tvm_tir_load_take(ref(A), ref(idx))),
                                ref(idx));
  void* body = tvm_tir_serial_take(
      ref(io), tvm_tir_int(0), tvm_tir_int(N / lanes),
      tvm_tir_for_take(ref(t), tvm_tir_int(0), tvm_tir_int(lanes), TVM_TIR_FOR_VECTORIZED, st));
  void* f = tvm_tir_func_take("vop", tvm_tir_list_take(ref(A), ref(B)), body);
  RELEASE(A, B, io, t, idx);
  return f;
}

static int64_t ulps(float a, float b) {
  int32_t x, y;
  memcpy(&x, &a, 4), memcpy(&y, &b, 4);
  if (x < 0) x = INT32_MIN - x;
  if (y < 0) y = INT32_MIN - y;
  int64_t d = (int64_t)x - (int64_t)y;
  return d < 0 ? -d : d;
}

/* Inputs: a sweep over [-110, 95] and the edge cases. */
static void fill(float* a) {
  static const float edge[] = {0.0f, -0.0f, 1.0f, -1.0f, 88.72283f, 88.7229f, 88.73f, 89.0f, -87.33f,
                               -87.34f, -100.0f, -103.97f, -103.98f, -104.0f, 1e-8f, -1e-8f, 0.5f,
                               -0.3465736f, 0.3465736f, 1e30f, -1e30f};
  size_t ne = sizeof(edge) / sizeof(edge[0]);
  for (int i = 0; i < N; ++i) a[i] = -110.0f + 205.0f * (float)i / (float)N;
  for (size_t i = 0; i < ne; ++i) a[i * 7] = edge[i];
  a[1] = __builtin_inff(), a[2] = -__builtin_inff(), a[3] = __builtin_nanf("");
}

static void run(const char* op, int lanes) {
  void* f = make_vec(op, lanes);
  void* mod = NULL;
  void* fn = jit_fn_(__LINE__, f, "vop", &mod);
  float* a = malloc(N * sizeof(float));
  float* b = malloc(N * sizeof(float));
  if (!fn || !a || !b) {
    g_test_failed_checks++;
  } else {
    fill(a);
    int64_t shape[1] = {N};
    DLTensor ta = dl(a, TVM_TIR_FLOAT32, 1, shape, NULL), tb = dl(b, TVM_TIR_FLOAT32, 1, shape, NULL);
    TVMFFIAny args[2] = {T(&ta), T(&tb)}, r;
    CHECK_EQ_INT(tvm_ffi_function_call(fn, args, 2, &r), 0);
    int bad = 0;
    int64_t worst = 0;
    for (int i = 0; i < N; ++i) {
      bool sig = strcmp(op, "tir.sigmoid") == 0;
      float want = sig ? (float)(1.0 / (1.0 + exp(-(double)a[i]))) : expf(a[i]);
      bool ok;
      if (isnan(want)) {
        ok = isnan(b[i]);
      } else if (sig) {
        ok = fabsf(b[i] - want) <= 1e-6f * fmaxf(1.0f, fabsf(want)) + 1e-37f;
      } else if (isinf(want) || want == 0.0f) {
        ok = b[i] == want;
      } else if (want < 1.17549435e-38f) { /* denormal results: one step */
        ok = fabsf(b[i] - want) <= 1.5e-45f;
      } else {
        int64_t u = ulps(b[i], want);
        if (u > worst) worst = u;
        ok = u <= 2;
      }
      if (!ok && bad++ < 3)
        fprintf(stderr, "%s x%d: exp(%.9g): %.9g, expf %.9g\n", op, lanes, a[i], b[i], want);
    }
    CHECK_EQ_INT(bad, 0);
    if (strcmp(op, "tir.exp") == 0) {
      CHECK(worst <= 2);
      fprintf(stderr, "exp x%d: worst %lld ulp\n", lanes, (long long)worst);
    }
  }
  free(a), free(b);
  RELEASE(f, fn, mod);
}

TEST(vexp_against_expf) {
  for (int lanes = 4; lanes <= 16; lanes *= 2) run("tir.exp", lanes);
}

TEST(vsigmoid) {
  for (int lanes = 4; lanes <= 16; lanes *= 2) run("tir.sigmoid", lanes);
}

int main(void) {
  RUN(vexp_against_expf);
  RUN(vsigmoid);
  return test_summary();
}
