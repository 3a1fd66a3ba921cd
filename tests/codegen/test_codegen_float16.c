/*
 * test_codegen_float16.c: float16 and bfloat16 conversions and arithmetic are emitted inline.
 *
 * - Compiled for a generic x86-64 CPU (no F16C, no AVX-512 BF16) and for the host, JIT and
 *   exported: the JIT finds no missing runtime-library function (__truncsfbf2, __truncsfhf2,
 *   __extendhfsf2, __truncdfhf2, __truncdfbf2) and the exported library's undefined symbols are
 *   TVMFFI* functions only.
 * - The results agree bit for bit with C references on every bfloat16 and float16 value, ties
 *   (and their neighbours) of both formats from float32 and float64, subnormals, NaNs with
 *   assorted payloads, infinities, the overflow boundaries and random bit patterns:
 *   float16 against the C compiler's _Float16 conversions (libgcc / F16C), bfloat16 against a
 *   rounding written with frexp / nearbyint (not the bit trick the code generator uses).
 */
#include <float.h>

#include "codegen_testing.h"

/* ---- The kernel ------------------------------------------------------------------------------ */
enum { NPARAM = 10 };
/* Outputs, from inputs F (float32), D (float64), HB (bfloat16), HH (float16), 8 lanes at a time:
 *   B1 = bfloat16(F)  H1 = float16(F)  B2 = bfloat16(D)  H2 = float16(D)
 *   G1 = float32(HB)  G2 = float32(HH) M1 = HB * HB (bfloat16)  M2 = HH * HH (float16) */
static void* make_conv16(int64_t n) {
  const DLDataType f32 = TVM_TIR_FLOAT32, f64 = TVM_TIR_FLOAT64, bf = TVM_TIR_BFLOAT16,
                   hf = TVM_TIR_FLOAT16;
  const char* names[NPARAM] = {"F", "D", "HB", "HH", "B1", "H1", "B2", "H2", "G1", "G2"};
  DLDataType types[NPARAM] = {f32, f64, bf, hf, bf, hf, bf, hf, f32, f32};
  tvm_tir_buffer_obj* b[NPARAM + 2];
  for (int k = 0; k < NPARAM; ++k) b[k] = tvm_tir_buffer_decl(names[k], types[k], n);
  b[NPARAM] = tvm_tir_buffer_decl("M1", bf, n);
  b[NPARAM + 1] = tvm_tir_buffer_decl("M2", hf, n);
  tvm_tir_var_obj* io = tvm_tir_var("io", TVM_TIR_INT32);
  tvm_tir_var_obj* ii = tvm_tir_var("ii", TVM_TIR_INT32);
  void* j = tvm_tir_add_take(tvm_tir_mul_take(ref(io), tvm_tir_int(8)), ref(ii));
#define LD(k) tvm_tir_load_take(ref(b[k]), ref(j))
#define ST(k, v) tvm_tir_store_take(ref(b[k]), (v), ref(j))
  void* body = tvm_tir_seq_take(
      ST(4, tvm_tir_cast_take(bf, LD(0))), ST(5, tvm_tir_cast_take(hf, LD(0))),
      ST(6, tvm_tir_cast_take(bf, LD(1))), ST(7, tvm_tir_cast_take(hf, LD(1))),
      ST(8, tvm_tir_cast_take(f32, LD(2))), ST(9, tvm_tir_cast_take(f32, LD(3))),
      ST(NPARAM, tvm_tir_mul_take(LD(2), LD(2))), ST(NPARAM + 1, tvm_tir_mul_take(LD(3), LD(3))));
#undef LD
#undef ST
  void* loop = tvm_tir_serial_take(
      ref(io), tvm_tir_int(0), tvm_tir_int(n / 8),
      tvm_tir_for_take(ref(ii), tvm_tir_int(0), tvm_tir_int(8), TVM_TIR_FOR_VECTORIZED, body));
  void* params =
      tvm_tir_list_take(ref(b[0]), ref(b[1]), ref(b[2]), ref(b[3]), ref(b[4]), ref(b[5]), ref(b[6]),
                        ref(b[7]), ref(b[8]), ref(b[9]), ref(b[10]), ref(b[11]));
  void* f = tvm_tir_func_take("conv16", params, loop);
  for (int k = 0; k < NPARAM + 2; ++k) tvm_ffi_release(b[k]);
  RELEASE(io, ii, j);
  return f;
}

/* ---- References ------------------------------------------------------------------------------ */
static uint32_t f2u(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return u;
}
static float u2f(uint32_t u) {
  float f;
  memcpy(&f, &u, 4);
  return f;
}
static uint16_t h2u(_Float16 h) {
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}
static _Float16 u2h(uint16_t u) {
  _Float16 h;
  memcpy(&h, &u, 2);
  return h;
}

/* bfloat16 bits of v rounded to nearest even: 8 significant bits down to 2**-126, a fixed
 * quantum of 2**-133 below, infinity from the halfway point above the largest finite value. */
static uint16_t ref_bf16(double v) {
  if (isnan(v)) {
    /* A NaN keeps its sign and top payload bits, quiet. */
    float f = (float)v;
    return (uint16_t)((f2u(f) >> 16) | 0x0040);
  }
  double a = fabs(v), q;
  if (isinf(a)) {
    q = a;
  } else {
    int e;
    frexp(a, &e); /* a in [2**(e-1), 2**e) */
    int quantum = e - 1 >= -126 ? e - 8 : -133;
    q = ldexp(nearbyint(ldexp(a, -quantum)), quantum);
    if (q > (double)u2f(0x7F7F0000u)) q = INFINITY;
  }
  uint16_t bits = (uint16_t)(f2u((float)q) >> 16); /* exact: q is a bfloat16 value */
  return signbit(v) ? (uint16_t)(bits | 0x8000) : bits;
}

/* ---- Inputs ---------------------------------------------------------------------------------- */
typedef struct {
  int64_t n;
  float* f;
  double* d;
  uint16_t *hb, *hh;
} inputs;

static void push_f(inputs* in, float f, double d) {
  in->f[in->n] = f;
  in->d[in->n] = d;
  in->n++;
}

/* Every bfloat16 and float16 value (as float32 and float64, also shifted by a tiny amount), ties
 * and neighbours, subnormals, NaNs, infinities, boundaries, random bit patterns. */
static int64_t make_inputs(inputs* in, int64_t cap) {
  unsigned st = 99;
  in->n = 0;
  for (uint32_t h = 0; h < 65536; ++h) { /* exact bfloat16 values; ties of the float64 path */
    float x = u2f(h << 16);
    double tie = (double)u2f((h << 16) | 0x8000);
    push_f(in, x, isfinite(tie) ? tie + ldexp(fabs(tie), -45) : tie);
  }
  for (uint32_t h = 0; h < 65536; ++h) { /* float16 values; just below their float64 ties */
    float x = (float)u2h((uint16_t)h);
    double next = (double)u2h((uint16_t)(h + 1));
    double mid = ((double)x + next) / 2;
    push_f(in, x, isfinite(mid) ? mid - ldexp(fabs(mid), -50) : (double)x);
  }
  for (uint32_t k = 0; k < 20000; ++k) { /* bfloat16 ties from float32, and their neighbours */
    uint32_t hi = (uint32_t)rand_r(&st) & 0xFFFF;
    uint32_t t = (hi << 16) | 0x8000;
    push_f(in, u2f(t), (double)u2f(t));
    push_f(in, u2f(t + 1), (double)u2f(t - 1));
    /* A float64 just above a tie that float32 rounding would land on the tie itself. */
    double above = (double)u2f(t) + ldexp(fabs((double)u2f(t)), -30);
    push_f(in, u2f(t - 1), isfinite(above) ? above : 1.0);
  }
  for (uint32_t k = 0; k < 20000; ++k) { /* float16 ties from float32 (normal and subnormal) */
    uint16_t h = (uint16_t)(rand_r(&st) & 0x7BFF);
    float lo = (float)u2h(h), hi = (float)u2h((uint16_t)(h + 1));
    float mid = (lo + hi) / 2; /* exact in float32 */
    push_f(in, mid, (double)mid);
    push_f(in, nextafterf(mid, 0), (double)mid + ldexp(fabs((double)mid), -40));
    push_f(in, -nextafterf(mid, INFINITY), -(double)mid);
  }
  static const uint32_t special[] = {
      0x7F800000u, 0xFF800000u, 0x7F800001u, 0x7FC00000u, 0xFFC00000u, 0x7FFFFFFFu, 0xFFFFFFFFu,
      0x7F801000u, 0x7F802000u, 0x7FBFFFFFu, 0x7F7FFFFFu, 0xFF7FFFFFu, 0x7F7F8000u, 0x7F7F7FFFu,
      0x00000001u, 0x80000001u, 0x007FFFFFu, 0x00800000u, 0x00008000u, 0x00018000u, 0x477FE000u,
      0x477FEFFFu, 0x477FF000u, 0x477FF001u, 0x47800000u, 0x33000000u, 0x33000001u, 0x32FFFFFFu,
      0x33800000u, 0x38800000u, 0x387FFFFFu, 0x387FC000u, 0x387FE000u, 0x00000000u, 0x80000000u};
  for (size_t k = 0; k < sizeof(special) / sizeof(special[0]); ++k)
    push_f(in, u2f(special[k]), (double)u2f(special[k]));
  static const double dspecial[] = {
      DBL_MAX,      -DBL_MAX,           DBL_MIN, 1e-300,   -1e-320,  65520.0,
      65519.999999, 3.3961775292304e38, 1e39,    0x1p-133, 0x1p-134, 0x1.8p-134,
      0x1p-25,      0x1.0000000001p-25, 0x1p-26};
  for (size_t k = 0; k < sizeof(dspecial) / sizeof(dspecial[0]); ++k)
    push_f(in, (float)dspecial[k], dspecial[k]);
  for (uint32_t k = 0; k < 8; ++k) { /* float64 NaNs with payloads */
    uint64_t u = 0x7FF0000000000001ull | ((uint64_t)k << 48) | ((uint64_t)(k & 1) << 63);
    double d;
    memcpy(&d, &u, 8);
    push_f(in, 1.0f, d);
  }
  for (uint32_t k = 0; k < 8; ++k) { /* float32 subnormals */
    uint32_t u = ((uint32_t)rand_r(&st) << 8) & 0x807FFFFFu;
    push_f(in, u2f(u), (double)u2f(u) * 3);
  }
  while (in->n % 8 != 0 || in->n < cap - 8) { /* random bit patterns */
    uint32_t u = ((uint32_t)rand_r(&st) << 16) ^ (uint32_t)rand_r(&st);
    uint64_t w = ((uint64_t)u << 32) | (((uint64_t)rand_r(&st) << 1) ^ (uint64_t)rand_r(&st));
    double d;
    memcpy(&d, &w, 8);
    push_f(in, u2f(u), d);
    if (in->n >= cap) break;
  }
  for (int64_t e = 0; e < in->n; ++e) {
    in->hb[e] = (uint16_t)(e & 0xFFFF);
    in->hh[e] = (uint16_t)((e * 40503) & 0xFFFF);
  }
  return in->n;
}

/* ---- Running and checking -------------------------------------------------------------------- */
enum { CAP = 280000 };

/* Call fn on the inputs and compare every output bit for bit; returns the mismatches. */
static int run_and_check(int line, void* fn, const inputs* in) {
  int64_t n = in->n;
  uint16_t* o16[6];
  float* o32[2];
  for (int k = 0; k < 6; ++k) o16[k] = calloc((size_t)n, 2);
  for (int k = 0; k < 2; ++k) o32[k] = calloc((size_t)n, 4);
  int64_t shape[1] = {n};
  DLTensor t[12] = {
      dl(in->f, TVM_TIR_FLOAT32, 1, shape, NULL),   dl(in->d, TVM_TIR_FLOAT64, 1, shape, NULL),
      dl(in->hb, TVM_TIR_BFLOAT16, 1, shape, NULL), dl(in->hh, TVM_TIR_FLOAT16, 1, shape, NULL),
      dl(o16[0], TVM_TIR_BFLOAT16, 1, shape, NULL), dl(o16[1], TVM_TIR_FLOAT16, 1, shape, NULL),
      dl(o16[2], TVM_TIR_BFLOAT16, 1, shape, NULL), dl(o16[3], TVM_TIR_FLOAT16, 1, shape, NULL),
      dl(o32[0], TVM_TIR_FLOAT32, 1, shape, NULL),  dl(o32[1], TVM_TIR_FLOAT32, 1, shape, NULL),
      dl(o16[4], TVM_TIR_BFLOAT16, 1, shape, NULL), dl(o16[5], TVM_TIR_FLOAT16, 1, shape, NULL)};
  TVMFFIAny args[12], r;
  for (int k = 0; k < 12; ++k) args[k] = T(&t[k]);
  int bad = 0;
  if (tvm_ffi_function_call(fn, args, 12, &r) != 0) {
    interp_fail_(line, "compiled run failed");
    bad = 1;
  }
  static const char* what[8] = {"bfloat16(float32)",   "float16(float32)",  "bfloat16(float64)",
                                "float16(float64)",    "float32(bfloat16)", "float32(float16)",
                                "bfloat16 * bfloat16", "float16 * float16"};
  for (int64_t e = 0; e < n && !bad; ++e) {
    float hb = u2f((uint32_t)in->hb[e] << 16);
    float hh = (float)u2h(in->hh[e]);
    uint32_t want[8] = {ref_bf16(in->f[e]),
                        h2u((_Float16)in->f[e]),
                        ref_bf16(in->d[e]),
                        h2u((_Float16)in->d[e]),
                        f2u(hb),
                        f2u(hh),
                        ref_bf16((double)hb * (double)hb),
                        h2u((_Float16)(hh * hh))};
    uint32_t got[8] = {o16[0][e],      o16[1][e],      o16[2][e], o16[3][e],
                       f2u(o32[0][e]), f2u(o32[1][e]), o16[4][e], o16[5][e]};
    for (int k = 0; k < 8; ++k) {
      if (want[k] == got[k]) continue;
      if (bad < 8)
        fprintf(stderr,
                "line %d: element %lld: %s: float32 0x%08x float64 %a bf16 0x%04x f16 0x%04x: "
                "want 0x%x, got 0x%x\n",
                line, (long long)e, what[k], f2u(in->f[e]), in->d[e], in->hb[e], in->hh[e], want[k],
                got[k]);
      bad++;
    }
  }
  if (bad) g_test_failed_checks++;
  for (int k = 0; k < 6; ++k) free(o16[k]);
  for (int k = 0; k < 2; ++k) free(o32[k]);
  return bad;
}

TEST(conversions_inline_and_exact) {
  inputs in;
  in.f = calloc(CAP, sizeof(float));
  in.d = calloc(CAP, sizeof(double));
  in.hb = calloc(CAP, 2);
  in.hh = calloc(CAP, 2);
  make_inputs(&in, CAP);
  void* f = make_conv16(in.n);
  void* g = f ? tvm_tir_lower(f, NULL) : NULL;
  CHECK(g != NULL);
  for (int host = 0; host < 2 && g; ++host) {
    for (int opt = 0; opt < 2; ++opt) {
      tvm_codegen_options o = tvm_codegen_options_default();
      o.host_cpu = host; /* 0: generic x86-64, no F16C / AVX-512 BF16 */
      o.opt_level = opt ? 3 : 0;
      void* m = tvm_codegen_build(g, NULL, &o);
      if (!m) {
        interp_fail_(__LINE__, "JIT build failed");
        continue;
      }
      void* fn = GET_FN(m, "conv16");
      if (fn) run_and_check(__LINE__, fn, &in);
      RELEASE(fn, m);
    }
    tvm_codegen_options o = tvm_codegen_options_default();
    o.host_cpu = host;
    char path[512];
    snprintf(path, sizeof(path), "%s/codegen_f16_%d_%d.so", TVM_CODEGEN_TEST_TMPDIR, (int)getpid(),
             host);
    CHECK_OK(tvm_codegen_export(g, path, &o));
    CHECK(cg_undefined_symbols(path, false) > 0);
    void* lib = tvm_ffi_module_load_file(path);
    CHECK(lib != NULL);
    void* fn = lib ? GET_FN(lib, "conv16") : NULL;
    if (fn) run_and_check(__LINE__, fn, &in);
    RELEASE(fn, lib);
    if (!getenv("TVM_CODEGEN_KEEP")) unlink(path);
  }
  RELEASE(f, g);
  free(in.f);
  free(in.d);
  free(in.hb);
  free(in.hh);
}

int main(void) {
  RUN(conversions_inline_and_exact);
  return test_summary();
}
