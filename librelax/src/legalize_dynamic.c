/*
 * legalize_dynamic.c: the kernels of the operators whose output shape depends on the data
 * (dynamic_strided_slice, nonzero).
 *
 * LegalizeOps lowers such a call in upstream's way (legalize_ops/index.py's
 * dynamic_strided_slice): a first kernel writes the output's shape into a 1-d int64 tensor,
 * R.tensor_to_shape makes it a Shape, an R.match_cast binds it to new symbolic variables, and
 * the second kernel, whose output buffer has those dims, computes the values (legalize.c emits
 * the bindings). Upstream runs nonzero through a NumPy packed function; here it is the same pair
 * of TIR kernels: a count, then the fill.
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
  return r;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_dynamic_shape(const tvm_relax_call_obj* call,
                                                         const tvm_relax_sinfo_obj* shape_sinfo) {
  bool nz = tvm_relax_op_info_of(call->op)->id == TVM_RELAX_OP_nonzero;
  return tvm_relax__legalize_with_out(call, shape_sinfo, nz ? nonzero_count_body : dslice_shape_body);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_dynamic_value(const tvm_relax_call_obj* call,
                                                         const tvm_relax_sinfo_obj* out_sinfo) {
  bool nz = tvm_relax_op_info_of(call->op)->id == TVM_RELAX_OP_nonzero;
  return tvm_relax__legalize_with_out(call, out_sinfo, nz ? nonzero_body : dslice_body);
}
