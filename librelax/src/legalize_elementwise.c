/*
 * legalize_elementwise.c: the kernels of the elementwise operators (unary, binary with numpy
 * broadcasting, atan2, where, clip, astype, and the activations relu, gelu, silu, leakyrelu,
 * softplus, selu): one loop nest over the output, each input read at the output's indices aligned from the right (a
 * dim of 1 that the output broadcasts read at 0).
 * Scalar R.Prim arguments (clip's bounds, a binary operand) are folded into the kernel when
 * constant.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

/* The load of input buffer b (rank r) at the indices idx of out (rank n): 0 on a dim of 1 that
 * out broadcasts to more, the output's index elsewhere (also on a dim of 1 in both, as topi: an
 * input of the output's shape is then read at exactly the store's indices, which FuseTIR's
 * inlining and the op pattern analysis take as elementwise). */
static void* load_broadcast(tvm_tir_buffer_obj* b, const tvm_tir_buffer_obj* out, void* const* idx,
                            int64_t n) {
  int64_t r = tvm_ffi_seq_size(b->shape);
  void* ind[16];
  for (int64_t i = 0; i < r; ++i) {
    tvm_tir_expr_obj* d = tvm_ffi_seq_obj_at(b->shape, i);
    int64_t c, co;
    void* iv = idx[n - r + i];
    bool unit_out = tvm_tir_as_const_int(tvm_ffi_seq_obj_at(out->shape, n - r + i), &co) && co == 1;
    ind[i] = tvm_tir_as_const_int(d, &c) && c == 1 && !unit_out ? (void*)tvm_tir_i64(0)
                                                                : tvm_tir_ref(iv);
  }
  return tvm_tir_load_takev(tvm_tir_ref(b), r, ind);
}

/* A scalar operand as a PrimExpr of dtype: a constant R.Prim value. */
static tvm_tir_expr_obj* prim_operand(const tvm_relax_expr_obj* e, DLDataType dtype) {
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(e);
  tvm_tir_expr_obj* v = tvm_relax_kind_of(s) == TVM_RELAX_KIND_PrimStructInfo
                            ? ((tvm_relax_prim_sinfo_obj*)s)->value
                            : NULL;
  double f;
  if (!v || !tvm_tir_as_const_float(v, &f)) {
    tvm_ffi_raise("ValueError", "a scalar operand must be a constant R.prim_value");
    return NULL;
  }
  return tvm_tir_is_expr(v) && tvm_tir_dtype_equal(tvm_tir_expr_dtype(v), dtype)
             ? tvm_tir_ref(v)
             : (tvm_tir_dtype_is_floating(dtype) ? tvm_tir_const_float(dtype, f)
                                                 : tvm_tir_const_int(dtype, (int64_t)f));
}

static void* call1(DLDataType t, const char* op, void* a) { return tvm_tir_call_take(t, op, a); }

/* x * 0.5 * (1 + erf(x / sqrt(2))) */
static void* gelu(DLDataType t, void* x) {
  void* scaled = tvm_tir_mul_take(tvm_tir_ref(x), tvm_tir_const_float(t, M_SQRT1_2));
  void* one_plus = tvm_tir_add_take(tvm_tir_const_float(t, 1.0), call1(t, "tir.erf", scaled));
  return tvm_tir_mul_take(tvm_tir_mul_take(x, tvm_tir_const_float(t, 0.5)), one_plus);
}

/* 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 x^3))) */
static void* gelu_tanh(DLDataType t, void* x) {
  void* x3 = tvm_tir_mul_take(tvm_tir_mul_take(tvm_tir_ref(x), tvm_tir_ref(x)), tvm_tir_ref(x));
  void* inner = tvm_tir_add_take(tvm_tir_ref(x), tvm_tir_mul_take(tvm_tir_const_float(t, 0.044715), x3));
  void* th = call1(t, "tir.tanh", tvm_tir_mul_take(tvm_tir_const_float(t, 0.7978845608028654), inner));
  return tvm_tir_mul_take(tvm_tir_mul_take(tvm_tir_const_float(t, 0.5), x),
                          tvm_tir_add_take(tvm_tir_const_float(t, 1.0), th));
}

/* The value of unary op id on x (consumed), of input dtype t and output dtype out. */
static void* unary_value(tvm_relax_op_id id, DLDataType t, DLDataType out, void* x,
                         const tvm_relax_call_obj* call) {
  bool fl = tvm_tir_dtype_is_floating(t);
  switch (id) {
    case TVM_RELAX_OP_abs:
      return fl ? call1(t, "tir.fabs", x)
                : tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(x), tvm_tir_const_int(t, 0)),
                                      tvm_tir_neg_take(tvm_tir_ref(x)), x);
    case TVM_RELAX_OP_negative: return tvm_tir_neg_take(x);
    case TVM_RELAX_OP_exp: return call1(t, "tir.exp", x);
    case TVM_RELAX_OP_log: return call1(t, "tir.log", x);
    case TVM_RELAX_OP_sqrt: return call1(t, "tir.sqrt", x);
    case TVM_RELAX_OP_rsqrt: return call1(t, "tir.rsqrt", x);
    case TVM_RELAX_OP_tanh: return call1(t, "tir.tanh", x);
    case TVM_RELAX_OP_sigmoid: return call1(t, "tir.sigmoid", x);
    case TVM_RELAX_OP_erf: return call1(t, "tir.erf", x);
    case TVM_RELAX_OP_sin: return call1(t, "tir.sin", x);
    case TVM_RELAX_OP_cos: return call1(t, "tir.cos", x);
    case TVM_RELAX_OP_tan: return call1(t, "tir.tan", x);
    case TVM_RELAX_OP_sinh: return call1(t, "tir.sinh", x);
    case TVM_RELAX_OP_cosh: return call1(t, "tir.cosh", x);
    case TVM_RELAX_OP_asin: return call1(t, "tir.asin", x);
    case TVM_RELAX_OP_acos: return call1(t, "tir.acos", x);
    case TVM_RELAX_OP_atan: return call1(t, "tir.atan", x);
    case TVM_RELAX_OP_asinh: return call1(t, "tir.asinh", x);
    case TVM_RELAX_OP_acosh: return call1(t, "tir.acosh", x);
    case TVM_RELAX_OP_atanh: return call1(t, "tir.atanh", x);
    case TVM_RELAX_OP_floor: return fl ? call1(t, "tir.floor", x) : x;
    case TVM_RELAX_OP_ceil: return fl ? call1(t, "tir.ceil", x) : x;
    case TVM_RELAX_OP_round: return fl ? call1(t, "tir.round", x) : x;
    case TVM_RELAX_OP_trunc: return fl ? call1(t, "tir.trunc", x) : x;
    case TVM_RELAX_OP_sign: {
      void* zero = fl ? tvm_tir_const_float(t, 0) : tvm_tir_const_int(t, 0);
      void* one = fl ? tvm_tir_const_float(t, 1) : tvm_tir_const_int(t, 1);
      void* pos = tvm_tir_select_take(tvm_tir_gt_take(tvm_tir_ref(x), tvm_tir_ref(zero)), one,
                                      tvm_tir_ref(zero));
      void* minus = fl ? tvm_tir_const_float(t, -1) : tvm_tir_const_int(t, -1);
      return tvm_tir_select_take(tvm_tir_lt_take(x, zero), minus, pos);
    }
    case TVM_RELAX_OP_square: return tvm_tir_mul_take(tvm_tir_ref(x), x);
    case TVM_RELAX_OP_logical_not: return tvm_tir_not_take(x);
    case TVM_RELAX_OP_bitwise_not: /* ~x; on bool (numpy's and uint1's ~) the logical not */
      return tvm_tir_dtype_is_bool(t) || t.code == kDLBool ? tvm_tir_not_take(x)
                                                          : call1(t, "tir.bitwise_not", x);
    case TVM_RELAX_OP_isnan: return call1(out, "tir.isnan", x);
    case TVM_RELAX_OP_isinf: return call1(out, "tir.isinf", x);
    case TVM_RELAX_OP_isfinite: return call1(out, "tir.isfinite", x);
    case TVM_RELAX_OP_astype:
    case TVM_RELAX_OP_wrap_param: return tvm_tir_cast_take(out, x);
    case TVM_RELAX_OP_nn_relu:
      return tvm_tir_max_take(x, fl ? tvm_tir_const_float(t, 0) : tvm_tir_const_int(t, 0));
    case TVM_RELAX_OP_nn_relu6: /* min(max(x, 0), 6), as upstream's topi.clip(x, 0, 6) */
      return tvm_tir_min_take(
          tvm_tir_max_take(x, fl ? tvm_tir_const_float(t, 0) : tvm_tir_const_int(t, 0)),
          fl ? tvm_tir_const_float(t, 6) : tvm_tir_const_int(t, 6));
    case TVM_RELAX_OP_nn_gelu: return gelu(t, x);
    case TVM_RELAX_OP_nn_gelu_tanh: return gelu_tanh(t, x);
    case TVM_RELAX_OP_nn_silu:
      return tvm_tir_mul_take(tvm_tir_ref(x), call1(t, "tir.sigmoid", x));
    case TVM_RELAX_OP_nn_leakyrelu: { /* x > 0 ? x : x * alpha (upstream's topi.nn.leaky_relu) */
      double alpha = 0.01;
      const TVMFFIAny* av = tvm_relax_call_attr(call, "alpha");
      if (av) tvm_ffi_any_as_float(av, &alpha);
      void* pos = tvm_tir_gt_take(tvm_tir_ref(x), tvm_tir_const_float(t, 0));
      void* neg = tvm_tir_mul_take(tvm_tir_ref(x), tvm_tir_const_float(t, alpha));
      return tvm_tir_select_take(pos, x, neg);
    }
    case TVM_RELAX_OP_nn_softplus: { /* b * x > t ? x : log(1 + exp(b * x)) / b (topi's) */
      double beta = tvm_relax__call_attr_float(call, "beta", 1.0);
      double thr = tvm_relax__call_attr_float(call, "threshold", 20.0);
      void* bx = tvm_tir_mul_take(tvm_tir_ref(x), tvm_tir_const_float(t, beta));
      void* soft = tvm_tir_div_take(
          call1(t, "tir.log", tvm_tir_add_take(tvm_tir_const_float(t, 1.0),
                                               call1(t, "tir.exp", tvm_tir_ref(bx)))),
          tvm_tir_const_float(t, beta));
      return tvm_tir_select_take(tvm_tir_gt_take(bx, tvm_tir_const_float(t, thr)), x, soft);
    }
    case TVM_RELAX_OP_nn_selu: { /* scale * (max(x, 0) + min(alpha * (exp(x) - 1), 0)) */
      const double alpha = 1.6732632423543772848170429916717;
      const double scale = 1.0507009873554804934193349852946;
      void* e = tvm_tir_sub_take(call1(t, "tir.exp", tvm_tir_ref(x)), tvm_tir_const_float(t, 1));
      void* neg = tvm_tir_min_take(tvm_tir_mul_take(tvm_tir_const_float(t, alpha), e),
                                   tvm_tir_const_float(t, 0));
      void* pos = tvm_tir_max_take(x, tvm_tir_const_float(t, 0));
      return tvm_tir_mul_take(tvm_tir_const_float(t, scale), tvm_tir_add_take(pos, neg));
    }
    case TVM_RELAX_OP_clip: {
      tvm_tir_expr_obj* lo = prim_operand(tvm_ffi_seq_obj_at(call->args, 1), t);
      tvm_tir_expr_obj* hi = lo ? prim_operand(tvm_ffi_seq_obj_at(call->args, 2), t) : NULL;
      if (!hi) {
        tvm_ffi_release(lo);
        tvm_ffi_release(x);
        return NULL;
      }
      return tvm_tir_max_take(tvm_tir_min_take(x, hi), lo);
    }
    default:
      tvm_ffi_release(x);
      tvm_ffi_raise("NotImplementedError", "no elementwise kernel");
      return NULL;
  }
}

/* The value of binary op id on a, b (consumed) of dtype t. */
static void* binary_value(tvm_relax_op_id id, DLDataType t, void* a, void* b) {
  bool fl = tvm_tir_dtype_is_floating(t);
  switch (id) {
    case TVM_RELAX_OP_add: return tvm_tir_add_take(a, b);
    case TVM_RELAX_OP_subtract: return tvm_tir_sub_take(a, b);
    case TVM_RELAX_OP_multiply: return tvm_tir_mul_take(a, b);
    case TVM_RELAX_OP_divide: return fl ? tvm_tir_div_take(a, b) : tvm_tir_div_take(a, b);
    case TVM_RELAX_OP_floor_divide:
      return fl ? call1(t, "tir.floor", tvm_tir_div_take(a, b)) : tvm_tir_floordiv_take(a, b);
    case TVM_RELAX_OP_power: return tvm_tir_call_take(t, "tir.pow", a, b);
    case TVM_RELAX_OP_maximum: return tvm_tir_max_take(a, b);
    case TVM_RELAX_OP_minimum: return tvm_tir_min_take(a, b);
    case TVM_RELAX_OP_mod: return fl ? tvm_tir_call_take(t, "tir.fmod", a, b) : tvm_tir_mod_take(a, b);
    case TVM_RELAX_OP_floor_mod:
      if (fl) { /* a - floor(a / b) * b */
        void* q = call1(t, "tir.floor", tvm_tir_div_take(tvm_tir_ref(a), tvm_tir_ref(b)));
        return tvm_tir_sub_take(a, tvm_tir_mul_take(q, b));
      }
      return tvm_tir_floormod_take(a, b);
    case TVM_RELAX_OP_equal: return tvm_tir_eq_take(a, b);
    case TVM_RELAX_OP_not_equal: return tvm_tir_ne_take(a, b);
    case TVM_RELAX_OP_less: return tvm_tir_lt_take(a, b);
    case TVM_RELAX_OP_less_equal: return tvm_tir_le_take(a, b);
    case TVM_RELAX_OP_greater: return tvm_tir_gt_take(a, b);
    case TVM_RELAX_OP_greater_equal: return tvm_tir_ge_take(a, b);
    case TVM_RELAX_OP_atan2: return tvm_tir_call_take(t, "tir.atan2", a, b);
    case TVM_RELAX_OP_logical_and: return tvm_tir_and_take(a, b);
    case TVM_RELAX_OP_logical_or: return tvm_tir_or_take(a, b);
    case TVM_RELAX_OP_logical_xor: return tvm_tir_ne_take(a, b);
    case TVM_RELAX_OP_bitwise_and: return tvm_tir_call_take(t, "tir.bitwise_and", a, b);
    case TVM_RELAX_OP_bitwise_or: return tvm_tir_call_take(t, "tir.bitwise_or", a, b);
    case TVM_RELAX_OP_bitwise_xor: return tvm_tir_call_take(t, "tir.bitwise_xor", a, b);
    case TVM_RELAX_OP_left_shift: return tvm_tir_call_take(t, "tir.shift_left", a, b);
    case TVM_RELAX_OP_right_shift: return tvm_tir_call_take(t, "tir.shift_right", a, b);
    case TVM_RELAX_OP_log_add_exp: { /* max + log(exp(a - max) + exp(b - max)), as topi */
      void* m = tvm_tir_max_take(tvm_tir_ref(a), tvm_tir_ref(b));
      void* ea = call1(t, "tir.exp", tvm_tir_sub_take(a, tvm_tir_ref(m)));
      void* eb = call1(t, "tir.exp", tvm_tir_sub_take(b, tvm_tir_ref(m)));
      return tvm_tir_add_take(m, call1(t, "tir.log", tvm_tir_add_take(ea, eb)));
    }
    default:
      tvm_ffi_release(a);
      tvm_ffi_release(b);
      tvm_ffi_raise("NotImplementedError", "no binary kernel");
      return NULL;
  }
}

tvm_tir_prim_func_obj* tvm_relax__legalize_elementwise(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  tvm_relax_sinfo_obj* out_s = tvm_relax_sinfo_of(call);
  void* out_dims = tvm_relax_tensor_sinfo_dims(out_s);
  int64_t n = tvm_ffi_seq_size(out_dims);
  if (n > 16) {
    tvm_ffi_raise("ValueError", "more than 16 dims");
    return NULL;
  }
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  /* Inputs: the tensor arguments in order; scalars are folded. */
  tvm_tir_buffer_obj* in[3] = {NULL, NULL, NULL};
  int nin = 0;
  bool ok = true;
  static const char* const names[3] = {"A", "B", "C"};
  for (int64_t i = 0; ok && i < tvm_ffi_seq_size(call->args) && nin < 3; ++i) {
    tvm_relax_expr_obj* a = tvm_ffi_seq_obj_at(call->args, i);
    if (tvm_relax_kind_of(tvm_relax_sinfo_of(a)) != TVM_RELAX_KIND_TensorStructInfo) continue;
    in[nin] = tvm_relax__kernel_buffer(&k, names[nin], tvm_relax_sinfo_of(a));
    ok = in[nin++] != NULL;
  }
  tvm_tir_buffer_obj* out = ok ? tvm_relax__kernel_buffer(&k, "T_out", out_s) : NULL;
  void* idx[16];
  void* body = NULL;
  if (out) {
    for (int64_t i = 0; i < n; ++i) {
      char name[8];
      snprintf(name, sizeof(name), "i%lld", (long long)i);
      idx[i] = tvm_tir_var(name, TVM_TIR_INT64);
    }
    DLDataType od = out->dtype;
    tvm_relax_op_id id = info->id;
    void* value = NULL;
    /* Operand values: a tensor input loaded with broadcasting, or a scalar argument. */
    void* vals[3];
    int nv = 0;
    int ti = 0;
    for (int64_t i = 0; i < tvm_ffi_seq_size(call->args) && nv < 3; ++i) {
      tvm_relax_expr_obj* a = tvm_ffi_seq_obj_at(call->args, i);
      tvm_relax_kind sk = tvm_relax_kind_of(tvm_relax_sinfo_of(a));
      if (sk == TVM_RELAX_KIND_TensorStructInfo) {
        vals[nv++] = load_broadcast(in[ti++], out, idx, n);
      } else if (sk == TVM_RELAX_KIND_PrimStructInfo && id != TVM_RELAX_OP_clip) {
        DLDataType pt = ((tvm_relax_prim_sinfo_obj*)tvm_relax_sinfo_of(a))->dtype;
        vals[nv++] = prim_operand(a, pt);
      }
    }
    DLDataType t0 = in[0] ? in[0]->dtype : od;
    if (id == TVM_RELAX_OP_where && nv == 3) {
      value = tvm_tir_select_take(vals[0], vals[1], vals[2]);
    } else if (id == TVM_RELAX_OP_ewise_fma && nv == 3) {
      value = tvm_tir_add_take(tvm_tir_mul_take(vals[0], vals[1]), vals[2]);
    } else if (info->max_args == 2 && nv == 2 && info->pattern == TVM_RELAX_PATTERN_BROADCAST) {
      DLDataType bt = tvm_tir_expr_dtype(vals[0] ? vals[0] : vals[1]);
      value = binary_value(id, bt, vals[0], vals[1]);
    } else if (nv >= 1) {
      value = unary_value(id, t0, od, vals[0], call);
      for (int j = 1; j < nv; ++j) tvm_ffi_release(vals[j]);
    }
    if (value) {
      void* ind[16];
      for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(idx[i]);
      body = tvm_tir_store_takev(tvm_tir_ref(out), value, n, ind);
      for (int64_t i = n - 1; body && i >= 0; --i) {
        tvm_tir_expr_obj* ext = tvm_ffi_seq_obj_at(out->shape, i);
        body = tvm_tir_serial_take(tvm_tir_ref(idx[i]), tvm_tir_i64(0), tvm_tir_ref(ext), body);
      }
    }
    for (int64_t i = 0; i < n; ++i) tvm_ffi_release(idx[i]);
  }
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  for (int i = 0; i < nin; ++i) tvm_ffi_release(in[i]);
  tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  return f;
}
