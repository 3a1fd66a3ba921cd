/*
 * test_legalize_eval.c: LegalizeOps turns elementwise operators into call_tir kernels, and the
 * reference evaluator runs them in libtir's interpreter. Results are checked against direct C
 * computations (libm) on random inputs: every legalized elementwise operator alone, with
 * broadcasting and a symbolic batch, the integer ones (bitwise, shifts) and logical_xor, ewise_fma,
 * and a small model; bad arguments are located errors.
 */
#include <math.h>
#include <stdlib.h>

#include "relax_testing.h"

static uint64_t g_rng = 0x9E3779B97F4A7C15ull;
static double rnd(double lo, double hi) {
  g_rng ^= g_rng << 13, g_rng ^= g_rng >> 7, g_rng ^= g_rng << 17;
  return lo + (hi - lo) * (double)(g_rng >> 11) / 9007199254740992.0;
}

static void* tensor_f32(int ndim, const int64_t* shape, double lo, double hi) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, F32, (DLDevice){kDLCPU, 0});
  int64_t n = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t));
  float* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < n; ++i) p[i] = (float)rnd(lo, hi);
  return t;
}

/* A module with main(params...) = op(params) (attrs optional), legalized. */
static tvm_tir_ir_module_obj* one_op_module(const char* op, void* attrs, int n, tvm_relax_var_obj** params) {
  void* objs[4];
  for (int i = 0; i < n; ++i) objs[i] = params[i];
  void* parr = tvm_ffi_array_of_objects(objs, n);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", parr, NULL, true);
  tvm_relax_expr_obj* call = n == 1 ? tvm_relax_call_op(op, attrs, 1, params[0])
                                    : tvm_relax_call_op(op, attrs, 2, params[0], params[1]);
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(bb, call, NULL) : NULL;
  tvm_tir_global_var_obj* gv = v ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(v), tvm_ffi_release(call);
  tvm_ffi_release(parr);
  tvm_relax_bb_free(bb);
  return legal;
}

typedef double (*unary_ref)(double);
static double ref_relu(double x) { return x > 0 ? x : 0; }
static double ref_relu6(double x) { return x < 0 ? 0 : x > 6 ? 6 : x; }
static double ref_sigmoid(double x) { return 1 / (1 + exp(-x)); }
static double ref_gelu(double x) { return 0.5 * x * (1 + erf(x / sqrt(2.0))); }
static double ref_silu(double x) { return x / (1 + exp(-x)); }
static double ref_neg(double x) { return -x; }
static double ref_square(double x) { return x * x; }
static double ref_rsqrt(double x) { return 1 / sqrt(x); }
static double ref_sign(double x) { return x > 0 ? 1 : x < 0 ? -1 : 0; }
static double ref_softplus(double x) { return x > 20 ? x : log1p(exp(x)); }
static double ref_selu(double x) {
  return 1.0507009873554805 * (x > 0 ? x : 1.6732632423543773 * (exp(x) - 1));
}

TEST(unary_ops_against_libm) {
  static const struct {
    const char* op;
    unary_ref ref;
    double lo, hi;
  } k_ops[] = {
      {"relax.exp", exp, -3, 3},        {"relax.log", log, 0.1, 5},
      {"relax.sqrt", sqrt, 0, 9},       {"relax.rsqrt", ref_rsqrt, 0.1, 9},
      {"relax.tanh", tanh, -3, 3},      {"relax.sigmoid", ref_sigmoid, -5, 5},
      {"relax.erf", erf, -2, 2},        {"relax.sin", sin, -3, 3},
      {"relax.cos", cos, -3, 3},        {"relax.abs", fabs, -3, 3},
      {"relax.negative", ref_neg, -3, 3}, {"relax.square", ref_square, -3, 3},
      {"relax.floor", floor, -3, 3},    {"relax.ceil", ceil, -3, 3},
      {"relax.sign", ref_sign, -3, 3},  {"relax.nn.relu", ref_relu, -3, 3},
      {"relax.nn.gelu", ref_gelu, -3, 3}, {"relax.nn.silu", ref_silu, -3, 3},
      {"relax.nn.relu6", ref_relu6, -9, 9},
      {"relax.tan", tan, -1.5, 1.5},    {"relax.sinh", sinh, -3, 3},
      {"relax.cosh", cosh, -3, 3},      {"relax.asin", asin, -1, 1},
      {"relax.acos", acos, -1, 1},      {"relax.atan", atan, -9, 9},
      {"relax.asinh", asinh, -9, 9},    {"relax.acosh", acosh, 1, 9},
      {"relax.atanh", atanh, -0.99, 0.99}, {"relax.trunc", trunc, -5, 5},
      {"relax.nn.softplus", ref_softplus, -30, 30}, {"relax.nn.selu", ref_selu, -3, 3},
  };
  int64_t shape[2] = {3, 5};
  for (size_t k = 0; k < sizeof(k_ops) / sizeof(k_ops[0]); ++k) {
    tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 2, (int64_t)3, (int64_t)5));
    tvm_tir_ir_module_obj* mod = one_op_module(k_ops[k].op, NULL, 1, &x);
    CHECK(mod != NULL);
    void* in = tensor_f32(2, shape, k_ops[k].lo, k_ops[k].hi);
    TVMFFIAny arg = tvm_ffi_any_obj(in), out;
    if (mod && tvm_relax_eval(mod, "main", &arg, 1, &out) == 0) {
      const float* a = tvm_ffi_tensor_dl(in)->data;
      const float* r = tvm_ffi_tensor_dl(out.v_obj)->data;
      int bad = 0;
      for (int i = 0; i < 15; ++i) {
        double want = k_ops[k].ref(a[i]);
        if (fabs(r[i] - want) > 1e-4 * (1 + fabs(want))) ++bad;
      }
      if (bad) fprintf(stderr, "%s: %d of 15 outputs differ\n", k_ops[k].op, bad);
      CHECK_EQ_INT(bad, 0);
      tvm_ffi_any_release(&out);
    } else {
      CHECK_OK(-1);
    }
    tvm_ffi_release(in), tvm_ffi_release(mod), tvm_ffi_release(x);
  }
}

TEST(binary_ops_broadcast_against_c) {
  /* x: (n, 1, 4), y: (3, 4) -> (n, 3, 4), evaluated with n = 2. */
  static const char* const k_ops[] = {"relax.add", "relax.subtract", "relax.multiply",
                                      "relax.divide", "relax.maximum", "relax.minimum",
                                      "relax.power", "relax.less", "relax.floor_mod",
                                      "relax.log_add_exp"};
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* one = tvm_tir_const_int(I64, 1);
  tvm_tir_expr_obj* four = tvm_tir_const_int(I64, 4);
  void* dx[3] = {n, one, four};
  int64_t sx[3] = {2, 1, 4}, sy[2] = {3, 4};
  for (size_t k = 0; k < sizeof(k_ops) / sizeof(k_ops[0]); ++k) {
    tvm_relax_var_obj* p[2] = {rt_var_take("x", rt_tensor_sym(F32, 3, dx)),
                               rt_var_take("y", rt_tensor(F32, 2, (int64_t)3, (int64_t)4))};
    tvm_tir_ir_module_obj* mod = one_op_module(k_ops[k], NULL, 2, p);
    CHECK(mod != NULL);
    void* x = tensor_f32(3, sx, 0.5, 3);
    void* y = tensor_f32(2, sy, 0.5, 3);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, out;
    if (mod && tvm_relax_eval(mod, "main", args, 2, &out) == 0) {
      const float* a = tvm_ffi_tensor_dl(x)->data;
      const float* b = tvm_ffi_tensor_dl(y)->data;
      const DLTensor* r = tvm_ffi_tensor_dl(out.v_obj);
      CHECK_EQ_INT(r->ndim, 3);
      CHECK_EQ_INT(r->shape[0], 2);
      CHECK_EQ_INT(r->shape[1], 3);
      int bad = 0;
      for (int i = 0; i < 2; ++i) {
        for (int j = 0; j < 3; ++j) {
          for (int l = 0; l < 4; ++l) {
            double u = a[i * 4 + l], v = b[j * 4 + l], want, got;
            switch (k) {
              case 0: want = u + v; break;
              case 1: want = u - v; break;
              case 2: want = u * v; break;
              case 3: want = u / v; break;
              case 4: want = u > v ? u : v; break;
              case 5: want = u < v ? u : v; break;
              case 6: want = pow(u, v); break;
              case 7: want = u < v; break;
              case 8: want = u - floor(u / v) * v; break;
              default: want = log(exp(u) + exp(v)); break;
            }
            int idx = (i * 3 + j) * 4 + l;
            got = k == 7 ? (double)((const uint8_t*)r->data)[idx] : ((const float*)r->data)[idx];
            if (fabs(got - want) > 1e-4 * (1 + fabs(want))) ++bad;
          }
        }
      }
      if (bad) fprintf(stderr, "%s: %d of 24 outputs differ\n", k_ops[k], bad);
      CHECK_EQ_INT(bad, 0);
      tvm_ffi_any_release(&out);
    } else {
      CHECK_OK(-1);
    }
    tvm_ffi_release(x), tvm_ffi_release(y), tvm_ffi_release(mod);
    tvm_ffi_release(p[0]), tvm_ffi_release(p[1]);
  }
  tvm_ffi_release(n), tvm_ffi_release(one), tvm_ffi_release(four);
}

static void* tensor_i32(int ndim, const int64_t* shape, int lo, int hi) {
  void* t = tvm_ffi_tensor_empty(shape, ndim, tvm_tir_dtype_int(32), (DLDevice){kDLCPU, 0});
  int64_t n = tvm_ffi_dltensor_numel(tvm_ffi_tensor_dl(t));
  int32_t* p = tvm_ffi_tensor_dl(t)->data;
  for (int64_t i = 0; i < n; ++i) p[i] = (int32_t)floor(rnd(lo, hi + 1));
  return t;
}

TEST(softplus_attrs_against_c) {
  /* beta 2, threshold 1: linear above x = 0.5 */
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)16));
  void* attrs = rt_attrs(2, "beta", tvm_ffi_any_float(2.0), "threshold", tvm_ffi_any_float(1.0));
  tvm_tir_ir_module_obj* mod = one_op_module("relax.nn.softplus", attrs, 1, &x);
  CHECK(mod != NULL);
  int64_t shape[1] = {16};
  void* in = tensor_f32(1, shape, -3, 3);
  TVMFFIAny arg = tvm_ffi_any_obj(in), out;
  if (mod && tvm_relax_eval(mod, "main", &arg, 1, &out) == 0) {
    const float* a = tvm_ffi_tensor_dl(in)->data;
    const float* r = tvm_ffi_tensor_dl(out.v_obj)->data;
    int bad = 0;
    for (int i = 0; i < 16; ++i) {
      double want = 2.0 * a[i] > 1.0 ? a[i] : log1p(exp(2.0 * a[i])) / 2.0;
      if (fabs(r[i] - want) > 1e-5 * (1 + fabs(want))) ++bad;
    }
    CHECK_EQ_INT(bad, 0);
    tvm_ffi_any_release(&out);
  } else {
    CHECK_OK(-1);
  }
  tvm_ffi_release(in), tvm_ffi_release(mod), tvm_ffi_release(attrs), tvm_ffi_release(x);
}

TEST(integer_binary_ops_against_c) {
  /* x: (2, 3) int32 in [-50, 50], y: (3,) int32 in [0, 5] (shift amounts) -> (2, 3) */
  static const char* const k_ops[] = {"relax.bitwise_and", "relax.bitwise_or", "relax.bitwise_xor",
                                      "relax.left_shift", "relax.right_shift"};
  DLDataType i32 = tvm_tir_dtype_int(32);
  int64_t sx[2] = {2, 3}, sy[1] = {3};
  for (size_t k = 0; k < sizeof(k_ops) / sizeof(k_ops[0]); ++k) {
    tvm_relax_var_obj* p[2] = {rt_var_take("x", rt_tensor(i32, 2, (int64_t)2, (int64_t)3)),
                               rt_var_take("y", rt_tensor(i32, 1, (int64_t)3))};
    tvm_tir_ir_module_obj* mod = one_op_module(k_ops[k], NULL, 2, p);
    CHECK(mod != NULL);
    void* x = tensor_i32(2, sx, -50, 50);
    void* y = tensor_i32(1, sy, 0, 5);
    TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, out;
    if (mod && tvm_relax_eval(mod, "main", args, 2, &out) == 0) {
      const int32_t* a = tvm_ffi_tensor_dl(x)->data;
      const int32_t* b = tvm_ffi_tensor_dl(y)->data;
      const int32_t* r = tvm_ffi_tensor_dl(out.v_obj)->data;
      int bad = 0;
      for (int i = 0; i < 6; ++i) {
        int32_t u = a[i], v = b[i % 3], want;
        switch (k) {
          case 0: want = u & v; break;
          case 1: want = u | v; break;
          case 2: want = u ^ v; break;
          case 3: want = (int32_t)((uint32_t)u << v); break;
          default: want = u >> v; break; /* arithmetic, as TIR's shift_right of a signed int */
        }
        if (r[i] != want) ++bad;
      }
      if (bad) fprintf(stderr, "%s: %d of 6 outputs differ\n", k_ops[k], bad);
      CHECK_EQ_INT(bad, 0);
      tvm_ffi_any_release(&out);
    } else {
      CHECK_OK(-1);
    }
    tvm_ffi_release(x), tvm_ffi_release(y), tvm_ffi_release(mod);
    tvm_ffi_release(p[0]), tvm_ffi_release(p[1]);
  }
  /* logical_xor of bool tensors */
  DLDataType bt = tvm_tir_dtype_bool();
  tvm_relax_var_obj* q[2] = {rt_var_take("x", rt_tensor(bt, 1, (int64_t)4)),
                             rt_var_take("y", rt_tensor(bt, 1, (int64_t)4))};
  tvm_tir_ir_module_obj* mod = one_op_module("relax.logical_xor", NULL, 2, q);
  CHECK(mod != NULL);
  int64_t s4[1] = {4};
  void* x = tvm_ffi_tensor_empty(s4, 1, bt, (DLDevice){kDLCPU, 0});
  void* y = tvm_ffi_tensor_empty(s4, 1, bt, (DLDevice){kDLCPU, 0});
  uint8_t *xa = tvm_ffi_tensor_dl(x)->data, *ya = tvm_ffi_tensor_dl(y)->data;
  for (int i = 0; i < 4; ++i) xa[i] = (uint8_t)(i & 1), ya[i] = (uint8_t)(i >> 1);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(x), tvm_ffi_any_obj(y)}, out;
  if (mod && tvm_relax_eval(mod, "main", args, 2, &out) == 0) {
    const uint8_t* r = tvm_ffi_tensor_dl(out.v_obj)->data;
    for (int i = 0; i < 4; ++i) CHECK_EQ_INT(r[i] != 0, (i & 1) != (i >> 1));
    tvm_ffi_any_release(&out);
  } else {
    CHECK_OK(-1);
  }
  tvm_ffi_release(x), tvm_ffi_release(y), tvm_ffi_release(mod);
  tvm_ffi_release(q[0]), tvm_ffi_release(q[1]);
}

TEST(ewise_fma_against_c) {
  /* x1 * x2 + x3 on (n, 5) with n = 3 */
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  tvm_tir_expr_obj* five = tvm_tir_const_int(I64, 5);
  void* d[2] = {n, five};
  tvm_relax_var_obj* p[3];
  static const char* const names[3] = {"x1", "x2", "x3"};
  for (int i = 0; i < 3; ++i) p[i] = rt_var_take(names[i], rt_tensor_sym(F32, 2, d));
  void* parr = tvm_ffi_array_of_objects((void* []){p[0], p[1], p[2]}, 3);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", parr, NULL, true);
  tvm_relax_expr_obj* call = tvm_relax_call_op("relax.ewise_fma", NULL, 3, p[0], p[1], p[2]);
  tvm_relax_var_obj* v = call ? tvm_relax_bb_emit(bb, call, NULL) : NULL;
  tvm_tir_global_var_obj* gv =
      v ? tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL) : NULL;
  tvm_tir_ir_module_obj* mod = gv ? tvm_relax_bb_module(bb) : NULL;
  tvm_tir_ir_module_obj* legal = mod ? tvm_relax_transform_legalize_ops(mod) : NULL;
  CHECK(legal != NULL);
  int64_t shape[2] = {3, 5};
  void* in[3];
  TVMFFIAny args[3], out;
  for (int i = 0; i < 3; ++i) {
    in[i] = tensor_f32(2, shape, -2, 2);
    args[i] = tvm_ffi_any_obj(in[i]);
  }
  if (legal && tvm_relax_eval(legal, "main", args, 3, &out) == 0) {
    const float *a = tvm_ffi_tensor_dl(in[0])->data, *b = tvm_ffi_tensor_dl(in[1])->data,
                *c = tvm_ffi_tensor_dl(in[2])->data;
    const float* r = tvm_ffi_tensor_dl(out.v_obj)->data;
    int bad = 0;
    for (int i = 0; i < 15; ++i) {
      double want = (double)a[i] * b[i] + c[i];
      if (fabs(r[i] - want) > 1e-5 * (1 + fabs(want))) ++bad;
    }
    CHECK_EQ_INT(bad, 0);
    tvm_ffi_any_release(&out);
  } else {
    CHECK_OK(-1);
  }
  for (int i = 0; i < 3; ++i) tvm_ffi_release(in[i]), tvm_ffi_release(p[i]);
  tvm_ffi_release(legal), tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(v);
  tvm_ffi_release(call), tvm_ffi_release(parr), tvm_ffi_release(n), tvm_ffi_release(five);
  tvm_relax_bb_free(bb);
}

TEST(legalized_module_structure_and_errors) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  tvm_tir_ir_module_obj* mod = one_op_module("relax.exp", NULL, 1, &x);
  /* main's binding is now call_tir to the kernel "exp". */
  tvm_relax_function_obj* f = tvm_tir_ir_module_lookup(mod, "main");
  tvm_relax_seq_expr_obj* seq = (tvm_relax_seq_expr_obj*)f->body;
  tvm_relax_block_obj* blk = tvm_ffi_seq_obj_at(seq->blocks, 0);
  tvm_relax_expr_obj* v = tvm_relax_binding_value(tvm_ffi_seq_obj_at(blk->bindings, 0));
  CHECK(tvm_relax_is_call_to(v, TVM_RELAX_OP_call_tir));
  void* k = tvm_tir_ir_module_lookup(mod, "exp");
  CHECK(tvm_tir_is(k, TVM_TIR_KIND_PrimFunc));
  tvm_ffi_release(k), tvm_ffi_release(f);
  /* Wrong arguments. */
  int64_t s5[1] = {5}, s4[1] = {4};
  void* t5 = tensor_f32(1, s5, 0, 1);
  TVMFFIAny arg = tvm_ffi_any_obj(t5), out;
  CHECK(tvm_relax_eval(mod, "main", &arg, 1, &out) != 0);
  CHECK_RAISED("ValueError", "main: argument 'x' dim 0 is 5, expected 4");
  void* ti = tvm_ffi_tensor_empty(s4, 1, tvm_tir_dtype_int(32), (DLDevice){kDLCPU, 0});
  arg = tvm_ffi_any_obj(ti);
  CHECK(tvm_relax_eval(mod, "main", &arg, 1, &out) != 0);
  CHECK_RAISED("ValueError", "argument 'x' has dtype int32, expected float32");
  CHECK(tvm_relax_eval(mod, "main", NULL, 0, &out) != 0);
  CHECK_RAISED("TypeError", "main takes 1 arguments, got 0");
  arg = tvm_ffi_any_int(3);
  CHECK(tvm_relax_eval(mod, "main", &arg, 1, &out) != 0);
  CHECK_RAISED("TypeError", "argument 'x' must be a tensor");
  CHECK(tvm_relax_eval(mod, "nope", NULL, 0, &out) != 0);
  CHECK_RAISED("KeyError", "nope");
  tvm_ffi_release(ti), tvm_ffi_release(t5), tvm_ffi_release(mod), tvm_ffi_release(x);
}

TEST(unlegalized_operator_is_named) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)4));
  void* params = rt_array(1, x);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
  tvm_relax_expr_obj* call = RT_CALL("relax.exp", NULL, x);
  tvm_relax_var_obj* v = tvm_relax_bb_emit(bb, call, NULL);
  tvm_tir_global_var_obj* gv = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)v, NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  int64_t s4[1] = {4};
  void* t = tensor_f32(1, s4, 0, 1);
  TVMFFIAny arg = tvm_ffi_any_obj(t), out;
  CHECK(tvm_relax_eval(mod, "main", &arg, 1, &out) != 0);
  CHECK_RAISED("NotImplementedError", "relax.exp has no kernel here (run LegalizeOps");
  tvm_ffi_release(t), tvm_ffi_release(mod), tvm_ffi_release(gv), tvm_ffi_release(v);
  tvm_ffi_release(call), tvm_relax_bb_free(bb), tvm_ffi_release(params), tvm_ffi_release(x);
}

TEST(symbolic_dims_must_agree) {
  tvm_tir_var_obj* n = tvm_tir_var_new("n", I64);
  void* d[1] = {n};
  tvm_relax_var_obj* p[2] = {rt_var_take("x", rt_tensor_sym(F32, 1, d)),
                             rt_var_take("y", rt_tensor_sym(F32, 1, d))};
  tvm_tir_ir_module_obj* mod = one_op_module("relax.add", NULL, 2, p);
  int64_t s3[1] = {3}, s4[1] = {4};
  void* a = tensor_f32(1, s3, 0, 1);
  void* b = tensor_f32(1, s4, 0, 1);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b)}, out;
  CHECK(tvm_relax_eval(mod, "main", args, 2, &out) != 0);
  CHECK_RAISED("ValueError", "argument 'y' dim 0 is 4, expected n = 3");
  args[1] = tvm_ffi_any_obj(a);
  CHECK_OK(tvm_relax_eval(mod, "main", args, 2, &out));
  tvm_ffi_any_release(&out);
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(mod);
  tvm_ffi_release(p[0]), tvm_ffi_release(p[1]), tvm_ffi_release(n);
}

/* concat of a tuple variable: its fields are bound to variables before the call_tir (A-normal
 * form), and the result is the concatenation. */
TEST(tuple_variable_argument_stays_normal) {
  tvm_relax_var_obj* x = rt_var_take("x", rt_tensor(F32, 1, (int64_t)2));
  tvm_relax_var_obj* y = rt_var_take("y", rt_tensor(F32, 1, (int64_t)3));
  void* params = rt_array(2, x, y);
  tvm_relax_block_builder* bb = tvm_relax_bb_new(NULL);
  tvm_relax_bb_function_begin(bb, "main", params, NULL, true);
  CHECK_OK(tvm_relax_bb_dataflow_begin(bb));
  void* fields = rt_array(2, x, y);
  tvm_relax_expr_obj* tup = tvm_relax_tuple_new(fields);
  tvm_relax_var_obj* t = tvm_relax_bb_emit(bb, tup, "t");
  tvm_relax_expr_obj* cat = RT_CALL("relax.concat", NULL, t);
  tvm_relax_var_obj* c = tvm_relax_bb_emit_output(bb, cat, "c");
  CHECK_OK(tvm_relax_bb_block_end(bb));
  tvm_tir_global_var_obj* gv = tvm_relax_bb_function_end(bb, (tvm_relax_expr_obj*)c, NULL);
  tvm_tir_ir_module_obj* mod = tvm_relax_bb_module(bb);
  tvm_tir_ir_module_obj* legal = tvm_relax_transform_legalize_ops(mod);
  CHECK(legal != NULL);
  if (legal) CHECK_OK(tvm_relax_verify_well_formed(legal));
  int64_t s2[1] = {2}, s3[1] = {3};
  void* a = tensor_f32(1, s2, 0, 1);
  void* b = tensor_f32(1, s3, 0, 1);
  TVMFFIAny args[2] = {tvm_ffi_any_obj(a), tvm_ffi_any_obj(b)}, out;
  if (legal && tvm_relax_eval(legal, "main", args, 2, &out) == 0) {
    const float* r = tvm_ffi_tensor_dl(out.v_obj)->data;
    const float *pa = tvm_ffi_tensor_dl(a)->data, *pb = tvm_ffi_tensor_dl(b)->data;
    CHECK(r[0] == pa[0] && r[1] == pa[1] && r[2] == pb[0] && r[3] == pb[1] && r[4] == pb[2]);
    tvm_ffi_any_release(&out);
  } else {
    CHECK_OK(-1);
  }
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(legal), tvm_ffi_release(mod);
  tvm_ffi_release(gv), tvm_ffi_release(c), tvm_ffi_release(cat), tvm_ffi_release(t);
  tvm_ffi_release(tup), tvm_ffi_release(fields), tvm_relax_bb_free(bb);
  tvm_ffi_release(params), tvm_ffi_release(x), tvm_ffi_release(y);
}

int main(void) {
  RUN(unary_ops_against_libm);
  RUN(binary_ops_broadcast_against_c);
  RUN(ewise_fma_against_c);
  RUN(integer_binary_ops_against_c);
  RUN(softplus_attrs_against_c);
  RUN(legalized_module_structure_and_errors);
  RUN(unlegalized_operator_is_named);
  RUN(symbolic_dims_must_agree);
  RUN(tuple_variable_argument_stays_normal);
  return test_summary();
}
