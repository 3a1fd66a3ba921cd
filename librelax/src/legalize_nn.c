/*
 * legalize_nn.c: the kernels of matmul (batched, broadcasting, 1-d operands numpy-style), outer,
 * nn.pixel_shuffle, softmax / log_softmax (max-subtracted), layer_norm / rms_norm and attention
 * (with bias, causal masks and grouped-query heads), as plain loop nests with one-element
 * accumulators.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static void* f_const(DLDataType t, double v) { return tvm_tir_const_float(t, v); }

/* The index of operand buffer b (batch dims aligned from the right with the output's batch
 * vars, a dim of 1 read at 0) followed by the given trailing indices (borrowed). */
static void* load_batched(tvm_tir_buffer_obj* b, int64_t nbatch_b, void* const* out_batch,
                          int64_t nbatch_out, void* const* tail, int64_t ntail) {
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < nbatch_b; ++i) {
    int64_t c;
    void* d = tvm_ffi_seq_obj_at(b->shape, i);
    ind[i] = tvm_tir_as_const_int(d, &c) && c == 1 ? (void*)tvm_tir_i64(0)
                                                    : tvm_tir_ref(out_batch[nbatch_out - nbatch_b + i]);
  }
  for (int64_t i = 0; i < ntail; ++i) ind[nbatch_b + i] = tvm_tir_ref(tail[i]);
  return tvm_tir_load_takev(tvm_tir_ref(b), nbatch_b + ntail, ind);
}

/* outer: out[i, j] = x1[i] * x2[j], both read in the output's dtype (x1's, by the rule). */
static void* outer_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                        tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin, (void)nout;
  void* v[2];
  if (tvm_relax__kernel_vars(v, 2, "i") != 0) return NULL;
  DLDataType t = out[0]->dtype;
  void* l1 = tvm_tir_load_takev(tvm_tir_ref(in[0]), 1, (void*[]){tvm_tir_ref(v[0])});
  void* l2 = tvm_tir_load_takev(tvm_tir_ref(in[1]), 1, (void*[]){tvm_tir_ref(v[1])});
  void* prod = tvm_tir_mul_take(tvm_tir_cast_take(t, l1), tvm_tir_cast_take(t, l2));
  void* body = tvm_relax__store_all(out[0], v, prod);
  tvm_relax__release_all(v, 2);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_outer(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, outer_body);
}

/* nn.pixel_shuffle (PyTorch's order, as upstream's topi): out[..., c, h, w] reads
 * in[..., c * r * r + (h % r) * r + w % r, h / r, w / r]. */
static void* pixel_shuffle_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  int64_t r = tvm_relax__call_attr_int(call, "upscale_factor", 1);
  int64_t n = tvm_ffi_seq_size(out[0]->shape);
  void* v[MAX_DIMS];
  if (n < 3 || n > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "nn.pixel_shuffle: bad rank %lld", (long long)n);
    return NULL;
  }
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  void *c = v[n - 3], *h = v[n - 2], *w = v[n - 1];
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n - 3; ++i) ind[i] = tvm_tir_ref(v[i]);
  void* sub = tvm_tir_add_take(
      tvm_tir_mul_take(tvm_tir_floormod_take(tvm_tir_ref(h), tvm_tir_i64(r)), tvm_tir_i64(r)),
      tvm_tir_floormod_take(tvm_tir_ref(w), tvm_tir_i64(r)));
  ind[n - 3] = tvm_tir_add_take(tvm_tir_mul_take(tvm_tir_ref(c), tvm_tir_i64(r * r)), sub);
  ind[n - 2] = tvm_tir_floordiv_take(tvm_tir_ref(h), tvm_tir_i64(r));
  ind[n - 1] = tvm_tir_floordiv_take(tvm_tir_ref(w), tvm_tir_i64(r));
  void* load = tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind);
  void* body = tvm_relax__store_all(out[0], v, load);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_pixel_shuffle(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, pixel_shuffle_body);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_matmul(const tvm_relax_call_obj* call) {
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  tvm_tir_buffer_obj* a = tvm_relax__kernel_buffer(&k, "A", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0)));
  tvm_tir_buffer_obj* b = a ? tvm_relax__kernel_buffer(&k, "B", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 1))) : NULL;
  tvm_tir_buffer_obj* out = b ? tvm_relax__kernel_buffer(&k, "T_matmul", tvm_relax_sinfo_of(call)) : NULL;
  void* body = NULL;
  int64_t ro = out ? tvm_ffi_seq_size(out->shape) : 0;
  void* o[MAX_DIMS];
  if (out && ro <= MAX_DIMS && tvm_relax__kernel_vars(o, ro, "i") == 0) {
    int64_t ra = tvm_ffi_seq_size(a->shape), rb = tvm_ffi_seq_size(b->shape);
    bool a2 = ra >= 2, b2 = rb >= 2;
    int64_t nbatch_out = ro - (a2 ? 1 : 0) - (b2 ? 1 : 0);
    void* kv = tvm_tir_var("k", TVM_TIR_INT64);
    void* ta[2] = {a2 ? o[nbatch_out] : NULL, kv};
    void* tb[2] = {kv, b2 ? o[ro - 1] : NULL};
    void* la = load_batched(a, a2 ? ra - 2 : 0, o, nbatch_out, a2 ? ta : ta + 1, a2 ? 2 : 1);
    void* lb = load_batched(b, b2 ? rb - 2 : 0, o, nbatch_out, tb, b2 ? 2 : 1);
    DLDataType t = out->dtype;
    void* prod = tvm_tir_mul_take(tvm_tir_cast_take(t, la), tvm_tir_cast_take(t, lb));
    void* ind_acc[MAX_DIMS], *ind_init[MAX_DIMS], *ind_load[MAX_DIMS];
    for (int64_t i = 0; i < ro; ++i) {
      ind_acc[i] = tvm_tir_ref(o[i]), ind_init[i] = tvm_tir_ref(o[i]), ind_load[i] = tvm_tir_ref(o[i]);
    }
    void* acc = tvm_tir_store_takev(tvm_tir_ref(out),
                                    tvm_tir_add_take(tvm_tir_load_takev(tvm_tir_ref(out), ro, ind_load), prod),
                                    ro, ind_acc);
    void* kloop = tvm_tir_serial_take(tvm_tir_ref(kv), tvm_tir_i64(0),
                                      tvm_tir_ref(tvm_ffi_seq_obj_at(a->shape, ra - 1)), acc);
    void* zero = tvm_tir_dtype_is_floating(t) ? f_const(t, 0) : tvm_tir_const_int(t, 0);
    void* init = tvm_tir_store_takev(tvm_tir_ref(out), zero, ro, ind_init);
    void* ext[MAX_DIMS];
    for (int64_t i = 0; i < ro; ++i) ext[i] = tvm_ffi_seq_obj_at(out->shape, i);
    body = tvm_relax__loop_nest(o, ext, ro, NULL, tvm_tir_seq_take(init, kloop));
    tvm_ffi_release(kv);
    tvm_relax__release_all(o, ro);
  }
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  tvm_ffi_release(a), tvm_ffi_release(b), tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  return f;
}

/* The indices vars[0..n) with vars[axis] replaced by r (all borrowed), into ind (new refs). */
static void indices_with(void** ind, void* const* vars, int64_t n, int64_t axis, void* r) {
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(i == axis ? r : vars[i]);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_softmax(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  bool log_sm = info->id == TVM_RELAX_OP_nn_log_softmax;
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  tvm_tir_buffer_obj* x = tvm_relax__kernel_buffer(&k, "A", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0)));
  tvm_tir_buffer_obj* out = x ? tvm_relax__kernel_buffer(&k, "T_softmax", tvm_relax_sinfo_of(call)) : NULL;
  int64_t n = out ? tvm_ffi_seq_size(out->shape) : 0, axis = -1;
  const TVMFFIAny* av = tvm_relax_call_attr(call, "axis");
  if (av) tvm_ffi_any_as_int(av, &axis);
  if (axis < 0) axis += n;
  void* body = NULL;
  void* v[MAX_DIMS];
  if (out && n > 0 && n <= MAX_DIMS && axis >= 0 && axis < n && tvm_relax__kernel_vars(v, n, "i") == 0) {
    DLDataType t = out->dtype;
    void* ext[MAX_DIMS];
    bool outer[MAX_DIMS];
    for (int64_t i = 0; i < n; ++i) ext[i] = tvm_ffi_seq_obj_at(out->shape, i), outer[i] = i != axis;
    tvm_tir_buffer_obj* m = tvm_relax__scratch("max", t);
    tvm_tir_buffer_obj* s = tvm_relax__scratch("sum", t);
    void* r1 = tvm_tir_var("r", TVM_TIR_INT64);
    void* r2 = tvm_tir_var("r", TVM_TIR_INT64);
    void* r3 = tvm_tir_var("r", TVM_TIR_INT64);
    void* ind[MAX_DIMS];
    /* max */
    indices_with(ind, v, n, axis, r1);
    void* l1 = tvm_tir_load_takev(tvm_tir_ref(x), n, ind);
    void* max_loop = tvm_tir_serial_take(tvm_tir_ref(r1), tvm_tir_i64(0), tvm_tir_ref(ext[axis]),
                                         tvm_relax__scratch_store(m, tvm_tir_max_take(tvm_relax__scratch_load(m), l1)));
    /* exp and sum */
    indices_with(ind, v, n, axis, r2);
    void* e = tvm_tir_call_take(t, "tir.exp", tvm_tir_sub_take(tvm_tir_load_takev(tvm_tir_ref(x), n, ind), tvm_relax__scratch_load(m)));
    void* sum_loop = tvm_tir_serial_take(tvm_tir_ref(r2), tvm_tir_i64(0), tvm_tir_ref(ext[axis]),
                                         tvm_relax__scratch_store(s, tvm_tir_add_take(tvm_relax__scratch_load(s), e)));
    /* output */
    void* ind_o[MAX_DIMS];
    indices_with(ind, v, n, axis, r3);
    indices_with(ind_o, v, n, axis, r3);
    void* xv = tvm_tir_load_takev(tvm_tir_ref(x), n, ind);
    void* value = log_sm ? tvm_tir_sub_take(tvm_tir_sub_take(xv, tvm_relax__scratch_load(m)),
                                            tvm_tir_call_take(t, "tir.log", tvm_relax__scratch_load(s)))
                         : tvm_tir_div_take(tvm_tir_call_take(t, "tir.exp", tvm_tir_sub_take(xv, tvm_relax__scratch_load(m))),
                                            tvm_relax__scratch_load(s));
    void* out_loop = tvm_tir_serial_take(tvm_tir_ref(r3), tvm_tir_i64(0), tvm_tir_ref(ext[axis]),
                                         tvm_tir_store_takev(tvm_tir_ref(out), value, n, ind_o));
    void* inner = tvm_tir_seq_take(tvm_relax__scratch_store(m, f_const(t, -INFINITY)), max_loop,
                                   tvm_relax__scratch_store(s, f_const(t, 0)), sum_loop, out_loop);
    inner = tvm_relax__scratch_scope(s, tvm_relax__scratch_scope(m, inner));
    body = tvm_relax__loop_nest(v, ext, n, outer, inner);
    tvm_ffi_release(m), tvm_ffi_release(s), tvm_ffi_release(r1), tvm_ffi_release(r2), tvm_ffi_release(r3);
    tvm_relax__release_all(v, n);
  } else if (out && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "softmax: axis out of range");
  }
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  tvm_ffi_release(x), tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  return f;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_norm(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  bool layer = info->id == TVM_RELAX_OP_nn_layer_norm;
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  tvm_tir_buffer_obj* x = tvm_relax__kernel_buffer(&k, "A", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0)));
  tvm_tir_buffer_obj* g = x ? tvm_relax__kernel_buffer(&k, "gamma", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 1))) : NULL;
  tvm_tir_buffer_obj* be = g && layer ? tvm_relax__kernel_buffer(&k, "beta", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 2))) : NULL;
  tvm_tir_buffer_obj* out = g && (be || !layer) ? tvm_relax__kernel_buffer(&k, "T_norm", tvm_relax_sinfo_of(call)) : NULL;
  int64_t n = out ? tvm_ffi_seq_size(out->shape) : 0;
  const TVMFFIAny* axes_v = tvm_relax_call_attr(call, "axes");
  void* axes = axes_v && axes_v->type_index == kTVMFFIArray ? axes_v->v_obj : NULL;
  double eps = 1e-5;
  const TVMFFIAny* ev = tvm_relax_call_attr(call, "epsilon");
  if (ev) tvm_ffi_any_as_float(ev, &eps);
  bool center = true, scale = true;
  const TVMFFIAny* cv = tvm_relax_call_attr(call, "center");
  const TVMFFIAny* sv = tvm_relax_call_attr(call, "scale");
  if (cv) tvm_ffi_any_as_bool(cv, &center);
  if (sv) tvm_ffi_any_as_bool(sv, &scale);
  bool red[MAX_DIMS] = {false}, outer[MAX_DIMS];
  int64_t ax_order[MAX_DIMS], nax = axes ? tvm_ffi_seq_size(axes) : 0;
  bool ok = out && n <= MAX_DIMS && nax > 0;
  for (int64_t i = 0; ok && i < nax; ++i) {
    int64_t a;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(axes, i), &a);
    if (a < 0) a += n;
    ok = a >= 0 && a < n;
    if (ok) red[a] = true, ax_order[i] = a;
  }
  void* body = NULL;
  void* v[MAX_DIMS];
  /* Each pass over the reduced dims loops with variables of its own (a loop variable is bound
   * once in a function); v also serves the outer loops. */
  void *v1[MAX_DIMS], *v2[MAX_DIMS];
  if (ok && tvm_relax__kernel_vars(v, n, "i") == 0 && tvm_relax__kernel_vars(v1, n, "j") == 0 &&
      tvm_relax__kernel_vars(v2, n, "k") == 0) {
    DLDataType t = out->dtype;
    void* ext[MAX_DIMS];
    for (int64_t i = 0; i < n; ++i) ext[i] = tvm_ffi_seq_obj_at(out->shape, i), outer[i] = !red[i];
    /* N = the product of the reduced extents, as a float */
    void* count = tvm_tir_i64(1);
    for (int64_t i = 0; i < n; ++i) {
      if (red[i]) count = tvm_tir_mul_take(count, tvm_tir_ref(ext[i]));
    }
    void* nf = tvm_tir_cast_take(t, count);
    tvm_tir_buffer_obj* mean = tvm_relax__scratch("mean", t);
    tvm_tir_buffer_obj* var = tvm_relax__scratch("var", t);
    void* ind[MAX_DIMS];
    void* load_x;
    /* pass 1: sum (layer) or sum of squares (rms) into mean */
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(red[i] ? v1[i] : v[i]);
    load_x = tvm_tir_load_takev(tvm_tir_ref(x), n, ind);
    void* term = layer ? load_x : tvm_tir_mul_take(tvm_tir_ref(load_x), load_x);
    void* p1 = tvm_relax__loop_nest(v1, ext, n, red, tvm_relax__scratch_store(mean, tvm_tir_add_take(tvm_relax__scratch_load(mean), term)));
    void* set_mean = tvm_relax__scratch_store(mean, tvm_tir_div_take(tvm_relax__scratch_load(mean), tvm_tir_ref(nf)));
    void* p2 = NULL;
    if (layer) { /* pass 2: the variance */
      for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(red[i] ? v2[i] : v[i]);
      void* d = tvm_tir_sub_take(tvm_tir_load_takev(tvm_tir_ref(x), n, ind), tvm_relax__scratch_load(mean));
      p2 = tvm_relax__loop_nest(v2, ext, n, red, tvm_relax__scratch_store(var, tvm_tir_add_take(tvm_relax__scratch_load(var), tvm_tir_mul_take(tvm_tir_ref(d), d))));
    }
    void* rs = layer ? tvm_tir_call_take(t, "tir.rsqrt", tvm_tir_add_take(tvm_tir_div_take(tvm_relax__scratch_load(var), tvm_tir_ref(nf)), f_const(t, eps)))
                     : tvm_tir_call_take(t, "tir.rsqrt", tvm_tir_add_take(tvm_relax__scratch_load(mean), f_const(t, eps)));
    /* pass 3: the output */
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
    void* xv = tvm_tir_load_takev(tvm_tir_ref(x), n, ind);
    void* value = layer ? tvm_tir_mul_take(tvm_tir_sub_take(xv, tvm_relax__scratch_load(mean)), rs)
                        : tvm_tir_mul_take(xv, rs);
    void* gi[MAX_DIMS];
    if (scale || !layer) {
      for (int64_t i = 0; i < nax; ++i) gi[i] = tvm_tir_ref(v[ax_order[i]]);
      value = tvm_tir_mul_take(value, tvm_tir_load_takev(tvm_tir_ref(g), nax, gi));
    }
    if (layer && center) {
      for (int64_t i = 0; i < nax; ++i) gi[i] = tvm_tir_ref(v[ax_order[i]]);
      value = tvm_tir_add_take(value, tvm_tir_load_takev(tvm_tir_ref(be), nax, gi));
    }
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
    void* p3 = tvm_relax__loop_nest(v, ext, n, red, tvm_tir_store_takev(tvm_tir_ref(out), value, n, ind));
    void* inner = layer ? tvm_tir_seq_take(tvm_relax__scratch_store(mean, f_const(t, 0)), p1, set_mean,
                                           tvm_relax__scratch_store(var, f_const(t, 0)), p2, p3)
                        : tvm_tir_seq_take(tvm_relax__scratch_store(mean, f_const(t, 0)), p1, set_mean, p3);
    inner = tvm_relax__scratch_scope(var, tvm_relax__scratch_scope(mean, inner));
    body = tvm_relax__loop_nest(v, ext, n, outer, inner);
    tvm_ffi_release(nf), tvm_ffi_release(mean), tvm_ffi_release(var);
    tvm_relax__release_all(v, n);
    tvm_relax__release_all(v1, n);
    tvm_relax__release_all(v2, n);
  } else if (out && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "%s: bad axes", info->name);
  }
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  tvm_ffi_release(x), tvm_ffi_release(g), tvm_ffi_release(be), tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  return f;
}

/* ---- attention ------------------------------------------------------------------------------- */
/*
 * query (B, S, N, H), key (B, S_kv, N_k, H), value (B, S_kv, N_v, H_v), bias (B, N, S, S_kv)
 * with its first three dims possibly 1; out (B, S, N, H_v): upstream's _te_attention,
 * softmax(Q K^T * scale + bias) V per batch and head, scale 1 / sqrt(H) unless given, query
 * head h reading key / value head h // (N / N_k) (grouped-query attention). A causal mask keeps
 * the keys j <= s + offset (offset 0 for "TopLeft", |S - S_kv| for "BottomRight", upstream's
 * trilu), the others out of the softmax; a window_size w (with a causal mask) keeps only the w
 * keys j > s + offset - w as well, a row without keys staying zero. One output row at a time:
 * a pass for the row's maximum, a pass accumulating exp(score - max) and its weighted values
 * into the output, then a division by the sum; the scores are computed in both passes rather
 * than stored. attention_var_len runs the same rows over each sequence of a ragged batch.
 */
typedef struct {
  tvm_tir_buffer_obj *q, *k, *v, *bias, *out;
  void* b; /* borrowed: the batch index, query position and query head */
  void* s;
  void* h;
  void* kh; /* key / value heads of h (new references) */
  void* vh;
  /* borrowed: the row's keys are j_lo .. j_lo + j_n - 1; the mask places the query at
   * s - s_base and key j at j - j_lo (s_base NULL: s and j themselves, j_lo being 0) */
  void* j_lo;
  void* j_n;
  void* s_base;
  double scale; /* NaN: 1 / sqrt(H) */
  DLDataType t;
} attn_ctx;

/* The attributes both kernels read: the mask (*causal, *bottom_right), the window (0: none) and
 * the scale (NaN: the default). -1 + error for a mask or window no kernel implements. */
static int attn_attrs(const tvm_relax_call_obj* call, bool* causal, bool* bottom_right,
                      int64_t* window, double* scale) {
  const TVMFFIAny* mv = tvm_relax_call_attr(call, "causal_mask");
  TVMFFIByteArray mb = {NULL, 0};
  *causal = mv && !tvm_ffi_any_is_none(mv) && tvm_ffi_any_as_bytes(mv, &mb);
  *bottom_right = *causal && mb.size == 11 && memcmp(mb.data, "BottomRight", 11) == 0;
  if (*causal && !*bottom_right && !(mb.size == 7 && memcmp(mb.data, "TopLeft", 7) == 0)) {
    return tvm_ffi_raise("ValueError", "attention: unknown causal_mask \"%.*s\"", (int)mb.size,
                         mb.data);
  }
  /* A sliding window of w keys ending at the causal diagonal (flash-attention's
   * window_size_left = w - 1, window_size_right = 0). */
  const TVMFFIAny* ws = tvm_relax_call_attr(call, "window_size");
  *window = 0;
  if (ws && !tvm_ffi_any_is_none(ws)) {
    if (!*causal) {
      return tvm_ffi_raise("NotImplementedError",
                           "attention: a sliding window (window_size) needs a causal_mask: the "
                           "window ends at the causal diagonal");
    }
    if (!tvm_ffi_any_as_int(ws, window) || *window < 1) {
      return tvm_ffi_raise("ValueError", "attention: window_size must be a positive integer");
    }
  }
  *scale = NAN;
  const TVMFFIAny* sv = tvm_relax_call_attr(call, "scale");
  if (sv && !tvm_ffi_any_is_none(sv)) tvm_ffi_any_as_float(sv, scale);
  return 0;
}

/* A bias index: the variable, or 0 on a dim of 1 (broadcast). */
static void* bcast_index(tvm_tir_buffer_obj* b, int64_t i, void* var) {
  int64_t c;
  return tvm_tir_as_const_int(tvm_ffi_seq_obj_at(b->shape, i), &c) && c == 1 ? (void*)tvm_tir_i64(0)
                                                                             : tvm_tir_ref(var);
}

/* dot = Q[b, s, h, :] . K[b, j, kh, :] * scale (+ bias[b, h, s, j]), over d. */
static void* attn_score(attn_ctx* a, tvm_tir_buffer_obj* dot, void* j, void* d) {
  void* qv = tvm_tir_cast_take(
      a->t, tvm_tir_load_take(tvm_tir_ref(a->q), tvm_tir_ref(a->b), tvm_tir_ref(a->s),
                              tvm_tir_ref(a->h), tvm_tir_ref(d)));
  void* kv = tvm_tir_cast_take(
      a->t, tvm_tir_load_take(tvm_tir_ref(a->k), tvm_tir_ref(a->b), tvm_tir_ref(j),
                              tvm_tir_ref(a->kh), tvm_tir_ref(d)));
  void* acc = tvm_relax__scratch_store(
      dot, tvm_tir_add_take(tvm_relax__scratch_load(dot), tvm_tir_mul_take(qv, kv)));
  void* loop = tvm_tir_serial_take(tvm_tir_ref(d), tvm_tir_i64(0),
                                   tvm_tir_ref(tvm_ffi_seq_obj_at(a->q->shape, 3)), acc);
  void* sc =
      isnan(a->scale)
          ? tvm_tir_div_take(
                tvm_relax__scratch_load(dot),
                tvm_tir_call_take(
                    a->t, "tir.sqrt",
                    tvm_tir_cast_take(a->t, tvm_tir_ref(tvm_ffi_seq_obj_at(a->q->shape, 3)))))
          : tvm_tir_mul_take(tvm_relax__scratch_load(dot), f_const(a->t, a->scale));
  if (a->bias) {
    sc = tvm_tir_add_take(
        sc, tvm_tir_cast_take(a->t,
                              tvm_tir_load_take(tvm_tir_ref(a->bias), bcast_index(a->bias, 0, a->b),
                                                bcast_index(a->bias, 1, a->h),
                                                bcast_index(a->bias, 2, a->s), tvm_tir_ref(j))));
  }
  return tvm_tir_seq_take(tvm_relax__scratch_store(dot, f_const(a->t, 0)), loop,
                          tvm_relax__scratch_store(dot, sc));
}

/* The mask's condition on key j, at positions s' and j' in their sequences: j' <= s' + offset,
 * and with a window of w keys also j' > s' + offset - w. */
static void* attn_keep(attn_ctx* a, void* j, void* offset, int64_t window) {
  void* sp =
      a->s_base ? tvm_tir_sub_take(tvm_tir_ref(a->s), tvm_tir_ref(a->s_base)) : tvm_tir_ref(a->s);
  void* jp = a->s_base ? tvm_tir_sub_take(tvm_tir_ref(j), tvm_tir_ref(a->j_lo)) : tvm_tir_ref(j);
  void* diag = tvm_tir_add_take(sp, tvm_tir_ref(offset));
  if (window <= 0) return tvm_tir_le_take(jp, diag);
  void* keep = tvm_tir_le_take(tvm_tir_ref(jp), tvm_tir_ref(diag));
  void* low = tvm_tir_gt_take(jp, tvm_tir_sub_take(diag, tvm_tir_i64(window)));
  return tvm_tir_and_take(keep, low);
}

/* The statement computing output row out[b, s, h, :] (offset: the mask's, NULL without one).
 * `empty`: the row may keep no key, so it stays zero rather than divided by a sum of 0. */
static void* attn_row(attn_ctx* a, void* offset, int64_t window, bool empty) {
  bool causal = offset != NULL;
  void *j1 = tvm_tir_var("j", TVM_TIR_INT64), *j2 = tvm_tir_var("j", TVM_TIR_INT64);
  void *d1 = tvm_tir_var("d", TVM_TIR_INT64), *d2 = tvm_tir_var("d", TVM_TIR_INT64);
  void* e[3] = {tvm_tir_var("e", TVM_TIR_INT64), tvm_tir_var("e", TVM_TIR_INT64),
                tvm_tir_var("e", TVM_TIR_INT64)};
  void* h_v = tvm_ffi_seq_obj_at(a->v->shape, 3);
  DLDataType t = a->t;
  tvm_tir_buffer_obj* dot = tvm_relax__scratch("score", t);
  tvm_tir_buffer_obj* mx = tvm_relax__scratch("max", t);
  tvm_tir_buffer_obj* sum = tvm_relax__scratch("sum", t);
  /* pass 1: the row's maximum */
  void* p1 = tvm_tir_seq_take(
      attn_score(a, dot, j1, d1),
      tvm_relax__scratch_store(
          mx, tvm_tir_max_take(tvm_relax__scratch_load(mx), tvm_relax__scratch_load(dot))));
  if (causal) p1 = tvm_tir_if_take(attn_keep(a, j1, offset, window), p1, NULL);
  p1 = tvm_tir_serial_take(tvm_tir_ref(j1), tvm_tir_ref(a->j_lo), tvm_tir_ref(a->j_n), p1);
  /* the output row starts at zero */
  void* init = tvm_tir_serial_take(
      tvm_tir_ref(e[0]), tvm_tir_i64(0), tvm_tir_ref(h_v),
      tvm_tir_store_take(tvm_tir_ref(a->out), f_const(t, 0), tvm_tir_ref(a->b), tvm_tir_ref(a->s),
                         tvm_tir_ref(a->h), tvm_tir_ref(e[0])));
  /* pass 2: p = exp(score - max); sum += p; out += p * V[j] (p kept in the score scratch) */
  void* vv =
      tvm_tir_cast_take(t, tvm_tir_load_take(tvm_tir_ref(a->v), tvm_tir_ref(a->b), tvm_tir_ref(j2),
                                             tvm_tir_ref(a->vh), tvm_tir_ref(e[1])));
  void* upd = tvm_tir_store_take(
      tvm_tir_ref(a->out),
      tvm_tir_add_take(tvm_tir_load_take(tvm_tir_ref(a->out), tvm_tir_ref(a->b), tvm_tir_ref(a->s),
                                         tvm_tir_ref(a->h), tvm_tir_ref(e[1])),
                       tvm_tir_mul_take(tvm_relax__scratch_load(dot), vv)),
      tvm_tir_ref(a->b), tvm_tir_ref(a->s), tvm_tir_ref(a->h), tvm_tir_ref(e[1]));
  void* p2 = tvm_tir_seq_take(
      attn_score(a, dot, j2, d2),
      tvm_relax__scratch_store(
          dot, tvm_tir_call_take(
                   t, "tir.exp",
                   tvm_tir_sub_take(tvm_relax__scratch_load(dot), tvm_relax__scratch_load(mx)))),
      tvm_relax__scratch_store(
          sum, tvm_tir_add_take(tvm_relax__scratch_load(sum), tvm_relax__scratch_load(dot))),
      tvm_tir_serial_take(tvm_tir_ref(e[1]), tvm_tir_i64(0), tvm_tir_ref(h_v), upd));
  if (causal) p2 = tvm_tir_if_take(attn_keep(a, j2, offset, window), p2, NULL);
  p2 = tvm_tir_serial_take(tvm_tir_ref(j2), tvm_tir_ref(a->j_lo), tvm_tir_ref(a->j_n), p2);
  /* out /= sum */
  void* fin = tvm_tir_serial_take(
      tvm_tir_ref(e[2]), tvm_tir_i64(0), tvm_tir_ref(h_v),
      tvm_tir_store_take(tvm_tir_ref(a->out),
                         tvm_tir_div_take(tvm_tir_load_take(tvm_tir_ref(a->out), tvm_tir_ref(a->b),
                                                            tvm_tir_ref(a->s), tvm_tir_ref(a->h),
                                                            tvm_tir_ref(e[2])),
                                          tvm_relax__scratch_load(sum)),
                         tvm_tir_ref(a->b), tvm_tir_ref(a->s), tvm_tir_ref(a->h),
                         tvm_tir_ref(e[2])));
  /* A window may hold no key (TopLeft, S > S_kv), a ragged sequence may have no keys: the row
   * stays zero, as flash-attention's. */
  if (empty)
    fin = tvm_tir_if_take(tvm_tir_gt_take(tvm_relax__scratch_load(sum), f_const(t, 0)), fin, NULL);
  void* row = tvm_tir_seq_take(tvm_relax__scratch_store(mx, f_const(t, -INFINITY)), p1, init,
                               tvm_relax__scratch_store(sum, f_const(t, 0)), p2, fin);
  row = tvm_relax__scratch_scope(sum,
                                 tvm_relax__scratch_scope(mx, tvm_relax__scratch_scope(dot, row)));
  tvm_ffi_release(dot), tvm_ffi_release(mx), tvm_ffi_release(sum);
  tvm_ffi_release(j1), tvm_ffi_release(j2), tvm_ffi_release(d1), tvm_ffi_release(d2);
  tvm_relax__release_all(e, 3);
  return row;
}

/* The key / value heads of query head a->h (grouped-query attention). */
static void attn_heads(attn_ctx* a) {
  void* n_q = tvm_ffi_seq_obj_at(a->q->shape, 2);
  a->kh = tvm_tir_floordiv_take(
      tvm_tir_ref(a->h),
      tvm_tir_floordiv_take(tvm_tir_ref(n_q), tvm_tir_ref(tvm_ffi_seq_obj_at(a->k->shape, 2))));
  a->vh = tvm_tir_floordiv_take(
      tvm_tir_ref(a->h),
      tvm_tir_floordiv_take(tvm_tir_ref(n_q), tvm_tir_ref(tvm_ffi_seq_obj_at(a->v->shape, 2))));
}

/* |x - y| (both borrowed). */
static void* abs_diff(void* x, void* y) {
  return tvm_tir_max_take(tvm_tir_sub_take(tvm_tir_ref(x), tvm_tir_ref(y)),
                          tvm_tir_sub_take(tvm_tir_ref(y), tvm_tir_ref(x)));
}

static void* attention_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                            tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  bool causal, bottom_right;
  int64_t window;
  attn_ctx a = {.q = in[0],
                .k = in[1],
                .v = in[2],
                .bias = nin > 3 ? in[3] : NULL,
                .out = out[0],
                .t = out[0]->dtype};
  if (attn_attrs(call, &causal, &bottom_right, &window, &a.scale) != 0) return NULL;
  void* o[3];
  if (tvm_relax__kernel_vars(o, 3, "i") != 0) return NULL;
  a.b = o[0], a.s = o[1], a.h = o[2];
  attn_heads(&a);
  void* zero = tvm_tir_i64(0);
  a.j_lo = zero, a.j_n = tvm_ffi_seq_obj_at(a.k->shape, 1);
  /* The mask: j <= s + offset. */
  void* offset = NULL;
  if (causal)
    offset = bottom_right ? abs_diff(tvm_ffi_seq_obj_at(a.q->shape, 1), a.j_n) : tvm_tir_i64(0);
  void* row = attn_row(&a, offset, window, window > 0);
  void* ext[3] = {tvm_ffi_seq_obj_at(a.out->shape, 0), tvm_ffi_seq_obj_at(a.out->shape, 1),
                  tvm_ffi_seq_obj_at(a.out->shape, 2)};
  void* body = tvm_relax__loop_nest(o, ext, 3, NULL, row);
  tvm_ffi_release(offset), tvm_ffi_release(zero);
  tvm_ffi_release(a.kh), tvm_ffi_release(a.vh);
  tvm_relax__release_all(o, 3);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_attention(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, attention_body);
}

/*
 * attention_var_len: queries (1, S, N, H), keys (1, S_kv, N_k, H), values (1, S_kv, N_v, H_v),
 * seqstart_q / seqstart_k (B + 1,) int32, max_seqlen_q / max_seqlen_k () int32; out (1, S, N,
 * H_v). Sequence b is query rows seqstart_q[b] .. seqstart_q[b + 1] - 1 attending to key rows
 * seqstart_k[b] .. seqstart_k[b + 1] - 1: attention's rows, the mask placing query and key at
 * their positions in their sequences (BottomRight's offset from the two lengths). The output
 * is zeroed first, so rows outside every sequence read 0, as do rows without keys. Asserted at
 * run time: each seqstart non-decreasing inside its tensor's axis 1, a sequence no longer than
 * its max_seqlen, the two seqstarts of one length, the batch 1 and keys' and values' lengths
 * equal where symbolic. Upstream has no kernel (it offloads to CUTLASS / flash-attention).
 */
static void* attention_var_len_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                    int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  bool causal, bottom_right;
  int64_t window;
  attn_ctx a = {.q = in[0], .k = in[1], .v = in[2], .out = out[0], .t = out[0]->dtype};
  if (attn_attrs(call, &causal, &bottom_right, &window, &a.scale) != 0) return NULL;
  tvm_tir_buffer_obj *sq = in[3], *sk = in[4], *mq = in[5], *mk = in[6];
  void* o[3]; /* the sequence, the query row, the query head */
  void* z[4]; /* the output's indices, for zeroing it */
  if (tvm_relax__kernel_vars(o, 3, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(z, 4, "z") != 0) {
    tvm_relax__release_all(o, 3);
    return NULL;
  }
  /* the sequence's rows: queries q0 .. q1 - 1, keys k0 .. k1 - 1 */
  void* lim[4] = {tvm_tir_var("q0", TVM_TIR_INT64), tvm_tir_var("q1", TVM_TIR_INT64),
                  tvm_tir_var("k0", TVM_TIR_INT64), tvm_tir_var("k1", TVM_TIR_INT64)};
  void* zero = tvm_tir_i64(0);
  void* j_n = tvm_tir_sub_take(tvm_tir_ref(lim[3]), tvm_tir_ref(lim[2]));
  a.b = zero, a.s = o[1], a.h = o[2];
  a.j_lo = lim[2], a.j_n = j_n, a.s_base = lim[0];
  attn_heads(&a);
  void* len_q = tvm_tir_sub_take(tvm_tir_ref(lim[1]), tvm_tir_ref(lim[0]));
  void* offset = NULL;
  if (causal) offset = bottom_right ? abs_diff(len_q, j_n) : tvm_tir_i64(0);
  void* row = attn_row(&a, offset, window, true);
  void* seq =
      tvm_tir_serial_take(tvm_tir_ref(o[1]), tvm_tir_ref(lim[0]), tvm_tir_ref(len_q),
                          tvm_tir_serial_take(tvm_tir_ref(o[2]), tvm_tir_i64(0),
                                              tvm_tir_ref(tvm_ffi_seq_obj_at(a.q->shape, 2)), row));
  /* What the rows read must hold; the kernel states it rather than read out of bounds. */
  void* mlen[2] = {tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(mq), 0, NULL)),
                   tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(mk), 0, NULL))};
  seq = tvm_tir_assert_take(
      tvm_tir_le_take(tvm_tir_ref(j_n), mlen[1]),
      "relax.nn.attention_var_len: a key sequence is longer than max_seqlen_k", seq);
  seq = tvm_tir_assert_take(
      tvm_tir_le_take(tvm_tir_ref(len_q), mlen[0]),
      "relax.nn.attention_var_len: a query sequence is longer than max_seqlen_q", seq);
  for (int w = 1; w >= 0; --w) {
    void *lo = lim[2 * w], *hi = lim[2 * w + 1];
    void* ok = tvm_tir_and_take(tvm_tir_and_take(tvm_tir_le_take(tvm_tir_i64(0), tvm_tir_ref(lo)),
                                                 tvm_tir_le_take(tvm_tir_ref(lo), tvm_tir_ref(hi))),
                                tvm_tir_le_take(tvm_tir_ref(hi), tvm_tir_ref(tvm_ffi_seq_obj_at(
                                                                     (w ? a.k : a.q)->shape, 1))));
    seq = tvm_tir_assert_take(ok,
                              w ? "relax.nn.attention_var_len: seqstart_k is not a non-decreasing "
                                  "sequence of rows of keys"
                                : "relax.nn.attention_var_len: seqstart_q is not a non-decreasing "
                                  "sequence of rows of queries",
                              seq);
  }
  for (int i = 3; i >= 0; --i) {
    tvm_tir_buffer_obj* st = i < 2 ? sq : sk;
    void* at = tvm_tir_add_take(tvm_tir_ref(o[0]), tvm_tir_i64(i % 2));
    seq = tvm_tir_let_stmt_take(
        tvm_tir_ref(lim[i]),
        tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_take(tvm_tir_ref(st), at)), seq);
  }
  void* nseq = tvm_tir_sub_take(tvm_tir_ref(tvm_ffi_seq_obj_at(sq->shape, 0)), tvm_tir_i64(1));
  void* body = tvm_tir_seq_take(tvm_relax__store_all(a.out, z, f_const(a.t, 0)),
                                tvm_tir_serial_take(tvm_tir_ref(o[0]), tvm_tir_i64(0), nseq, seq));
  /* Shapes inference could not compare (symbolic dims), checked once. */
  struct {
    void *x, *y;
    const char* msg;
  } same[] = {
      {tvm_ffi_seq_obj_at(sq->shape, 0), tvm_ffi_seq_obj_at(sk->shape, 0),
       "relax.nn.attention_var_len: seqstart_q and seqstart_k differ in length"},
      {tvm_ffi_seq_obj_at(a.k->shape, 1), tvm_ffi_seq_obj_at(a.v->shape, 1),
       "relax.nn.attention_var_len: keys and values differ in length"},
      {tvm_ffi_seq_obj_at(a.q->shape, 0), NULL, "relax.nn.attention_var_len: the batch is not 1"},
      {tvm_ffi_seq_obj_at(a.k->shape, 0), NULL, "relax.nn.attention_var_len: the batch is not 1"},
      {tvm_ffi_seq_obj_at(a.v->shape, 0), NULL, "relax.nn.attention_var_len: the batch is not 1"}};
  void* one = tvm_tir_i64(1);
  for (int i = (int)(sizeof(same) / sizeof(same[0])) - 1; i >= 0; --i) {
    void* y = same[i].y ? same[i].y : one;
    if (tvm_relax__dim_equal(same[i].x, y)) continue;
    body = tvm_tir_assert_take(tvm_tir_eq_take(tvm_tir_ref(same[i].x), tvm_tir_ref(y)), same[i].msg,
                               body);
  }
  tvm_ffi_release(one), tvm_ffi_release(zero), tvm_ffi_release(offset);
  tvm_ffi_release(len_q), tvm_ffi_release(j_n);
  tvm_ffi_release(a.kh), tvm_ffi_release(a.vh);
  tvm_relax__release_all(lim, 4);
  tvm_relax__release_all(z, 4);
  tvm_relax__release_all(o, 3);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_attention_var_len(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, attention_var_len_body);
}
