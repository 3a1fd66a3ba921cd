/*
 * legalize_nn_extra.c: the kernels of quantize / dequantize (upstream's legalize_ops/qdq.py),
 * nn.prelu, nn.group_norm (topi's group_norm), nn.instance_norm (group_norm's kernel with a
 * group per channel), nn.nll_loss (topi's nll_loss) and
 * nn.cross_entropy_with_logits, as plain loop nests with one-element accumulators.
 *
 * quantize: out = clip(round(data / scale) + zero_point, min(out), max(out)) cast to out_dtype
 * (the rounding only for integer outputs), where round is upstream's tir.round as its LLVM
 * backend lowers it: llvm.nearbyint, ties to even (tir.nearbyint here). dequantize: out =
 * (data as float32 or int32 - zero_point) * float32(scale), clipped to +-65504 and cast when
 * out_dtype is float16. A scale or zero point of one element is read at zeros, else at the
 * output's index along `axis`. Mixed operand dtypes promote as upstream's TE does: an integer
 * operand meeting a float one is cast to that float, the narrower float to the wider.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }
static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

static bool is_fl(DLDataType t) { return tvm_tir_dtype_is_floating(t); }
static DLDataType f32(void) { return (DLDataType){kDLFloat, 32, 1}; }

/* The wider of two float dtypes (a when b is not a float). */
static DLDataType wider_float(DLDataType a, DLDataType b) {
  return is_fl(b) && b.bits > a.bits ? b : a;
}

/* e (consumed) cast to t unless it has that dtype already. */
static void* cast_to(DLDataType t, void* e) {
  return tvm_tir_dtype_equal(tvm_tir_expr_dtype(e), t) ? e : tvm_tir_cast_take(t, e);
}

/* a - b / a * b with upstream's TE promotion (an int operand meets a float: cast to the float;
 * two floats or two ints: the wider). */
static DLDataType promoted(DLDataType a, DLDataType b) {
  if (is_fl(a) && !is_fl(b)) return a;
  if (is_fl(b) && !is_fl(a)) return b;
  return a.bits >= b.bits ? a : b;
}

/* Per-channel parameter p read for output indices idx (n of them): at zeros when p has one
 * element, else at idx[axis]. */
static void* param_load(tvm_tir_buffer_obj* p, void* const* idx, int64_t axis) {
  int64_t r = rank(p);
  bool single = true;
  for (int64_t i = 0; i < r; ++i) {
    int64_t c;
    single = single && tvm_tir_as_const_int(dim(p, i), &c) && c == 1;
  }
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < r; ++i) ind[i] = single ? (void*)tvm_tir_i64(0) : tvm_tir_ref(idx[axis]);
  return tvm_tir_load_takev(tvm_tir_ref(p), r, ind);
}

/* min and max of dtype t as constants of dtype ct (a float). */
static void* limit_of(DLDataType t, DLDataType ct, bool hi) {
  double v;
  if (is_fl(t)) {
    v = t.bits == 16 ? 65504.0 : t.bits == 32 ? FLT_MAX : DBL_MAX;
    if (!hi) v = -v;
  } else {
    v = (double)(hi ? tvm_tir_dtype_max_int(t) : tvm_tir_dtype_min_int(t));
  }
  return tvm_tir_const_float(ct, v);
}

/* max(min(v, max(t)), min(t)) cast to t; v (consumed) of float dtype ct. */
static void* clip_cast(void* v, DLDataType ct, DLDataType t) {
  void* c = tvm_tir_max_take(tvm_tir_min_take(v, limit_of(t, ct, true)), limit_of(t, ct, false));
  return cast_to(t, c);
}

/* out[idx] = value over the output's whole shape (idx made here). */
typedef void* (*point_fn)(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                          tvm_tir_buffer_obj* out, void* const* idx, int64_t n);

static void* pointwise(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                       tvm_tir_buffer_obj* out, point_fn fn) {
  int64_t n = rank(out);
  void* v[MAX_DIMS];
  if (n > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  void* value = fn(call, in, out, v, n);
  void* body = value ? tvm_relax__store_all(out, v, value) : NULL;
  tvm_relax__release_all(v, n);
  return body;
}

static int64_t norm_axis(const tvm_relax_call_obj* call, const char* name, int64_t dflt,
                         int64_t n) {
  int64_t a = tvm_relax__call_attr_int(call, name, dflt);
  return a < 0 ? a + n : a;
}

/* ---- quantize / dequantize ------------------------------------------------------------------- */
static void* quantize_value(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                            tvm_tir_buffer_obj* out, void* const* idx, int64_t n) {
  DLDataType ot = out->dtype;
  if (is_fl(ot)) {
    tvm_ffi_raise("NotImplementedError", "quantize: a float8 output has no kernel");
    return NULL;
  }
  int64_t axis = norm_axis(call, "axis", -1, n);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(idx[i]);
  DLDataType xt = in[0]->dtype, st = in[1]->dtype, zt = in[2]->dtype;
  DLDataType ct = wider_float(wider_float(xt, st), zt);
  void* scaled = tvm_tir_div_take(cast_to(ct, tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind)),
                                  cast_to(ct, param_load(in[1], idx, axis)));
  void* r = tvm_tir_call_take(ct, "tir.nearbyint", scaled);
  r = tvm_tir_add_take(r, cast_to(ct, param_load(in[2], idx, axis)));
  return clip_cast(r, ct, ot);
}

static void* dequantize_value(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              tvm_tir_buffer_obj* out, void* const* idx, int64_t n) {
  DLDataType ot = out->dtype;
  int64_t axis = norm_axis(call, "axis", -1, n);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(idx[i]);
  DLDataType xt = in[0]->dtype, zt = in[2]->dtype;
  DLDataType dt = is_fl(xt) ? f32() : (DLDataType){kDLInt, 32, 1};
  DLDataType sub_t = promoted(dt, zt);
  void* sub =
      tvm_tir_sub_take(cast_to(sub_t, cast_to(dt, tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind))),
                       cast_to(sub_t, param_load(in[2], idx, axis)));
  void* v = tvm_tir_mul_take(cast_to(f32(), sub), cast_to(f32(), param_load(in[1], idx, axis)));
  if (ot.code == kDLFloat && ot.bits == 32) return v;
  return clip_cast(v, f32(), ot);
}

static void* quantize_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                           tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return pointwise(call, in, out[0], quantize_value);
}

static void* dequantize_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                             tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return pointwise(call, in, out[0], dequantize_value);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_quantize(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, quantize_body);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_dequantize(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, dequantize_body);
}

/* ---- prelu ----------------------------------------------------------------------------------- */
/* x > 0 ? x : x * alpha[idx[axis]] (topi.nn.prelu). */
static void* prelu_value(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                         tvm_tir_buffer_obj* out, void* const* idx, int64_t n) {
  (void)out;
  int64_t axis = norm_axis(call, "axis", 1, n);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(idx[i]);
  void* x = tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind);
  DLDataType t = in[0]->dtype;
  void* pos = tvm_tir_gt_take(tvm_tir_ref(x), tvm_tir_const_float(t, 0));
  void* neg = tvm_tir_mul_take(tvm_tir_ref(x), cast_to(t, param_load(in[1], idx, axis)));
  return tvm_tir_select_take(pos, x, neg);
}

static void* prelu_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                        tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return pointwise(call, in, out[0], prelu_value);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_prelu(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, prelu_body);
}

/* ---- group_norm, instance_norm --------------------------------------------------------------- */
/*
 * For each index of the kept dims (neither the channel axis nor in `axes`) and each group g:
 * mean and variance over the group's channels (g * C/G ..) and the `axes` dims, then out =
 * (x - mean) / sqrt(var + eps) * gamma[c] + beta[c] (gamma / beta when scale / center), the
 * statistics accumulated in float32 for a float16 input (topi). instance_norm is the same with
 * C groups of one channel (topi's instance_norm: layer_norm's statistics over `axes` per
 * channel). Floats only (NotImplementedError otherwise).
 */
static void* norm_groups_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              tvm_tir_buffer_obj* const* out, bool instance) {
  tvm_tir_buffer_obj *x = in[0], *gamma = in[1], *beta = in[2], *o = out[0];
  int64_t n = rank(x);
  if (n > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  if (!tvm_tir_dtype_is_floating(o->dtype)) {
    tvm_ffi_raise("NotImplementedError", "%s: only floating-point tensors have a kernel",
                  tvm_relax_op_info_of(call->op)->name);
    return NULL;
  }
  int64_t ch = norm_axis(call, "channel_axis", 1, n);
  double eps = tvm_relax__call_attr_float(call, "epsilon", 1e-5);
  bool center = tvm_relax__call_attr_bool(call, "center", true),
       scale = tvm_relax__call_attr_bool(call, "scale", true);
  bool red[MAX_DIMS] = {false}, kept[MAX_DIMS];
  const TVMFFIAny* av = tvm_relax_call_attr(call, "axes");
  for (int64_t k = 0; av && av->type_index == kTVMFFIArray && k < tvm_ffi_seq_size(av->v_obj);
       ++k) {
    int64_t a = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(av->v_obj, k), &a);
    if (a < 0) a += n;
    if (a >= 0 && a < n) red[a] = true;
  }
  for (int64_t i = 0; i < n; ++i) kept[i] = !red[i] && i != ch;
  DLDataType t = o->dtype;
  DLDataType at = t.bits < 32 ? f32() : t; /* accumulation dtype */
  void *v[MAX_DIMS], *v1[MAX_DIMS], *v2[MAX_DIMS], *v3[MAX_DIMS];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(v1, n, "j") != 0) return tvm_relax__release_all(v, n), NULL;
  if (tvm_relax__kernel_vars(v2, n, "k") != 0) {
    tvm_relax__release_all(v, n), tvm_relax__release_all(v1, n);
    return NULL;
  }
  if (tvm_relax__kernel_vars(v3, n, "l") != 0) {
    tvm_relax__release_all(v, n), tvm_relax__release_all(v1, n), tvm_relax__release_all(v2, n);
    return NULL;
  }
  void* g = tvm_tir_var("g", TVM_TIR_INT64);
  /* G groups of C / G channels; instance_norm: a group per channel. */
  int64_t groups = instance ? 0 : tvm_relax__call_attr_int(call, "num_groups", 1);
  void* gext = instance ? tvm_tir_ref(dim(x, ch)) : (void*)tvm_tir_i64(groups);
  void* cpg = instance ? (void*)tvm_tir_i64(1)
                       : tvm_tir_floordiv_take(tvm_tir_ref(dim(x, ch)), tvm_tir_i64(groups));
  /* A pass over the group: the channel var w runs over [0, C/G), channel = g * C/G + w. */
  bool pass_inc[MAX_DIMS];
  void* ext[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) {
    pass_inc[i] = red[i] || i == ch;
    ext[i] = i == ch ? cpg : dim(x, i);
  }
  void* ind[MAX_DIMS];
#define IDX(vars)                                                                                   \
  for (int64_t i = 0; i < n; ++i) {                                                                 \
    ind[i] = i == ch  ? (void*)tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(g), tvm_tir_ref(cpg)), \
                                                tvm_tir_ref(vars[i]))                               \
             : red[i] ? tvm_tir_ref(vars[i])                                                        \
                      : tvm_tir_ref(v[i]);                                                          \
  }
  tvm_tir_buffer_obj* mean = tvm_relax__scratch("mean", at);
  tvm_tir_buffer_obj* var = tvm_relax__scratch("var", at);
  void* count = tvm_tir_ref(cpg);
  for (int64_t i = 0; i < n; ++i) {
    if (red[i]) count = tvm_tir_mul_take(count, tvm_tir_ref(dim(x, i)));
  }
  void* nf = tvm_tir_cast_take(at, count);
  IDX(v1);
  void* p1 = tvm_relax__loop_nest(
      v1, ext, n, pass_inc,
      tvm_relax__scratch_store(
          mean, tvm_tir_add_take(tvm_relax__scratch_load(mean),
                                 cast_to(at, tvm_tir_load_takev(tvm_tir_ref(x), n, ind)))));
  void* set_mean = tvm_relax__scratch_store(
      mean, tvm_tir_div_take(tvm_relax__scratch_load(mean), tvm_tir_ref(nf)));
  IDX(v2);
  void* d = tvm_tir_sub_take(cast_to(at, tvm_tir_load_takev(tvm_tir_ref(x), n, ind)),
                             tvm_relax__scratch_load(mean));
  void* p2 = tvm_relax__loop_nest(
      v2, ext, n, pass_inc,
      tvm_relax__scratch_store(var, tvm_tir_add_take(tvm_relax__scratch_load(var),
                                                     tvm_tir_mul_take(tvm_tir_ref(d), d))));
  void* set_var = tvm_relax__scratch_store(var, tvm_tir_div_take(tvm_relax__scratch_load(var), nf));
  IDX(v3);
  void* oind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) oind[i] = tvm_tir_ref(ind[i]);
  void* chan = tvm_tir_ref(ind[ch]);
  void* y = tvm_tir_div_take(
      tvm_tir_sub_take(cast_to(at, tvm_tir_load_takev(tvm_tir_ref(x), n, ind)),
                       tvm_relax__scratch_load(mean)),
      tvm_tir_call_take(
          at, "tir.sqrt",
          tvm_tir_add_take(tvm_relax__scratch_load(var), tvm_tir_const_float(at, eps))));
  if (scale)
    y = tvm_tir_mul_take(y, cast_to(at, tvm_tir_load_take(tvm_tir_ref(gamma), tvm_tir_ref(chan))));
  if (center)
    y = tvm_tir_add_take(y, cast_to(at, tvm_tir_load_take(tvm_tir_ref(beta), tvm_tir_ref(chan))));
  tvm_ffi_release(chan);
  void* p3 = tvm_relax__loop_nest(v3, ext, n, pass_inc,
                                  tvm_tir_store_takev(tvm_tir_ref(o), cast_to(t, y), n, oind));
#undef IDX
  void* inner =
      tvm_tir_seq_take(tvm_relax__scratch_store(mean, tvm_tir_const_float(at, 0)), p1, set_mean,
                       tvm_relax__scratch_store(var, tvm_tir_const_float(at, 0)), p2, set_var, p3);
  inner = tvm_relax__scratch_scope(var, tvm_relax__scratch_scope(mean, inner));
  inner = tvm_tir_serial_take(tvm_tir_ref(g), tvm_tir_i64(0), gext, inner);
  void* oext[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) oext[i] = dim(x, i);
  void* body = tvm_relax__loop_nest(v, oext, n, kept, inner);
  tvm_ffi_release(g), tvm_ffi_release(cpg), tvm_ffi_release(mean), tvm_ffi_release(var);
  tvm_relax__release_all(v, n), tvm_relax__release_all(v1, n), tvm_relax__release_all(v2, n);
  tvm_relax__release_all(v3, n);
  return body;
}

static void* group_norm_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                             int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return norm_groups_body(call, in, out, false);
}

static void* instance_norm_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return norm_groups_body(call, in, out, true);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_group_norm(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, group_norm_body);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_instance_norm(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, instance_norm_body);
}

/* ---- nll_loss -------------------------------------------------------------------------------- */
/*
 * loss[n, d..] = t != ignore_index ? -predictions[n, t, d..] * weights[t] : 0 with t =
 * targets[n, d..] (no weights: 1); "none" writes loss, "sum" its sum, "mean" its sum divided by
 * the sum of the weights of the targets not ignored (topi.nn.nll_loss). A 1-d predictions is one
 * sample: targets is a scalar. A target not ignored outside [0, C) for C classes fails the
 * kernel's assertion (topi reads it unchecked).
 */
static void* nll_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                      tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  tvm_tir_buffer_obj *p = in[0], *tg = in[1], *w = nin > 2 ? in[2] : NULL, *o = out[0];
  const TVMFFIAny* rv = tvm_relax_call_attr(call, "reduction");
  TVMFFIByteArray rb = {"mean", 4};
  if (rv) tvm_ffi_any_as_bytes(rv, &rb);
  bool none = rb.size == 4 && memcmp(rb.data, "none", 4) == 0;
  bool mean = rb.size == 4 && memcmp(rb.data, "mean", 4) == 0;
  int64_t ignore = tvm_relax__call_attr_int(call, "ignore_index", -100);
  int64_t nt = rank(tg); /* targets' dims: predictions' without the class dim */
  DLDataType t = o->dtype;
  void* v[MAX_DIMS];
  if (nt + 1 > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  if (tvm_relax__kernel_vars(v, nt, "i") != 0) return NULL;
  void *ti[MAX_DIMS], *pi[MAX_DIMS];
  for (int64_t i = 0; i < nt; ++i) ti[i] = tvm_tir_ref(v[i]);
  void* raw = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(tg), nt, ti));
  void* valid = tvm_tir_ne_take(tvm_tir_ref(raw), tvm_tir_i64(ignore));
  int64_t np = rank(p);
  void* ok = tvm_tir_or_take(tvm_tir_not_take(tvm_tir_ref(valid)),
                             tvm_relax__in_range(raw, dim(p, np == 1 ? 0 : 1)));
  /* An ignored target reads class 0 (Select evaluates both of its values), its loss dropped. */
  void* tv = tvm_tir_select_take(tvm_tir_ref(valid), raw, tvm_tir_i64(0));
  /* predictions' indices: (n, t, d..) or (t) */
  if (np == 1) {
    pi[0] = tvm_tir_ref(tv);
  } else {
    pi[0] = tvm_tir_ref(v[0]), pi[1] = tvm_tir_ref(tv);
    for (int64_t i = 1; i < nt; ++i) pi[i + 1] = tvm_tir_ref(v[i]);
  }
  void* wv = w ? tvm_tir_load_take(tvm_tir_ref(w), tvm_tir_ref(tv)) : tvm_tir_const_float(t, 1);
  void* loss =
      tvm_tir_select_take(tvm_tir_ref(valid),
                          tvm_tir_neg_take(tvm_tir_mul_take(
                              tvm_tir_load_takev(tvm_tir_ref(p), np, pi), tvm_tir_ref(wv))),
                          tvm_tir_const_float(t, 0));
  void* body;
  void* ext[MAX_DIMS];
  for (int64_t i = 0; i < nt; ++i) ext[i] = dim(tg, i);
  if (none) {
    void* oi[MAX_DIMS];
    for (int64_t i = 0; i < nt; ++i) oi[i] = tvm_tir_ref(v[i]);
    body = tvm_relax__assert_indices(call, ok, tvm_tir_store_takev(tvm_tir_ref(o), loss, nt, oi));
    body = tvm_relax__loop_nest(v, ext, nt, NULL, body);
  } else {
    tvm_tir_buffer_obj* s = tvm_relax__scratch("loss_sum", t);
    tvm_tir_buffer_obj* ws = tvm_relax__scratch("weight_sum", t);
    void* upd = tvm_relax__scratch_store(s, tvm_tir_add_take(tvm_relax__scratch_load(s), loss));
    if (mean) {
      upd = tvm_tir_seq_take(
          upd, tvm_relax__scratch_store(
                   ws, tvm_tir_add_take(tvm_relax__scratch_load(ws),
                                        tvm_tir_select_take(tvm_tir_ref(valid), tvm_tir_ref(wv),
                                                            tvm_tir_const_float(t, 0)))));
    }
    void* loop = tvm_relax__loop_nest(v, ext, nt, NULL, tvm_relax__assert_indices(call, ok, upd));
    void* result = mean ? tvm_tir_div_take(tvm_relax__scratch_load(s), tvm_relax__scratch_load(ws))
                        : tvm_relax__scratch_load(s);
    body = tvm_tir_seq_take(tvm_relax__scratch_store(s, tvm_tir_const_float(t, 0)),
                            tvm_relax__scratch_store(ws, tvm_tir_const_float(t, 0)), loop,
                            tvm_tir_store_takev(tvm_tir_ref(o), result, 0, NULL));
    body = tvm_relax__scratch_scope(ws, tvm_relax__scratch_scope(s, body));
    tvm_ffi_release(s), tvm_ffi_release(ws);
  }
  tvm_ffi_release(tv), tvm_ffi_release(wv), tvm_ffi_release(valid);
  tvm_relax__release_all(v, nt);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_nll_loss(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, nll_body);
}

/* ---- cross_entropy_with_logits --------------------------------------------------------------- */
/* -sum(x * y) / x.shape[0] when x has ndim > 1, else -sum(x * y). */
static void* xent_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin, (void)nout;
  tvm_tir_buffer_obj *x = in[0], *y = in[1], *o = out[0];
  int64_t n = rank(x);
  DLDataType t = o->dtype;
  void* v[MAX_DIMS];
  if (n > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  void *xi[MAX_DIMS], *yi[MAX_DIMS], *ext[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i)
    xi[i] = tvm_tir_ref(v[i]), yi[i] = tvm_tir_ref(v[i]), ext[i] = dim(x, i);
  tvm_tir_buffer_obj* s = tvm_relax__scratch("sum", t);
  void* prod = tvm_tir_mul_take(tvm_tir_load_takev(tvm_tir_ref(x), n, xi),
                                tvm_tir_load_takev(tvm_tir_ref(y), n, yi));
  void* loop = tvm_relax__loop_nest(
      v, ext, n, NULL,
      tvm_relax__scratch_store(s, tvm_tir_add_take(tvm_relax__scratch_load(s), prod)));
  void* r = tvm_tir_neg_take(tvm_relax__scratch_load(s));
  if (n > 1) r = tvm_tir_div_take(r, tvm_tir_cast_take(t, tvm_tir_ref(dim(x, 0))));
  void* body = tvm_tir_seq_take(tvm_relax__scratch_store(s, tvm_tir_const_float(t, 0)), loop,
                                tvm_tir_store_takev(tvm_tir_ref(o), r, 0, NULL));
  body = tvm_relax__scratch_scope(s, body);
  tvm_ffi_release(s);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_cross_entropy(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, xent_body);
}
