/*
 * legalize_index.c: the kernels of the gather / scatter and sorting operators (op_index.c).
 *
 * The scatters (scatter_elements, scatter_nd, index_put) copy data, then apply each update in
 * index order (the last of duplicates wins for "update"; "mean" is upstream's running
 * (element + update) / 2): linear in data and the updates. gather_elements, gather_nd,
 * index_tensor, one_hot and slice_scatter read each output element from one input element.
 * argsort and topk insert each element of a row into the K-long result (below). Negative indices
 * count from the end of their dim; every kernel reading indices from a tensor (the gathers,
 * index_tensor and the scatters) checks them: one outside [-extent, extent) fails the kernel's
 * assertion "relax.<op>: an index is out of range" where topi reads or writes out of bounds.
 * one_hot's indices select no element (one out of range gives off_value everywhere, as
 * upstream's). index_put's index tensors and values must provably broadcast to the indexed
 * shape (a dim of 1, or equal to the extent): otherwise a ValueError, where a read would leave
 * the buffer.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }
static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

static int64_t norm_axis(int64_t axis, int64_t n) { return axis < 0 ? axis + n : axis; }

static int vars_for(int64_t n, void** v, const char* prefix) {
  if (n > MAX_DIMS) return tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
  return tvm_relax__kernel_vars(v, n, prefix);
}

/* An index loaded from an integer buffer, as int64, a negative one counted from extent. */
static void* load_index(tvm_tir_buffer_obj* b, int64_t n, void* const* ind, void* extent) {
  void* idx = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(b), n, ind));
  return tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(idx), tvm_tir_i64(0)),
                             tvm_tir_add_take(tvm_tir_ref(idx), tvm_tir_ref(extent)), idx);
}

/* b[...] broadcast numpy-style into a space of `total` dims indexed by vars (borrowed): b's
 * dims align to the right; a dim of constant 1 reads 0. */
static void* load_bcast(tvm_tir_buffer_obj* b, void* const* vars, int64_t total) {
  int64_t r = rank(b);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < r; ++i) {
    int64_t c;
    ind[i] = tvm_tir_as_const_int(dim(b, i), &c) && c == 1 ? (void*)tvm_tir_i64(0)
                                                           : tvm_tir_ref(vars[total - r + i]);
  }
  return tvm_tir_load_takev(tvm_tir_ref(b), r, ind);
}

/* acc (consumed) combined with x (consumed) by a scatter reduction. */
static void* reduce(const char* red, void* acc, void* x) {
  if (strcmp(red, "add") == 0) return tvm_tir_add_take(acc, x);
  if (strcmp(red, "mean") == 0) {
    DLDataType t = tvm_tir_expr_dtype(x);
    void* two = tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, 2) : tvm_tir_const_int(t, 2);
    return tvm_tir_div_take(tvm_tir_add_take(acc, x), two);
  }
  if (strcmp(red, "mul") == 0) return tvm_tir_mul_take(acc, x);
  if (strcmp(red, "max") == 0) return tvm_tir_max_take(acc, x);
  if (strcmp(red, "min") == 0) return tvm_tir_min_take(acc, x);
  tvm_ffi_release(acc);
  return x; /* update */
}

/* ---- scatter_elements ------------------------------------------------------------------------ */
/* out = data; then for each position p of indices (row-major): t = p with t[axis] = indices[p];
 * out[t] = f(out[t], updates[p]). Updates landing on one element arrive in the order of p[axis],
 * as upstream's serial loop along the axis. A t outside data (an index out of range, or indices
 * larger than data on another dim) fails the kernel's assertion. */
static void* scatter_elements_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                   int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj *data = in[0], *ind = in[1], *upd = in[2], *o = out[0];
  int64_t n = rank(o), axis = norm_axis(tvm_relax__call_attr_int(call, "axis", 0), n);
  void *cv[MAX_DIMS], *p[MAX_DIMS], *ext[MAX_DIMS];
  if (vars_for(n, cv, "c") != 0) return NULL;
  if (vars_for(n, p, "j") != 0) {
    tvm_relax__release_all(cv, n);
    return NULL;
  }
  void *di[MAX_DIMS], *ii[MAX_DIMS], *ui[MAX_DIMS], *ti[MAX_DIMS], *ri[MAX_DIMS];
  for (int64_t d = 0; d < n; ++d) {
    di[d] = tvm_tir_ref(cv[d]);
    ii[d] = tvm_tir_ref(p[d]);
    ui[d] = tvm_tir_ref(p[d]);
    ext[d] = dim(ind, d);
  }
  void* copy = tvm_relax__store_all(o, cv, tvm_tir_load_takev(tvm_tir_ref(data), n, di));
  void* t = load_index(ind, n, ii, dim(data, axis));
  void* inside = tvm_relax__in_range(t, dim(data, axis));
  for (int64_t d = 0; d < n; ++d) {
    ti[d] = d == axis ? tvm_tir_ref(t) : tvm_tir_ref(p[d]);
    ri[d] = d == axis ? tvm_tir_ref(t) : tvm_tir_ref(p[d]);
    /* indices may be smaller than data on the other dims, not larger */
    int64_t a, b;
    if (d != axis && !(tvm_tir_as_const_int(dim(ind, d), &a) &&
                       tvm_tir_as_const_int(dim(data, d), &b) && a <= b)) {
      inside = tvm_tir_and_take(inside, tvm_tir_lt_take(tvm_tir_ref(p[d]), tvm_tir_ref(dim(data, d))));
    }
  }
  tvm_ffi_release(t);
  void* cur = tvm_tir_load_takev(tvm_tir_ref(o), n, ri);
  void* val = tvm_tir_load_takev(tvm_tir_ref(upd), n, ui);
  void* st = tvm_tir_store_takev(
      tvm_tir_ref(o), reduce(tvm_relax__call_attr_str(call, "reduction", ""), cur, val), n, ti);
  st = tvm_relax__loop_nest(p, ext, n, NULL, tvm_relax__assert_indices(call, inside, st));
  tvm_relax__release_all(cv, n), tvm_relax__release_all(p, n);
  return tvm_tir_seq_take(copy, st);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_scatter_elements(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, scatter_elements_body);
}

/* ---- scatter_nd and index_put: linear scatter form ------------------------------------------ */
/*
 * out = data, then for each update position q (loops over qext) and each r of data's trailing
 * dims [k, n): t = (targets[0..k), r); out[t] = f(out[t], value). A target outside its dim fails
 * the kernel's assertion (checked per q, before its trailing loops). The targets and value are
 * built from the loop variables (q first, then the trailing ones). The loops are serial in index
 * order (the parallel schedule rule leaves loops whose stores depend on loaded indices alone), so
 * the last of duplicate updates wins, as upstream's.
 */
typedef void (*targets_fn)(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                           void* const* q, void* const* rest, void** targets, void** value);
static void* scatter_linear(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                            tvm_tir_buffer_obj* o, int64_t k, int64_t nq, void* const* qext,
                            const char* red, targets_fn make) {
  tvm_tir_buffer_obj* data = in[0];
  int64_t n = rank(o);
  void *ov[MAX_DIMS], *q[MAX_DIMS], *ext[MAX_DIMS];
  if (vars_for(n, ov, "i") != 0) return NULL;
  if (vars_for(nq, q, "j") != 0) {
    tvm_relax__release_all(ov, n);
    return NULL;
  }
  for (int64_t d = 0; d < n; ++d) ext[d] = dim(o, d);
  void *di[MAX_DIMS], *ti[MAX_DIMS], *ri[MAX_DIMS], *targets[MAX_DIMS], *value = NULL;
  void* cv[MAX_DIMS];
  if (tvm_relax__kernel_vars(cv, n, "c") != 0) {
    tvm_relax__release_all(ov, n), tvm_relax__release_all(q, nq);
    return NULL;
  }
  for (int64_t d = 0; d < n; ++d) di[d] = tvm_tir_ref(cv[d]);
  void* copy = tvm_relax__store_all(o, cv, tvm_tir_load_takev(tvm_tir_ref(data), n, di));
  tvm_relax__release_all(cv, n);
  make(call, in, nin, q, ov + k, targets, &value);
  void* inside = NULL;
  for (int64_t m = 0; m < k; ++m) {
    void* c = tvm_relax__in_range(targets[m], dim(data, m));
    inside = inside ? tvm_tir_and_take(inside, c) : c;
  }
  for (int64_t d = 0; d < n; ++d) {
    ti[d] = d < k ? tvm_tir_ref(targets[d]) : tvm_tir_ref(ov[d]);
    ri[d] = d < k ? tvm_tir_ref(targets[d]) : tvm_tir_ref(ov[d]);
  }
  tvm_relax__release_all(targets, k);
  void* cur = tvm_tir_load_takev(tvm_tir_ref(o), n, ri);
  void* st = tvm_tir_store_takev(tvm_tir_ref(o), reduce(red, cur, value), n, ti);
  st = tvm_relax__loop_nest(ov + k, ext + k, n - k, NULL, st);
  st = tvm_relax__loop_nest(q, qext, nq, NULL, tvm_relax__assert_indices(call, inside, st));
  tvm_relax__release_all(ov, n), tvm_relax__release_all(q, nq);
  return tvm_tir_seq_take(copy, st);
}

/* scatter_nd: targets indices[q, m]; value updates[q, rest]. */
static void scatter_nd_targets(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                               int nin, void* const* q, void* const* rest, void** targets,
                               void** value) {
  (void)call, (void)nin;
  tvm_tir_buffer_obj *data = in[0], *ind = in[1], *upd = in[2];
  int64_t ni = rank(ind), k = 0, n = rank(data);
  tvm_tir_as_const_int(dim(ind, ni - 1), &k);
  for (int64_t m = 0; m < k; ++m) {
    void* ii[MAX_DIMS];
    for (int64_t d = 0; d < ni - 1; ++d) ii[d] = tvm_tir_ref(q[d]);
    ii[ni - 1] = tvm_tir_i64(m);
    targets[m] = load_index(ind, ni, ii, dim(data, m));
  }
  void* ui[MAX_DIMS];
  int64_t nu = 0;
  for (int64_t d = 0; d < ni - 1; ++d) ui[nu++] = tvm_tir_ref(q[d]);
  for (int64_t d = k; d < n; ++d) ui[nu++] = tvm_tir_ref(rest[d - k]);
  *value = tvm_tir_load_takev(tvm_tir_ref(upd), nu, ui);
}

static void* scatter_nd_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                             tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  tvm_tir_buffer_obj* ind = in[1];
  int64_t n = rank(out[0]), ni = rank(ind), k;
  if (!tvm_tir_as_const_int(dim(ind, ni - 1), &k) || k < 1 || k > n) {
    tvm_ffi_raise("NotImplementedError",
                  "scatter_nd: the last dim of indices must be a constant in [1, %lld]", (long long)n);
    return NULL;
  }
  void* qext[MAX_DIMS];
  for (int64_t d = 0; d < ni - 1 && d < MAX_DIMS; ++d) qext[d] = dim(ind, d);
  return scatter_linear(call, in, nin, out[0], k, ni - 1, qext,
                        tvm_relax__call_attr_str(call, "reduction", ""), scatter_nd_targets);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_scatter_nd(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, scatter_nd_body);
}

/* index_put and index_tensor: the k index tensors in[1..k] broadcast together (right-aligned, a
 * dim of constant 1 read at 0) over the nb-dim loop space q; bcast_rank is nb. */
static int64_t bcast_rank(tvm_tir_buffer_obj* const* in, int64_t k) {
  int64_t nb = 0;
  for (int64_t m = 1; m <= k; ++m) nb = rank(in[m]) > nb ? rank(in[m]) : nb;
  return nb;
}

/* targets[m] (new references) = in[1 + m] read at q broadcast, a negative index counted from
 * the end of data's dim m, for the k index tensors. */
static void bcast_targets(tvm_tir_buffer_obj* const* in, int64_t k, void* const* q,
                          void** targets) {
  int64_t nb = bcast_rank(in, k);
  for (int64_t m = 0; m < k; ++m) {
    tvm_tir_buffer_obj* b = in[1 + m];
    int64_t r = rank(b);
    void* ii[MAX_DIMS];
    for (int64_t i = 0; i < r; ++i) {
      int64_t c;
      ii[i] = tvm_tir_as_const_int(dim(b, i), &c) && c == 1 ? (void*)tvm_tir_i64(0)
                                                            : tvm_tir_ref(q[nb - r + i]);
    }
    targets[m] = load_index(b, r, ii, dim(in[0], m));
  }
}

/* index_put: values broadcast against q + data.shape[k:]. */
static void index_put_targets(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                              int nin, void* const* q, void* const* rest, void** targets,
                              void** value) {
  (void)call;
  tvm_tir_buffer_obj *data = in[0], *vals = in[nin - 1];
  int64_t k = nin - 2, nb = bcast_rank(in, k), n = rank(data);
  bcast_targets(in, k, q, targets);
  void* full[MAX_DIMS];
  int64_t nf = 0;
  for (int64_t d = 0; d < nb; ++d) full[nf++] = q[d];
  for (int64_t d = k; d < n; ++d) full[nf++] = rest[d - k];
  *value = load_bcast(vals, full, nf);
}

/* Whether b broadcasts numpy-style into the space of `total` dims of extents ext (load_bcast's
 * reads stay inside b): rank at most total, each dim a constant 1 or provably its extent. */
static bool fits_bcast(tvm_tir_buffer_obj* b, void* const* ext, int64_t total) {
  int64_t r = rank(b), c;
  if (r > total) return false;
  for (int64_t i = 0; i < r; ++i) {
    void* d = dim(b, i);
    if (!(tvm_tir_as_const_int(d, &c) && c == 1) && !tvm_relax__dim_equal(d, ext[total - r + i])) {
      return false;
    }
  }
  return true;
}

static void* index_put_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                            tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  int64_t n = rank(out[0]), k = nin - 2, nb = bcast_rank(in, k);
  if (k < 1 || k > n || nb + n - k > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "index_put: %lld index tensors for %lld dims", (long long)k,
                  (long long)n);
    return NULL;
  }
  /* The broadcast extent per dim (from the right): the first that is not a constant 1. */
  void* one = tvm_tir_i64(1);
  void* qext[MAX_DIMS];
  for (int64_t d = 0; d < nb; ++d) {
    qext[d] = one;
    for (int64_t m = 0; m < k; ++m) {
      int64_t r = rank(in[1 + m]), c, di = d - (nb - r);
      if (di < 0) continue;
      if (!(tvm_tir_as_const_int(dim(in[1 + m], di), &c) && c == 1)) {
        qext[d] = dim(in[1 + m], di);
        break;
      }
    }
  }
  /* The index tensors broadcast to qext, and values to qext + data.shape[k:] (inference refused
   * a provable mismatch; one not provably absent would read past a buffer). */
  void* full[MAX_DIMS];
  for (int64_t d = 0; d < nb; ++d) full[d] = qext[d];
  for (int64_t d = k; d < n; ++d) full[nb + d - k] = dim(in[0], d);
  bool fits = fits_bcast(in[nin - 1], full, nb + n - k);
  for (int64_t m = 0; fits && m < k; ++m) fits = fits_bcast(in[1 + m], qext, nb);
  void* body = NULL;
  if (!fits) {
    tvm_ffi_raise("ValueError", "index_put: the index tensors and values are not known to "
                  "broadcast to the indexed shape (broadcast indices, then data's dims after "
                  "the indexed ones)");
  } else {
    body = scatter_linear(
        call, in, nin, out[0], k, nb, qext,
        tvm_relax__call_attr_bool(call, "accumulate", false) ? "add" : "update",
        index_put_targets);
  }
  tvm_ffi_release(one);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_index_put(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, index_put_body);
}

/* ---- gather_elements, one_hot, slice_scatter ------------------------------------------------- */
/* out[o] = stmt(o) over out's whole shape; `make` builds the statement from the loop vars. */
typedef void* (*elem_fn)(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                         tvm_tir_buffer_obj* out, void* const* v);
static void* per_element(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                         tvm_tir_buffer_obj* out, elem_fn make) {
  int64_t n = rank(out);
  void *v[MAX_DIMS], *ext[MAX_DIMS];
  if (vars_for(n, v, "i") != 0) return NULL;
  for (int64_t i = 0; i < n; ++i) ext[i] = dim(out, i);
  void* stmt = make(call, in, out, v);
  void* body = stmt ? tvm_relax__loop_nest(v, ext, n, NULL, stmt) : NULL;
  tvm_relax__release_all(v, n);
  return body;
}

static void* store_at(tvm_tir_buffer_obj* out, void* const* v, void* value) {
  int64_t n = rank(out);
  void* oi[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) oi[i] = tvm_tir_ref(v[i]);
  return tvm_tir_store_takev(tvm_tir_ref(out), value, n, oi);
}

/* out[p] = data[p with p[axis] = indices[p]]. The index must be inside data's dim on the axis
 * (after a negative one counted from the end), and on the other dims indices must not be larger
 * than data (topi reads both unchecked): otherwise the kernel's assertion fails. */
static void* gather_elements_elem(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                  tvm_tir_buffer_obj* out, void* const* v) {
  tvm_tir_buffer_obj *data = in[0], *ind = in[1];
  int64_t n = rank(out), axis = norm_axis(tvm_relax__call_attr_int(call, "axis", 0), n);
  void *ii[MAX_DIMS], *di[MAX_DIMS];
  for (int64_t d = 0; d < n; ++d) ii[d] = tvm_tir_ref(v[d]);
  void* idx = load_index(ind, n, ii, dim(data, axis));
  void* ok = tvm_relax__in_range(idx, dim(data, axis));
  for (int64_t d = 0; d < n; ++d) {
    int64_t a, b;
    if (d != axis && !(tvm_tir_as_const_int(dim(ind, d), &a) &&
                       tvm_tir_as_const_int(dim(data, d), &b) && a <= b)) {
      ok = tvm_tir_and_take(ok, tvm_tir_lt_take(tvm_tir_ref(v[d]), tvm_tir_ref(dim(data, d))));
    }
    di[d] = d == axis ? idx : tvm_tir_ref(v[d]);
  }
  void* store = store_at(out, v, tvm_tir_load_takev(tvm_tir_ref(data), n, di));
  return tvm_relax__assert_indices(call, ok, store);
}

static void* gather_elements_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                  int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return per_element(call, in, out[0], gather_elements_elem);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_gather_elements(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, gather_elements_body);
}

/*
 * gather_nd: out[b, x, t] = data[b, indices[b, x, 0], ..., indices[b, x, l - 1], t] for the
 * batch_dims leading dims b, the other dims x of indices and data's trailing dims t. A negative
 * index counts from the end of its dim; one outside the dim stops the kernel with an error
 * (topi reads it unchecked), checked once per index tuple, outside the loops over t. The batch
 * dims of data and indices must be equal (inference lets symbolic ones through that may
 * differ): checked once, before the loops, where they are not known equal.
 */
static void* gather_nd_store(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                             tvm_tir_buffer_obj* out, void* const* v, void** ok) {
  tvm_tir_buffer_obj *data = in[0], *ind = in[1];
  int64_t dn = rank(data), in_n = rank(ind), bd = tvm_relax__call_attr_int(call, "batch_dims", 0);
  int64_t l = 0;
  if (!tvm_tir_as_const_int(dim(ind, in_n - 1), &l) || bd < 0 || l < 0 || bd + l > dn ||
      bd > in_n - 1 || in_n - 1 + dn - bd - l != rank(out)) {
    tvm_ffi_raise("ValueError", "relax.gather_nd: the ranks do not fit batch_dims %lld",
                  (long long)bd);
    return NULL;
  }
  void* di[MAX_DIMS];
  *ok = tvm_tir_bool(true);
  for (int64_t i = 0; i < bd; ++i) di[i] = tvm_tir_ref(v[i]);
  for (int64_t k = 0; k < l; ++k) {
    void* ii[MAX_DIMS];
    for (int64_t i = 0; i < in_n - 1; ++i) ii[i] = tvm_tir_ref(v[i]);
    ii[in_n - 1] = tvm_tir_i64(k);
    void* idx = load_index(ind, in_n, ii, dim(data, bd + k));
    *ok = tvm_tir_and_take(*ok, tvm_relax__in_range(idx, dim(data, bd + k)));
    di[bd + k] = idx;
  }
  for (int64_t i = bd + l; i < dn; ++i) di[i] = tvm_tir_ref(v[in_n - 1 + i - bd - l]);
  return store_at(out, v, tvm_tir_load_takev(tvm_tir_ref(data), dn, di));
}

/* The condition that data's and indices' first bd dims are equal (true when known equal). */
static void* same_batch_dims(tvm_tir_buffer_obj* data, tvm_tir_buffer_obj* ind, int64_t bd) {
  void* same = tvm_tir_bool(true);
  for (int64_t i = 0; i < bd; ++i) {
    int64_t a, b;
    if (!(tvm_tir_as_const_int(dim(data, i), &a) && tvm_tir_as_const_int(dim(ind, i), &b) &&
          a == b) &&
        dim(data, i) != dim(ind, i)) {
      same = tvm_tir_and_take(same, tvm_tir_eq_take(tvm_tir_ref(dim(data, i)),
                                                    tvm_tir_ref(dim(ind, i))));
    }
  }
  return same;
}

static void* gather_nd_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                            int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj* o = out[0];
  int64_t n = rank(o), nx = rank(in[1]) - 1;
  if (rank(in[0]) > MAX_DIMS || rank(in[1]) > MAX_DIMS || n > MAX_DIMS || nx < 0) {
    tvm_ffi_raise("ValueError", "relax.gather_nd: more than %d dims", MAX_DIMS);
    return NULL;
  }
  void *v[MAX_DIMS], *ext[MAX_DIMS], *ok = NULL;
  if (vars_for(n, v, "i") != 0) return NULL;
  for (int64_t i = 0; i < n; ++i) ext[i] = dim(o, i);
  void* store = gather_nd_store(call, in, o, v, &ok);
  void* body = NULL;
  if (store) {
    body = tvm_relax__loop_nest(v + nx, ext + nx, n - nx, NULL, store);
    body = tvm_relax__assert_indices(call, ok, body);
    body = tvm_relax__loop_nest(v, ext, nx, NULL, body);
    void* same = same_batch_dims(in[0], in[1], tvm_relax__call_attr_int(call, "batch_dims", 0));
    int64_t holds;
    if (tvm_tir_as_const_int(same, &holds) && holds) {
      tvm_ffi_release(same);
    } else {
      body = tvm_tir_assert_take(same, "relax.gather_nd: the batch dims of data and indices differ",
                                 body);
    }
  } else {
    tvm_ffi_release(ok);
  }
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_gather_nd(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, gather_nd_body);
}

/*
 * index_tensor: out[b, r] = data[t_0(b), ..., t_{k-1}(b), r] for b over the nb broadcast dims of
 * the k index tensors (t_m: in[1 + m] read at b broadcast, a negative index counted from the end
 * of data's dim m) and r over data's trailing dims [k, n). An index outside its dim fails the
 * kernel's assertion "relax.index_tensor: an index is out of range", as index_put's and the
 * gathers' do (topi reads it unchecked); checked once per b, outside the loops over r.
 */
static void* index_tensor_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                               int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  tvm_tir_buffer_obj *data = in[0], *o = out[0];
  int64_t n = rank(data), k = nin - 1, nb = bcast_rank(in, k), no = rank(o);
  if (k < 1 || k > n || n > MAX_DIMS || no != nb + n - k) {
    tvm_ffi_raise("ValueError", "relax.index_tensor: %lld index tensors of rank up to %lld for "
                  "%lld dims and an output of %lld", (long long)k, (long long)nb, (long long)n,
                  (long long)no);
    return NULL;
  }
  void *v[MAX_DIMS], *ext[MAX_DIMS], *di[MAX_DIMS], *ok = NULL;
  if (vars_for(no, v, "i") != 0) return NULL;
  for (int64_t d = 0; d < no; ++d) ext[d] = dim(o, d);
  bcast_targets(in, k, v, di);
  for (int64_t m = 0; m < k; ++m) {
    void* c = tvm_relax__in_range(di[m], dim(data, m));
    ok = ok ? tvm_tir_and_take(ok, c) : c;
  }
  for (int64_t d = k; d < n; ++d) di[d] = tvm_tir_ref(v[nb + d - k]);
  void* body = store_at(o, v, tvm_tir_load_takev(tvm_tir_ref(data), n, di));
  body = tvm_relax__loop_nest(v + nb, ext + nb, no - nb, NULL, body);
  body = tvm_relax__loop_nest(v, ext, nb, NULL, tvm_relax__assert_indices(call, ok, body));
  tvm_relax__release_all(v, no);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_index_tensor(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, index_tensor_body);
}

/* A constant R.Prim argument as a constant of dtype t (NULL + NotImplementedError otherwise). */
static void* prim_const(const tvm_relax_call_obj* call, int64_t i, DLDataType t) {
  double c;
  if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, i), &c)) {
    tvm_ffi_raise("NotImplementedError", "%s: argument %lld must be a constant",
                  tvm_relax_op_info_of(call->op)->name, (long long)i);
    return NULL;
  }
  return tvm_tir_dtype_is_floating(t) ? tvm_tir_const_float(t, c) : tvm_tir_const_int(t, (int64_t)c);
}

static void* one_hot_elem(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                          tvm_tir_buffer_obj* out, void* const* v) {
  int64_t n = rank(out), axis = norm_axis(tvm_relax__call_attr_int(call, "axis", -1), n);
  void* on = prim_const(call, 1, out->dtype);
  void* off = on ? prim_const(call, 2, out->dtype) : NULL;
  if (!off) {
    tvm_ffi_release(on);
    return NULL;
  }
  void* ii[MAX_DIMS];
  int64_t r = 0;
  for (int64_t d = 0; d < n; ++d) {
    if (d != axis) ii[r++] = tvm_tir_ref(v[d]);
  }
  void* idx = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ii));
  void* hit = tvm_tir_eq_take(idx, tvm_tir_ref(v[axis]));
  return store_at(out, v, tvm_tir_select_take(hit, on, off));
}

static void* one_hot_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                          tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return per_element(call, in, out[0], one_hot_elem);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_one_hot(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, one_hot_body);
}

static void* slice_scatter_elem(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                tvm_tir_buffer_obj* out, void* const* v) {
  int64_t n = rank(out), axis = norm_axis(tvm_relax__call_attr_int(call, "axis", 0), n);
  double sv[3];
  for (int i = 0; i < 3; ++i) {
    if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 2 + i), &sv[i])) {
      tvm_ffi_raise("NotImplementedError", "slice_scatter: start, end and step must be constants");
      return NULL;
    }
  }
  int64_t step = (int64_t)sv[2];
  void* ext = dim(in[0], axis);
  /* start as Python slicing: a negative one counts from the end; clamped to [0, extent]. */
  int64_t s0 = (int64_t)sv[0];
  void* start = s0 < 0 ? tvm_tir_add_take(tvm_tir_i64(s0), tvm_tir_ref(ext)) : (void*)tvm_tir_i64(s0);
  start = tvm_tir_min_take(tvm_tir_max_take(start, tvm_tir_i64(0)), tvm_tir_ref(ext));
  /* src's dim on the axis bounds the slice (the inference rule checked it against end). */
  void* off = tvm_tir_sub_take(tvm_tir_ref(v[axis]), tvm_tir_ref(start));
  void* pos = tvm_tir_floordiv_take(tvm_tir_ref(off), tvm_tir_i64(step));
  void* cond = tvm_tir_and_take(
      tvm_tir_and_take(tvm_tir_ge_take(tvm_tir_ref(off), tvm_tir_i64(0)),
                       tvm_tir_eq_take(tvm_tir_floormod_take(tvm_tir_ref(off), tvm_tir_i64(step)),
                                       tvm_tir_i64(0))),
      tvm_tir_lt_take(tvm_tir_ref(pos), tvm_tir_ref(dim(in[1], axis))));
  tvm_ffi_release(off), tvm_ffi_release(start);
  void *si[MAX_DIMS], *ii[MAX_DIMS];
  for (int64_t d = 0; d < n; ++d) {
    si[d] = d == axis ? tvm_tir_ref(pos) : tvm_tir_ref(v[d]);
    ii[d] = tvm_tir_ref(v[d]);
  }
  tvm_ffi_release(pos);
  void* from_src = store_at(out, v, tvm_tir_load_takev(tvm_tir_ref(in[1]), n, si));
  void* from_in = store_at(out, v, tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ii));
  return tvm_tir_if_take(cond, from_src, from_in);
}

static void* slice_scatter_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return per_element(call, in, out[0], slice_scatter_elem);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_slice_scatter(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, slice_scatter_body);
}

/* ---- argsort, sort and topk ------------------------------------------------------------------ */
/*
 * Per row along the axis, an insertion into the K-long result (K = the outputs' extent on the
 * axis: n for argsort and sort, k for topk): for each element i in order, its position pos = the number
 * of kept entries that come before it (larger, or smaller when ascending; an equal kept entry
 * came earlier, so it stays first: a stable order); if pos < K the entries from pos on move one
 * place down (the last one falls off) and i goes at pos. O(n * K) per row. The kept values are
 * read from the values output, or through the kept indices when only indices are returned.
 */
/* buf[v with the axis replaced by at] (at consumed). */
static void* row_load(void* const* v, int64_t n, int64_t axis, tvm_tir_buffer_obj* buf, void* at) {
  void* ix[MAX_DIMS];
  for (int64_t d = 0; d < n; ++d) ix[d] = d == axis ? tvm_tir_ref(at) : tvm_tir_ref(v[d]);
  tvm_ffi_release(at);
  return tvm_tir_load_takev(tvm_tir_ref(buf), n, ix);
}

static void* sort_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin;
  tvm_relax_op_id id = tvm_relax_op_info_of(call->op)->id;
  bool topk = id == TVM_RELAX_OP_topk;
  tvm_tir_buffer_obj* x = in[0];
  int64_t n = rank(x), axis = norm_axis(tvm_relax__call_attr_int(call, "axis", -1), n);
  bool desc = topk ? tvm_relax__call_attr_bool(call, "largest", false)
                   : tvm_relax__call_attr_bool(call, "descending", false);
  tvm_tir_buffer_obj *ov = NULL, *oi = NULL;
  if (id == TVM_RELAX_OP_sort) {
    ov = out[0];
  } else if (!topk) {
    oi = out[0];
  } else {
    const char* rt = tvm_relax__call_attr_str(call, "ret_type", "");
    if (strcmp(rt, "values") == 0) ov = out[0];
    else if (strcmp(rt, "indices") == 0) oi = out[0];
    else if (nout == 2) ov = out[0], oi = out[1];
  }
  void* K = dim(ov ? ov : oi, axis);
  void *v[MAX_DIMS], *w[3], *ext[MAX_DIMS];
  if (vars_for(n, v, "i") != 0) return NULL;
  if (tvm_relax__kernel_vars(w, 3, "j") != 0) {
    tvm_relax__release_all(v, n);
    return NULL;
  }
  void *j = w[0], *s = w[1], *i = v[axis];
  for (int64_t d = 0; d < n; ++d) ext[d] = dim(x, d);
  tvm_tir_buffer_obj* pos = tvm_relax__scratch("pos", TVM_TIR_INT64);
  /* fill = min(i, K) */
  void* fill = tvm_tir_min_take(tvm_tir_ref(i), tvm_tir_ref(K));
  void* xi = row_load(v, n, axis, x, tvm_tir_ref(i));
  void* at_j = ov ? row_load(v, n, axis, ov, tvm_tir_ref(j))
                  : row_load(v, n, axis, x, tvm_tir_cast_take(TVM_TIR_INT64, row_load(v, n, axis, oi, tvm_tir_ref(j))));
  void* before = desc ? tvm_tir_ge_take(at_j, xi) : tvm_tir_le_take(at_j, xi);
  void* count = tvm_tir_serial_take(
      tvm_tir_ref(j), tvm_tir_i64(0), tvm_tir_ref(fill),
      tvm_tir_if_take(before,
                      tvm_relax__scratch_store(pos, tvm_tir_add_take(tvm_relax__scratch_load(pos),
                                                                     tvm_tir_i64(1))),
                      NULL));
  /* Shift slots [pos, fill) down by one, from the last (m = fill - 1 - s); slot K falls off. */
  void* shift = NULL;
  for (int b = 0; b < 2; ++b) {
    tvm_tir_buffer_obj* o = b == 0 ? ov : oi;
    if (!o) continue;
    void* m = tvm_tir_sub_take(tvm_tir_sub_take(tvm_tir_ref(fill), tvm_tir_i64(1)), tvm_tir_ref(s));
    void* src = row_load(v, n, axis, o, tvm_tir_ref(m));
    void* dst[MAX_DIMS];
    for (int64_t d = 0; d < n; ++d) {
      dst[d] = d == axis ? tvm_tir_add_take(tvm_tir_ref(m), tvm_tir_i64(1)) : tvm_tir_ref(v[d]);
    }
    void* mv = tvm_tir_if_take(tvm_tir_lt_take(tvm_tir_add_take(tvm_tir_ref(m), tvm_tir_i64(1)), tvm_tir_ref(K)),
                               tvm_tir_store_takev(tvm_tir_ref(o), src, n, dst), NULL);
    tvm_ffi_release(m);
    shift = shift ? tvm_tir_seq_take(shift, mv) : mv;
  }
  shift = tvm_tir_serial_take(tvm_tir_ref(s), tvm_tir_i64(0),
                              tvm_tir_sub_take(tvm_tir_ref(fill), tvm_relax__scratch_load(pos)), shift);
  void* put = NULL;
  for (int b = 0; b < 2; ++b) {
    tvm_tir_buffer_obj* o = b == 0 ? ov : oi;
    if (!o) continue;
    void* dst[MAX_DIMS];
    for (int64_t d = 0; d < n; ++d) dst[d] = d == axis ? tvm_relax__scratch_load(pos) : tvm_tir_ref(v[d]);
    void* val = b == 0 ? row_load(v, n, axis, x, tvm_tir_ref(i)) : tvm_tir_cast_take(o->dtype, tvm_tir_ref(i));
    void* st = tvm_tir_store_takev(tvm_tir_ref(o), val, n, dst);
    put = put ? tvm_tir_seq_take(put, st) : st;
  }
  void* insert = tvm_tir_if_take(tvm_tir_lt_take(tvm_relax__scratch_load(pos), tvm_tir_ref(K)),
                                 tvm_tir_seq_take(shift, put), NULL);
  void* per_i = tvm_tir_seq_take(tvm_tir_seq_take(tvm_relax__scratch_store(pos, tvm_tir_i64(0)), count),
                                 insert);
  tvm_ffi_release(fill);
  /* The rows: every dim but the axis, then i along the axis, in order. */
  bool outer[MAX_DIMS];
  for (int64_t d = 0; d < n; ++d) outer[d] = d != axis;
  void* row = tvm_tir_serial_take(tvm_tir_ref(i), tvm_tir_i64(0), tvm_tir_ref(ext[axis]),
                                  tvm_relax__scratch_scope(pos, per_i));
  void* body = tvm_relax__loop_nest(v, ext, n, outer, row);
  tvm_ffi_release(pos);
  tvm_relax__release_all(w, 3);
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_sort(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, sort_body);
}

/* ---- einsum ---------------------------------------------------------------------------------- */
/* out[o] = sum over the labels not in the output of the product of the operands, each read at
 * its labels' loop variables (a dim of constant 1 reads 0: it broadcasts). */
static void* einsum_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  tvm_tir_buffer_obj* o = out[0];
  int32_t ndims[TVM_RELAX_EINSUM_MAX_OPS];
  for (int i = 0; i < nin && i < TVM_RELAX_EINSUM_MAX_OPS; ++i) ndims[i] = (int32_t)rank(in[i]);
  tvm_relax__einsum e;
  tvm_ffi_strbuf err = {0};
  if (tvm_relax__einsum_parse(tvm_relax__call_attr_str(call, "subscripts", ""), ndims, nin, &e,
                              &err) != 0) {
    tvm_ffi_raise("ValueError", "einsum: %s", tvm_ffi_strbuf_cstr(&err));
    tvm_ffi_strbuf_free(&err);
    return NULL;
  }
  /* One loop variable per label: the output's first, then the summed ones. */
  void* var[TVM_RELAX_EINSUM_LABELS] = {NULL};
  void* ext[TVM_RELAX_EINSUM_LABELS] = {NULL};
  for (int i = 0; i < nin; ++i) {
    for (int d = 0; d < e.ndim[i]; ++d) {
      int l = e.labels[i][d];
      int64_t c;
      if (!ext[l] || (tvm_tir_as_const_int(ext[l], &c) && c == 1)) ext[l] = dim(in[i], d);
    }
  }
  int order[TVM_RELAX_EINSUM_LABELS], n = 0;
  bool in_out[TVM_RELAX_EINSUM_LABELS] = {false};
  for (int k = 0; k < e.n_out; ++k) order[n++] = e.out[k], in_out[e.out[k]] = true;
  int n_sum = 0;
  for (int l = 0; l < TVM_RELAX_EINSUM_LABELS; ++l) {
    if (ext[l] && !in_out[l]) order[n++] = l, ++n_sum;
  }
  void *vars[TVM_RELAX_EINSUM_LABELS], *exts[TVM_RELAX_EINSUM_LABELS];
  if (tvm_relax__kernel_vars(vars, n, "k") != 0) return NULL;
  for (int k = 0; k < n; ++k) var[order[k]] = vars[k], exts[k] = ext[order[k]];
  void* prod = NULL;
  for (int i = 0; i < nin; ++i) {
    void* ind[TVM_RELAX_EINSUM_MAX_DIMS];
    for (int d = 0; d < e.ndim[i]; ++d) {
      int64_t c;
      int l = e.labels[i][d];
      ind[d] = tvm_tir_as_const_int(dim(in[i], d), &c) && c == 1
                   ? (void*)tvm_tir_i64(0)
                   : tvm_tir_ref(var[l]);
    }
    void* x = tvm_tir_cast_take(o->dtype, tvm_tir_load_takev(tvm_tir_ref(in[i]), e.ndim[i], ind));
    prod = prod ? tvm_tir_mul_take(prod, x) : x;
  }
  void* oi[TVM_RELAX_EINSUM_MAX_DIMS];
  for (int k = 0; k < e.n_out; ++k) oi[k] = tvm_tir_ref(vars[k]);
  void* body;
  if (n_sum == 0) {
    body = tvm_tir_store_takev(tvm_tir_ref(o), prod, e.n_out, oi);
  } else {
    tvm_tir_buffer_obj* acc = tvm_relax__scratch("acc", o->dtype);
    void* zero = tvm_tir_dtype_is_floating(o->dtype) ? tvm_tir_const_float(o->dtype, 0)
                                                     : tvm_tir_const_int(o->dtype, 0);
    void* step = tvm_relax__scratch_store(acc, tvm_tir_add_take(tvm_relax__scratch_load(acc), prod));
    void* sum = tvm_relax__loop_nest(vars + e.n_out, exts + e.n_out, n_sum, NULL, step);
    body = tvm_tir_seq_take(tvm_tir_seq_take(tvm_relax__scratch_store(acc, zero), sum),
                            tvm_tir_store_takev(tvm_tir_ref(o), tvm_relax__scratch_load(acc), e.n_out, oi));
    body = tvm_relax__scratch_scope(acc, body);
    tvm_ffi_release(acc);
  }
  body = tvm_relax__loop_nest(vars, exts, e.n_out, NULL, body);
  tvm_relax__release_all(vars, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_einsum(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, einsum_body);
}
