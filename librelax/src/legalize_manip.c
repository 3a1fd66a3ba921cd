/*
 * legalize_manip.c: the kernels of the manipulation and indexing operators. Each output element
 * is read from one input element: reshape, flatten, squeeze and expand_dims map the output's
 * row-major linear index back to the input's indices (which holds for symbolic dims too);
 * permute_dims, broadcast_to, strided_slice, take, tile, repeat and flip compute the input
 * indices from the output's; concat and split copy each piece with its offset on the axis (stack
 * at its index on the new axis); meshgrid's outputs each read their input at one of their indices;
 * layout_transform scatters each input element to the index map's image of its index.
 * Attributes and index lists are read from the call (its inference rule has checked them).
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <tvm/tir/attr_value.h>
#include <tvm/tir/builder.h>

#include "internal.h"

enum { MAX_DIMS = 16 };

/* ---- Shared helpers (declared in internal.h) ------------------------------------------------- */
void* tvm_relax__store_all(tvm_tir_buffer_obj* out, void* const* vars, void* value) {
  int64_t n = tvm_ffi_seq_size(out->shape);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(vars[i]);
  void* body = tvm_tir_store_takev(tvm_tir_ref(out), value, n, ind);
  void* ext[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ext[i] = tvm_ffi_seq_obj_at(out->shape, i);
  return tvm_relax__loop_nest(vars, ext, n, NULL, body);
}

void* tvm_relax__in_range(void* idx, void* extent) {
  return tvm_tir_and_take(tvm_tir_ge_take(tvm_tir_ref(idx), tvm_tir_i64(0)),
                          tvm_tir_lt_take(tvm_tir_ref(idx), tvm_tir_ref(extent)));
}

void* tvm_relax__assert_indices(const tvm_relax_call_obj* call, void* ok, void* body) {
  int64_t holds;
  if (ok && body && tvm_tir_as_const_int(ok, &holds) && holds) { /* folded: always in range */
    tvm_ffi_release(ok);
    return body;
  }
  char msg[128];
  snprintf(msg, sizeof(msg), "%s: an index is out of range", tvm_relax_op_info_of(call->op)->name);
  return tvm_tir_assert_take(ok, msg, body);
}

void* tvm_relax__flat_index(tvm_tir_buffer_obj* b, void* const* idx) {
  int64_t n = tvm_ffi_seq_size(b->shape);
  void* lin = tvm_tir_i64(0);
  for (int64_t i = 0; i < n; ++i) {
    lin = tvm_tir_add_take(tvm_tir_mul_take(lin, tvm_tir_ref(tvm_ffi_seq_obj_at(b->shape, i))),
                           tvm_tir_ref(idx[i]));
  }
  return lin;
}

void tvm_relax__unflat_index(tvm_tir_buffer_obj* b, void* lin, void** out) {
  int64_t n = tvm_ffi_seq_size(b->shape);
  void* rest = tvm_tir_ref(lin);
  for (int64_t i = n - 1; i >= 0; --i) {
    void* d = tvm_ffi_seq_obj_at(b->shape, i);
    if (i == 0) {
      out[i] = rest;
      break;
    }
    out[i] = tvm_tir_floormod_take(tvm_tir_ref(rest), tvm_tir_ref(d));
    rest = tvm_tir_floordiv_take(rest, tvm_tir_ref(d));
  }
  if (n == 0) tvm_ffi_release(rest);
}

/* The PrimExprs of a call argument that is a shape or a tuple of R.Prim values (borrowed) into
 * out: their count, or -1 when it is neither (or has more than max). */
static int64_t arg_prims(const tvm_relax_expr_obj* arg, void** out, int64_t max) {
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(arg);
  void* values = NULL;
  bool prims = tvm_relax_kind_of(s) == TVM_RELAX_KIND_TupleStructInfo;
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_ShapeStructInfo) {
    values = ((tvm_relax_shape_sinfo_obj*)s)->values;
  } else if (prims) {
    values = ((tvm_relax_tuple_sinfo_obj*)s)->fields;
  }
  if (!values || tvm_ffi_seq_size(values) > max) return -1;
  int64_t n = tvm_ffi_seq_size(values);
  for (int64_t i = 0; i < n; ++i) {
    void* v = tvm_ffi_seq_obj_at(values, i);
    if (prims) {
      if (tvm_relax_kind_of(v) != TVM_RELAX_KIND_PrimStructInfo) return -1;
      v = ((tvm_relax_prim_sinfo_obj*)v)->value;
    }
    if (!v) return -1;
    out[i] = v;
  }
  return n;
}

int64_t tvm_relax__const_ints(const tvm_relax_expr_obj* arg, int64_t* out, int64_t max) {
  void* v[MAX_DIMS];
  int64_t n = arg_prims(arg, v, max < MAX_DIMS ? max : MAX_DIMS);
  for (int64_t i = 0; i < n; ++i) {
    if (!tvm_tir_as_const_int(v[i], &out[i])) return -1;
  }
  return n;
}

bool tvm_relax__const_scalar(const tvm_relax_expr_obj* arg, double* out) {
  tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(arg);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo) return false;
  tvm_tir_expr_obj* v = ((tvm_relax_prim_sinfo_obj*)s)->value;
  int64_t i;
  if (v && tvm_tir_as_const_int(v, &i)) {
    *out = (double)i;
    return true;
  }
  return v && tvm_tir_as_const_float(v, out);
}

/* ---- Local helpers --------------------------------------------------------------------------- */
static int64_t rank(tvm_tir_buffer_obj* b) { return tvm_ffi_seq_size(b->shape); }
static void* dim(tvm_tir_buffer_obj* b, int64_t i) { return tvm_ffi_seq_obj_at(b->shape, i); }

/* An int attribute (default when absent or None). */
static int64_t attr_int(const tvm_relax_call_obj* call, const char* name, int64_t dflt, bool* none) {
  const TVMFFIAny* v = tvm_relax_call_attr(call, name);
  int64_t r = dflt;
  bool is_none = !v || tvm_ffi_any_is_none(v);
  if (!is_none) tvm_ffi_any_as_int(v, &r);
  if (none) *none = is_none;
  return r;
}

/* axis in [-n, n) made non-negative. */
static int64_t norm_axis(int64_t axis, int64_t n) { return axis < 0 ? axis + n : axis; }

/* New loop variables for out's dims, or -1 (too many dims raise). */
static int out_vars(tvm_tir_buffer_obj* out, void** v) {
  int64_t n = rank(out);
  if (n > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return -1;
  }
  return tvm_relax__kernel_vars(v, n, "i");
}

/* Loop over out's dims storing the value that `load` computes from the loop variables. */
typedef void* (*gather_fn)(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                           tvm_tir_buffer_obj* out, void* const* v);
static void* gather(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                    tvm_tir_buffer_obj* out, gather_fn load) {
  void* v[MAX_DIMS];
  if (out_vars(out, v) != 0) return NULL;
  void* value = load(call, in, out, v);
  void* body = value ? tvm_relax__store_all(out, v, value) : NULL;
  tvm_relax__release_all(v, rank(out));
  return body;
}

/* ---- reshape, flatten, squeeze, expand_dims -------------------------------------------------- */
static void* reshape_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                          tvm_tir_buffer_obj* out, void* const* v) {
  (void)call;
  void* lin = tvm_relax__flat_index(out, v);
  void* ind[MAX_DIMS];
  if (rank(in[0]) > MAX_DIMS) {
    tvm_ffi_release(lin);
    tvm_ffi_raise("ValueError", "more than %d dims", MAX_DIMS);
    return NULL;
  }
  tvm_relax__unflat_index(in[0], lin, ind);
  tvm_ffi_release(lin);
  return tvm_tir_load_takev(tvm_tir_ref(in[0]), rank(in[0]), ind);
}

static void* reshape_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                          tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return gather(call, in, out[0], reshape_load);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_reshape(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, reshape_body);
}

/* ---- permute_dims ---------------------------------------------------------------------------- */
static void* permute_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                          tvm_tir_buffer_obj* out, void* const* v) {
  int64_t n = rank(out);
  const TVMFFIAny* axes = tvm_relax_call_attr(call, "axes");
  bool rev = !axes || tvm_ffi_any_is_none(axes);
  void* ind[MAX_DIMS] = {NULL};
  for (int64_t i = 0; i < n; ++i) {
    int64_t a = n - 1 - i;
    if (!rev) tvm_ffi_any_as_int(tvm_ffi_seq_at(axes->v_obj, i), &a);
    a = norm_axis(a, n);
    /* output dim i is input dim a */
    ind[a] = tvm_tir_ref(v[i]);
  }
  return tvm_tir_load_takev(tvm_tir_ref(in[0]), n, ind);
}

static void* permute_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                          tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return gather(call, in, out[0], permute_load);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_permute_dims(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, permute_body);
}

/* ---- broadcast_to ---------------------------------------------------------------------------- */
static void* broadcast_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                            tvm_tir_buffer_obj* out, void* const* v) {
  (void)call;
  int64_t n = rank(out), r = rank(in[0]);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < r; ++i) {
    int64_t c;
    ind[i] = tvm_tir_as_const_int(dim(in[0], i), &c) && c == 1 ? (void*)tvm_tir_i64(0)
                                                               : tvm_tir_ref(v[n - r + i]);
  }
  return tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ind);
}

static void* broadcast_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                            tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return gather(call, in, out[0], broadcast_load);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_broadcast_to(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, broadcast_body);
}

/* ---- concat and split ------------------------------------------------------------------------ */
/* Copy between a piece (loops over its shape) and the whole at offset `off` (borrowed) on axis:
 * whole[.., i + off, ..] = piece[..] (concat) or piece[..] = whole[.., i + off, ..] (split). */
static void* copy_piece(tvm_tir_buffer_obj* piece, tvm_tir_buffer_obj* whole, int64_t axis,
                        void* off, bool into_whole) {
  void* v[MAX_DIMS];
  int64_t n = rank(piece);
  if (out_vars(piece, v) != 0) return NULL;
  void* wi[MAX_DIMS], *pi[MAX_DIMS], *ext[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) {
    wi[i] = i == axis ? tvm_tir_add_take(tvm_tir_ref(v[i]), tvm_tir_ref(off)) : tvm_tir_ref(v[i]);
    pi[i] = tvm_tir_ref(v[i]);
    ext[i] = dim(piece, i);
  }
  void* body = into_whole
                   ? tvm_tir_store_takev(tvm_tir_ref(whole), tvm_tir_load_takev(tvm_tir_ref(piece), n, pi), n, wi)
                   : tvm_tir_store_takev(tvm_tir_ref(piece), tvm_tir_load_takev(tvm_tir_ref(whole), n, wi), n, pi);
  body = tvm_relax__loop_nest(v, ext, n, NULL, body);
  tvm_relax__release_all(v, n);
  return body;
}

/* The kernel of n pieces whose statements are stmts[0, made): one statement, or a SeqStmt of
 * them; NULL (the made ones released) when a piece failed (made < n). */
static void* pieces_seq(void** stmts, int made, int n) {
  if (made < n) {
    tvm_relax__release_all(stmts, made);
    return NULL;
  }
  return n == 1 ? stmts[0] : tvm_tir_seq_takev(n, stmts);
}

/* The pieces in order along axis, each at the sum of the extents before it. */
static void* copy_pieces(tvm_tir_buffer_obj* const* pieces, int np, tvm_tir_buffer_obj* whole,
                         int64_t axis, bool into_whole) {
  void* stmts[1024]; /* tvm_relax__legalize_with's limit on a kernel's buffers */
  void* off = tvm_tir_i64(0);
  int made = 0;
  for (; made < np; ++made) {
    stmts[made] = copy_piece(pieces[made], whole, axis, off, into_whole);
    if (!stmts[made]) break;
    off = tvm_tir_add_take(off, tvm_tir_ref(dim(pieces[made], axis)));
  }
  tvm_ffi_release(off);
  return pieces_seq(stmts, made, np);
}

static void* concat_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  int64_t axis = norm_axis(attr_int(call, "axis", 0, NULL), rank(out[0]));
  return copy_pieces(in, nin, out[0], axis, true);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_concat(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, concat_body);
}

/* stack: out[.., k, ..] = in[k][..], the k at the new axis, one loop nest per input. */
static void* stack_piece(tvm_tir_buffer_obj* piece, tvm_tir_buffer_obj* whole, int64_t axis,
                         int64_t k) {
  void *v[MAX_DIMS], *wi[MAX_DIMS], *pi[MAX_DIMS], *ext[MAX_DIMS];
  int64_t n = rank(piece);
  if (out_vars(piece, v) != 0) return NULL;
  for (int64_t d = 0; d <= n; ++d) {
    wi[d] = d == axis ? tvm_tir_i64(k) : tvm_tir_ref(v[d < axis ? d : d - 1]);
  }
  for (int64_t d = 0; d < n; ++d) {
    pi[d] = tvm_tir_ref(v[d]);
    ext[d] = dim(piece, d);
  }
  void* load = tvm_tir_load_takev(tvm_tir_ref(piece), n, pi);
  void* body = tvm_tir_store_takev(tvm_tir_ref(whole), load, n + 1, wi);
  body = tvm_relax__loop_nest(v, ext, n, NULL, body);
  tvm_relax__release_all(v, n);
  return body;
}

static void* stack_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                        tvm_tir_buffer_obj* const* out, int nout) {
  (void)nout;
  int64_t axis = norm_axis(attr_int(call, "axis", 0, NULL), rank(out[0]));
  void* stmts[1024]; /* tvm_relax__legalize_with's limit on a kernel's buffers */
  int made = 0;
  for (; made < nin; ++made) {
    stmts[made] = stack_piece(in[made], out[0], axis, made);
    if (!stmts[made]) break;
  }
  return pieces_seq(stmts, made, nin);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_stack(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, stack_body);
}

static void* split_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                        tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin;
  int64_t axis = norm_axis(attr_int(call, "axis", 0, NULL), rank(in[0]));
  return copy_pieces(out, nout, in[0], axis, false);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_split(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, split_body);
}

/* ---- meshgrid -------------------------------------------------------------------------------- */
/* out_k[i_0, ..., i_{N-1}] = in_k[i_k], i_0 and i_1 exchanged for "xy" (N >= 2: the first two
 * output dims are then len_1, len_0), as topi.meshgrid; one loop nest per output. */
static void* meshgrid_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                           tvm_tir_buffer_obj* const* out, int nout) {
  bool xy = strcmp(tvm_relax__call_attr_str(call, "indexing", "ij"), "xy") == 0 && nin >= 2;
  bool ok = nin == nout && nin <= MAX_DIMS;
  for (int k = 0; ok && k < nin; ++k) ok = rank(in[k]) == 1 && rank(out[k]) == nin;
  if (!ok) {
    tvm_ffi_raise("ValueError", "relax.meshgrid: %d inputs (each 1-d) for %d outputs of rank %d, "
                  "at most %d", nin, nout, nin, MAX_DIMS);
    return NULL;
  }
  void* stmts[MAX_DIMS];
  int made = 0;
  for (; made < nin; ++made) {
    void* v[MAX_DIMS];
    if (out_vars(out[made], v) != 0) break;
    int src = xy && made < 2 ? 1 - made : made;
    void* load = tvm_tir_load_take(tvm_tir_ref(in[made]), tvm_tir_ref(v[src]));
    stmts[made] = tvm_relax__store_all(out[made], v, load);
    tvm_relax__release_all(v, nin);
    if (!stmts[made]) break;
  }
  return pieces_seq(stmts, made, nin);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_meshgrid(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, meshgrid_body);
}

/* ---- strided_slice --------------------------------------------------------------------------- */
/* A slice's start (consumed: b) canonicalised as the inference rule does (Python slicing):
 * negative counts from extent (borrowed), then clamped to [0, extent] (stride > 0) or
 * [-1, extent - 1]; a constant b's sign is known here, a symbolic one's is selected. */
static void* slice_start(void* b, void* extent, int64_t stride, bool inbound) {
  int64_t c;
  void* r;
  if (tvm_tir_as_const_int(b, &c)) {
    r = c < 0 ? tvm_tir_add_take(b, tvm_tir_ref(extent)) : b;
  } else {
    r = tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(b), tvm_tir_i64(0)),
                            tvm_tir_add_take(tvm_tir_ref(b), tvm_tir_ref(extent)), b);
  }
  if (inbound) return r;
  void* lo = tvm_tir_i64(stride < 0 ? -1 : 0);
  void* hi = stride < 0 ? tvm_tir_sub_take(tvm_tir_ref(extent), tvm_tir_i64(1)) : tvm_tir_ref(extent);
  return tvm_tir_min_take(tvm_tir_max_take(r, lo), hi);
}

/* out[v] = in[start + v * stride] on the sliced axes. Axes and strides are constants; a begin
 * may be symbolic (the kernel reads it as the kernel makes it: a scalar parameter when no
 * tensor dim gives its variables). The end only sets the output's extent. */
static void* slice_body(tvm_relax__kernel* k, const tvm_relax_call_obj* call,
                        tvm_tir_buffer_obj* in, tvm_tir_buffer_obj* out) {
  int64_t axes[MAX_DIMS], strides[MAX_DIMS];
  void* begin[MAX_DIMS];
  int64_t nargs = tvm_ffi_seq_size(call->args);
  int64_t na = tvm_relax__const_ints(tvm_ffi_seq_obj_at(call->args, 1), axes, MAX_DIMS);
  int64_t nb = arg_prims(tvm_ffi_seq_obj_at(call->args, 2), begin, MAX_DIMS);
  int64_t ns = na;
  if (nargs > 4) ns = tvm_relax__const_ints(tvm_ffi_seq_obj_at(call->args, 4), strides, MAX_DIMS);
  else
    for (int64_t i = 0; i < na; ++i) strides[i] = 1;
  if (na < 0 || nb != na || ns != na) {
    tvm_ffi_raise("NotImplementedError", "strided_slice: axes and strides must be constants");
    return NULL;
  }
  const TVMFFIAny* ib = tvm_relax_call_attr(call, "assume_inbound");
  bool inbound = false;
  if (ib) tvm_ffi_any_as_bool(ib, &inbound);
  void* v[MAX_DIMS];
  if (out_vars(out, v) != 0) return NULL;
  int64_t n = rank(out);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < n; ++i) ind[i] = tvm_tir_ref(v[i]);
  for (int64_t i = 0; i < na; ++i) {
    int64_t a = norm_axis(axes[i], n);
    void* b = tvm_relax__kernel_scalar(k, begin[i]);
    void* start = b ? slice_start(b, dim(in, a), strides[i], inbound) : NULL;
    tvm_ffi_release(ind[a]);
    ind[a] = tvm_tir_add_take(start, tvm_tir_mul_take(tvm_tir_ref(v[a]), tvm_tir_i64(strides[i])));
  }
  void* value = tvm_tir_load_takev(tvm_tir_ref(in), n, ind);
  void* body = value ? tvm_relax__store_all(out, v, value) : NULL;
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_strided_slice_vars(const tvm_relax_call_obj* call,
                                                             void** tir_vars) {
  *tir_vars = NULL;
  tvm_relax__kernel k;
  if (tvm_relax__kernel_init(&k, call) != 0) return NULL;
  tvm_relax_expr_obj* x = tvm_ffi_seq_obj_at(call->args, 0);
  tvm_tir_buffer_obj* in = tvm_relax__kernel_buffer(&k, "A0", tvm_relax_sinfo_of(x));
  tvm_tir_buffer_obj* out = in ? tvm_relax__kernel_buffer(&k, "T_out0", tvm_relax_sinfo_of(call)) : NULL;
  void* body = out ? slice_body(&k, call, in, out) : NULL;
  void* vars = NULL;
  if (body && tvm_ffi_seq_size(k.scalars) > 0 && !(vars = tvm_relax__kernel_scalar_args(&k))) {
    tvm_ffi_release(body);
    body = NULL;
  }
  tvm_tir_prim_func_obj* f = body ? tvm_relax__kernel_finish(&k, body) : NULL;
  if (!f) {
    tvm_ffi_release(vars);
    vars = NULL;
  }
  tvm_ffi_release(in);
  tvm_ffi_release(out);
  tvm_relax__kernel_free(&k);
  *tir_vars = vars;
  return f;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_strided_slice(const tvm_relax_call_obj* call) {
  void* vars;
  tvm_tir_prim_func_obj* f = tvm_relax__legalize_strided_slice_vars(call, &vars);
  if (vars) {
    tvm_ffi_release(vars);
    tvm_ffi_release(f);
    tvm_ffi_raise("NotImplementedError",
                  "strided_slice: a begin whose variables no tensor dim gives needs call_tir's "
                  "tir_vars (LegalizeOps passes them)");
    return NULL;
  }
  return f;
}

/* ---- take ------------------------------------------------------------------------------------ */
/* The value read for out[v]; *ok the condition that the read is inside x: in mode "fast" that
 * the index is inside x's dim on the axis (a negative one counted from the end; topi reads it
 * unchecked), in "clip" and "wrap", which move every index inside, that the dim is not empty
 * (else clip reads x[-1] and wrap divides by zero, as topi's do). Mode "nan" needs no
 * condition: an index inside the dim (counted as in "fast") reads x, any other gives NaN
 * without a read. *nidx: the dims of out the index depends on, axis + indices' rank. */
static void* take_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                       tvm_tir_buffer_obj* out, void* const* v, void** ok, int64_t* nidx) {
  bool no_axis;
  int64_t r = rank(in[0]);
  int64_t axis = norm_axis(attr_int(call, "axis", 0, &no_axis), r);
  const char* mode = tvm_relax__call_attr_str(call, "mode", NULL);
  /* The index: a load of the indices tensor at the output's dims from axis on, or a constant
   * scalar. */
  void* idx;
  int64_t ni = 0;
  tvm_relax_expr_obj* ia = tvm_ffi_seq_obj_at(call->args, 1);
  if (tvm_relax_kind_of(tvm_relax_sinfo_of(ia)) == TVM_RELAX_KIND_TensorStructInfo) {
    ni = rank(in[1]);
    void* ii[MAX_DIMS];
    for (int64_t j = 0; j < ni; ++j) ii[j] = tvm_tir_ref(v[axis + j]);
    idx = tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_load_takev(tvm_tir_ref(in[1]), ni, ii));
  } else {
    double c;
    if (!tvm_relax__const_scalar(ia, &c)) {
      tvm_ffi_raise("NotImplementedError", "take: a scalar index must be a constant");
      return NULL;
    }
    idx = tvm_tir_i64((int64_t)c);
  }
  void* ext = dim(in[0], axis);
  if (mode && strcmp(mode, "clip") == 0) {
    idx = tvm_tir_min_take(tvm_tir_max_take(idx, tvm_tir_i64(0)),
                           tvm_tir_sub_take(tvm_tir_ref(ext), tvm_tir_i64(1)));
    *ok = tvm_tir_gt_take(tvm_tir_ref(ext), tvm_tir_i64(0));
  } else if (mode && strcmp(mode, "wrap") == 0) {
    idx = tvm_tir_floormod_take(idx, tvm_tir_ref(ext));
    *ok = tvm_tir_gt_take(tvm_tir_ref(ext), tvm_tir_i64(0));
  } else {
    /* fast (and nan): a negative index counts from the end, as numpy's. */
    idx = tvm_tir_select_take(tvm_tir_lt_take(tvm_tir_ref(idx), tvm_tir_i64(0)),
                              tvm_tir_add_take(tvm_tir_ref(idx), tvm_tir_ref(ext)), idx);
    *ok = tvm_relax__in_range(idx, ext);
  }
  bool nan_mode = mode && strcmp(mode, "nan") == 0;
  (void)no_axis;
  *nidx = axis + ni;
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < r; ++i) {
    if (i < axis) ind[i] = tvm_tir_ref(v[i]);
    else if (i == axis) ind[i] = idx;
    else ind[i] = tvm_tir_ref(v[i - 1 + ni]);
  }
  (void)out;
  void* value = tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ind);
  if (!nan_mode) return value;
  /* tir.if_then_else evaluates the load only when the index is inside */
  DLDataType t = in[0]->dtype;
  void* nan = tvm_tir_const_float(t, NAN);
  void* picked = value && nan && *ok ? tvm_tir_if_then_else(*ok, value, nan) : NULL;
  tvm_ffi_release(nan);
  tvm_ffi_release(value);
  tvm_ffi_release(*ok);
  *ok = NULL;
  return picked;
}

static void* take_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  tvm_tir_buffer_obj* o = out[0];
  int64_t n = rank(o);
  void *v[MAX_DIMS], *ok = NULL;
  int64_t k = 0;
  if (out_vars(o, v) != 0) return NULL;
  void* value = take_load(call, in, o, v, &ok, &k);
  void* body = NULL;
  if (value) {
    /* the assertion outside the loops over x's dims after the axis, which read one index */
    void *oi[MAX_DIMS], *ext[MAX_DIMS];
    for (int64_t i = 0; i < n; ++i) oi[i] = tvm_tir_ref(v[i]), ext[i] = dim(o, i);
    body = tvm_tir_store_takev(tvm_tir_ref(o), value, n, oi);
    body = tvm_relax__loop_nest(v + k, ext + k, n - k, NULL, body);
    if (ok) body = tvm_relax__assert_indices(call, ok, body);
    body = tvm_relax__loop_nest(v, ext, k, NULL, body);
  }
  tvm_relax__release_all(v, n);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_take(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, take_body);
}

/* ---- tile, repeat, flip ---------------------------------------------------------------------- */
static void* tile_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                       tvm_tir_buffer_obj* out, void* const* v) {
  (void)call;
  int64_t n = rank(out), r = rank(in[0]);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < r; ++i) {
    ind[i] = tvm_tir_floormod_take(tvm_tir_ref(v[n - r + i]), tvm_tir_ref(dim(in[0], i)));
  }
  return tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ind);
}

static void* repeat_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                         tvm_tir_buffer_obj* out, void* const* v) {
  (void)out;
  bool no_axis;
  int64_t r = rank(in[0]);
  int64_t axis = norm_axis(attr_int(call, "axis", 0, &no_axis), r);
  int64_t reps = attr_int(call, "repeats", 1, NULL);
  void* ind[MAX_DIMS];
  if (no_axis) { /* the flattened input, each element repeated */
    void* lin = tvm_tir_floordiv_take(tvm_tir_ref(v[0]), tvm_tir_i64(reps));
    tvm_relax__unflat_index(in[0], lin, ind);
    tvm_ffi_release(lin);
  } else {
    for (int64_t i = 0; i < r; ++i) {
      ind[i] = i == axis ? tvm_tir_floordiv_take(tvm_tir_ref(v[i]), tvm_tir_i64(reps))
                         : tvm_tir_ref(v[i]);
    }
  }
  return tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ind);
}

static void* flip_load(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                       tvm_tir_buffer_obj* out, void* const* v) {
  (void)out;
  int64_t r = rank(in[0]);
  int64_t axis = norm_axis(attr_int(call, "axis", 0, NULL), r);
  void* ind[MAX_DIMS];
  for (int64_t i = 0; i < r; ++i) {
    ind[i] = i == axis ? tvm_tir_sub_take(tvm_tir_sub_take(tvm_tir_ref(dim(in[0], i)), tvm_tir_i64(1)),
                                          tvm_tir_ref(v[i]))
                       : tvm_tir_ref(v[i]);
  }
  return tvm_tir_load_takev(tvm_tir_ref(in[0]), r, ind);
}

static void* tile_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return gather(call, in, out[0], tile_load);
}
static void* repeat_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                         tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return gather(call, in, out[0], repeat_load);
}
static void* flip_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in, int nin,
                       tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  return gather(call, in, out[0], flip_load);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_tile(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, tile_body);
}
tvm_tir_prim_func_obj* tvm_relax__legalize_repeat(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, repeat_body);
}
tvm_tir_prim_func_obj* tvm_relax__legalize_flip(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, flip_body);
}

/* ---- layout_transform ------------------------------------------------------------------------ */
/*
 * out[f(i)] = x[i] for every index i of x, f the index map (upstream's transform_layout of a
 * copy): a scatter over x's indices, so the map needs no inverse. When out may hold more
 * elements than x (a split that pads, e.g. 10 -> 3 blocks of 4), every element of out is first
 * set to pad_value (0 when it is None, where upstream leaves the padding unspecified).
 * axis_separators only shape the physical buffer (flattening), not the tensor: ignored.
 */
static void* layout_transform_body(const tvm_relax_call_obj* call, tvm_tir_buffer_obj* const* in,
                                   int nin, tvm_tir_buffer_obj* const* out, int nout) {
  (void)nin, (void)nout;
  const TVMFFIAny* mv = tvm_relax_call_attr(call, "index_map");
  tvm_tir_buffer_obj *x = in[0], *o = out[0];
  int64_t nx = rank(x), no = rank(o);
  if (!mv || !tvm_ffi_any_is_object(mv) || tvm_tir_kind_of(mv->v_obj) != TVM_TIR_KIND_IndexMap) {
    tvm_ffi_raise("TypeError", "layout_transform: attribute 'index_map' must be a tir.IndexMap");
    return NULL;
  }
  const tvm_tir_index_map_obj* map = (const tvm_tir_index_map_obj*)mv->v_obj;
  if (tvm_ffi_seq_size(map->initial_indices) != nx || tvm_ffi_seq_size(map->final_indices) != no ||
      nx > MAX_DIMS || no > MAX_DIMS) {
    tvm_ffi_raise("ValueError", "layout_transform: the index map does not fit the tensors");
    return NULL;
  }
  /* The pad value: None, a PrimValue or a PrimExpr (the inference rule checked its dtype). */
  const TVMFFIAny* pv = tvm_relax_call_attr(call, "pad_value");
  void* pad = pv && tvm_ffi_any_is_object(pv) ? pv->v_obj : NULL;
  if (pad && tvm_relax_kind_of(pad) == TVM_RELAX_KIND_PrimValue) pad = ((tvm_relax_prim_value_obj*)pad)->value;
  DLDataType t = o->dtype;
  void* fill_value = pad ? tvm_tir_cast_take(t, tvm_tir_ref(pad))
                         : tvm_tir_dtype_is_floating(t) ? (void*)tvm_tir_const_float(t, 0) : (void*)tvm_tir_const_int(t, 0);
  /* int64 loop variables over x; f's inputs mapped to them (cast to the map's index dtype). */
  void* v[MAX_DIMS];
  void* vmap = tvm_ffi_dict_new();
  int64_t made = 0;
  bool ok = vmap != NULL && tvm_relax__kernel_vars(v, nx, "i") == 0;
  if (ok) made = nx;
  for (int64_t i = 0; ok && i < nx; ++i) {
    const void* iv = tvm_ffi_seq_obj_at(map->initial_indices, i);
    void* cv = tvm_tir_cast_take(tvm_tir_expr_dtype(iv), tvm_tir_ref(v[i]));
    TVMFFIAny key = tvm_ffi_any_obj(iv), val = tvm_ffi_any_obj(cv);
    ok = cv && tvm_ffi_dict_set(vmap, &key, &val) == 0;
    tvm_ffi_release(cv);
  }
  void* oi[MAX_DIMS];
  int64_t nf = 0;
  for (; ok && nf < no; ++nf) {
    tvm_tir_expr_obj* f = tvm_relax__subst_expr(vmap, tvm_ffi_seq_obj_at(map->final_indices, nf));
    oi[nf] = f ? tvm_tir_cast_take(TVM_TIR_INT64, f) : NULL;
    ok = oi[nf] != NULL;
  }
  if (!ok && nf > 0 && !oi[nf - 1]) --nf;
  void* body = NULL;
  if (ok) {
    void *xi[MAX_DIMS], *ext[MAX_DIMS];
    for (int64_t i = 0; i < nx; ++i) xi[i] = tvm_tir_ref(v[i]), ext[i] = dim(x, i);
    void* store = tvm_tir_store_takev(tvm_tir_ref(o), tvm_tir_cast_take(t, tvm_tir_load_takev(tvm_tir_ref(x), nx, xi)), no, oi);
    nf = 0; /* consumed */
    body = tvm_relax__loop_nest(v, ext, nx, NULL, store);
    /* Fill first unless out provably has exactly x's elements. */
    void* nin_e = tvm_tir_i64(1);
    void* nout_e = tvm_tir_i64(1);
    for (int64_t i = 0; i < nx; ++i) nin_e = tvm_tir_mul_take(nin_e, tvm_tir_ref(dim(x, i)));
    for (int64_t i = 0; i < no; ++i) nout_e = tvm_tir_mul_take(nout_e, tvm_tir_ref(dim(o, i)));
    bool same = nin_e && nout_e && tvm_relax__dim_equal(nin_e, nout_e);
    tvm_ffi_release(nin_e), tvm_ffi_release(nout_e);
    if (!same && body) {
      void* p[MAX_DIMS];
      if (out_vars(o, p) == 0) {
        void* fill = tvm_relax__store_all(o, p, tvm_tir_ref(fill_value));
        tvm_relax__release_all(p, no);
        body = tvm_tir_seq_take(fill, body);
      } else {
        tvm_ffi_release(body);
        body = NULL;
      }
    }
  }
  tvm_relax__release_all(oi, nf);
  tvm_relax__release_all(v, made);
  tvm_ffi_release(vmap);
  tvm_ffi_release(fill_value);
  return body;
}

tvm_tir_prim_func_obj* tvm_relax__legalize_layout_transform(const tvm_relax_call_obj* call) {
  return tvm_relax__legalize_with(call, layout_transform_body);
}
