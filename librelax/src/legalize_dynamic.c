/*
 * legalize_dynamic.c: the kernels of the operators whose output shape depends on the data
 * (dynamic_strided_slice, nonzero, unique).
 *
 * LegalizeOps lowers such a call in upstream's way (legalize_ops/index.py's
 * dynamic_strided_slice): a first kernel writes the output's shape into a 1-d int64 tensor,
 * R.tensor_to_shape makes it a Shape, an R.match_cast binds it to new symbolic variables, and
 * the second kernel, whose output buffer has those dims, computes the values (legalize.c emits
 * the bindings). Upstream runs nonzero and unique through NumPy packed functions; here each is
 * the same pair of TIR kernels: a count, then the fill.
 */
#include <stdio.h>
#include <string.h>

#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }
static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

/* ---- dynamic_strided_slice ------------------------------------------------------------------- */
/* v[d] of a 1-d integer buffer, as int64. */
static void* load_i64(tvm_tir_buffer_obj* v, int64_t d) {
  return tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_take(tvm_tir_ref(v), tvm_tir_i64(d)));
}

/* Python's index canonicalisation, as upstream's shape function: a negative index counts from
 * ext, then the index is clamped into [0, ext] for a positive stride, [-1, ext - 1] for a
 * negative one. idx, neg consumed; ext borrowed. */
static void* canon_index(void* idx, void* neg, void* ext) {
  void* lo = tvm_tir_select_take(tvm_tir_ref(neg), tvm_tir_i64(-1), tvm_tir_i64(0));
  void* hi = tvm_tir_select_take(tvm_tir_ref(neg), tvm_tir_sub_take(tvm_tir_ref(ext), tvm_tir_i64(1)),
                                 tvm_tir_ref(ext));
  tvm_ffi_release(neg);
  void* wrapped = tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(idx), tvm_tir_i64(0)),
                                      tvm_tir_add_take(tvm_tir_ref(idx), tvm_tir_ref(ext)), idx);
  return tvm_tir_min_take(tvm_tir_max_take(wrapped, lo), hi);
}

/* The canonical begin of dim d (x's extent ext, borrowed). */
static void* slice_begin(tvm_tir_buffer_obj* const* in, int64_t d, void* ext) {
  void* neg = tvm_tir_lt_take(load_i64(in[3], d), tvm_tir_i64(0));
  return canon_index(load_i64(in[1], d), neg, ext);
}

/* The length of dim d: ceil((end - begin) / stride) for a positive stride, ceil((begin - end) /
 * -stride) for a negative one, 0 when negative (Python's empty slice; upstream's shape function
 * lets a negative length through to the allocation). */
static void* slice_length(tvm_tir_buffer_obj* const* in, int64_t d, void* ext) {
  void* s = load_i64(in[3], d);
  void* b = slice_begin(in, d, ext);
  void* e = canon_index(load_i64(in[2], d), tvm_tir_lt_take(tvm_tir_ref(s), tvm_tir_i64(0)), ext);
  void* neg = tvm_tir_lt_take(tvm_tir_ref(s), tvm_tir_i64(0));
  void* span = tvm_tir_select_take(tvm_tir_ref(neg), tvm_tir_sub_take(tvm_tir_ref(b), tvm_tir_ref(e)),
                                   tvm_tir_sub_take(tvm_tir_ref(e), tvm_tir_ref(b)));
  void* mag = tvm_tir_select_take(neg, tvm_tir_neg_take(tvm_tir_ref(s)), tvm_tir_ref(s));
  tvm_ffi_release(s), tvm_ffi_release(b), tvm_ffi_release(e);
  void* len = tvm_tir_floordiv_take(tvm_tir_sub_take(tvm_tir_add_take(span, tvm_tir_ref(mag)), tvm_tir_i64(1)), mag);
  return tvm_tir_max_take(len, tvm_tir_i64(0));
}

/* shape[d] = the length of dim d, after checking that no stride is 0 (Python's ValueError; a
 * zero stride would divide by zero). */
static void* dslice_shape_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                               int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin, (void)nout;
  int64_t r = rank(in[0]);
  void* stmts[MAX_DIMS + 1];
  void* nonzero = tvm_tir_bool(true);
  for (int64_t d = 0; d < r; ++d) {
    nonzero = tvm_tir_and_take(nonzero, tvm_tir_ne_take(load_i64(in[3], d), tvm_tir_i64(0)));
    stmts[d] = tvm_tir_store_take(tvm_tir_ref(out[0]), slice_length(in, d, dim(in[0], d)), tvm_tir_i64(d));
  }
  void* body = tvm_tir_seq_takev(r, stmts);
  return tvm_tir_assert_take(nonzero, "relax.dynamic_strided_slice: a stride is 0", body);
}

/* out[o] = x[begin_d + o_d * stride_d for each d]: inside x, since the output's dims are the
 * lengths the shape kernel computed from the same canonical begin and end. */
static void* dslice_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin, (void)nout;
  int64_t r = rank(in[0]);
  void *o[MAX_DIMS], *ind[MAX_DIMS];
  if (tvm_relax__kernel_vars(o, r, "i") != 0) return NULL;
  for (int64_t d = 0; d < r; ++d) {
    ind[d] = tvm_tir_add_take(slice_begin(in, d, dim(in[0], d)),
                              tvm_tir_mul_take(tvm_tir_ref(o[d]), load_i64(in[3], d)));
  }
  void* body = tvm_relax__store_all(out[0], o, tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ind));
  tvm_relax__release_all(o, r);
  return body;
}

/* ---- nonzero --------------------------------------------------------------------------------- */
/* x[idx] != 0 (idx borrowed); NaN counts as nonzero, as in NumPy. */
static void* is_nonzero(tvm_tir_buffer_obj* x, void* const* idx, int64_t r) {
  void* ind[MAX_DIMS];
  for (int64_t d = 0; d < r; ++d) ind[d] = tvm_tir_ref(idx[d]);
  void* v = tvm_tir_load_takev(tvm_tir_ref(x), r, ind);
  DLDataType t = x->dtype;
  if (t.code == kDLBool || (t.code == kDLUInt && t.bits == 1)) return v;
  void* zero = tvm_tir_dtype_is_floating(t) ? (void*)tvm_tir_const_float(t, 0) : (void*)tvm_tir_const(t, 0);
  return tvm_tir_ne_take(v, zero);
}

/* The count (fill false) or fill kernel of nonzero: a serial scan of x in row-major order with
 * k, the number of nonzero elements seen, in a scratch counter. The count writes (rows, k), rows
 * = max(ndim, 1) (NumPy's atleast_1d: a 0-d x gives one row of zeros); the fill writes the
 * index of the k-th nonzero element into column k. */
static void* nonzero_kernel(tvm_tir_buffer_obj* x, tvm_tir_buffer_obj* out, bool fill) {
  int64_t r = rank(x);
  void *idx[MAX_DIMS], *ext[MAX_DIMS];
  if (tvm_relax__kernel_vars(idx, r, "i") != 0) return NULL;
  tvm_tir_buffer_obj* k = tvm_relax__scratch("count", TVM_TIR_INT64);
  if (!k) {
    tvm_relax__release_all(idx, r);
    return NULL;
  }
  void* hit = tvm_relax__scratch_store(k, tvm_tir_add_take(tvm_relax__scratch_load(k), tvm_tir_i64(1)));
  if (fill) {
    void* st[MAX_DIMS + 1];
    int64_t rows = r ? r : 1;
    for (int64_t d = 0; d < rows; ++d) {
      st[d] = tvm_tir_store_take(tvm_tir_ref(out), r ? tvm_tir_ref(idx[d]) : (void*)tvm_tir_i64(0),
                                 tvm_tir_i64(d), tvm_relax__scratch_load(k));
    }
    st[rows] = hit;
    hit = tvm_tir_seq_takev(rows + 1, st);
  }
  for (int64_t d = 0; d < r; ++d) ext[d] = dim(x, d);
  void* loop = tvm_relax__loop_nest(idx, ext, r, NULL, tvm_tir_if_take(is_nonzero(x, idx, r), hit, NULL));
  void* body;
  if (fill) {
    body = tvm_tir_seq_take(tvm_relax__scratch_store(k, tvm_tir_i64(0)), loop);
  } else {
    body = tvm_tir_seq_take(tvm_relax__scratch_store(k, tvm_tir_i64(0)), loop,
                            tvm_tir_store_take(tvm_tir_ref(out), tvm_tir_i64(r ? r : 1), tvm_tir_i64(0)),
                            tvm_tir_store_take(tvm_tir_ref(out), tvm_relax__scratch_load(k), tvm_tir_i64(1)));
  }
  tvm_relax__release_all(idx, r);
  body = tvm_relax__scratch_scope(k, body);
  tvm_ffi_release(k);
  return body;
}

static void* nonzero_count_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin, (void)nout;
  return nonzero_kernel(in[0], out[0], false);
}

static void* nonzero_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                          tvm_tir_buffer_obj* const* out, int nout) {
  (void)call, (void)nin, (void)nout;
  return nonzero_kernel(in[0], out[0], true);
}

/* ---- unique ---------------------------------------------------------------------------------- */
/*
 * unique compares slices of x: with axis None the A = numel(x) elements of the flattened x
 * (slices of M = 1 element), along an axis the A = x.shape[axis] slices of M = numel / A
 * elements, ordered lexicographically (numpy's unique with an axis). Elements compare as
 * numbers, a NaN after every number and equal to any NaN: numpy >= 1.21 (equal_nan=True)
 * collapses the NaNs of a flattened x into one, sorted last; along an axis numpy keeps rows
 * holding a NaN apart, here they collapse too. Of equal values, numpy's sort may keep either of
 * -0.0 and 0.0; here the first occurrence's is kept.
 *
 * Upstream calls NumPy at run time; here two TIR kernels, O(A^2 M) and no memory beyond a few
 * scalars, so the evaluator and compiled code run the same loops:
 *   the shape kernel counts K, the slices with no equal slice before them (first occurrences);
 *   the value kernel writes every requested result at once. Unsorted, it walks the first
 *   occurrences in order (each other slice's inverse is its first equal slice's); sorted, for
 *   k < K it finds the smallest slice after the previous one (the first of equal ones, so
 *   index[k] is the first occurrence, as numpy's stable return_index), then scans for the
 *   slices equal to it (counts[k] and their inverse k).
 * The value kernel's writes at a running count are guarded by K (the output's dim), so a count
 * that disagreed with the shape kernel could not write out of bounds.
 */
typedef struct {
  bool sorted, ret[3]; /* ret: return_index, return_inverse, return_counts */
  int64_t axis;        /* normalised; -1: None (flattened) */
} unique_flags;

/* The constant flags and axis of a unique call (x of rank r): 0, or -1 + NotImplementedError
 * for a value known at run time only (upstream's NumPy function reads them then). */
static int unique_flags_of(const tvm_relax_call_obj* call, int64_t r, unique_flags* f) {
  static const char* const names[5] = {"", "sorted", "return_index", "return_inverse",
                                       "return_counts"};
  for (int i = 1; i < 5; ++i) {
    double v;
    if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, i), &v)) {
      return tvm_ffi_raise("NotImplementedError",
                           "relax.unique: '%s' must be a constant to build its kernels", names[i]);
    }
    if (i == 1)
      f->sorted = v != 0;
    else
      f->ret[i - 2] = v != 0;
  }
  f->axis = -1;
  if (tvm_ffi_seq_size(call->args) > 5) {
    double v;
    if (!tvm_relax__const_scalar(tvm_ffi_seq_obj_at(call->args, 5), &v)) {
      return tvm_ffi_raise("NotImplementedError",
                           "relax.unique: 'axis' must be a constant to build its kernels");
    }
    f->axis = (int64_t)v < 0 ? (int64_t)v + r : (int64_t)v; /* (inference checked the range) */
  }
  return 0;
}

/* a * b (consumed), folded when both are constants and dropping a factor 1. */
static void* mul_dim(void* a, void* b) {
  int64_t x, y;
  bool ca = tvm_tir_as_const_int(a, &x), cb = tvm_tir_as_const_int(b, &y);
  if (ca && cb) {
    tvm_ffi_release(a), tvm_ffi_release(b);
    return tvm_tir_i64(x * y);
  }
  if ((ca && x == 1) || (cb && y == 1)) {
    tvm_ffi_release(ca ? a : b);
    return ca ? b : a;
  }
  return tvm_tir_mul_take(a, b);
}

/* The product of dims (an ffi.Array of PrimExprs) but `skip` (-1: none), new reference. */
static void* dims_product(void* dims, int64_t skip) {
  void* p = tvm_tir_i64(1);
  for (int64_t d = 0; d < tvm_ffi_seq_size(dims); ++d) {
    if (d != skip) p = mul_dim(p, tvm_tir_ref(tvm_ffi_seq_obj_at(dims, d)));
  }
  return p;
}

typedef struct {
  unique_flags f;
  tvm_tir_buffer_obj* x;
  int64_t r;
  void *A, *M;           /* the number of slices and their length (owned) */
  DLDataType ct;         /* the dtype elements are compared in */
  bool fl;               /* a float dtype: NaNs compare after numbers, equal to each other */
  tvm_tir_buffer_obj* c; /* scratch int32: the last comparison, -1, 0 or 1 */
} unique_kernel;

static void unique_free(unique_kernel* u) {
  tvm_ffi_release(u->A), tvm_ffi_release(u->M), tvm_ffi_release(u->c);
}

static int unique_init(unique_kernel* u, const tvm_relax_call_obj* call, tvm_tir_buffer_obj* x) {
  memset(u, 0, sizeof(*u));
  u->x = x;
  u->r = rank(x);
  if (unique_flags_of(call, u->r, &u->f) != 0) return -1;
  DLDataType t = x->dtype;
  u->fl = tvm_tir_dtype_is_floating(t);
  /* narrow floats compare exactly in float32, bools as integers */
  u->ct = u->fl && t.bits < 32                            ? tvm_tir_dtype_float(32)
          : t.code == kDLBool || tvm_tir_dtype_is_bool(t) ? tvm_tir_dtype_int(32)
                                                          : t;
  u->A = u->f.axis < 0 ? dims_product(x->shape, -1) : tvm_tir_ref(dim(x, u->f.axis));
  u->M = u->f.axis < 0 ? tvm_tir_i64(1) : dims_product(x->shape, u->f.axis);
  u->c = tvm_relax__scratch("cmp", tvm_tir_dtype_int(32));
  if (!u->A || !u->M || !u->c) {
    unique_free(u);
    return -1;
  }
  return 0;
}

/* The indices of element m of slice `at` (both borrowed) into out: x's, or those of the values
 * result along an axis (its dims but the axis are x's). */
static void slice_index(const unique_kernel* u, void* at, void* m, void** out) {
  if (u->f.axis < 0) {
    tvm_relax__unflat_index(u->x, at, out);
    return;
  }
  void* rest = tvm_tir_ref(m);
  for (int64_t d = u->r - 1; d >= 0; --d) {
    if (d == u->f.axis) {
      out[d] = tvm_tir_ref(at);
      continue;
    }
    out[d] = tvm_tir_floormod_take(tvm_tir_ref(rest), tvm_tir_ref(dim(u->x, d)));
    rest = tvm_tir_floordiv_take(rest, tvm_tir_ref(dim(u->x, d)));
  }
  tvm_ffi_release(rest);
}

/* Element m of slice at (borrowed), in the comparison dtype. */
static void* slice_elem(const unique_kernel* u, void* at, void* m) {
  void* idx[MAX_DIMS];
  slice_index(u, at, m, idx);
  void* v = tvm_tir_load_takev(tvm_tir_ref(u->x), u->r, idx);
  return tvm_ffi_dtype_equal(u->ct, u->x->dtype) ? v : tvm_tir_cast_take(u->ct, v);
}

/* Whether element m of slice a comes before that of slice b (all borrowed). */
static void* elem_before(const unique_kernel* u, void* a, void* b, void* m) {
  void* lt = tvm_tir_lt_take(slice_elem(u, a, m), slice_elem(u, b, m));
  if (!u->fl) return lt;
  DLDataType bt = tvm_tir_dtype_bool();
  void* a_num = tvm_tir_not_take(tvm_tir_call_take(bt, "tir.isnan", slice_elem(u, a, m)));
  void* b_nan = tvm_tir_call_take(bt, "tir.isnan", slice_elem(u, b, m));
  return tvm_tir_or_take(lt, tvm_tir_and_take(a_num, b_nan));
}

static void* i32(int64_t v) { return tvm_tir_const(tvm_tir_dtype_int(32), v); }

/* cmp = -1, 0 or 1 as slice a comes before, equals or comes after slice b (borrowed): the first
 * element that differs decides, in a loop over the slices' elements unless they have one. */
static void* compare(const unique_kernel* u, void* a, void* b) {
  int64_t one;
  bool single = tvm_tir_as_const_int(u->M, &one) && one == 1;
  void* m = single ? (void*)tvm_tir_i64(0) : (void*)tvm_tir_var_new("m", TVM_TIR_INT64);
  void* val = tvm_tir_select_take(elem_before(u, a, b, m), i32(-1),
                                  tvm_tir_select_take(elem_before(u, b, a, m), i32(1), i32(0)));
  if (single) {
    tvm_ffi_release(m);
    return tvm_relax__scratch_store(u->c, val);
  }
  void* step = tvm_tir_if_take(tvm_tir_eq_take(tvm_relax__scratch_load(u->c), i32(0)),
                               tvm_relax__scratch_store(u->c, val), NULL);
  return tvm_tir_seq_take(tvm_relax__scratch_store(u->c, i32(0)),
                          tvm_tir_serial_take(m, tvm_tir_i64(0), tvm_tir_ref(u->M), step));
}

/* cmp <op> 0, for op one of the comparison builders. */
static void* cmp_is(const unique_kernel* u, tvm_tir_expr_obj* (*op)(void*, void*)) {
  return op(tvm_relax__scratch_load(u->c), i32(0));
}

static void* inc(tvm_tir_buffer_obj* s) {
  return tvm_relax__scratch_store(s, tvm_tir_add_take(tvm_relax__scratch_load(s), tvm_tir_i64(1)));
}

/* fb = the first slice before a (borrowed) equal to it, -1 when there is none (a is a first
 * occurrence). */
static void* first_equal(const unique_kernel* u, tvm_tir_buffer_obj* fb, void* a) {
  tvm_tir_var_obj* b = tvm_tir_var_new("b", TVM_TIR_INT64);
  void* found = tvm_tir_if_take(cmp_is(u, tvm_tir_eq_take),
                                tvm_relax__scratch_store(fb, tvm_tir_ref(b)), NULL);
  void* body = tvm_tir_if_take(tvm_tir_lt_take(tvm_relax__scratch_load(fb), tvm_tir_i64(0)),
                               tvm_tir_seq_take(compare(u, b, a), found), NULL);
  return tvm_tir_seq_take(tvm_relax__scratch_store(fb, tvm_tir_i64(-1)),
                          tvm_tir_serial_take(b, tvm_tir_i64(0), tvm_tir_ref(a), body));
}

/* The shape kernel: out[0] = K. */
static void* unique_count_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                               int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  unique_kernel u;
  if (unique_init(&u, call, in[0]) != 0) return NULL;
  tvm_tir_buffer_obj* cnt = tvm_relax__scratch("count", TVM_TIR_INT64);
  tvm_tir_buffer_obj* fb = tvm_relax__scratch("first", TVM_TIR_INT64);
  tvm_tir_var_obj* a = tvm_tir_var_new("a", TVM_TIR_INT64);
  void* per_a =
      tvm_tir_seq_take(first_equal(&u, fb, a),
                       tvm_tir_if_take(tvm_tir_lt_take(tvm_relax__scratch_load(fb), tvm_tir_i64(0)),
                                       inc(cnt), NULL));
  void* body = tvm_tir_seq_take(
      tvm_relax__scratch_store(cnt, tvm_tir_i64(0)),
      tvm_tir_serial_take(a, tvm_tir_i64(0), tvm_tir_ref(u.A), per_a),
      tvm_tir_store_take(tvm_tir_ref(out[0]), tvm_relax__scratch_load(cnt), tvm_tir_i64(0)));
  body = tvm_relax__scratch_scope(
      u.c, tvm_relax__scratch_scope(fb, tvm_relax__scratch_scope(cnt, body)));
  tvm_ffi_release(cnt), tvm_ffi_release(fb);
  unique_free(&u);
  return body;
}

/* values[k] = slice `at` of x (k, at borrowed). */
static void* copy_slice(const unique_kernel* u, tvm_tir_buffer_obj* values, void* k, void* at) {
  if (u->f.axis < 0) {
    void* idx[MAX_DIMS];
    tvm_relax__unflat_index(u->x, at, idx);
    return tvm_tir_store_take(tvm_tir_ref(values), tvm_tir_load_takev(tvm_tir_ref(u->x), u->r, idx),
                              tvm_tir_ref(k));
  }
  tvm_tir_var_obj* m = tvm_tir_var_new("m", TVM_TIR_INT64);
  void *xi[MAX_DIMS], *vi[MAX_DIMS];
  slice_index(u, at, m, xi);
  slice_index(u, k, m, vi);
  void* st = tvm_tir_store_takev(tvm_tir_ref(values),
                                 tvm_tir_load_takev(tvm_tir_ref(u->x), u->r, xi), u->r, vi);
  return tvm_tir_serial_take(m, tvm_tir_i64(0), tvm_tir_ref(u->M), st);
}

/* o[at] = value (at borrowed, value consumed), or nothing without o (value released). */
static void* put(tvm_tir_buffer_obj* o, void* at, void* value) {
  if (!o) {
    tvm_ffi_release(value);
    return NULL;
  }
  return tvm_tir_store_take(tvm_tir_ref(o), value, tvm_tir_ref(at));
}

/* seq of the statements that are not NULL (consumed). */
static void* seq_some(int n, void** st) {
  void* list[8];
  int k = 0;
  for (int i = 0; i < n; ++i) {
    if (st[i]) list[k++] = st[i];
  }
  return k == 0   ? (void*)tvm_tir_evaluate_take(tvm_tir_i64(0))
         : k == 1 ? list[0]
                  : tvm_tir_seq_takev(k, list);
}

/* For the slice `at` (borrowed) taking place k (borrowed): cc = the number of slices from
 * `from` on equal to it, each such slice's inverse = k when inverse is given. */
static void* count_equal(const unique_kernel* u, tvm_tir_buffer_obj* cc, void* from, void* at,
                         tvm_tir_buffer_obj* inverse, void* k) {
  tvm_tir_var_obj* b = tvm_tir_var_new("b", TVM_TIR_INT64);
  void* hit[2] = {inc(cc), put(inverse, b, tvm_tir_ref(k))};
  void* body = tvm_tir_seq_take(
      compare(u, b, at), tvm_tir_if_take(cmp_is(u, tvm_tir_eq_take), seq_some(2, hit), NULL));
  return tvm_tir_seq_take(
      tvm_relax__scratch_store(cc, tvm_tir_i64(0)),
      tvm_tir_serial_take(b, tvm_tir_ref(from),
                          tvm_tir_sub_take(tvm_tir_ref(u->A), tvm_tir_ref(from)), body));
}

static void* unique_unsorted(unique_kernel* u, tvm_tir_buffer_obj* const* o, void* K) {
  tvm_tir_buffer_obj *values = o[0], *index = o[1], *inverse = o[2], *counts = o[3];
  tvm_tir_buffer_obj* cnt = tvm_relax__scratch("count", TVM_TIR_INT64);
  tvm_tir_buffer_obj* fb = tvm_relax__scratch("first", TVM_TIR_INT64);
  tvm_tir_buffer_obj* cc = tvm_relax__scratch("equal", TVM_TIR_INT64);
  tvm_tir_var_obj* a = tvm_tir_var_new("a", TVM_TIR_INT64);
  void* k = tvm_relax__scratch_load(cnt);
  void* emit[3] = {copy_slice(u, values, k, a), put(index, k, tvm_tir_ref(a)), NULL};
  if (counts) {
    emit[2] = tvm_tir_seq_take(count_equal(u, cc, a, a, NULL, k),
                               put(counts, k, tvm_relax__scratch_load(cc)));
  }
  void* first[3] = {
      tvm_tir_if_take(tvm_tir_lt_take(tvm_tir_ref(k), tvm_tir_ref(K)), seq_some(3, emit), NULL),
      put(inverse, a, tvm_tir_ref(k)), inc(cnt)};
  void* later = inverse ? put(inverse, a,
                              tvm_tir_load_take(tvm_tir_ref(inverse), tvm_relax__scratch_load(fb)))
                        : NULL;
  void* per_a =
      tvm_tir_seq_take(first_equal(u, fb, a),
                       tvm_tir_if_take(tvm_tir_lt_take(tvm_relax__scratch_load(fb), tvm_tir_i64(0)),
                                       seq_some(3, first), later));
  tvm_ffi_release(k);
  void* body = tvm_tir_seq_take(tvm_relax__scratch_store(cnt, tvm_tir_i64(0)),
                                tvm_tir_serial_take(a, tvm_tir_i64(0), tvm_tir_ref(u->A), per_a));
  body = tvm_relax__scratch_scope(
      cc, tvm_relax__scratch_scope(fb, tvm_relax__scratch_scope(cnt, body)));
  tvm_ffi_release(cnt), tvm_ffi_release(fb), tvm_ffi_release(cc);
  return body;
}

static void* unique_sorted(unique_kernel* u, tvm_tir_buffer_obj* const* o, void* K) {
  tvm_tir_buffer_obj *values = o[0], *index = o[1], *inverse = o[2], *counts = o[3];
  tvm_tir_buffer_obj* prev = tvm_relax__scratch("prev", TVM_TIR_INT64);
  tvm_tir_buffer_obj* best = tvm_relax__scratch("best", TVM_TIR_INT64);
  tvm_tir_buffer_obj* cc = tvm_relax__scratch("equal", TVM_TIR_INT64);
  tvm_tir_var_obj* k = tvm_tir_var_new("k", TVM_TIR_INT64);
  tvm_tir_var_obj* a = tvm_tir_var_new("a", TVM_TIR_INT64);
  void* pv = tvm_relax__scratch_load(prev);
  void* bv = tvm_relax__scratch_load(best);
  /* a after prev (every slice when k = 0): a candidate, taken when before the best so far */
  void* after = tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(pv), tvm_tir_i64(0)), compare(u, a, pv),
                                tvm_relax__scratch_store(u->c, i32(1)));
  void* better = tvm_tir_seq_take(
      compare(u, a, bv), tvm_tir_if_take(cmp_is(u, tvm_tir_lt_take),
                                         tvm_relax__scratch_store(best, tvm_tir_ref(a)), NULL));
  void* candidate = tvm_tir_if_take(tvm_tir_lt_take(tvm_tir_ref(bv), tvm_tir_i64(0)),
                                    tvm_relax__scratch_store(best, tvm_tir_ref(a)), better);
  void* scan = tvm_tir_serial_take(
      a, tvm_tir_i64(0), tvm_tir_ref(u->A),
      tvm_tir_seq_take(after, tvm_tir_if_take(cmp_is(u, tvm_tir_gt_take), candidate, NULL)));
  void* emit[4] = {copy_slice(u, values, k, bv), put(index, k, tvm_tir_ref(bv)), NULL, NULL};
  if (counts || inverse) {
    emit[2] = count_equal(u, cc, tvm_tir_i64(0), bv, inverse, k);
    emit[3] = put(counts, k, tvm_relax__scratch_load(cc));
  }
  void* per_k = tvm_tir_seq_take(
      tvm_relax__scratch_store(best, tvm_tir_i64(-1)), scan,
      tvm_tir_if_take(tvm_tir_ge_take(tvm_tir_ref(bv), tvm_tir_i64(0)), seq_some(4, emit), NULL),
      tvm_relax__scratch_store(prev, tvm_tir_ref(bv)));
  tvm_ffi_release(pv), tvm_ffi_release(bv);
  void* body = tvm_tir_seq_take(tvm_relax__scratch_store(prev, tvm_tir_i64(-1)),
                                tvm_tir_serial_take(k, tvm_tir_i64(0), tvm_tir_ref(K), per_k));
  body = tvm_relax__scratch_scope(
      cc, tvm_relax__scratch_scope(best, tvm_relax__scratch_scope(prev, body)));
  tvm_ffi_release(prev), tvm_ffi_release(best), tvm_ffi_release(cc);
  return body;
}

/* The value kernel: out[0] the values, then index, inverse and counts as requested. */
static void* unique_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin;
  unique_kernel u;
  if (unique_init(&u, call, in[0]) != 0) return NULL;
  tvm_tir_buffer_obj* o[4] = {out[0], NULL, NULL, NULL};
  int next = 1;
  for (int i = 0; i < 3; ++i) {
    if (u.f.ret[i] && next < nout) o[i + 1] = out[next++];
  }
  void* K = dim(out[0], u.f.axis < 0 ? 0 : u.f.axis);
  void* body = u.f.sorted ? unique_sorted(&u, o, K) : unique_unsorted(&u, o, K);
  body = tvm_relax__scratch_scope(u.c, body);
  unique_free(&u);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_unique(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, unique_body);
}

/* The results of unique with K unique slices (borrowed): the values (x's dims with K on the
 * axis, or (K,)), then index (K,), inverse (A,) and counts (K,) as requested. */
static tvm_relax_sinfo_obj* unique_out_sinfo(const tvm_relax_call_obj* call, void* K) {
  const tvm_relax_tensor_sinfo_obj* xs =
      (const void*)tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0));
  void* xd = tvm_relax_tensor_sinfo_dims(&xs->base);
  int64_t r = tvm_ffi_seq_size(xd);
  unique_flags f;
  if (unique_flags_of(call, r, &f) != 0) return NULL;
  void* vd[MAX_DIMS];
  int64_t vn = f.axis < 0 ? 1 : r;
  for (int64_t d = 0; d < vn; ++d) {
    vd[d] = d == (f.axis < 0 ? 0 : f.axis) ? K : tvm_ffi_seq_obj_at(xd, d);
  }
  void* fields[4] = {NULL, NULL, NULL, NULL};
  void* varr = tvm_ffi_array_of_objects(vd, vn);
  fields[0] = varr ? tvm_relax_tensor_sinfo_of_dims(varr, xs->dtype) : NULL;
  tvm_ffi_release(varr);
  void* A = f.axis < 0 ? dims_product(xd, -1) : tvm_tir_ref(tvm_ffi_seq_obj_at(xd, f.axis));
  void* karr = tvm_ffi_array_of_objects(&K, 1);
  void* aarr = A ? tvm_ffi_array_of_objects(&A, 1) : NULL;
  tvm_ffi_release(A);
  int n = 1;
  bool ok = fields[0] && karr && aarr;
  for (int i = 0; ok && i < 3; ++i) {
    if (!f.ret[i]) continue;
    fields[n] = tvm_relax_tensor_sinfo_of_dims(i == 1 ? aarr : karr, TVM_TIR_INT64);
    ok = fields[n++] != NULL;
  }
  tvm_ffi_release(karr), tvm_ffi_release(aarr);
  tvm_relax_sinfo_obj* out = ok ? tvm_relax__one_or_tuple(fields, n) : NULL;
  tvm_relax__release_all(fields, 4);
  return out;
}

/* ---- Entry points ---------------------------------------------------------------------------- */
int64_t tvm_relax__dynamic_shape_len(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  const tvm_relax_sinfo_obj* xs = tvm_relax_sinfo_of(tvm_ffi_seq_obj_at(call->args, 0));
  void* dims = tvm_relax_tensor_sinfo_dims(xs);
  if (!dims) {
    tvm_ffi_raise("NotImplementedError", "%s: the shape of 'x' must be known to build its kernels",
                  info->name);
    return -1;
  }
  int64_t r = tvm_ffi_seq_size(dims);
  if (r > MAX_DIMS) {
    tvm_ffi_raise("NotImplementedError", "%s: more than %d dims", info->name, MAX_DIMS);
    return -1;
  }
  if (info->id == TVM_RELAX_OP_nonzero) return 2;
  if (info->id == TVM_RELAX_OP_unique) { /* (K; its flags checked once here) */
    unique_flags f;
    return unique_flags_of(call, r, &f) == 0 ? 1 : -1;
  }
  return r;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_dynamic_shape(const tvm_relax_call_obj* call,
                                                         const tvm_relax_sinfo_obj* shape_sinfo) {
  tvm_relax_op_id id = tvm_relax_op_info_of(call->op)->id;
  return tvm_relax__legalize_with_out(call, shape_sinfo,
                                      id == TVM_RELAX_OP_nonzero  ? nonzero_count_body
                                      : id == TVM_RELAX_OP_unique ? unique_count_body
                                                                  : dslice_shape_body);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_dynamic_value(const tvm_relax_call_obj* call,
                                                         const tvm_relax_sinfo_obj* out_sinfo) {
  tvm_relax_op_id id = tvm_relax_op_info_of(call->op)->id;
  return tvm_relax__legalize_with_out(call, out_sinfo,
                                      id == TVM_RELAX_OP_nonzero  ? nonzero_body
                                      : id == TVM_RELAX_OP_unique ? unique_body
                                                                  : dslice_body);
}

tvm_relax_sinfo_obj* tvm_relax__dynamic_out_sinfo(const tvm_relax_call_obj* call, void* dims) {
  if (tvm_relax_op_info_of(call->op)->id == TVM_RELAX_OP_unique) {
    return unique_out_sinfo(call, tvm_ffi_seq_obj_at(dims, 0));
  }
  const tvm_relax_tensor_sinfo_obj* os = (const void*)tvm_relax_sinfo_of(call);
  return tvm_relax_tensor_sinfo_of_dims(dims, os->dtype);
}
