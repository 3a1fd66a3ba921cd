/*
 * op_manip.c: inference rules and attribute schemas of the manipulation and indexing operators:
 * reshape, permute_dims, expand_dims, squeeze, flatten, broadcast_to, concat, stack, meshgrid,
 * split, strided_slice, take, tile, repeat, flip and layout_transform (upstream: relax/op/tensor/
 * manipulate.cc and index.cc), and nn.batch_flatten (nn.cc), flatten's kin. Known dims are
 * computed exactly, symbolic ones as simplified PrimExprs; what cannot be known (an unknown
 * shape or rank, a symbolic bound) gives a result of known rank and unknown shape, or unknown
 * rank, as upstream does.
 */
#include <stdio.h>
#include <string.h>
#include <tvm/tir/attr_value.h>
#include <tvm/tir/buffer.h>

#include "internal.h"

/* permute_dims: axes None reverses the dims. */
const tvm_relax_attr_field tvm_relax__attrs_permute_dims[] = {
    {"axes", TVM_RELAX_ATTR_OPT_INTS, "None"}, {NULL, 0, NULL}};
/* expand_dims: the new axes, in [-ndim - 1, ndim] of the input's ndim. */
const tvm_relax_attr_field tvm_relax__attrs_axis_list[] = {{"axis", TVM_RELAX_ATTR_INTS, NULL},
                                                           {NULL, 0, NULL}};
/* squeeze: axis None removes every dim that is 1. */
const tvm_relax_attr_field tvm_relax__attrs_axis_opt_list[] = {
    {"axis", TVM_RELAX_ATTR_OPT_INTS, "None"}, {NULL, 0, NULL}};
/* stack: the new axis, in [-(ndim + 1), ndim] (upstream's StackAttrs; Python's default is 0). */
const tvm_relax_attr_field tvm_relax__attrs_stack[] = {{"axis", TVM_RELAX_ATTR_INT, "0"},
                                                       {NULL, 0, NULL}};
/* concat: axis None concatenates 1-d tensors (upstream's ConcatAttrs; Python's default is 0). */
const tvm_relax_attr_field tvm_relax__attrs_axis_opt[] = {{"axis", TVM_RELAX_ATTR_OPT_INT, "0"},
                                                          {NULL, 0, NULL}};
/* meshgrid: "ij" (matrix indexing) or "xy" (Cartesian: the first two output dims exchanged);
 * None is "ij" (upstream's MeshgridAttrs holds an optional string, its wrapper's default "ij"). */
const tvm_relax_attr_field tvm_relax__attrs_meshgrid[] = {
    {"indexing", TVM_RELAX_ATTR_OPT_STR, "ij"}, {NULL, 0, NULL}};
/* split: indices_or_sections is an int (the number of equal sections) or a list of ints. */
const tvm_relax_attr_field tvm_relax__attrs_split[] = {
    {"indices_or_sections", TVM_RELAX_ATTR_ANY, NULL},
    {"axis", TVM_RELAX_ATTR_INT, "0"},
    {NULL, 0, NULL}};
/* strided_slice: Python's relax.op.strided_slice passes assume_inbound=False. */
const tvm_relax_attr_field tvm_relax__attrs_strided_slice[] = {
    {"assume_inbound", TVM_RELAX_ATTR_BOOL, "false"}, {NULL, 0, NULL}};
/* take: axis None takes from a 1-d tensor; mode "fast", "wrap", "clip" or "nan" (NaN for an index
 * outside the dim, float data only). */
const tvm_relax_attr_field tvm_relax__attrs_take[] = {{"axis", TVM_RELAX_ATTR_OPT_INT, "None"},
                                                      {"mode", TVM_RELAX_ATTR_STR, "fast"},
                                                      {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_tile[] = {{"repeats", TVM_RELAX_ATTR_INTS, NULL},
                                                      {NULL, 0, NULL}};
/* repeat: axis None repeats the flattened input. */
const tvm_relax_attr_field tvm_relax__attrs_repeat[] = {{"repeats", TVM_RELAX_ATTR_INT, NULL},
                                                        {"axis", TVM_RELAX_ATTR_OPT_INT, "None"},
                                                        {NULL, 0, NULL}};
/* flip */
const tvm_relax_attr_field tvm_relax__attrs_axis[] = {{"axis", TVM_RELAX_ATTR_INT, NULL},
                                                      {NULL, 0, NULL}};
/* layout_transform: index_map a tir.IndexMap; pad_value None or a scalar of x's dtype (a
 * PrimValue or a PrimExpr); the separators do not change the shape. */
const tvm_relax_attr_field tvm_relax__attrs_layout_transform[] = {
    {"index_map", TVM_RELAX_ATTR_ANY, NULL},
    {"pad_value", TVM_RELAX_ATTR_ANY, "None"},
    {"axis_separators", TVM_RELAX_ATTR_OPT_INTS, "None"},
    {"input_axis_separators", TVM_RELAX_ATTR_OPT_INTS, "None"},
    {NULL, 0, NULL}};

/* ---- Helpers --------------------------------------------------------------------------------- */
/* x's struct info with known dims (ffi.Array, NULL for unknown) or rank. */
static tvm_relax_sinfo_obj* like_x(const tvm_relax_tensor_sinfo_obj* x, void* dims, int32_t ndim) {
  return tvm_relax__tensor_result(dims, x->dtype, ndim, x->vdevice);
}

/* An ffi.Array of n PrimExprs taken from items (the references move into the array; a NULL
 * item, left by a failed step whose error is raised, makes the result NULL). */
static void* dims_take(tvm_tir_expr_obj** items, int64_t n) {
  TVMFFIAny buf[16] = {{0}};
  TVMFFIAny* a = n <= 16 ? buf : tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  bool ok = a != NULL;
  for (int64_t i = 0; i < n; ++i) {
    ok = ok && items[i];
    if (a) a[i] = items[i] ? tvm_ffi_any_obj(items[i]) : tvm_ffi_any_none();
  }
  void* arr = ok ? tvm_ffi_array_new(a, n) : NULL;
  for (int64_t i = 0; i < n; ++i) tvm_ffi_release(items[i]);
  if (a != buf) tvm_ffi_free(a);
  return arr;
}

/* Room for the n dims of a result: `small` when they fit, else allocated. */
enum { SMALL_DIMS = 16 };
typedef struct {
  tvm_tir_expr_obj* small[SMALL_DIMS];
  tvm_tir_expr_obj** v;
} dim_buf;

static tvm_tir_expr_obj** dim_buf_init(dim_buf* b, int64_t n) {
  b->v = n <= SMALL_DIMS ? b->small : tvm_ffi_calloc((size_t)n, sizeof(void*));
  return b->v;
}

static void dim_buf_free(dim_buf* b) {
  if (b->v != b->small) tvm_ffi_free(b->v);
}

/* A tensor of the n dims of b (the references move; b is freed), dtype and vdevice. */
static tvm_relax_sinfo_obj* buf_result(dim_buf* b, int64_t n, DLDataType dtype, void* vdevice) {
  void* dims = dims_take(b->v, n);
  dim_buf_free(b);
  tvm_relax_sinfo_obj* out =
      dims ? tvm_relax__tensor_result(dims, dtype, (int32_t)n, vdevice) : NULL;
  tvm_ffi_release(dims);
  return out;
}

/* x's struct info with the n dims of b. */
static tvm_relax_sinfo_obj* like_x_buf(const tvm_relax_tensor_sinfo_obj* x, dim_buf* b, int64_t n) {
  return buf_result(b, n, x->dtype, x->vdevice);
}

static tvm_tir_expr_obj* dim_at(void* dims, int64_t i) { return tvm_ffi_seq_obj_at(dims, i); }

static tvm_tir_expr_obj* retained_dim(tvm_tir_expr_obj* e) {
  tvm_ffi_retain(e);
  return e;
}

/* e (consumed) simplified; NULL stays NULL. */
static tvm_tir_expr_obj* simplified(tvm_tir_expr_obj* e) {
  if (!e) return NULL;
  /* (a constant or a variable is its own simplest form: most products of static shapes) */
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_IntImm || k == TVM_TIR_KIND_Var || k == TVM_TIR_KIND_SizeVar) return e;
  tvm_tir_expr_obj* s = tvm_tir_simplify_expr(e, NULL);
  tvm_ffi_release(e);
  return s;
}

/* f(a, b) with both operands consumed. */
static tvm_tir_expr_obj* take2(tvm_tir_expr_obj* (*f)(tvm_tir_expr_obj*, tvm_tir_expr_obj*),
                               tvm_tir_expr_obj* a, tvm_tir_expr_obj* b) {
  tvm_tir_expr_obj* r = a && b ? f(a, b) : NULL;
  tvm_ffi_release(a);
  tvm_ffi_release(b);
  return r;
}

/* ceil(a / c) for a constant c > 0; a borrowed. */
static tvm_tir_expr_obj* ceildiv_const(tvm_tir_expr_obj* a, int64_t c) {
  tvm_tir_expr_obj* num = take2(tvm_tir_add, retained_dim(a), tvm_relax__int64(c - 1));
  return take2(tvm_tir_floordiv, num, tvm_relax__int64(c));
}

/* The product of dims[from, to), simplified (new reference). */
static tvm_tir_expr_obj* dims_product(void* dims, int64_t from, int64_t to) {
  tvm_tir_expr_obj* p = tvm_relax__int64(1);
  for (int64_t i = from; i < to && p; ++i) p = take2(tvm_tir_mul, p, retained_dim(dim_at(dims, i)));
  return simplified(p);
}


/* The text for messages of a PrimExpr, a struct info, or a Relax expression's struct info,
 * in b. */
static const char* expr_text(tvm_ffi_strbuf* b, const void* e) {
  int64_t c;
  if (tvm_tir_is_expr(e) && tvm_tir_as_const_int(e, &c)) {
    tvm_ffi_strbuf_printf(b, "%lld", (long long)c);
  } else if (tvm_tir_is_expr(e)) {
    tvm_tir_node_text(b, e);
  } else if (tvm_relax_is_sinfo(e)) {
    tvm_relax_sinfo_text(b, e);
  } else {
    tvm_relax_sinfo_text(b, tvm_relax_sinfo_of(e));
  }
  return tvm_ffi_strbuf_cstr(b);
}

/* Normalise the n axes against ndim in place; each axis may appear once. */
static int normalize_axis_list(const tvm_relax__infer_ctx* ctx, int64_t* axes, int64_t n,
                               int64_t ndim) {
  for (int64_t i = 0; i < n; ++i) {
    if (tvm_relax__normalize_axis(ctx, axes[i], ndim, &axes[i]) != 0) return -1;
    for (int64_t j = 0; j < i; ++j) {
      if (axes[j] == axes[i]) {
        tvm_relax__op_error(ctx, "ValueError", "axis %lld is repeated", (long long)axes[i]);
        return -1;
      }
    }
  }
  return 0;
}

/* The ints of `axes` (an ffi.Array of ints) normalised against ndim into out[]. */
static int normalize_axes(const tvm_relax__infer_ctx* ctx, void* axes, int64_t ndim, int64_t* out) {
  int64_t n = tvm_ffi_seq_size(axes);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(axes, i), &out[i]);
  }
  return normalize_axis_list(ctx, out, n, ndim);
}

/* A scratch array of n int64s (buf when it fits); NULL + error. */
static int64_t* scratch(int64_t* buf, int64_t cap, int64_t n) {
  return n <= cap ? buf : tvm_ffi_calloc((size_t)n, sizeof(int64_t));
}
static void scratch_free(int64_t* p, int64_t* buf) {
  if (p != buf) tvm_ffi_free(p);
}

/* ---- reshape --------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_reshape(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 1);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_ShapeStructInfo) {
    return tvm_relax__arg_kind_error(ctx, 1, "a shape (R.Shape)");
  }
  void* new_dims = ((tvm_relax_shape_sinfo_obj*)s)->values;
  void* old_dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!new_dims) return tvm_relax__tensor_of_shape_arg(ctx, 1, x->dtype, x->vdevice);
  int64_t n = tvm_ffi_seq_size(new_dims);
  int64_t infer_at = -1;
  for (int64_t i = 0; i < n; ++i) {
    int64_t c;
    if (!tvm_tir_as_const_int(dim_at(new_dims, i), &c) || c >= 0) continue;
    if (c != -1) {
      return tvm_relax__arg_error(
          ctx, 1, "ValueError",
          "has the negative dim %lld (only one -1 may stand for the dim to infer)", (long long)c);
    }
    if (infer_at >= 0) {
      return tvm_relax__arg_error(ctx, 1, "ValueError", "has more than one -1");
    }
    infer_at = i;
  }
  if (!old_dims) {
    if (infer_at >= 0) return like_x(x, NULL, (int32_t)n);
    return tvm_relax__tensor_of_shape_arg(ctx, 1, x->dtype, x->vdevice);
  }
  tvm_tir_expr_obj* old_prod = dims_product(old_dims, 0, tvm_ffi_seq_size(old_dims));
  if (!old_prod) return NULL;
  tvm_relax_sinfo_obj* out = NULL;
  tvm_ffi_strbuf ta = {0}, tb = {0}, tc = {0}, td = {0};
  if (infer_at >= 0) {
    /* -1: the element count divided by the product of the other dims. */
    tvm_tir_expr_obj* rest = tvm_relax__int64(1);
    for (int64_t i = 0; i < n && rest; ++i) {
      if (i != infer_at) rest = take2(tvm_tir_mul, rest, retained_dim(dim_at(new_dims, i)));
    }
    rest = simplified(rest);
    int64_t a, b;
    bool rest_const = rest && tvm_tir_as_const_int(rest, &b);
    if (rest_const && b == 0) {
      tvm_relax__op_error(ctx, "ValueError", "cannot infer the -1 of %s: the other dims are 0",
                          expr_text(&tb, tvm_relax__arg(ctx, 1)));
    } else if (rest_const && tvm_tir_as_const_int(old_prod, &a) && a % b != 0) {
      tvm_relax__op_error(ctx, "ValueError", "cannot reshape %s of %lld elements to %s",
                          expr_text(&ta, x), (long long)a, expr_text(&tb, tvm_relax__arg(ctx, 1)));
    } else if (rest) {
      tvm_tir_expr_obj* d = simplified(take2(tvm_tir_floordiv, retained_dim(old_prod), rest));
      rest = NULL;
      dim_buf b;
      tvm_tir_expr_obj** it = d ? dim_buf_init(&b, n) : NULL;
      if (it) {
        for (int64_t i = 0; i < n; ++i) {
          it[i] = retained_dim(i == infer_at ? d : dim_at(new_dims, i));
        }
        out = like_x_buf(x, &b, n);
      }
      tvm_ffi_release(d);
    }
    tvm_ffi_release(rest);
  } else {
    tvm_tir_expr_obj* new_prod = dims_product(new_dims, 0, n);
    bool same = new_prod && tvm_relax__dim_same(old_prod, new_prod);
    if (new_prod && !same && tvm_relax__dim_unequal(old_prod, new_prod)) {
      tvm_relax__op_error(ctx, "ValueError", "cannot reshape %s (%s elements) to %s (%s elements)",
                          expr_text(&ta, x), expr_text(&tc, old_prod),
                          expr_text(&tb, tvm_relax__arg(ctx, 1)), expr_text(&td, new_prod));
    } else if (new_prod) {
      out = like_x(x, new_dims, (int32_t)n);
    }
    tvm_ffi_release(new_prod);
  }
  tvm_ffi_strbuf_free(&ta);
  tvm_ffi_strbuf_free(&tb);
  tvm_ffi_strbuf_free(&tc);
  tvm_ffi_strbuf_free(&td);
  tvm_ffi_release(old_prod);
  return out;
}

/* ---- permute_dims, expand_dims, squeeze, flatten --------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_permute_dims(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  void* axes = tvm_relax__attr_ints(ctx, "axes");
  int32_t ndim = x->ndim;
  if (axes) {
    int64_t n = tvm_ffi_seq_size(axes);
    if (ndim != TVM_RELAX_UNKNOWN_NDIM && n != ndim) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "attribute 'axes' has %lld axes for a tensor of ndim %d",
                                 (long long)n, ndim);
    }
    ndim = (int32_t)n;
  } else if (ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
  }
  int64_t buf[16];
  int64_t* perm = scratch(buf, 16, ndim);
  if (!perm) return NULL;
  tvm_relax_sinfo_obj* out = NULL;
  if (axes && normalize_axes(ctx, axes, ndim, perm) != 0) goto done;
  bool identity = true;
  for (int32_t i = 0; i < ndim; ++i) {
    if (!axes) perm[i] = ndim - 1 - i;
    identity = identity && perm[i] == i;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (identity && x->ndim == ndim) {
    out = retained_sinfo(&x->base);
  } else if (!dims) {
    out = like_x(x, NULL, ndim);
  } else {
    dim_buf b;
    tvm_tir_expr_obj** it = dim_buf_init(&b, ndim);
    if (!it) goto done;
    for (int32_t i = 0; i < ndim; ++i) it[i] = retained_dim(dim_at(dims, perm[i]));
    out = like_x_buf(x, &b, ndim);
  }
done:
  scratch_free(perm, buf);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_expand_dims(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  void* axes = tvm_relax__attr_ints(ctx, "axis");
  int64_t n = axes ? tvm_ffi_seq_size(axes) : 0;
  if (n == 0) return retained_sinfo(&x->base);
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
  int64_t out_ndim = x->ndim + n;
  int64_t buf[16], nbuf[16];
  int64_t* at = scratch(buf, 16, n);
  int64_t* is_new = scratch(nbuf, 16, out_ndim);
  tvm_relax_sinfo_obj* out = NULL;
  if (!at || !is_new || normalize_axes(ctx, axes, out_ndim, at) != 0) goto done;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) {
    out = like_x(x, NULL, (int32_t)out_ndim);
    goto done;
  }
  memset(is_new, 0, (size_t)out_ndim * sizeof(int64_t));
  for (int64_t i = 0; i < n; ++i) is_new[at[i]] = 1;
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, out_ndim);
  if (!it) goto done;
  for (int64_t i = 0, k = 0; i < out_ndim; ++i) {
    it[i] = is_new[i] ? tvm_relax__int64(1) : retained_dim(dim_at(dims, k++));
  }
  out = like_x_buf(x, &b, out_ndim);
done:
  if (at) scratch_free(at, buf);
  if (is_new) scratch_free(is_new, nbuf);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_squeeze(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  void* axes = tvm_relax__attr_ints(ctx, "axis");
  if (axes && tvm_ffi_seq_size(axes) == 0) return retained_sinfo(&x->base);
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  int32_t ndim = x->ndim;
  int64_t buf[16];
  int64_t* drop = scratch(buf, 16, ndim + 1);
  if (!drop) return NULL;
  memset(drop, 0, (size_t)(ndim + 1) * sizeof(int64_t));
  tvm_relax_sinfo_obj* out = NULL;
  int32_t kept = ndim;
  if (axes) {
    int64_t n = tvm_ffi_seq_size(axes);
    int64_t abuf[16];
    int64_t* at = scratch(abuf, 16, n);
    if (!at) goto done;
    int rc = normalize_axes(ctx, axes, ndim, at);
    /* An axis of a constant extent other than 1 stays (PyTorch's squeeze, and upstream's since
     * apache/tvm#18478); a symbolic one is taken to be 1. */
    for (int64_t i = 0; rc == 0 && i < n; ++i) {
      int64_t c;
      if (dims && tvm_tir_as_const_int(dim_at(dims, at[i]), &c) && c != 1) continue;
      if (!drop[at[i]]) --kept;
      drop[at[i]] = 1;
    }
    scratch_free(at, abuf);
    if (rc != 0) goto done;
    if (!dims) {
      out = like_x(x, NULL, kept);
      goto done;
    }
  } else {
    /* Every dim that is 1; a symbolic dim may be 1, so the rank is then unknown. */
    if (!dims) {
      out = like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
      goto done;
    }
    for (int32_t i = 0; i < ndim; ++i) {
      int64_t c;
      if (!tvm_tir_as_const_int(dim_at(dims, i), &c)) {
        out = like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
        goto done;
      }
      if (c == 1) drop[i] = 1, --kept;
    }
  }
  if (kept == ndim) {
    out = retained_sinfo(&x->base);
    goto done;
  }
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, kept);
  if (!it) goto done;
  for (int32_t i = 0, k = 0; i < ndim; ++i) {
    if (!drop[i]) it[k++] = retained_dim(dim_at(dims, i));
  }
  out = like_x_buf(x, &b, kept);
done:
  scratch_free(drop, buf);
  return out;
}

/* A 1-d struct info like x's of length len (consumed). */
static tvm_relax_sinfo_obj* like_x_1d(const tvm_relax_tensor_sinfo_obj* x, tvm_tir_expr_obj* len) {
  void* dims = dims_take(&len, 1);
  if (!dims) return NULL;
  tvm_relax_sinfo_obj* out = like_x(x, dims, 1);
  tvm_ffi_release(dims);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_flatten(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (x->ndim == 1) return retained_sinfo(&x->base);
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (x->ndim == 0) return like_x_1d(x, tvm_relax__int64(1));
  if (!dims) return like_x(x, NULL, 1);
  return like_x_1d(x, dims_product(dims, 0, x->ndim));
}

/* nn.batch_flatten (upstream nn.cc): (N, d1, ..., dk) -> (N, d1 * ... * dk). Upstream requires
 * ndim >= 2 (a 2-d input is returned as is) and gives ndim 2 for an unknown rank or shape. */
tvm_relax_sinfo_obj* tvm_relax__infer_batch_flatten(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return like_x(x, NULL, 2);
  if (x->ndim < 2) {
    return tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim >= 2, got %d", x->ndim);
  }
  if (x->ndim == 2) return retained_sinfo(&x->base);
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) return like_x(x, NULL, 2);
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, 2);
  it[0] = retained_dim(dim_at(dims, 0));
  it[1] = dims_product(dims, 1, x->ndim);
  return like_x_buf(x, &b, 2);
}

/* ---- broadcast_to ---------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_broadcast_to(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 1);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_ShapeStructInfo) {
    return tvm_relax__arg_kind_error(ctx, 1, "a shape (R.Shape)");
  }
  const tvm_relax_shape_sinfo_obj* ss = (const tvm_relax_shape_sinfo_obj*)s;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM && ss->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      ss->ndim < x->ndim) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "cannot broadcast a tensor of ndim %d to a shape of ndim %d",
                               x->ndim, ss->ndim);
  }
  void* old = tvm_relax_tensor_sinfo_dims(&x->base);
  if (old && ss->values) {
    int64_t on = tvm_ffi_seq_size(old), tn = tvm_ffi_seq_size(ss->values);
    for (int64_t i = 1; i <= on; ++i) {
      tvm_tir_expr_obj *a = dim_at(old, on - i), *b = dim_at(ss->values, tn - i);
      int64_t c;
      if (tvm_tir_as_const_int(a, &c) && c == 1) continue;
      if (tvm_relax__dim_unequal(a, b)) {
        tvm_ffi_strbuf ta = {0}, tb = {0};
        tvm_relax__op_error(ctx, "ValueError", "cannot broadcast dim %lld of extent %s to %s",
                            (long long)(on - i), expr_text(&ta, a), expr_text(&tb, b));
        tvm_ffi_strbuf_free(&ta);
        tvm_ffi_strbuf_free(&tb);
        return NULL;
      }
    }
  }
  return tvm_relax__tensor_of_shape_arg(ctx, 1, x->dtype, x->vdevice);
}

/* ---- concat ---------------------------------------------------------------------------------- */
static bool same_vdevice(void* a, void* b) {
  if (a == b) return true;
  if (!a || !b) return false;
  TVMFFIAny x = tvm_ffi_any_obj(a), y = tvm_ffi_any_obj(b);
  return tvm_ffi_structural_equal(&x, &y, false, NULL, NULL) == 1;
}

/* What concat and stack know of their tuple of tensors (argument 0). */
typedef struct {
  void* fields; /* (borrowed) */
  int64_t n;
  DLDataType dtype;   /* unknown when one's is */
  int32_t ndim;       /* of those that know it */
  void* vdevice;      /* (borrowed) NULL unless the ones known agree */
  bool shape_unknown; /* one's shape is unknown */
} tensor_tuple;

/* Fill t: a non-empty tuple of tensors of one dtype and ndim (ndim: the one they must have, or
 * unknown; note: what the ndim error adds). 0, or -1 with the error raised. */
static int tensor_tuple_of(const tvm_relax__infer_ctx* ctx, int32_t ndim, const char* note,
                           tensor_tuple* t) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 0);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TupleStructInfo) {
    tvm_relax__arg_kind_error(ctx, 0, "a tuple of tensors");
    return -1;
  }
  *t = (tensor_tuple){((tvm_relax_tuple_sinfo_obj*)s)->fields, 0, TVM_RELAX_DTYPE_UNKNOWN, ndim,
                      NULL, false};
  t->n = tvm_ffi_seq_size(t->fields);
  if (t->n == 0) {
    tvm_relax__arg_error(ctx, 0, "ValueError", "must hold at least one tensor");
    return -1;
  }
  bool dtype_unknown = false, vdev_unknown = false;
  for (int64_t i = 0; i < t->n; ++i) {
    tvm_relax_tensor_sinfo_obj* f = tvm_ffi_seq_obj_at(t->fields, i);
    if (tvm_relax_kind_of(f) != TVM_RELAX_KIND_TensorStructInfo) {
      tvm_ffi_strbuf got = {0};
      tvm_relax_sinfo_text(&got, &f->base);
      tvm_relax__arg_error(ctx, 0, "TypeError", "must be a tuple of tensors, field %lld is %s",
                           (long long)i, tvm_ffi_strbuf_cstr(&got));
      tvm_ffi_strbuf_free(&got);
      return -1;
    }
    if (tvm_relax_dtype_is_unknown(f->dtype)) {
      dtype_unknown = true;
    } else if (tvm_relax_dtype_is_unknown(t->dtype)) {
      t->dtype = f->dtype;
    } else if (!tvm_ffi_dtype_equal(t->dtype, f->dtype)) {
      tvm_relax__op_error(ctx, "TypeError", "tensors have different dtypes %s and %s",
                          tvm_tir_dtype_str(t->dtype).s, tvm_tir_dtype_str(f->dtype).s);
      return -1;
    }
    if (t->ndim == TVM_RELAX_UNKNOWN_NDIM) {
      t->ndim = f->ndim;
    } else if (f->ndim != TVM_RELAX_UNKNOWN_NDIM && f->ndim != t->ndim) {
      tvm_relax__op_error(ctx, "ValueError", "tensors have different ndims %d and %d%s", t->ndim,
                          f->ndim, note);
      return -1;
    }
    if (!vdev_unknown && f->vdevice) {
      if (!t->vdevice) {
        t->vdevice = f->vdevice;
      } else if (!same_vdevice(t->vdevice, f->vdevice)) {
        vdev_unknown = true;
      }
    }
    if (!tvm_relax_tensor_sinfo_dims(&f->base)) t->shape_unknown = true;
  }
  if (dtype_unknown) t->dtype = TVM_RELAX_DTYPE_UNKNOWN;
  if (vdev_unknown) t->vdevice = NULL;
  return 0;
}

/* The dims of t's tensors but dim `skip` (concat's axis; -1: none) must agree: provably
 * different ones are an error, ones not provably equal clear *equal. *d0: the first known dims
 * (borrowed; NULL if none). 0, or -1 with the error raised. */
static int common_dims(const tvm_relax__infer_ctx* ctx, const tensor_tuple* t, int64_t skip,
                       void** d0, bool* equal) {
  *d0 = NULL;
  *equal = true;
  for (int64_t i = 0; i < t->n; ++i) {
    void* di = tvm_relax_tensor_sinfo_dims(tvm_ffi_seq_obj_at(t->fields, i));
    if (!di) continue;
    if (!*d0) {
      *d0 = di;
      continue;
    }
    for (int32_t d = 0; d < t->ndim; ++d) {
      if (d == skip) continue;
      tvm_tir_expr_obj *a = dim_at(*d0, d), *b = dim_at(di, d);
      if (tvm_relax__dim_unequal(a, b)) {
        tvm_ffi_strbuf ta = {0}, tb = {0};
        char note[64] = "";
        if (skip >= 0) {
          snprintf(note, sizeof(note), ", which is not the concatenation axis %lld",
                   (long long)skip);
        }
        tvm_relax__op_error(ctx, "ValueError", "tensors differ in dim %d (%s against %s)%s", d,
                            expr_text(&ta, a), expr_text(&tb, b), note);
        tvm_ffi_strbuf_free(&ta);
        tvm_ffi_strbuf_free(&tb);
        return -1;
      }
      if (!tvm_relax__dim_equal(a, b)) *equal = false;
    }
  }
  return 0;
}

tvm_relax_sinfo_obj* tvm_relax__infer_concat(const tvm_relax__infer_ctx* ctx) {
  bool has_axis = !tvm_relax__attr_is_none(ctx, "axis");
  tensor_tuple t;
  if (tensor_tuple_of(ctx, has_axis ? TVM_RELAX_UNKNOWN_NDIM : 1,
                      has_axis ? "" : " (axis None needs 1-d tensors)", &t) != 0) {
    return NULL;
  }
  int32_t ndim = t.ndim;
  tvm_relax_sinfo_obj* first = tvm_ffi_seq_obj_at(t.fields, 0);
  if (ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return t.n == 1 ? retained_sinfo(first)
                    : tvm_relax_tensor_sinfo_new(NULL, t.dtype, TVM_RELAX_UNKNOWN_NDIM, t.vdevice);
  }
  int64_t axis = 0;
  if (has_axis && tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), ndim, &axis)) {
    return NULL;
  }
  if (t.n == 1) return retained_sinfo(first);
  void* d0;
  bool equal;
  if (common_dims(ctx, &t, axis, &d0, &equal) != 0) return NULL;
  if (t.shape_unknown || !equal) return tvm_relax_tensor_sinfo_new(NULL, t.dtype, ndim, t.vdevice);
  tvm_tir_expr_obj* sum = tvm_relax__int64(0);
  for (int64_t i = 0; i < t.n && sum; ++i) {
    void* di = tvm_relax_tensor_sinfo_dims(tvm_ffi_seq_obj_at(t.fields, i));
    sum = take2(tvm_tir_add, sum, retained_dim(dim_at(di, axis)));
  }
  sum = simplified(sum);
  dim_buf b;
  tvm_tir_expr_obj** it = sum ? dim_buf_init(&b, ndim) : NULL;
  if (!it) {
    tvm_ffi_release(sum);
    return NULL;
  }
  for (int32_t d = 0; d < ndim; ++d) it[d] = d == axis ? sum : retained_dim(dim_at(d0, d));
  return buf_result(&b, ndim, t.dtype, t.vdevice);
}

/* ---- stack ----------------------------------------------------------------------------------- */
/* Tensors of one dtype, ndim and shape joined on a new axis (in [0, ndim]) of extent their
 * number; a dim not provably equal among them leaves the result's shape unknown. */
tvm_relax_sinfo_obj* tvm_relax__infer_stack(const tvm_relax__infer_ctx* ctx) {
  tensor_tuple t;
  if (tensor_tuple_of(ctx, TVM_RELAX_UNKNOWN_NDIM, "", &t) != 0) return NULL;
  if (t.ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return tvm_relax_tensor_sinfo_new(NULL, t.dtype, TVM_RELAX_UNKNOWN_NDIM, t.vdevice);
  }
  int32_t ndim = t.ndim + 1;
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), ndim, &axis) != 0) {
    return NULL;
  }
  void* d0;
  bool equal;
  if (common_dims(ctx, &t, -1, &d0, &equal) != 0) return NULL;
  if (t.shape_unknown || !equal) return tvm_relax_tensor_sinfo_new(NULL, t.dtype, ndim, t.vdevice);
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, ndim);
  if (!it) return NULL;
  for (int32_t d = 0; d < ndim; ++d) {
    it[d] = d == axis ? tvm_relax__int64(t.n) : retained_dim(dim_at(d0, d < axis ? d : d - 1));
  }
  return buf_result(&b, ndim, t.dtype, t.vdevice);
}

/* ---- split ----------------------------------------------------------------------------------- */
/* dims with dims[axis] replaced by len (consumed), as a struct info like x's. */
static tvm_relax_sinfo_obj* with_dim(const tvm_relax_tensor_sinfo_obj* x, void* dims, int64_t axis,
                                     tvm_tir_expr_obj* len) {
  int64_t n = tvm_ffi_seq_size(dims);
  dim_buf b;
  tvm_tir_expr_obj** it = len ? dim_buf_init(&b, n) : NULL;
  if (!it) {
    tvm_ffi_release(len);
    return NULL;
  }
  for (int64_t i = 0; i < n; ++i) it[i] = i == axis ? len : retained_dim(dim_at(dims, i));
  return like_x_buf(x, &b, n);
}

/* A TupleStructInfo of the n struct infos in parts (consumed). */
static tvm_relax_sinfo_obj* tuple_take(tvm_relax_sinfo_obj** parts, int64_t n) {
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) ok = ok && parts[i];
  void* arr = ok ? tvm_ffi_array_of_objects((void**)parts, n) : NULL;
  for (int64_t i = 0; i < n; ++i) tvm_ffi_release(parts[i]);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax_tuple_sinfo_new(arr);
  tvm_ffi_release(arr);
  return out;
}

/* An int attribute value: an int or an IntImm (not a bool). */
static bool any_as_int(const TVMFFIAny* a, int64_t* out) {
  if (a->type_index == kTVMFFIInt) return tvm_ffi_any_as_int(a, out);
  return tvm_ffi_any_is_object(a) && tvm_tir_kind_of(a->v_obj) == TVM_TIR_KIND_IntImm &&
         tvm_tir_as_const_int(a->v_obj, out);
}

tvm_relax_sinfo_obj* tvm_relax__infer_split(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  const TVMFFIAny* ios = tvm_relax__attr(ctx, "indices_or_sections");
  int64_t sections = 0, n_idx = 0;
  void* indices = NULL;
  if (any_as_int(ios, &sections)) {
    if (sections <= 0) {
      return tvm_relax__op_error(ctx, "ValueError",
                                 "the number of sections must be positive, got %lld",
                                 (long long)sections);
    }
  } else if (ios->type_index == kTVMFFIArray || ios->type_index == kTVMFFIList) {
    indices = ios->v_obj;
    n_idx = tvm_ffi_seq_size(indices);
    for (int64_t i = 0; i < n_idx; ++i) {
      int64_t v;
      if (!any_as_int(tvm_ffi_seq_at(indices, i), &v)) indices = NULL;
    }
  }
  if (!sections && !indices) {
    return tvm_relax__op_error(
        ctx, "TypeError",
        "attribute 'indices_or_sections' must be an int or a list of ints, got %s",
        tvm_ffi_any_type_name(ios));
  }
  int64_t axis = -1;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  int64_t parts = indices ? n_idx + 1 : sections;
  if (parts == 1) return retained_sinfo(&x->base);
  tvm_relax_sinfo_obj* buf[16];
  tvm_relax_sinfo_obj** out = parts <= 16 ? buf : tvm_ffi_calloc((size_t)parts, sizeof(void*));
  if (!out) return NULL;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  tvm_tir_expr_obj* extent = dims ? dim_at(dims, axis) : NULL;
  tvm_tir_expr_obj* step = NULL;
  if (dims && !indices) step = simplified(ceildiv_const(extent, sections));
  for (int64_t i = 0; i < parts; ++i) {
    if (!dims) {
      out[i] = like_x(x, NULL, x->ndim);
      continue;
    }
    tvm_tir_expr_obj* len;
    if (indices) {
      /* [left, right) clamped to [0, extent]. */
      int64_t l = 0, r = 0;
      if (i > 0) any_as_int(tvm_ffi_seq_at(indices, i - 1), &l);
      if (i < n_idx) any_as_int(tvm_ffi_seq_at(indices, i), &r);
      tvm_tir_expr_obj* left = take2(tvm_tir_max, tvm_relax__int64(l), tvm_relax__int64(0));
      left = take2(tvm_tir_min, left, retained_dim(extent));
      tvm_tir_expr_obj* right = i < n_idx
                                    ? take2(tvm_tir_max, tvm_relax__int64(r), tvm_relax__int64(0))
                                    : retained_dim(extent);
      right = take2(tvm_tir_min, right, retained_dim(extent));
      len = take2(tvm_tir_max, take2(tvm_tir_sub, right, left), tvm_relax__int64(0));
    } else if (i + 1 < parts) {
      len = step ? retained_dim(step) : NULL;
    } else {
      /* The last section holds the rest. */
      tvm_tir_expr_obj* before =
          step ? take2(tvm_tir_mul, retained_dim(step), tvm_relax__int64(sections - 1)) : NULL;
      len = take2(tvm_tir_sub, retained_dim(extent), before);
    }
    out[i] = with_dim(x, dims, axis, simplified(len));
  }
  tvm_ffi_release(step);
  tvm_relax_sinfo_obj* t = tuple_take(out, parts);
  if (out != buf) tvm_ffi_free(out);
  return t;
}

/* ---- meshgrid -------------------------------------------------------------------------------- */
/*
 * meshgrid (upstream manipulate.cc's rule, numpy.meshgrid): a non-empty tuple of N 1-d tensors of
 * one dtype; the result a tuple of N tensors, each of shape (len_0, len_1, ..., len_{N-1}), in
 * their dtype and vdevice (none when theirs differ). "xy" exchanges the first two dims (N >= 2):
 * (len_1, len_0, len_2, ...), the shape topi.meshgrid's kernel gives (upstream's rule keeps the
 * "ij" order there, which its own kernel does not produce). A tensor of unknown rank is taken as
 * 1-d (upstream refuses it); one of unknown shape leaves the result's shape unknown, of rank N.
 */
tvm_relax_sinfo_obj* tvm_relax__infer_meshgrid(const tvm_relax__infer_ctx* ctx) {
  const char* indexing = tvm_relax__attr_str(ctx, "indexing");
  bool xy = indexing && strcmp(indexing, "xy") == 0;
  if (indexing && !xy && strcmp(indexing, "ij") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'indexing' must be \"ij\" or \"xy\", got \"%s\"",
                               indexing);
  }
  tensor_tuple t;
  if (tensor_tuple_of(ctx, 1, " (each must be 1-d)", &t) != 0) return NULL;
  int32_t n = (int32_t)t.n;
  tvm_relax_sinfo_obj* field;
  if (t.shape_unknown) {
    field = tvm_relax_tensor_sinfo_new(NULL, t.dtype, n, t.vdevice);
  } else {
    dim_buf b;
    tvm_tir_expr_obj** it = dim_buf_init(&b, n);
    if (!it) return NULL;
    for (int32_t d = 0; d < n; ++d) {
      int32_t src = xy && n >= 2 && d < 2 ? 1 - d : d;
      void* dims = tvm_relax_tensor_sinfo_dims(tvm_ffi_seq_obj_at(t.fields, src));
      it[d] = retained_dim(dim_at(dims, 0));
    }
    field = buf_result(&b, n, t.dtype, t.vdevice);
  }
  if (!field) return NULL;
  /* the N fields are one (immutable) struct info */
  tvm_relax_sinfo_obj* small[SMALL_DIMS];
  tvm_relax_sinfo_obj** parts = n <= SMALL_DIMS ? small : tvm_ffi_calloc((size_t)n, sizeof(void*));
  if (!parts) {
    tvm_ffi_release(field);
    return NULL;
  }
  for (int32_t i = 0; i < n; ++i) parts[i] = retained_sinfo(field);
  tvm_ffi_release(field);
  tvm_relax_sinfo_obj* out = tuple_take(parts, n);
  if (parts != small) tvm_ffi_free(parts);
  return out;
}

/* ---- strided_slice --------------------------------------------------------------------------- */
/* Argument i as a list of int64 PrimExprs: a tuple of integer R.Prim values or an R.Shape.
 * *out an ffi.Array (new) or NULL when some value is unknown; *len its length or -1. */
static int slice_list(const tvm_relax__infer_ctx* ctx, int32_t i, void** out, int64_t* len) {
  *out = NULL;
  *len = -1;
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  tvm_relax_kind k = tvm_relax_kind_of(s);
  if (k == TVM_RELAX_KIND_ObjectStructInfo) return 0;
  if (k == TVM_RELAX_KIND_ShapeStructInfo) {
    const tvm_relax_shape_sinfo_obj* ss = (const tvm_relax_shape_sinfo_obj*)s;
    *len = ss->ndim;
    if (ss->values) tvm_ffi_retain(ss->values);
    *out = ss->values;
    return 0;
  }
  if (k != TVM_RELAX_KIND_TupleStructInfo) {
    tvm_relax__arg_kind_error(ctx, i, "a tuple of integer R.Prim values or an R.Shape");
    return -1;
  }
  void* fields = ((tvm_relax_tuple_sinfo_obj*)s)->fields;
  int64_t n = tvm_ffi_seq_size(fields);
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, n);
  if (!it) return -1;
  bool known = true;
  int rc = 0;
  int64_t made = 0;
  for (int64_t f = 0; f < n; ++f) {
    tvm_relax_sinfo_obj* fs = tvm_ffi_seq_obj_at(fields, f);
    tvm_relax_kind fk = tvm_relax_kind_of(fs);
    if (fk == TVM_RELAX_KIND_ObjectStructInfo) {
      known = false;
      continue;
    }
    tvm_relax_prim_sinfo_obj* p = (tvm_relax_prim_sinfo_obj*)fs;
    if (fk != TVM_RELAX_KIND_PrimStructInfo ||
        (!tvm_relax_dtype_is_unknown(p->dtype) && !tvm_tir_dtype_is_integer(p->dtype))) {
      tvm_ffi_strbuf got = {0};
      tvm_relax_sinfo_text(&got, fs);
      tvm_relax__arg_error(ctx, i, "TypeError", "must hold integer R.Prim values, field %lld is %s",
                           (long long)f, tvm_ffi_strbuf_cstr(&got));
      tvm_ffi_strbuf_free(&got);
      rc = -1;
      break;
    }
    if (!p->value) {
      known = false;
    } else if (known) {
      it[made++] = tvm_tir_cast(tvm_tir_dtype_int(64), p->value);
    }
  }
  if (rc == 0 && known) {
    *out = dims_take(it, made);
    if (!*out) rc = -1;
  } else {
    for (int64_t j = 0; j < made; ++j) tvm_ffi_release(it[j]);
  }
  dim_buf_free(&b);
  if (rc == 0) *len = n;
  return rc;
}

/* An index of a slice with the given stride canonicalised as Python's slicing does: a negative
 * index counts from extent; clamped to [0, extent] (stride > 0) or [-1, extent - 1] (stride <
 * 0) unless the indices are assumed in bounds. idx borrowed; a new reference. */
static tvm_tir_expr_obj* slice_index(tvm_tir_expr_obj* idx, tvm_tir_expr_obj* extent,
                                     int64_t stride, bool inbound) {
  int64_t c;
  tvm_tir_expr_obj* r;
  if (tvm_tir_as_const_int(idx, &c)) {
    r = c < 0 ? tvm_tir_add(idx, extent) : retained_dim(idx);
  } else if (inbound) {
    r = retained_dim(idx);
  } else {
    tvm_tir_expr_obj* zero = tvm_relax__int64(0);
    tvm_tir_expr_obj* neg = zero ? tvm_tir_lt(idx, zero) : NULL;
    tvm_tir_expr_obj* wrapped = tvm_tir_add(idx, extent);
    /* Select rather than upstream's if_then_else: both sides are plain index arithmetic, and
     * the simplifier folds a Select whose condition becomes constant (after substitution). */
    r = neg && wrapped ? tvm_tir_select(neg, wrapped, idx) : NULL;
    tvm_ffi_release(zero);
    tvm_ffi_release(neg);
    tvm_ffi_release(wrapped);
  }
  if (inbound || !r) return r;
  tvm_tir_expr_obj* lo = tvm_relax__int64(stride < 0 ? -1 : 0);
  tvm_tir_expr_obj* hi = stride < 0 ? take2(tvm_tir_sub, retained_dim(extent), tvm_relax__int64(1))
                                    : retained_dim(extent);
  return take2(tvm_tir_min, take2(tvm_tir_max, r, lo), hi);
}

tvm_relax_sinfo_obj* tvm_relax__infer_strided_slice(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  static const char* const names[4] = {"axes", "begin", "end", "strides"};
  void* lists[4] = {NULL, NULL, NULL, NULL};
  int64_t lens[4] = {-1, -1, -1, -1};
  tvm_relax_sinfo_obj* out = NULL;
  int32_t nl = ctx->num_args - 1;
  for (int32_t i = 0; i < nl; ++i) {
    if (slice_list(ctx, i + 1, &lists[i], &lens[i]) != 0) goto done;
    if (lens[i] >= 0 && lens[0] >= 0 && lens[i] != lens[0]) {
      tvm_relax__op_error(ctx, "ValueError", "'%s' has %lld values for %lld axes", names[i],
                          (long long)lens[i], (long long)lens[0]);
      goto done;
    }
  }
  if (lists[0] && tvm_ffi_seq_size(lists[0]) == 0) {
    out = retained_sinfo(&x->base);
    goto done;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  bool known = x->ndim != TVM_RELAX_UNKNOWN_NDIM && dims;
  for (int32_t i = 0; i < nl; ++i) known = known && lists[i];
  int64_t n = lists[0] ? tvm_ffi_seq_size(lists[0]) : 0;
  int64_t abuf[16];
  int64_t* axes = known ? scratch(abuf, 16, n) : NULL;
  if (known && !axes) goto done;
  for (int64_t i = 0; known && i < n; ++i) {
    if (!tvm_tir_as_const_int(dim_at(lists[0], i), &axes[i])) known = false;
    if (nl == 4 && !tvm_tir_as_const_int(dim_at(lists[3], i), &(int64_t){0})) known = false;
  }
  if (!known || normalize_axis_list(ctx, axes, n, x->ndim) != 0) {
    if (!known) out = like_x(x, NULL, x->ndim);
    if (axes) scratch_free(axes, abuf);
    goto done;
  }
  bool inbound = tvm_relax__attr_bool(ctx, "assume_inbound");
  dim_buf buf;
  tvm_tir_expr_obj** it = dim_buf_init(&buf, x->ndim);
  for (int32_t d = 0; it && d < x->ndim; ++d) it[d] = retained_dim(dim_at(dims, d));
  bool ok = it != NULL;
  for (int64_t i = 0; ok && i < n; ++i) {
    int64_t stride = 1;
    if (nl == 4) tvm_tir_as_const_int(dim_at(lists[3], i), &stride);
    if (stride == 0) {
      tvm_relax__arg_error(ctx, 4, "ValueError", "must not hold a zero stride");
      ok = false;
      break;
    }
    tvm_tir_expr_obj* extent = dim_at(dims, axes[i]);
    tvm_tir_expr_obj* b = slice_index(dim_at(lists[1], i), extent, stride, inbound);
    tvm_tir_expr_obj* e = slice_index(dim_at(lists[2], i), extent, stride, inbound);
    /* ceil((end - begin) / stride), or ceil((begin - end) / -stride), at least 0. */
    tvm_tir_expr_obj* span = stride > 0 ? take2(tvm_tir_sub, e, b) : take2(tvm_tir_sub, b, e);
    tvm_tir_expr_obj* len = span ? ceildiv_const(span, stride > 0 ? stride : -stride) : NULL;
    tvm_ffi_release(span);
    if (!inbound) len = take2(tvm_tir_max, len, tvm_relax__int64(0));
    len = simplified(len);
    tvm_ffi_release(it[axes[i]]);
    it[axes[i]] = len;
    ok = len != NULL;
  }
  if (ok) {
    out = like_x_buf(x, &buf, x->ndim);
  } else if (it) {
    for (int32_t d = 0; d < x->ndim; ++d) tvm_ffi_release(it[d]);
    dim_buf_free(&buf);
  }
  scratch_free(axes, abuf);
done:
  for (int i = 0; i < 4; ++i) tvm_ffi_release(lists[i]);
  return out;
}

/* ---- take, tile, repeat, flip ---------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_take(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  /* indices: an integer tensor, or a scalar R.Prim (a tensor of ndim 0). */
  tvm_relax_sinfo_obj* is = tvm_relax__arg_sinfo(ctx, 1);
  DLDataType it;
  int32_t ind_ndim = 0;
  void* ind_dims = NULL;
  if (tvm_relax_kind_of(is) == TVM_RELAX_KIND_PrimStructInfo) {
    it = ((tvm_relax_prim_sinfo_obj*)is)->dtype;
  } else if (tvm_relax_kind_of(is) == TVM_RELAX_KIND_TensorStructInfo) {
    it = ((tvm_relax_tensor_sinfo_obj*)is)->dtype;
    ind_ndim = ((tvm_relax_tensor_sinfo_obj*)is)->ndim;
    ind_dims = tvm_relax_tensor_sinfo_dims(is);
  } else {
    return tvm_relax__arg_kind_error(ctx, 1, "an integer tensor or scalar");
  }
  if (!tvm_relax_dtype_is_unknown(it) && !tvm_tir_dtype_is_integer(it)) {
    return tvm_relax__arg_error(ctx, 1, "TypeError", "must have an integer dtype, got %s",
                                tvm_tir_dtype_str(it).s);
  }
  const char* mode = tvm_relax__attr_str(ctx, "mode");
  bool nan_mode = mode && strcmp(mode, "nan") == 0;
  if (!mode || (!nan_mode && strcmp(mode, "fast") != 0 && strcmp(mode, "wrap") != 0 &&
                strcmp(mode, "clip") != 0)) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'mode' must be \"fast\", \"wrap\", \"clip\" or \"nan\", "
                               "got \"%s\"",
                               mode ? mode : "");
  }
  if (nan_mode && !tvm_relax_dtype_is_unknown(x->dtype) && !tvm_tir_dtype_is_floating(x->dtype)) {
    return tvm_relax__arg_error(ctx, 0, "TypeError",
                                "must have a float dtype for mode \"nan\", got %s",
                                tvm_tir_dtype_str(x->dtype).s);
  }
  bool has_axis = !tvm_relax__attr_is_none(ctx, "axis");
  if (!has_axis && x->ndim != TVM_RELAX_UNKNOWN_NDIM && x->ndim != 1) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "must be 1-d when 'axis' is None, got ndim %d", x->ndim);
  }
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM || ind_ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
  }
  int64_t axis = 0;
  if (has_axis &&
      tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  int32_t out_ndim = x->ndim - 1 + ind_ndim;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  /* A scalar index has no dims to insert. */
  bool ind_known = ind_ndim == 0 || ind_dims;
  if (!dims || !ind_known) return like_x(x, NULL, out_ndim);
  dim_buf b;
  tvm_tir_expr_obj** ot = dim_buf_init(&b, out_ndim);
  if (!ot) return NULL;
  int32_t k = 0;
  for (int32_t i = 0; i < x->ndim; ++i) {
    if (i != axis) {
      ot[k++] = retained_dim(dim_at(dims, i));
      continue;
    }
    for (int32_t j = 0; j < ind_ndim; ++j) ot[k++] = retained_dim(dim_at(ind_dims, j));
  }
  return like_x_buf(x, &b, out_ndim);
}

tvm_relax_sinfo_obj* tvm_relax__infer_tile(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  void* reps = tvm_relax__attr_ints(ctx, "repeats");
  int64_t l = tvm_ffi_seq_size(reps);
  bool all_one = true;
  for (int64_t i = 0; i < l; ++i) {
    int64_t r = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(reps, i), &r);
    if (r < 0) {
      return tvm_relax__op_error(
          ctx, "ValueError", "attribute 'repeats' must not be negative, got %lld", (long long)r);
    }
    all_one = all_one && r == 1;
  }
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return like_x(x, NULL, TVM_RELAX_UNKNOWN_NDIM);
  int64_t out_ndim = l > x->ndim ? l : x->ndim;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) {
    if (l <= x->ndim && all_one) return retained_sinfo(&x->base);
    return like_x(x, NULL, (int32_t)out_ndim);
  }
  /* numpy's tile: the shorter of dims and repeats is padded with leading 1s. */
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, out_ndim);
  if (!it) return NULL;
  for (int64_t i = 0; i < out_ndim; ++i) {
    int64_t di = i - (out_ndim - x->ndim), ri = i - (out_ndim - l);
    int64_t r = 1;
    if (ri >= 0) tvm_ffi_any_as_int(tvm_ffi_seq_at(reps, ri), &r);
    it[i] =
        di < 0
            ? tvm_relax__int64(r)
            : simplified(take2(tvm_tir_mul, retained_dim(dim_at(dims, di)), tvm_relax__int64(r)));
  }
  return like_x_buf(x, &b, out_ndim);
}

tvm_relax_sinfo_obj* tvm_relax__infer_repeat(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  int64_t reps = tvm_relax__attr_int(ctx, "repeats");
  if (reps < 0) {
    return tvm_relax__op_error(
        ctx, "ValueError", "attribute 'repeats' must not be negative, got %lld", (long long)reps);
  }
  bool has_axis = !tvm_relax__attr_is_none(ctx, "axis");
  int64_t axis = 0;
  if (has_axis && x->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) {
    if (!has_axis) return like_x(x, NULL, 1);
    return reps == 1 ? retained_sinfo(&x->base) : like_x(x, NULL, x->ndim);
  }
  if (!has_axis) {
    /* The flattened input, each element repeated. */
    tvm_tir_expr_obj* total = dims_product(dims, 0, x->ndim);
    return like_x_1d(x, simplified(take2(tvm_tir_mul, total, tvm_relax__int64(reps))));
  }
  tvm_tir_expr_obj* len =
      take2(tvm_tir_mul, retained_dim(dim_at(dims, axis)), tvm_relax__int64(reps));
  return with_dim(x, dims, axis, simplified(len));
}

/* flip, and sort (ops.def): x's struct info, the axis checked (upstream's rules). */
tvm_relax_sinfo_obj* tvm_relax__infer_flip(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  int64_t axis;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  return retained_sinfo(&x->base);
}

/* ---- layout_transform ------------------------------------------------------------------------ */
/* The position of v among the map's input indices, or -1. */
static int64_t input_index(const tvm_tir_index_map_obj* map, const void* v) {
  int64_t n = tvm_ffi_seq_size(map->initial_indices);
  for (int64_t i = 0; i < n; ++i) {
    if (tvm_ffi_seq_obj_at(map->initial_indices, i) == v) return i;
  }
  return -1;
}

/*
 * Symbolic bounds [*lo, *hi] (new int64 references) of an index expression f over the box
 * 0 <= input index i < dims[i], by interval arithmetic through constants, input indices, Add,
 * Sub, Mul by a constant, FloorDiv by a positive constant and FloorMod by a positive constant c
 * ([0, c - 1]). Returns 0, 1 when f has another form (nothing written), or -1 + error.
 */
static int sym_bound(const tvm_tir_index_map_obj* map, void* dims, tvm_tir_expr_obj* f,
                     tvm_tir_expr_obj** lo, tvm_tir_expr_obj** hi) {
  *lo = *hi = NULL;
  int64_t c;
  if (tvm_tir_as_const_int(f, &c)) {
    *lo = tvm_relax__int64(c);
    *hi = tvm_relax__int64(c);
  } else if (tvm_tir_is_var(f)) {
    int64_t i = input_index(map, f);
    if (i < 0) return 1;
    *lo = tvm_relax__int64(0);
    *hi = take2(tvm_tir_sub, retained_dim(dim_at(dims, i)), tvm_relax__int64(1));
  } else {
    tvm_tir_kind k = tvm_tir_kind_of(f);
    if (k != TVM_TIR_KIND_Add && k != TVM_TIR_KIND_Sub && k != TVM_TIR_KIND_Mul &&
        k != TVM_TIR_KIND_FloorDiv && k != TVM_TIR_KIND_FloorMod) {
      return 1;
    }
    tvm_tir_binary_obj* b = (tvm_tir_binary_obj*)f;
    bool scaled = k == TVM_TIR_KIND_Mul || k == TVM_TIR_KIND_FloorDiv || k == TVM_TIR_KIND_FloorMod;
    tvm_tir_expr_obj* e = b->a;
    if (scaled && !tvm_tir_as_const_int(b->b, &c)) {
      if (k != TVM_TIR_KIND_Mul || !tvm_tir_as_const_int(b->a, &c)) return 1;
      e = b->b;
    }
    if (k == TVM_TIR_KIND_FloorMod) {
      if (c <= 0) return 1;
      *lo = tvm_relax__int64(0);
      *hi = tvm_relax__int64(c - 1);
      return *lo && *hi ? 0 : -1;
    }
    tvm_tir_expr_obj *la, *ha;
    int rc = sym_bound(map, dims, e, &la, &ha);
    if (rc != 0) return rc;
    if (k == TVM_TIR_KIND_Mul) {
      *lo = take2(tvm_tir_mul, c >= 0 ? la : ha, tvm_relax__int64(c));
      *hi = take2(tvm_tir_mul, c >= 0 ? ha : la, tvm_relax__int64(c));
    } else if (k == TVM_TIR_KIND_FloorDiv) {
      if (c <= 0) {
        tvm_ffi_release(la);
        tvm_ffi_release(ha);
        return 1;
      }
      *lo = take2(tvm_tir_floordiv, la, tvm_relax__int64(c));
      *hi = take2(tvm_tir_floordiv, ha, tvm_relax__int64(c));
    } else {
      tvm_tir_expr_obj *lb, *hb;
      rc = sym_bound(map, dims, b->b, &lb, &hb);
      if (rc != 0) {
        tvm_ffi_release(la);
        tvm_ffi_release(ha);
        return rc;
      }
      bool add = k == TVM_TIR_KIND_Add;
      *lo = add ? take2(tvm_tir_add, la, lb) : take2(tvm_tir_sub, la, hb);
      *hi = add ? take2(tvm_tir_add, ha, hb) : take2(tvm_tir_sub, ha, lb);
    }
  }
  if (*lo && *hi) return 0;
  tvm_ffi_release(*lo);
  tvm_ffi_release(*hi);
  *lo = *hi = NULL;
  return -1;
}

/* Whether e is a split of an input index of map: the index itself, or floordiv / floormod of a
 * split by a positive constant (the forms upstream's iterator-map analysis pads). */
static bool is_split(const tvm_tir_index_map_obj* map, const tvm_tir_expr_obj* e) {
  tvm_tir_kind k = tvm_tir_kind_of(e);
  if (k == TVM_TIR_KIND_FloorDiv || k == TVM_TIR_KIND_FloorMod) {
    const tvm_tir_binary_obj* b = (const tvm_tir_binary_obj*)e;
    int64_t c;
    return tvm_tir_as_const_int(b->b, &c) && c > 0 && is_split(map, b->a);
  }
  if (k != TVM_TIR_KIND_Var) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(map->initial_indices); ++i) {
    if (tvm_ffi_seq_obj_at(map->initial_indices, i) == e) return true;
  }
  return false;
}

/*
 * The extent of output index k of an index map over the input dims (upstream's
 * IndexMap::MapShape): the bound of the output index over the box of inputs, which must start at
 * 0 unless it is a single value. With constant dims (ranges, the box) libtir's constant bound,
 * except that a split's floormod by c has extent c, as upstream pads the split index to a
 * multiple of c (i % 16 over 14 values: 16, the padded layout); else symbolic interval
 * arithmetic (sym_bound, which bounds every floormod so), *out NULL when that cannot write the
 * extent or show the start is 0.
 */
static int map_extent(const tvm_relax__infer_ctx* ctx, const tvm_tir_index_map_obj* map, void* dims,
                      void* ranges, int64_t k, tvm_tir_expr_obj** out) {
  *out = NULL;
  tvm_tir_expr_obj* f = tvm_ffi_seq_obj_at(map->final_indices, k);
  int64_t lo, hi;
  if (ranges) {
    if (tvm_tir_const_int_bound(f, ranges, &lo, &hi) != 0) return -1;
    int64_t c;
    if (tvm_tir_kind_of(f) == TVM_TIR_KIND_FloorMod && is_split(map, f) &&
        tvm_tir_as_const_int(((tvm_tir_binary_obj*)f)->b, &c)) {
      lo = 0, hi = c - 1;
    }
  } else {
    tvm_tir_expr_obj *slo, *shi;
    int rc = sym_bound(map, dims, f, &slo, &shi);
    if (rc != 0) return rc < 0 ? -1 : 0;
    tvm_tir_expr_obj* ext = take2(tvm_tir_sub, shi, retained_dim(slo));
    ext = simplified(take2(tvm_tir_add, ext, tvm_relax__int64(1)));
    slo = simplified(slo);
    bool ok = ext && slo;
    bool lo_const = ok && tvm_tir_as_const_int(slo, &lo);
    bool one = ok && tvm_tir_as_const_int(ext, &hi) && hi == 1;
    tvm_ffi_release(slo);
    if (ok && ((lo_const && lo == 0) || one)) {
      *out = ext;
      return 0;
    }
    tvm_ffi_release(ext);
    if (ok && lo_const) {
      tvm_relax__op_error(ctx, "ValueError",
                          "output index %lld of the index map starts at %lld, "
                          "not 0",
                          (long long)k, (long long)lo);
    }
    /* Otherwise the start is not known to be 0: the extent is left unknown. */
    return ok && !lo_const ? 0 : -1;
  }
  if (lo != 0 && lo != hi) {
    tvm_relax__op_error(
        ctx, "ValueError",
        "output index %lld of the index map ranges over [%lld, %lld], which does not start at 0",
        (long long)k, (long long)lo, (long long)hi);
    return -1;
  }
  *out = tvm_relax__int64(hi - lo + 1);
  return *out ? 0 : -1;
}

/* The ranges {initial index i: [0, dims[i])} when every dim is a constant, else NULL (*ok false
 * on error). */
static void* constant_box(const tvm_tir_index_map_obj* map, void* dims, bool* ok) {
  int64_t n = tvm_ffi_seq_size(dims);
  *ok = true;
  for (int64_t i = 0; i < n; ++i) {
    int64_t c;
    if (!tvm_tir_as_const_int(dim_at(dims, i), &c)) return NULL;
  }
  void* box = tvm_ffi_dict_new();
  tvm_tir_expr_obj* zero = tvm_relax__int64(0);
  for (int64_t i = 0; box && zero && i < n; ++i) {
    tvm_tir_range_obj* r = tvm_tir_range_new(zero, dim_at(dims, i));
    TVMFFIAny key = tvm_ffi_any_obj(tvm_ffi_seq_obj_at(map->initial_indices, i));
    TVMFFIAny val = tvm_ffi_any_obj(r);
    int rc = r ? tvm_ffi_dict_set(box, &key, &val) : -1;
    tvm_ffi_release(r);
    if (rc != 0) {
      tvm_ffi_release(box);
      box = NULL;
    }
  }
  tvm_ffi_release(zero);
  if (!box) *ok = false;
  return box;
}

tvm_relax_sinfo_obj* tvm_relax__infer_layout_transform(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  const TVMFFIAny* m = tvm_relax__attr(ctx, "index_map");
  if (!tvm_ffi_any_is_object(m) || tvm_tir_kind_of(m->v_obj) != TVM_TIR_KIND_IndexMap) {
    return tvm_relax__op_error(ctx, "TypeError",
                               "attribute 'index_map' must be a tir.IndexMap, got %s",
                               tvm_ffi_any_type_name(m));
  }
  const tvm_tir_index_map_obj* map = (const tvm_tir_index_map_obj*)m->v_obj;
  const TVMFFIAny* pad = tvm_relax__attr(ctx, "pad_value");
  if (!tvm_ffi_any_is_none(pad)) {
    void* p = tvm_ffi_any_is_object(pad) ? pad->v_obj : NULL;
    if (p && tvm_relax_kind_of(p) == TVM_RELAX_KIND_PrimValue) {
      p = ((tvm_relax_prim_value_obj*)p)->value;
    }
    if (!p || !tvm_tir_is_expr(p)) {
      return tvm_relax__op_error(ctx, "TypeError",
                                 "attribute 'pad_value' must be a scalar (R.prim_value), got %s",
                                 tvm_ffi_any_type_name(pad));
    }
    DLDataType pt = ((tvm_tir_expr_obj*)p)->dtype;
    if (!tvm_relax_dtype_is_unknown(x->dtype) && !tvm_ffi_dtype_equal(pt, x->dtype)) {
      return tvm_relax__op_error(ctx, "TypeError",
                                 "attribute 'pad_value' has dtype %s, not the input's %s",
                                 tvm_tir_dtype_str(pt).s, tvm_tir_dtype_str(x->dtype).s);
    }
  }
  int64_t n_in = tvm_ffi_seq_size(map->initial_indices);
  int32_t n_out = (int32_t)tvm_ffi_seq_size(map->final_indices);
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return like_x(x, NULL, n_out);
  if (n_in != x->ndim) {
    return tvm_relax__arg_error(ctx, 0, "ValueError",
                                "has ndim %d but the index map takes %lld indices", x->ndim,
                                (long long)n_in);
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) return like_x(x, NULL, n_out);
  bool ok;
  void* box = constant_box(map, dims, &ok);
  if (!ok) return NULL;
  dim_buf b;
  tvm_tir_expr_obj** it = dim_buf_init(&b, n_out);
  tvm_relax_sinfo_obj* out = NULL;
  bool known = true;
  int64_t made = 0;
  int rc = it ? 0 : -1;
  for (; rc == 0 && made < n_out; ++made) {
    rc = map_extent(ctx, map, dims, box, made, &it[made]);
    if (rc == 0 && !it[made]) known = false;
  }
  if (rc == 0 && known) {
    out = like_x_buf(x, &b, n_out); /* takes the extents */
  } else if (it) {
    if (rc == 0) out = like_x(x, NULL, n_out);
    for (int64_t i = 0; i < made; ++i) tvm_ffi_release(it[i]);
    dim_buf_free(&b);
  }
  tvm_ffi_release(box);
  return out;
}
