/*
 * legalize_create.c: the kernels of the creation operators: zeros / ones / full and their
 * _like forms (the fill value a constant R.Prim folded in, or a 0-d tensor input read once per
 * element), arange (constant start and step), tril / triu (a constant diagonal offset k), eye /
 * eye_like (a constant k), hamming_window (constant periodic, alpha and beta).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }

static void* const_of(DLDataType t, double v) {
  return tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, v) : tvm_tir_const_int(t, (int64_t)v);
}

/* out[...] = value, value computed once from the loop variables by fn. */
static void* fill_all(tvm_tir_buffer_obj* out, void* value) {
  void* v[MAX_DIMS];
  int64_t n = rank(out);
  if (n > MAX_DIMS) {
    tvm_ffi_release(value);
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  if (tvm_relax__kernel_vars(v, n, "i") != 0) {
    tvm_ffi_release(value);
    return NULL;
  }
  void* body = tvm_relax__store_all(out, v, value);
  tvm_relax__release_all(v, n);
  return body;
}

static void* fill_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  DLDataType t = out[0]->dtype;
  switch (info->id) {
    case TVM_RELAX_OP_zeros:
    case TVM_RELAX_OP_zeros_like: return fill_all(out[0], const_of(t, 0));
    case TVM_RELAX_OP_ones:
    case TVM_RELAX_OP_ones_like: return fill_all(out[0], const_of(t, 1));
    default: break;
  }
  /* full (shape, fill) / full_like (x, fill): the fill value is argument 1. */
  tvm_relax_expr_obj* fv = tvm_ffi_seq_obj_at(call->args, 1);
  if (tvm_relax_kind_of(tvm_relax_sinfo_of(fv)) == TVM_RELAX_KIND_TensorStructInfo) {
    tvm_tir_buffer_obj* f = in[nin - 1]; /* the last tensor input */
    return fill_all(out[0], tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(f), 0, NULL)));
  }
  double c;
  if (!tvm_relax__const_scalar(fv, &c)) {
    tvm_ffi_raise("NotImplementedError", "%s: the fill value must be a constant or a tensor",
                  info->name);
    return NULL;
  }
  return fill_all(out[0], const_of(t, c));
}

tvm_tir_prim_func_obj* tvm_relax__legalize_fill(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, fill_body);
}

static void* arange_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)in, (void)nin, (void)nout;
  double start, step;
  if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 0), &start) ||
      !tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 2), &step)) {
    tvm_ffi_raise("NotImplementedError", "arange: start and step must be constants");
    return NULL;
  }
  DLDataType t = out[0]->dtype;
  void* i = tvm_tir_var("i", TVM_TIR_INT64);
  /* start + i * step, in the output dtype */
  void* value = tvm_tir_add_take(const_of(t, start),
                                 tvm_tir_mul_take(tvm_tir_cast_take(t, tvm_tir_ref(i)), const_of(t, step)));
  void* body = tvm_relax__store_all(out[0], &i, value);
  tvm_ffi_release(i);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_arange(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, arange_body);
}

/* hamming_window: alpha - beta * cos(2 pi i / d), d = N if periodic else N - 1 (1 when N is 1),
 * computed in float64 and cast to the output dtype (upstream's topi.hamming_window). */
static void* hamming_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                          tvm_tir_buffer_obj* const* out, int nout) {
  (void)in, (void)nin, (void)nout;
  double periodic, alpha, beta;
  if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 1), &periodic) ||
      !tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 2), &alpha) ||
      !tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 3), &beta)) {
    tvm_ffi_raise("NotImplementedError", "hamming_window: periodic, alpha and beta must be "
                  "constants");
    return NULL;
  }
  if (rank(out[0]) != 1) {
    tvm_ffi_raise("ValueError", "hamming_window: bad rank %lld", (long long)rank(out[0]));
    return NULL;
  }
  DLDataType f64 = tvm_tir_dtype_float(64);
  void* n = tvm_tir_cast_take(f64, tvm_tir_ref(tvm_ffi_seq_obj_at(out[0]->shape, 0)));
  void* d = periodic != 0 ? n : tvm_tir_sub_take(n, tvm_tir_const_float(f64, 1.0));
  d = tvm_tir_max_take(d, tvm_tir_const_float(f64, 1.0)); /* (N = 1: cos(0), one value 1 - ...) */
  void* i = tvm_tir_var("i", TVM_TIR_INT64);
  void* angle = tvm_tir_div_take(
      tvm_tir_mul_take(tvm_tir_const_float(f64, 2.0 * M_PI), tvm_tir_cast_take(f64, tvm_tir_ref(i))),
      d);
  void* w = tvm_tir_sub_take(tvm_tir_const_float(f64, alpha),
                             tvm_tir_mul_take(tvm_tir_const_float(f64, beta),
                                              tvm_tir_call_take(f64, "tir.cos", angle)));
  void* body = tvm_relax__store_all(out[0], &i, tvm_tir_cast_take(out[0]->dtype, w));
  tvm_ffi_release(i);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_hamming_window(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, hamming_body);
}

static void* tri_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                      tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  bool lower = tvm_relax_op_info_of(call->op)->id == TVM_RELAX_OP_tril;
  double k;
  if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 1), &k)) {
    tvm_ffi_raise("NotImplementedError", "%s: k must be a constant",
                  tvm_relax_op_info_of(call->op)->name);
    return NULL;
  }
  int64_t n = rank(out[0]);
  void* v[MAX_DIMS];
  if (n < 2 || n > MAX_DIMS || tvm_relax__kernel_vars(v, n, "i") != 0) {
    if (!tvm_ffi_error_pending()) tvm_ffi_raise("ValueError", "tril/triu: bad rank %lld", (long long)n);
    return NULL;
  }
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
  void* x = tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind);
  /* tril keeps j <= i + k, triu keeps j >= i + k (i the row, j the column). */
  void* diag = tvm_tir_add_take(tvm_tir_ref(v[n - 2]), tvm_tir_i64((int64_t)k));
  void* keep = lower ? tvm_tir_le_take(tvm_tir_ref(v[n - 1]), diag)
                     : tvm_tir_ge_take(tvm_tir_ref(v[n - 1]), diag);
  void* value = tvm_tir_select_take(keep, x, const_of(out[0]->dtype, 0));
  void* body = tvm_relax__store_all(out[0], v, value);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_tri(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, tri_body);
}

/* eye (k argument 2) / eye_like (k argument 1): out[i, j] = 1 where j == i + k, else 0. */
static void* eye_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                      tvm_tir_buffer_obj* const* out, int nout) {
  (void)in, (void)nin, (void)nout;
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  double k;
  int64_t karg = info->id == TVM_RELAX_OP_eye ? 2 : 1;
  if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, karg), &k)) {
    tvm_ffi_raise("NotImplementedError", "%s: k must be a constant", info->name);
    return NULL;
  }
  void* v[2];
  if (rank(out[0]) != 2) {
    tvm_ffi_raise("ValueError", "%s: bad rank %lld", info->name, (long long)rank(out[0]));
    return NULL;
  }
  if (tvm_relax__kernel_vars(v, 2, "i") != 0) return NULL;
  DLDataType t = out[0]->dtype;
  void* on = tvm_tir_eq_take(tvm_tir_ref(v[1]), tvm_tir_add_take(tvm_tir_ref(v[0]),
                                                                  tvm_tir_i64((int64_t)k)));
  void* value = tvm_tir_select_take(on, const_of(t, 1), const_of(t, 0));
  void* body = tvm_relax__store_all(out[0], v, value);
  tvm_relax__release_all(v, 2);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_eye(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, eye_body);
}
