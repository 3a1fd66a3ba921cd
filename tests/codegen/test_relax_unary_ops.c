/*
 * test_relax_unary_ops.c: the unary elementwise operators tan, sinh, cosh, asin, acos, atan,
 * asinh, acosh, atanh, trunc, isfinite and bitwise_not, each as a one-call model legalized, then
 * run twice: by the Relax reference evaluator (the kernel in libtir's interpreter) and compiled
 * to a VM executable with LLVM kernels (bytecode mode here, compiled mode in the _compiled twin)
 * run in libvm. Both results are compared with C's libm (tanf, sinhf, ...; tan, sinh, ... for
 * float64) and C operators computed here, on random inputs in each operator's domain plus its
 * edge values. The parsed TVMScript form (`R.tan(x)`, ...) is built and run the same way.
 */
#include <float.h>
#include <math.h>
#include <string.h>
#include <tvm/codegen/relax_build.h>
#include <tvm/relax/eval.h>
#include <tvm/relax/relax.h>
#include <tvm/script/parser.h>
#include <tvm/vm/vm.h>

#include "relax_testing.h"
#include "values_testing.h"
/* after relax_testing.h (CHECK) */
#include "exec_mode_testing.h"
#include "one_op_testing.h"

#define F64 tvm_tir_dtype_float(64)
#define I8 tvm_tir_dtype_int(8)
#define U8 tvm_tir_dtype_uint(8)
#define I32T tvm_tir_dtype_int(32)
#define BOOLT tvm_tir_dtype_bool()

enum { N = 24 };

/* A (4, 6) float tensor of dtype dt (float32 or float64), uniform in [lo, hi), its first
 * elements the given edge values. */
static void* float_tensor(DLDataType dt, double lo, double hi, const double* edges, int nedges) {
  int64_t shape[2] = {4, 6};
  void* t = tvm_ffi_tensor_empty(shape, 2, dt, (DLDevice){kDLCPU, 0});
  void* p = tvm_ffi_tensor_dl(t)->data;
  for (int i = 0; i < N; ++i) {
    double v = i < nedges ? edges[i] : lo + (hi - lo) * (rv_rnd() + 2.0) / 4.0;
    if (dt.bits == 64)
      ((double*)p)[i] = v;
    else
      ((float*)p)[i] = (float)v;
  }
  return t;
}

static double elem(void* t, int i) { return rv_elem(tvm_ffi_tensor_dl(t), i); }

typedef struct {
  const char* op;
  float (*f32)(float);
  double (*f64)(double);
  double lo, hi;   /* the random inputs' range, inside the domain */
  double edges[4]; /* domain edges and special points, checked too */
  int nedges;
} math_case;

/* Each float operator on float32 (against the libm float function) and float64 (against the
 * double one). */
TEST(float_math_against_libm) {
  static const math_case k_cases[] = {
      {"relax.tan", tanf, tan, -1.5, 1.5, {0, -1.4, 1.4}, 3},
      {"relax.sinh", sinhf, sinh, -5, 5, {0, -8, 8}, 3},
      {"relax.cosh", coshf, cosh, -5, 5, {0, -8, 8}, 3},
      {"relax.asin", asinf, asin, -1, 1, {-1, 1, 0}, 3},
      {"relax.acos", acosf, acos, -1, 1, {-1, 1, 0}, 3},
      {"relax.atan", atanf, atan, -20, 20, {0, -1e4, 1e4}, 3},
      {"relax.asinh", asinhf, asinh, -20, 20, {0, -1e4, 1e4}, 3},
      {"relax.acosh", acoshf, acosh, 1, 20, {1, 1e4}, 2},
      {"relax.atanh", atanhf, atanh, -0.99, 0.99, {0, -0.999, 0.999}, 3},
      {"relax.trunc", truncf, trunc, -9, 9, {-2.5, 2.5, -0.5, 3}, 4},
  };
  for (size_t k = 0; k < sizeof(k_cases) / sizeof(k_cases[0]); ++k) {
    const math_case* c = &k_cases[k];
    for (int wide = 0; wide < 2; ++wide) {
      DLDataType dt = wide ? F64 : F32;
      void* x = float_tensor(dt, c->lo, c->hi, c->edges, c->nedges);
      double want[N];
      for (int i = 0; i < N; ++i)
        want[i] = wide ? c->f64(elem(x, i)) : (double)c->f32((float)elem(x, i));
      /* float32: libm's float function and the kernel's may differ by an ulp or two */
      oot_expect e = oot_one(dt, want, N, wide ? 1e-13 : 4e-7);
      oot_check_op(c->op, NULL, 1, &x, NULL, &e);
    }
  }
}

/* trunc of integers is the identity; of floats rounds toward zero (also the halves that round
 * away from it). */
TEST(trunc_integers) {
  int64_t shape[1] = {N};
  void* x = tvm_ffi_tensor_empty(shape, 1, I32T, (DLDevice){kDLCPU, 0});
  int32_t* p = tvm_ffi_tensor_dl(x)->data;
  double want[N];
  for (int i = 0; i < N; ++i) want[i] = p[i] = (int32_t)rv_rnd_int(-100000, 100000);
  oot_expect e = oot_one(I32T, want, N, 0);
  oot_check_op("relax.trunc", NULL, 1, &x, NULL, &e);
}

/* isfinite: true on finite numbers (the largest, the smallest subnormal, zeros), false on
 * infinities and NaNs, float32 and float64. */
TEST(isfinite) {
  for (int wide = 0; wide < 2; ++wide) {
    DLDataType dt = wide ? F64 : F32;
    double big = wide ? DBL_MAX : FLT_MAX, tiny = wide ? 4.9e-324 : 1.4e-45;
    double edges[] = {INFINITY, -INFINITY, NAN, -NAN, big, tiny, 0.0, -0.0};
    void* x = float_tensor(dt, -1e6, 1e6, edges, 8);
    double want[N];
    for (int i = 0; i < N; ++i) want[i] = isfinite(wide ? elem(x, i) : (float)elem(x, i)) ? 1 : 0;
    CHECK(want[0] == 0 && want[2] == 0 && want[4] == 1 && want[5] == 1);
    oot_expect e = oot_one(BOOLT, want, N, 0);
    oot_check_op("relax.isfinite", NULL, 1, &x, NULL, &e);
  }
}

/* isfinite / isnan / isinf of integers and bools, as upstream's: every value is a finite
 * number (the LLVM backend crashed on a float compare of an integer before). */
TEST(checks_of_integers) {
  static const char* const k_ops[] = {"relax.isfinite", "relax.isnan", "relax.isinf"};
  int64_t shape[1] = {N};
  DLDataType dts[2] = {I32T, BOOLT};
  for (int d = 0; d < 2; ++d) {
    void* x = tvm_ffi_tensor_empty(shape, 1, dts[d], (DLDevice){kDLCPU, 0});
    void* p = tvm_ffi_tensor_dl(x)->data;
    for (int i = 0; i < N; ++i) {
      if (d == 0) ((int32_t*)p)[i] = (int32_t)rv_rnd_int(-2147483647, 2147483647);
      else ((uint8_t*)p)[i] = (uint8_t)rv_rnd_int(0, 1);
    }
    for (int k = 0; k < 3; ++k) {
      double want[N];
      for (int i = 0; i < N; ++i) want[i] = k == 0 ? 1 : 0;
      oot_expect e = oot_one(BOOLT, want, N, 0);
      void* arg = x;
      tvm_ffi_retain(arg); /* (oot_check_op releases its tensors) */
      oot_check_op(k_ops[k], NULL, 1, &arg, NULL, &e);
    }
    tvm_ffi_release(x);
  }
}

/* bitwise_not: ~x on signed and unsigned integers of 8 to 64 bits; on bool the logical not. */
TEST(bitwise_not) {
  static const struct {
    DLDataType dt;
    int64_t lo, hi;
  } k_cases[] = {
      {{kDLInt, 8, 1}, -128, 128},
      {{kDLUInt, 8, 1}, 0, 256},
      {{kDLInt, 32, 1}, -2147483648LL, 2147483647LL},
      {{kDLInt, 64, 1}, -(1LL << 50), 1LL << 50},
  };
  int64_t shape[1] = {N};
  for (size_t k = 0; k < sizeof(k_cases) / sizeof(k_cases[0]); ++k) {
    DLDataType dt = k_cases[k].dt;
    void* x = tvm_ffi_tensor_empty(shape, 1, dt, (DLDevice){kDLCPU, 0});
    void* p = tvm_ffi_tensor_dl(x)->data;
    double want[N];
    for (int i = 0; i < N; ++i) {
      int64_t v = i == 0 ? 0 : i == 1 ? -1 : rv_rnd_int(k_cases[k].lo, k_cases[k].hi);
      switch (dt.bits) {
        case 8:
          if (dt.code == kDLInt) {
            ((int8_t*)p)[i] = (int8_t)v;
            want[i] = (int8_t) ~(int8_t)v;
          } else {
            ((uint8_t*)p)[i] = (uint8_t)v;
            want[i] = (uint8_t) ~(uint8_t)v;
          }
          break;
        case 32:
          ((int32_t*)p)[i] = (int32_t)v;
          want[i] = ~(int32_t)v;
          break;
        default:
          ((int64_t*)p)[i] = v;
          want[i] = (double)~v; /* |v| < 2^50: exact as a double */
          break;
      }
    }
    oot_expect e = oot_one(dt, want, N, 0);
    oot_check_op("relax.bitwise_not", NULL, 1, &x, NULL, &e);
  }
  void* b = tvm_ffi_tensor_empty(shape, 1, BOOLT, (DLDevice){kDLCPU, 0});
  uint8_t* bp = tvm_ffi_tensor_dl(b)->data;
  double want[N];
  for (int i = 0; i < N; ++i) {
    bp[i] = (uint8_t)(rv_rnd() > 0);
    want[i] = !bp[i];
  }
  oot_expect e = oot_one(BOOLT, want, N, 0);
  oot_check_op("relax.bitwise_not", NULL, 1, &b, NULL, &e);
}

/* The operators as upstream prints them: parsed from TVMScript, legalized, interpreted and
 * compiled; one model chains all float ones, each output checked. */
TEST(parsed_script) {
  static const char src[] =
      "from tvm.script import ir as I\n"
      "from tvm.script import relax as R\n"
      "@I.ir_module\n"
      "class M:\n"
      "    @R.function\n"
      "    def main(x: R.Tensor((2, 3), dtype=\"float32\"), i: R.Tensor((2, 3), "
      "dtype=\"int32\")):\n"
      "        a = R.tan(x)\n"
      "        b = R.sinh(a)\n"
      "        c = R.cosh(x)\n"
      "        d = R.asin(x)\n"
      "        e = R.acos(x)\n"
      "        f = R.atan(c)\n"
      "        g = R.asinh(b)\n"
      "        h = R.acosh(c)\n"
      "        j = R.atanh(x)\n"
      "        k = R.trunc(b)\n"
      "        l = R.isfinite(b)\n"
      "        m = R.bitwise_not(i)\n"
      "        return (a, b, c, d, e, f, g, h, j, k, l, m)\n";
  tvm_tir_ir_module_obj* mod = tvm_script_parse(src, strlen(src), NULL);
  CHECK(mod != NULL);
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK(legal != NULL);
  int64_t shape[2] = {2, 3};
  void* x = tvm_ffi_tensor_empty(shape, 2, F32, (DLDevice){kDLCPU, 0});
  void* iv = tvm_ffi_tensor_empty(shape, 2, I32T, (DLDevice){kDLCPU, 0});
  float* xp = tvm_ffi_tensor_dl(x)->data;
  int32_t* ip = tvm_ffi_tensor_dl(iv)->data;
  for (int n = 0; n < 6; ++n) {
    xp[n] = (float)(rv_rnd() * 0.45); /* |x| < 0.9: in asin's, acos's and atanh's domain */
    ip[n] = (int32_t)rv_rnd_int(-1000, 1000);
  }
  double want[12][6];
  for (int n = 0; n < 6; ++n) {
    float v = xp[n], a = tanf(v), b = sinhf(a), c = coshf(v);
    want[0][n] = a, want[1][n] = b, want[2][n] = c;
    want[3][n] = asinf(v), want[4][n] = acosf(v), want[5][n] = atanf(c);
    want[6][n] = asinhf(b), want[7][n] = acoshf(c), want[8][n] = atanhf(v);
    want[9][n] = truncf(b), want[10][n] = isfinite(b) ? 1 : 0, want[11][n] = ~ip[n];
  }
  TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(iv)};
  for (int compiled = 0; legal && compiled < 2; ++compiled) {
    TVMFFIAny got = tvm_ffi_any_none();
    tvm_vm_executable* exec = NULL;
    tvm_vm* vm = NULL;
    if (!compiled) {
      CHECK_OK(tvm_relax_eval(legal, "main", args, 2, &got));
    } else {
      exec = test_mode(tvm_codegen_relax_build(legal, test_opts()));
      vm = exec ? tvm_vm_create(exec, &(DLDevice){kDLCPU, 0}, 1) : NULL;
      if (vm)
        CHECK_OK(tvm_vm_invoke(vm, "main", args, 2, &got));
      else
        CHECK_OK(-1);
    }
    bool ok = got.type_index == kTVMFFIArray && tvm_ffi_seq_size(got.v_obj) == 12;
    CHECK(ok);
    for (int o = 0; ok && o < 12; ++o) {
      DLDataType dt = o == 10 ? BOOLT : o == 11 ? I32T : F32;
      /* a chain of two float32 functions: each rounding may move the second's result */
      int bad = oot_bad(tvm_ffi_seq_at(got.v_obj, o), dt, want[o], 6, o >= 10 || o == 9 ? 0 : 2e-6);
      if (bad)
        fprintf(stderr, "output %d (%s): %d bad\n", o, compiled ? "compiled" : "interpreted", bad);
      CHECK_EQ_INT(bad, 0);
    }
    tvm_ffi_any_release(&got);
    if (vm) tvm_vm_release(vm);
    tvm_ffi_release(exec);
  }
  tvm_ffi_release(x), tvm_ffi_release(iv), tvm_ffi_release(legal), tvm_ffi_release(mod);
}

int main(void) {
  RUN(float_math_against_libm);
  RUN(trunc_integers);
  RUN(isfinite);
  RUN(checks_of_integers);
  RUN(bitwise_not);
  RUN(parsed_script);
  return test_summary();
}
