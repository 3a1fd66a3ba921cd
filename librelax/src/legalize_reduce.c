/*
 * legalize_reduce.c: the kernels of the reductions (sum, mean, max, min, prod over any set of
 * axes, with or without keepdims), of variance / std (upstream's two passes: the mean, then the
 * mean of the squared deviations, divided by N), of argmax / argmin (one axis, or the flattened
 * tensor; the first index of the extreme value, int64) and of the scans cumsum / cumprod (along
 * one axis, or over the flattened tensor; exclusive or not; accumulated in the output dtype),
 * of bucketize (a binary search of each element in the 1-d boundaries, topi.searchsorted's), of
 * multinomial_from_uniform (a scan of one row's cumulative sums per sample), and of
 * collapse_sum_like / collapse_sum_to (a sum over data's leading dims and those where the
 * target's dim is the constant 1).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

/* The identity of a reduction in dtype t. */
static void* identity(tvm_relax_op_id id, DLDataType t) {
  bool fl = tvm_tir_dtype_is_floating(t);
  switch (id) {
    case TVM_RELAX_OP_max:
    case TVM_RELAX_OP_argmax:
      return fl ? tvm_tir_const_float(t, -INFINITY) : tvm_tir_const_int(t, tvm_tir_dtype_min_int(t));
    case TVM_RELAX_OP_min:
    case TVM_RELAX_OP_argmin:
      if (fl) return tvm_tir_const_float(t, INFINITY);
      return t.code == kDLUInt ? tvm_tir_const_int(t, t.bits >= 64 ? -1 : (int64_t)((UINT64_C(1) << t.bits) - 1))
                               : tvm_tir_const_int(t, (int64_t)((UINT64_C(1) << (t.bits - 1)) - 1));
    case TVM_RELAX_OP_prod:
      return fl ? tvm_tir_const_float(t, 1) : tvm_tir_const_int(t, 1);
    default:
      return fl ? tvm_tir_const_float(t, 0) : tvm_tir_const_int(t, 0);
  }
}

static void* combine(tvm_relax_op_id id, void* acc, void* x) {
  switch (id) {
    case TVM_RELAX_OP_max: return tvm_tir_max_take(acc, x);
    case TVM_RELAX_OP_min: return tvm_tir_min_take(acc, x);
    case TVM_RELAX_OP_prod: return tvm_tir_mul_take(acc, x);
    default: return tvm_tir_add_take(acc, x);
  }
}

/* The reduced dims of a call on a rank-n input (its `axis` attribute: a list, one int, or None
 * for all) into red[0..n), and its keepdims; false when n is too large or an axis is out of
 * range. */
static bool reduced_axes(const tvm_relax_call_obj* call, int64_t n, bool* red, bool* keep) {
  *keep = false;
  const TVMFFIAny* kv = tvm_relax_call_attr(call, "keepdims");
  if (kv) tvm_ffi_any_as_bool(kv, keep);
  const TVMFFIAny* av = tvm_relax_call_attr(call, "axis");
  bool all = !av || tvm_ffi_any_is_none(av);
  if (n > MAX_DIMS) return false;
  for (int64_t i = 0; i < n; ++i) red[i] = all;
  if (all) return true;
  int64_t na = av->type_index == kTVMFFIArray ? tvm_ffi_seq_size(av->v_obj) : 1;
  for (int64_t i = 0; i < na; ++i) {
    int64_t a;
    tvm_ffi_any_as_int(av->type_index == kTVMFFIArray ? tvm_ffi_seq_at(av->v_obj, i) : av, &a);
    if (a < 0) a += n;
    if (a < 0 || a >= n) return false;
    red[a] = true;
  }
  return true;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_reduce(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  tvm_relax_op_id id = info->id;
  bool arg = id == TVM_RELAX_OP_argmax || id == TVM_RELAX_OP_argmin;
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  tvm_tir_buffer_obj* x = tvm_relax__kernel_buffer(&k, "A", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0)));
  tvm_tir_buffer_obj* out = x ? tvm_relax__kernel_buffer(&k, "T_red", tvm_relax_sinfo_of(call)) : NULL;
  int64_t n = x ? tvm_ffi_seq_size(x->shape) : 0;
  bool keep = false;
  bool red[MAX_DIMS];
  bool ok = out && reduced_axes(call, n, red, &keep);
  void* body = NULL;
  void* v[MAX_DIMS];
  if (ok && tvm_relax__kernel_vars(v, n, "i") == 0) {
    DLDataType t = x->dtype;
    void* ext[MAX_DIMS];
    bool outer[MAX_DIMS];
    for (int64_t i = 0; i < n; ++i) ext[i] = tvm_ffi_seq_obj_at(x->shape, i), outer[i] = !red[i];
    /* The output index: the kept dims' vars, and 0 for reduced dims kept as 1. */
    void* oind[MAX_DIMS];
    int64_t no = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!red[i]) oind[no++] = v[i];
      else if (keep) oind[no++] = NULL;
    }
    tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
    tvm_tir_buffer_obj* pos = arg ? tvm_relax__scratch("idx", TVM_TIR_INT64) : NULL;
    void* ind[MAX_DIMS];
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
    void* xv = tvm_tir_load_takev(tvm_tir_ref(x), n, ind);
    void* update;
    if (arg) {
      /* flat index of the element within the reduced dims, row-major */
      void* flat = tvm_tir_i64(0);
      for (int64_t i = 0; i < n; ++i) {
        if (red[i]) flat = tvm_tir_add_take(tvm_tir_mul_take(flat, tvm_tir_ref(ext[i])), tvm_tir_ref(v[i]));
      }
      void* better = id == TVM_RELAX_OP_argmax ? tvm_tir_gt_take(tvm_tir_ref(xv), tvm_relax__scratch_load(acc))
                                               : tvm_tir_lt_take(tvm_tir_ref(xv), tvm_relax__scratch_load(acc));
      update = tvm_tir_if_take(better, tvm_tir_seq_take(tvm_relax__scratch_store(acc, xv), tvm_relax__scratch_store(pos, flat)), NULL);
    } else {
      update = tvm_relax__scratch_store(acc, combine(id, tvm_relax__scratch_load(acc), xv));
    }
    void* loop = tvm_relax__loop_nest(v, ext, n, red, update);
    void* result = arg ? tvm_relax__scratch_load(pos) : tvm_relax__scratch_load(acc);
    if (id == TVM_RELAX_OP_mean) {
      void* count = tvm_tir_i64(1);
      for (int64_t i = 0; i < n; ++i) {
        if (red[i]) count = tvm_tir_mul_take(count, tvm_tir_ref(ext[i]));
      }
      result = tvm_tir_div_take(result, tvm_tir_cast_take(t, count));
    }
    void* oi[MAX_DIMS];
    for (int64_t i = 0; i < no; ++i) oi[i] = oind[i] ? tvm_tir_ref(oind[i]) : (void*)tvm_tir_i64(0);
    void* store = tvm_tir_store_takev(tvm_tir_ref(out), tvm_tir_cast_take(out->dtype, result), no, oi);
    void* inner = arg ? tvm_tir_seq_take(tvm_relax__scratch_store(acc, identity(id, t)),
                                         tvm_relax__scratch_store(pos, tvm_tir_i64(0)), loop, store)
                      : tvm_tir_seq_take(tvm_relax__scratch_store(acc, identity(id, t)), loop, store);
    inner = tvm_relax__scratch_scope(acc, inner);
    if (pos) inner = tvm_relax__scratch_scope(pos, inner);
    body = tvm_relax__loop_nest(v, ext, n, outer, inner);
    tvm_ffi_release(acc), tvm_ffi_release(pos);
    tvm_relax__release_all(v, n);
  } else if (out && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "%s: bad axis", info->name);
  }
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  tvm_ffi_release(x), tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  return f;
}

/* ---- variance / std -------------------------------------------------------------------------- */
tvm_tir_prim_func_obj* tvm_relax__legalize_variance(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  bool is_std = info->id == TVM_RELAX_OP_std;
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  tvm_tir_buffer_obj* x = tvm_relax__kernel_buffer(&k, "A", tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0)));
  tvm_tir_buffer_obj* out = x ? tvm_relax__kernel_buffer(&k, "T_red", tvm_relax_sinfo_of(call)) : NULL;
  int64_t n = x ? tvm_ffi_seq_size(x->shape) : 0;
  bool keep, red[MAX_DIMS];
  bool ok = out && reduced_axes(call, n, red, &keep);
  void* body = NULL;
  void *v[MAX_DIMS], *v1[MAX_DIMS], *v2[MAX_DIMS];
  if (ok && !tvm_tir_dtype_is_floating(x->dtype)) {
    tvm_ffi_raise("NotImplementedError", "%s: only floating-point tensors have a kernel", info->name);
  } else if (ok && tvm_relax__kernel_vars(v, n, "i") == 0) {
    /* Each pass over the reduced dims has loop variables of its own (a loop variable is bound
     * once in a function); v serves the outer loops. */
    if (tvm_relax__kernel_vars(v1, n, "j") != 0) {
      tvm_relax__release_all(v, n);
      goto done;
    }
    if (tvm_relax__kernel_vars(v2, n, "k") != 0) {
      tvm_relax__release_all(v, n), tvm_relax__release_all(v1, n);
      goto done;
    }
    DLDataType t = x->dtype;
    void* ext[MAX_DIMS];
    bool outer[MAX_DIMS];
    void* count = tvm_tir_i64(1);
    for (int64_t i = 0; i < n; ++i) {
      ext[i] = tvm_ffi_seq_obj_at(x->shape, i), outer[i] = !red[i];
      if (red[i]) count = tvm_tir_mul_take(count, tvm_tir_ref(ext[i]));
    }
    void* nf = tvm_tir_cast_take(t, count);
    tvm_tir_buffer_obj* mean = tvm_relax__scratch("mean", t);
    tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
    void* ind[MAX_DIMS];
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(red[i] ? v1[i] : v[i]);
    void* p1 = tvm_relax__loop_nest(
        v1, ext, n, red,
        tvm_relax__scratch_store(mean, tvm_tir_add_take(tvm_relax__scratch_load(mean),
                                                        tvm_tir_load_takev(tvm_tir_ref(x), n, ind))));
    void* set_mean = tvm_relax__scratch_store(mean, tvm_tir_div_take(tvm_relax__scratch_load(mean), tvm_tir_ref(nf)));
    for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(red[i] ? v2[i] : v[i]);
    void* d = tvm_tir_sub_take(tvm_tir_load_takev(tvm_tir_ref(x), n, ind), tvm_relax__scratch_load(mean));
    void* p2 = tvm_relax__loop_nest(
        v2, ext, n, red,
        tvm_relax__scratch_store(acc, tvm_tir_add_take(tvm_relax__scratch_load(acc), tvm_tir_mul_take(tvm_tir_ref(d), d))));
    void* result = tvm_tir_div_take(tvm_relax__scratch_load(acc), tvm_tir_ref(nf));
    if (is_std) result = tvm_tir_call_take(t, "tir.sqrt", result);
    void* oi[MAX_DIMS];
    int64_t no = 0;
    for (int64_t i = 0; i < n; ++i) {
      if (!red[i]) oi[no++] = tvm_tir_ref(v[i]);
      else if (keep) oi[no++] = tvm_tir_i64(0);
    }
    void* store = tvm_tir_store_takev(tvm_tir_ref(out), result, no, oi);
    void* inner = tvm_tir_seq_take(tvm_relax__scratch_store(mean, tvm_tir_const_float(t, 0)), p1, set_mean,
                                   tvm_relax__scratch_store(acc, tvm_tir_const_float(t, 0)), p2, store);
    inner = tvm_relax__scratch_scope(acc, tvm_relax__scratch_scope(mean, inner));
    body = tvm_relax__loop_nest(v, ext, n, outer, inner);
    tvm_ffi_release(nf), tvm_ffi_release(mean), tvm_ffi_release(acc);
    tvm_relax__release_all(v, n), tvm_relax__release_all(v1, n), tvm_relax__release_all(v2, n);
  } else if (out && !tvm_ffi_error_pending()) {
    tvm_ffi_raise("ValueError", "%s: bad axis", info->name);
  }
done:;
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  tvm_ffi_release(x), tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  return f;
}

/* ---- cumsum / cumprod ------------------------------------------------------------------------ */
static void* scan_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  bool prod = tvm_relax_op_info_of(call->op)->id == TVM_RELAX_OP_cumprod;
  bool exclusive = false;
  const TVMFFIAny* ev = tvm_relax_call_attr(call, "exclusive");
  if (ev) tvm_ffi_any_as_bool(ev, &exclusive);
  const TVMFFIAny* av = tvm_relax_call_attr(call, "axis");
  bool flat = !av || tvm_ffi_any_is_none(av);
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  int64_t nx = tvm_ffi_seq_size(x->shape), no = tvm_ffi_seq_size(o->shape), axis = 0;
  if (!flat) {
    tvm_ffi_any_as_int(av, &axis);
    if (axis < 0) axis += no;
  }
  if (nx > MAX_DIMS || axis < 0 || axis >= no || (flat && no != 1) || (!flat && no != nx)) {
    tvm_ffi_raise("ValueError", "%s: bad axis", tvm_relax_op_info_of(call->op)->name);
    return NULL;
  }
  DLDataType t = o->dtype;
  bool fl = tvm_tir_dtype_is_floating(t);
  void* v[MAX_DIMS];
  if (tvm_relax__kernel_vars(v, no, "i") != 0) return NULL;
  void* xi[MAX_DIMS];
  if (flat) {
    tvm_relax__unflat_index(x, v[0], xi); /* the flattened tensor, row-major */
  } else {
    for (int64_t i = 0; i < nx; ++i) xi[i] = tvm_tir_ref(v[i]);
  }
  void* xv = tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(x), nx, xi));
  tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
  void *oi[MAX_DIMS], *init;
  for (int64_t i = 0; i < no; ++i) oi[i] = tvm_tir_ref(v[i]);
  void* write = tvm_tir_store_takev(tvm_tir_ref(o), tvm_relax__scratch_load(acc), no, oi);
  void* update = tvm_relax__scratch_store(acc, prod ? tvm_tir_mul_take(tvm_relax__scratch_load(acc), xv)
                                                    : tvm_tir_add_take(tvm_relax__scratch_load(acc), xv));
  void* step = exclusive ? tvm_tir_seq_take(write, update) : tvm_tir_seq_take(update, write);
  void* ext[MAX_DIMS];
  bool outer[MAX_DIMS];
  for (int64_t i = 0; i < no; ++i) ext[i] = tvm_ffi_seq_obj_at(o->shape, i), outer[i] = i != axis;
  void* scan = tvm_tir_serial_take(tvm_tir_ref(v[axis]), tvm_tir_i64(0), tvm_tir_ref(ext[axis]), step);
  init = tvm_relax__scratch_store(acc, fl ? tvm_tir_const_float(t, prod ? 1 : 0) : tvm_tir_const_int(t, prod ? 1 : 0));
  void* body = tvm_relax__loop_nest(v, ext, no, outer,
                                    tvm_relax__scratch_scope(acc, tvm_tir_seq_take(init, scan)));
  tvm_ffi_release(acc);
  tvm_relax__release_all(v, no);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_scan(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, scan_body);
}

/* ---- bucketize ------------------------------------------------------------------------------- */
/* The dtype bucketize compares an element (dtype a) with a boundary (dtype b) in: theirs when
 * equal (bool as int64); with one float dtype that one (the integer converted, as TVM's binary
 * promotion does in topi.searchsorted's comparison); the wider of two floats (float32 for
 * float16 against bfloat16); int64 for two different integer dtypes. */
static DLDataType bucketize_cmp_dtype(DLDataType a, DLDataType b) {
  bool fa = tvm_tir_dtype_is_floating(a), fb = tvm_tir_dtype_is_floating(b);
  if (tvm_ffi_dtype_equal(a, b) && !tvm_tir_dtype_is_bool(a)) return a;
  if (fa && fb) return a.bits != b.bits ? (a.bits > b.bits ? a : b) : tvm_tir_dtype_float(32);
  if (fa || fb) return fa ? a : b;
  return tvm_tir_dtype_int(64);
}

/*
 * out[i] = the first index k of the M boundaries with x[i] <= b[k] (right: x[i] < b[k]), M when
 * none: the bucket of b[k - 1] < x <= b[k] (right: b[k - 1] <= x < b[k]), for sorted boundaries
 * (torch.bucketize's; for unsorted ones the result is unspecified, as upstream's). A binary
 * search per element, as topi.searchsorted: lo = 0, hi = M; while lo < hi: mid = lo + (hi - lo)
 * / 2; b[mid] < x (right: <=) moves lo past mid, else hi to mid; lo is the answer.
 */
static void* bucketize_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                            int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *x = in[0], *b = in[1], *o = out[0];
  int64_t n = tvm_ffi_seq_size(x->shape);
  if (n > MAX_DIMS || tvm_ffi_seq_size(b->shape) != 1 || tvm_ffi_seq_size(o->shape) != n) {
    tvm_ffi_raise("ValueError", "relax.bucketize: boundaries of rank %lld for an input of rank "
                  "%lld (at most %d) and an output of rank %lld",
                  (long long)tvm_ffi_seq_size(b->shape), (long long)n, MAX_DIMS,
                  (long long)tvm_ffi_seq_size(o->shape));
    return NULL;
  }
  bool right = tvm_relax__call_attr_bool(call, "right", false);
  DLDataType ct = bucketize_cmp_dtype(x->dtype, b->dtype), i64 = tvm_tir_dtype_int(64);
  void *v[MAX_DIMS], *xi[MAX_DIMS], *oi[MAX_DIMS], *ext[MAX_DIMS];
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  for (int64_t d = 0; d < n; ++d) {
    xi[d] = tvm_tir_ref(v[d]), oi[d] = tvm_tir_ref(v[d]);
    ext[d] = tvm_ffi_seq_obj_at(o->shape, d);
  }
  tvm_tir_buffer_obj *lo = tvm_relax__scratch("lo", i64), *hi = tvm_relax__scratch("hi", i64);
  void *val = tvm_tir_var("val", ct), *mid = tvm_tir_var("mid", i64);
  void* bm = tvm_tir_cast_take(ct, tvm_tir_load_take(tvm_tir_ref(b), tvm_tir_ref(mid)));
  void* below = right ? tvm_tir_le_take(bm, tvm_tir_ref(val))
                      : tvm_tir_lt_take(bm, tvm_tir_ref(val));
  void* step = tvm_tir_if_take(
      below, tvm_relax__scratch_store(lo, tvm_tir_add_take(tvm_tir_ref(mid), tvm_tir_i64(1))),
      tvm_relax__scratch_store(hi, tvm_tir_ref(mid)));
  void* half = tvm_tir_floordiv_take(
      tvm_tir_sub_take(tvm_relax__scratch_load(hi), tvm_relax__scratch_load(lo)), tvm_tir_i64(2));
  step = tvm_tir_let_stmt_take(tvm_tir_ref(mid),
                               tvm_tir_add_take(tvm_relax__scratch_load(lo), half), step);
  void* search = tvm_tir_while_take(
      tvm_tir_lt_take(tvm_relax__scratch_load(lo), tvm_relax__scratch_load(hi)), step);
  void* m = tvm_tir_cast_take(i64, tvm_tir_ref(tvm_ffi_seq_obj_at(b->shape, 0)));
  void* idx = tvm_tir_cast_take(o->dtype, tvm_relax__scratch_load(lo));
  void* write = tvm_tir_store_takev(tvm_tir_ref(o), idx, n, oi);
  void* body = tvm_tir_seq_take(tvm_relax__scratch_store(lo, tvm_tir_i64(0)),
                                tvm_relax__scratch_store(hi, m), search, write);
  body = tvm_tir_let_stmt_take(tvm_tir_ref(val),
                               tvm_tir_cast_take(ct, tvm_tir_load_takev(tvm_tir_ref(x), n, xi)),
                               body);
  body = tvm_relax__scratch_scope(lo, tvm_relax__scratch_scope(hi, body));
  body = tvm_relax__loop_nest(v, ext, n, NULL, body);
  tvm_ffi_release(lo), tvm_ffi_release(hi), tvm_ffi_release(val), tvm_ffi_release(mid);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_bucketize(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, bucketize_body);
}

/* ---- multinomial_from_uniform ---------------------------------------------------------------- */
/*
 * out[i, 0] = the first k with u < prob[r, 0] + ... + prob[r, k] (the cumulative sums in prob's
 * dtype, as upstream's cumsum makes them), vocab - 1 when no sum exceeds u; r = sample_indices[i,
 * 0] (a negative one counted from the end of the batch; one outside it fails the kernel's
 * assertion, where upstream reads it unchecked), u = uniform_sample[i, 0], the two compared in
 * bucketize's common dtype. Upstream's CPU lowering (DispatchSampling: a cumsum, then a kernel
 * testing every (i, k)) gives the same index for non-negative probabilities; here one scan per
 * sample stops at it. A vocab of 0 gives 0 (upstream's kernel writes nothing then).
 */
static void* multinomial_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *p = in[0], *us = in[1], *si = in[2], *o = out[0];
  if (tvm_ffi_seq_size(p->shape) != 2 || tvm_ffi_seq_size(us->shape) != 2 ||
      tvm_ffi_seq_size(si->shape) != 2 || tvm_ffi_seq_size(o->shape) != 2) {
    tvm_ffi_raise("ValueError", "relax.multinomial_from_uniform: its tensors must be 2-d");
    return NULL;
  }
  DLDataType pt = p->dtype, ct = bucketize_cmp_dtype(pt, us->dtype), i64 = tvm_tir_dtype_int(64);
  void *batch = tvm_ffi_seq_obj_at(p->shape, 0), *vocab = tvm_ffi_seq_obj_at(p->shape, 1);
  void* v[1];
  if (tvm_relax__kernel_vars(v, 1, "i") != 0) return NULL;
  void *raw = tvm_tir_var("raw", i64), *r = tvm_tir_var("r", i64), *u = tvm_tir_var("u", ct);
  tvm_tir_buffer_obj *k = tvm_relax__scratch("k", i64), *acc = tvm_relax__scratch("acc", pt);
  /* the next cumulative sum, acc + prob[r, k] */
  void* next[2];
  for (int j = 0; j < 2; ++j) {
    next[j] = tvm_tir_add_take(tvm_relax__scratch_load(acc),
                               tvm_tir_load_take(tvm_tir_ref(p), tvm_tir_ref(r),
                                                 tvm_relax__scratch_load(k)));
  }
  /* while k < vocab - 1 and not u < next: step past k (prob[r, k] is read only when k is inside
   * the row, so a vocab of 0 reads nothing) */
  void* more = tvm_tir_lt_take(tvm_relax__scratch_load(k),
                               tvm_tir_sub_take(tvm_tir_ref(vocab), tvm_tir_i64(1)));
  void* past = tvm_tir_not_take(tvm_tir_lt_take(tvm_tir_ref(u), tvm_tir_cast_take(ct, next[0])));
  void* step = tvm_tir_seq_take(
      tvm_relax__scratch_store(acc, next[1]),
      tvm_relax__scratch_store(k, tvm_tir_add_take(tvm_relax__scratch_load(k), tvm_tir_i64(1))));
  void* cond = tvm_tir_call_take(tvm_tir_dtype_bool(), "tir.if_then_else", more, past,
                                 tvm_tir_bool(false));
  void* search = tvm_tir_while_take(cond, step);
  void* write = tvm_tir_store_take(tvm_tir_ref(o), tvm_tir_cast_take(o->dtype,
                                                                     tvm_relax__scratch_load(k)),
                                   tvm_tir_ref(v[0]), tvm_tir_i64(0));
  void* body = tvm_tir_seq_take(tvm_relax__scratch_store(acc, tvm_tir_const_float(pt, 0)),
                                tvm_relax__scratch_store(k, tvm_tir_i64(0)), search, write);
  body = tvm_tir_let_stmt_take(
      tvm_tir_ref(u), tvm_tir_cast_take(ct, tvm_tir_load_take(tvm_tir_ref(us), tvm_tir_ref(v[0]),
                                                              tvm_tir_i64(0))),
      body);
  body = tvm_relax__assert_indices(call, tvm_relax__in_range(r, batch), body);
  body = tvm_tir_let_stmt_take(
      tvm_tir_ref(r),
      tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(raw), tvm_tir_i64(0)),
                          tvm_tir_add_take(tvm_tir_ref(raw), tvm_tir_ref(batch)), tvm_tir_ref(raw)),
      body);
  body = tvm_tir_let_stmt_take(
      tvm_tir_ref(raw),
      tvm_tir_cast_take(i64, tvm_tir_load_take(tvm_tir_ref(si), tvm_tir_ref(v[0]), tvm_tir_i64(0))),
      body);
  body = tvm_relax__scratch_scope(k, tvm_relax__scratch_scope(acc, body));
  body = tvm_relax__loop_nest(v, (void*[]){tvm_ffi_seq_obj_at(o->shape, 0)}, 1, NULL, body);
  tvm_ffi_release(k), tvm_ffi_release(acc), tvm_ffi_release(raw), tvm_ffi_release(r);
  tvm_ffi_release(u);
  tvm_relax__release_all(v, 1);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_multinomial(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, multinomial_body);
}

/* ---- collapse_sum_like / collapse_sum_to ----------------------------------------------------- */
/*
 * topi's collapse_sum: the output (rank m) aligns with data's last m dims; data's leading dims
 * and those where the output's dim is the constant 1 are summed (the inference rule showed the
 * other dims equal), in the output dtype (data's). collapse_sum_like's second input, the
 * target tensor, is not read.
 */
static void* collapse_sum_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                               int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  int64_t n = tvm_ffi_seq_size(x->shape), m = tvm_ffi_seq_size(o->shape), lead = n - m;
  if (n > MAX_DIMS || lead < 0) {
    tvm_ffi_raise("ValueError", "%s: bad ranks %lld and %lld",
                  tvm_relax_op_info_of(call->op)->name, (long long)n, (long long)m);
    return NULL;
  }
  bool red[MAX_DIMS], kept[MAX_DIMS];
  void *v[MAX_DIMS], *ext[MAX_DIMS], *oi[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) {
    int64_t c;
    red[i] = i < lead ||
             (tvm_tir_as_const_int(tvm_ffi_seq_obj_at(o->shape, i - lead), &c) && c == 1);
    kept[i] = !red[i];
    ext[i] = tvm_ffi_seq_obj_at(x->shape, i);
  }
  if (tvm_relax__kernel_vars(v, n, "i") != 0) return NULL;
  DLDataType t = o->dtype;
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
  void* xv = tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(x), n, ind));
  tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", t);
  void* update = tvm_relax__scratch_store(acc, tvm_tir_add_take(tvm_relax__scratch_load(acc), xv));
  void* loop = tvm_relax__loop_nest(v, ext, n, red, update);
  for (int64_t j = 0; j < m; ++j) {
    oi[j] = red[j + lead] ? (void*)tvm_tir_i64(0) : tvm_tir_ref(v[j + lead]);
  }
  void* store = tvm_tir_store_takev(tvm_tir_ref(o), tvm_relax__scratch_load(acc), m, oi);
  void* inner = tvm_tir_seq_take(tvm_relax__scratch_store(acc, identity(TVM_RELAX_OP_sum, t)),
                                 loop, store);
  void* body = tvm_relax__loop_nest(v, ext, n, kept, tvm_relax__scratch_scope(acc, inner));
  tvm_ffi_release(acc);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_collapse_sum(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, collapse_sum_body);
}
