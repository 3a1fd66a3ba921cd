/*
 * op_index.c: inference rules and attribute schemas of the gather / scatter, sorting and
 * data-dependent indexing operators: gather_elements, gather_nd, scatter_elements, scatter_nd,
 * index_put, index_tensor, slice_scatter, one_hot, argsort, sort, topk, dynamic_strided_slice and
 * nonzero (upstream: relax/op/tensor/manipulate.cc, index.cc, sorting.cc, set.cc). Known dims
 * are kept; what cannot be known gives a result of known rank and unknown shape, or unknown
 * rank, as upstream does.
 */
#include <string.h>

#include "internal.h"

/* gather_elements: the axis of data the indices select along. */
const tvm_relax_attr_field tvm_relax__attrs_gather_elements[] = {
    {"axis", TVM_RELAX_ATTR_INT, "0"}, {NULL, 0, NULL}};
/* gather_nd: the leading dims data and indices share (upstream's GatherNDAttrs). */
const tvm_relax_attr_field tvm_relax__attrs_gather_nd[] = {
    {"batch_dims", TVM_RELAX_ATTR_INT, "0"}, {NULL, 0, NULL}};
/* scatter_elements: reduction "update", "add", "mul", "mean", "max" or "min". */
const tvm_relax_attr_field tvm_relax__attrs_scatter_elements[] = {
    {"axis", TVM_RELAX_ATTR_INT, "0"}, {"reduction", TVM_RELAX_ATTR_STR, "update"}, {NULL, 0, NULL}};
/* scatter_nd: reduction "update", "add", "mul", "max" or "min". */
const tvm_relax_attr_field tvm_relax__attrs_scatter_nd[] = {
    {"reduction", TVM_RELAX_ATTR_STR, "update"}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_index_put[] = {
    {"accumulate", TVM_RELAX_ATTR_BOOL, "false"}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_slice_scatter[] = {
    {"axis", TVM_RELAX_ATTR_INT, "0"}, {NULL, 0, NULL}};
/* one_hot: depth (> 0) is required; axis -1 appends the new dim. */
const tvm_relax_attr_field tvm_relax__attrs_one_hot[] = {
    {"depth", TVM_RELAX_ATTR_INT, NULL}, {"axis", TVM_RELAX_ATTR_INT, "-1"}, {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_argsort[] = {{"axis", TVM_RELAX_ATTR_INT, "-1"},
                                                         {"descending", TVM_RELAX_ATTR_BOOL, "false"},
                                                         {"dtype", TVM_RELAX_ATTR_DTYPE, "int32"},
                                                         {NULL, 0, NULL}};
/* sort: the values argsort orders (upstream's SortAttrs). */
const tvm_relax_attr_field tvm_relax__attrs_sort[] = {{"axis", TVM_RELAX_ATTR_INT, "-1"},
                                                      {"descending", TVM_RELAX_ATTR_BOOL, "false"},
                                                      {NULL, 0, NULL}};
/* topk: k < 1 keeps every element; ret_type "both", "values" or "indices". */
const tvm_relax_attr_field tvm_relax__attrs_topk[] = {{"k", TVM_RELAX_ATTR_INT, "1"},
                                                      {"axis", TVM_RELAX_ATTR_INT, "-1"},
                                                      {"ret_type", TVM_RELAX_ATTR_STR, "both"},
                                                      {"largest", TVM_RELAX_ATTR_BOOL, "true"},
                                                      {"dtype", TVM_RELAX_ATTR_DTYPE, "int32"},
                                                      {NULL, 0, NULL}};

/* ---- Helpers --------------------------------------------------------------------------------- */
static tvm_relax_sinfo_obj* tensor_like(const tvm_relax_tensor_sinfo_obj* t, DLDataType dtype) {
  return tvm_relax__tensor_result(tvm_relax_tensor_sinfo_dims(&t->base), dtype, t->ndim, t->vdevice);
}

#define dtype_text(t) (tvm_tir_dtype_str(t).s)

/* Argument i must be a tensor of integer (or unknown) dtype; NULL + TypeError otherwise. */
static tvm_relax_tensor_sinfo_obj* int_tensor_arg(const tvm_relax__infer_ctx* ctx, int32_t i) {
  tvm_relax_tensor_sinfo_obj* t = tvm_relax__arg_tensor(ctx, i);
  if (t && !tvm_relax_dtype_is_unknown(t->dtype) && !tvm_tir_dtype_is_integer(t->dtype)) {
    return tvm_relax__arg_error(ctx, i, "TypeError", "must have an integer dtype, got %s",
                                dtype_text(t->dtype));
  }
  return t;
}

static bool one_of(const char* s, const char* const* names) {
  for (; *names; ++names) {
    if (s && strcmp(s, *names) == 0) return true;
  }
  return false;
}

static tvm_tir_expr_obj* dim_at(void* dims, int64_t i) { return tvm_ffi_seq_obj_at(dims, i); }

/* A shape text for messages. */
static const char* dims_text(tvm_ffi_strbuf* b, const tvm_relax_tensor_sinfo_obj* t) {
  tvm_relax_sinfo_text(b, &t->base);
  return tvm_ffi_strbuf_cstr(b);
}

/* ---- gather_elements ------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_gather_elements(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* ind = data ? int_tensor_arg(ctx, 1) : NULL;
  if (!ind) return NULL;
  if (data->ndim == TVM_RELAX_UNKNOWN_NDIM || ind->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return tvm_relax__tensor_result(NULL, data->dtype, TVM_RELAX_UNKNOWN_NDIM, data->vdevice);
  }
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), data->ndim, &axis) != 0) {
    return NULL;
  }
  if (data->ndim != ind->ndim) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must have the rank of 'data' (%d), got %d",
                                data->ndim, ind->ndim);
  }
  return tvm_relax__tensor_result(tvm_relax_tensor_sinfo_dims(&ind->base), data->dtype, ind->ndim,
                                  data->vdevice);
}

/* ---- gather_nd ------------------------------------------------------------------------------- */
/*
 * upstream's InferStructInfoGatherND (ONNX's GatherND): indices (B..., X..., l) of int64 pick
 * data[b..., i_0 .. i_{l-1}, ...] for b the batch_dims leading dims; the result is
 * indices.shape[:-1] + data.shape[batch_dims + l:] in data's dtype and vdevice. An unknown rank,
 * or an indices shape whose last dim is not a constant, gives an unknown rank; an unknown data
 * shape the rank only. Beyond upstream: l > data.ndim - batch_dims is refused whenever the ranks
 * are known (upstream checks it only with data's shape known, and would otherwise make a
 * negative rank), and so are batch dims of indices provably unequal to data's.
 */
tvm_relax_sinfo_obj* tvm_relax__infer_gather_nd(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* ind = data ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!ind) return NULL;
  int64_t bd = tvm_relax__attr_int(ctx, "batch_dims");
  if (bd < 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'batch_dims' must be non-negative, got %lld",
                               (long long)bd);
  }
  if (!tvm_relax_dtype_is_unknown(ind->dtype) && !tvm_ffi_dtype_equal(ind->dtype, TVM_TIR_INT64)) {
    return tvm_relax__arg_error(ctx, 1, "TypeError", "must have dtype int64, got %s",
                                dtype_text(ind->dtype));
  }
  int32_t dn = data->ndim, in = ind->ndim;
  if (dn == TVM_RELAX_UNKNOWN_NDIM || in == TVM_RELAX_UNKNOWN_NDIM) {
    return tvm_relax__tensor_result(NULL, data->dtype, TVM_RELAX_UNKNOWN_NDIM, data->vdevice);
  }
  if (bd > dn) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'batch_dims' must be in [0, %d] (the ndim of 'data'), "
                               "got %lld",
                               dn, (long long)bd);
  }
  if (bd > in - 1) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'batch_dims' must be at most the ndim of 'indices' "
                               "minus 1 (%d), got %lld",
                               in - 1, (long long)bd);
  }
  void* idims = tvm_relax_tensor_sinfo_dims(&ind->base);
  int64_t l;
  if (!idims || !tvm_tir_as_const_int(dim_at(idims, in - 1), &l)) {
    return tvm_relax__tensor_result(NULL, data->dtype, TVM_RELAX_UNKNOWN_NDIM, data->vdevice);
  }
  if (l < 0 || l > dn - bd) {
    return tvm_relax__arg_error(ctx, 1, "ValueError",
                                "must have a last dim in [0, %lld] (the ndim of 'data' minus "
                                "batch_dims), got %lld",
                                (long long)(dn - bd), (long long)l);
  }
  int32_t out_ndim = (int32_t)(in - 1 + dn - bd - l);
  void* ddims = tvm_relax_tensor_sinfo_dims(&data->base);
  for (int64_t i = 0; ddims && i < bd; ++i) {
    if (tvm_relax__dim_unequal(dim_at(ddims, i), dim_at(idims, i))) {
      tvm_ffi_strbuf a = {0}, b = {0};
      tvm_relax__arg_error(ctx, 1, "ValueError",
                           "must have the batch dims of 'data' (batch_dims %lld): %s against %s",
                           (long long)bd, dims_text(&a, ind), dims_text(&b, data));
      tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b);
      return NULL;
    }
  }
  if (!ddims) return tvm_relax__tensor_result(NULL, data->dtype, out_ndim, data->vdevice);
  void* items[32];
  if (out_ndim > 32) return tvm_relax__op_error(ctx, "ValueError", "at most 32 dims are supported");
  int32_t k = 0;
  for (int64_t i = 0; i < in - 1; ++i) items[k++] = dim_at(idims, i);
  for (int64_t i = bd + l; i < dn; ++i) items[k++] = dim_at(ddims, i);
  void* arr = tvm_ffi_array_of_objects(items, k);
  tvm_relax_sinfo_obj* out = arr ? tvm_relax__tensor_result(arr, data->dtype, k, data->vdevice)
                                 : NULL;
  tvm_ffi_release(arr);
  return out;
}

/* ---- scatter_elements ------------------------------------------------------------------------ */
/* The dims of a and b (tensors of the same known rank) that are provably unequal: the first such
 * dim, or -1. */
static int64_t unequal_dim(const tvm_relax_tensor_sinfo_obj* a, const tvm_relax_tensor_sinfo_obj* b) {
  void* da = tvm_relax_tensor_sinfo_dims(&a->base);
  void* db = tvm_relax_tensor_sinfo_dims(&b->base);
  if (!da || !db) return -1;
  for (int64_t i = 0; i < a->ndim; ++i) {
    if (tvm_relax__dim_unequal(dim_at(da, i), dim_at(db, i))) return i;
  }
  return -1;
}

tvm_relax_sinfo_obj* tvm_relax__infer_scatter_elements(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* ind = data ? int_tensor_arg(ctx, 1) : NULL;
  tvm_relax_tensor_sinfo_obj* upd = ind ? tvm_relax__arg_tensor(ctx, 2) : NULL;
  if (!upd) return NULL;
  static const char* const reductions[] = {"update", "add", "mul", "mean", "max", "min", NULL};
  const char* red = tvm_relax__attr_str(ctx, "reduction");
  if (!one_of(red, reductions)) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'reduction' must be \"update\", \"add\", \"mul\", "
                               "\"mean\", \"max\" or \"min\", got \"%s\"",
                               red ? red : "");
  }
  if (!tvm_relax__same_dtype(ctx, 2, upd, 0, data)) return NULL;
  if (data->ndim == TVM_RELAX_UNKNOWN_NDIM) return tensor_like(data, data->dtype);
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), data->ndim, &axis) != 0) {
    return NULL;
  }
  if (ind->ndim != TVM_RELAX_UNKNOWN_NDIM && ind->ndim != data->ndim) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must have the rank of 'data' (%d), got %d",
                                data->ndim, ind->ndim);
  }
  if (upd->ndim != TVM_RELAX_UNKNOWN_NDIM && upd->ndim != data->ndim) {
    return tvm_relax__arg_error(ctx, 2, "ValueError", "must have the rank of 'data' (%d), got %d",
                                data->ndim, upd->ndim);
  }
  if (ind->ndim == upd->ndim && unequal_dim(ind, upd) >= 0) {
    tvm_ffi_strbuf a = {0}, b = {0};
    tvm_relax__arg_error(ctx, 2, "ValueError", "must have the shape of 'indices' (%s), got %s",
                         dims_text(&a, ind), dims_text(&b, upd));
    tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  return tensor_like(data, data->dtype);
}

/* ---- scatter_nd ------------------------------------------------------------------------------ */
tvm_relax_sinfo_obj* tvm_relax__infer_scatter_nd(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* ind = data ? int_tensor_arg(ctx, 1) : NULL;
  tvm_relax_tensor_sinfo_obj* upd = ind ? tvm_relax__arg_tensor(ctx, 2) : NULL;
  if (!upd) return NULL;
  static const char* const reductions[] = {"update", "add", "mul", "max", "min", NULL};
  const char* red = tvm_relax__attr_str(ctx, "reduction");
  if (!one_of(red, reductions)) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'reduction' must be \"update\", \"add\", \"mul\", "
                               "\"max\" or \"min\", got \"%s\"",
                               red ? red : "");
  }
  if (!tvm_relax__same_dtype(ctx, 2, upd, 0, data)) return NULL;
  if (ind->ndim == 0) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must have rank at least 1, got 0");
  }
  void* dd = tvm_relax_tensor_sinfo_dims(&data->base);
  void* id = tvm_relax_tensor_sinfo_dims(&ind->base);
  void* ud = tvm_relax_tensor_sinfo_dims(&upd->base);
  int64_t k;
  if (dd && id && ud && tvm_tir_as_const_int(dim_at(id, ind->ndim - 1), &k)) {
    /* updates.shape == indices.shape[:-1] + data.shape[k:] */
    if (k < 1 || k > data->ndim) {
      return tvm_relax__arg_error(ctx, 1, "ValueError",
                                  "must have a last dim in [1, %d] (the rank of 'data'), got %lld",
                                  data->ndim, (long long)k);
    }
    int64_t want = ind->ndim - 1 + data->ndim - k;
    bool ok = upd->ndim == want;
    for (int64_t i = 0; ok && i < want; ++i) {
      tvm_tir_expr_obj* e = i < ind->ndim - 1 ? dim_at(id, i) : dim_at(dd, k + i - (ind->ndim - 1));
      ok = !tvm_relax__dim_unequal(e, dim_at(ud, i));
    }
    if (!ok) {
      tvm_ffi_strbuf a = {0}, b = {0}, c = {0};
      tvm_relax__arg_error(ctx, 2, "ValueError",
                           "must have the shape indices.shape[:-1] + data.shape[%lld:], got %s "
                           "(indices %s, data %s)",
                           (long long)k, dims_text(&a, upd), dims_text(&b, ind), dims_text(&c, data));
      tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b), tvm_ffi_strbuf_free(&c);
      return NULL;
    }
  }
  return tensor_like(data, data->dtype);
}

/* ---- index_put and index_tensor: a tuple of index tensors ------------------------------------ */
/* Argument i: a tuple of at least one tensor of an integer dtype (a signed one when signed_only),
 * or of unknown dtype; its fields (borrowed) into *out_fields and the count, or -1 + TypeError /
 * ValueError. */
static int64_t index_tuple_arg(const tvm_relax__infer_ctx* ctx, int32_t i, bool signed_only,
                               void** out_fields) {
  tvm_relax_sinfo_obj* is = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(is) != TVM_RELAX_KIND_TupleStructInfo) {
    tvm_relax__arg_kind_error(ctx, i, "a tuple of tensors");
    return -1;
  }
  void* fields = ((tvm_relax_tuple_sinfo_obj*)is)->fields;
  int64_t n = tvm_ffi_seq_size(fields);
  for (int64_t k = 0; k < n; ++k) {
    tvm_relax_sinfo_obj* f = tvm_ffi_seq_obj_at(fields, k);
    bool tensor = tvm_relax_kind_of(f) == TVM_RELAX_KIND_TensorStructInfo;
    DLDataType t = tensor ? ((tvm_relax_tensor_sinfo_obj*)f)->dtype : TVM_RELAX_DTYPE_UNKNOWN;
    bool ok = tvm_relax_dtype_is_unknown(t) ||
              (signed_only ? t.code == kDLInt : tvm_tir_dtype_is_integer(t));
    if (!tensor || !ok) {
      tvm_ffi_strbuf got = {0};
      tvm_relax_sinfo_text(&got, f);
      tvm_relax__arg_error(ctx, i, "TypeError", "must hold %s tensors, field %lld is %s",
                           signed_only ? "signed integer" : "integer", (long long)k,
                           tvm_ffi_strbuf_cstr(&got));
      tvm_ffi_strbuf_free(&got);
      return -1;
    }
  }
  if (n == 0) {
    tvm_relax__arg_error(ctx, i, "ValueError", "must hold at least one tensor");
    return -1;
  }
  *out_fields = fields;
  return n;
}

/* n index tensors for data: at most one per dim of data (when its rank is known). */
static bool index_count_fits(const tvm_relax__infer_ctx* ctx,
                             const tvm_relax_tensor_sinfo_obj* data, int64_t n) {
  if (data->ndim == TVM_RELAX_UNKNOWN_NDIM || n <= data->ndim) return true;
  tvm_relax__arg_error(ctx, 1, "ValueError",
                       "holds %lld index tensors, more than the rank of 'data' (%d)",
                       (long long)n, data->ndim);
  return false;
}


/*
 * index_tensor (upstream manipulate.cc InferStructInfoIndexTensor, numpy advanced indexing
 * data[i0, i1, ...]): indices is a tuple of k >= 1 tensors of a signed integer dtype (upstream's
 * is_int), k at most data's rank. They broadcast together numpy-style (tvm_relax__broadcast,
 * two at a time: constants other than 1 that differ are a ValueError; dims not provably equal
 * leave the shape unknown); the result is broadcast(indices) + data.shape[k:] in data's dtype
 * and vdevice, its rank alone when a shape is unknown, and of unknown rank when a rank is.
 */
/* data[indices] where fields holds the n index tensors' struct info (index_tensor's result,
 * the shape index_put's values broadcast to). */
static tvm_relax_sinfo_obj* indexed(const tvm_relax__infer_ctx* ctx,
                                    const tvm_relax_tensor_sinfo_obj* data, void* fields,
                                    int64_t n) {
  /* acc: the index tensors broadcast so far (a new reference from the second on). */
  tvm_relax_tensor_sinfo_obj* acc = tvm_ffi_seq_obj_at(fields, 0);
  tvm_ffi_retain(acc);
  for (int64_t k = 1; acc && k < n; ++k) {
    tvm_relax_tensor_sinfo_obj* t = tvm_ffi_seq_obj_at(fields, k);
    void* dims;
    int32_t ndim;
    tvm_relax_sinfo_obj* next = NULL;
    if (tvm_relax__broadcast(ctx, acc, t, &dims, &ndim) == 0) {
      next = tvm_relax__tensor_result(dims, t->dtype, ndim, NULL);
      tvm_ffi_release(dims);
    }
    tvm_ffi_release(acc);
    acc = (tvm_relax_tensor_sinfo_obj*)next;
  }
  if (!acc) return NULL;
  tvm_relax_sinfo_obj* out;
  void* bdims = tvm_relax_tensor_sinfo_dims(&acc->base);
  void* ddims = tvm_relax_tensor_sinfo_dims(&data->base);
  if (data->ndim == TVM_RELAX_UNKNOWN_NDIM || acc->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    out = tvm_relax__tensor_result(NULL, data->dtype, TVM_RELAX_UNKNOWN_NDIM, data->vdevice);
  } else if (!bdims || !ddims) {
    out = tvm_relax__tensor_result(NULL, data->dtype, (int32_t)(acc->ndim + data->ndim - n),
                                   data->vdevice);
  } else {
    int64_t nout = acc->ndim + data->ndim - n;
    TVMFFIAny items[64];
    if (nout > 64) {
      tvm_ffi_release(acc);
      return tvm_relax__op_error(ctx, "ValueError", "more than 64 dims");
    }
    for (int64_t d = 0; d < acc->ndim; ++d) items[d] = tvm_ffi_any_obj(dim_at(bdims, d));
    for (int64_t d = n; d < data->ndim; ++d) {
      items[acc->ndim + d - n] = tvm_ffi_any_obj(dim_at(ddims, d));
    }
    void* arr = tvm_ffi_array_new(items, nout);
    out = arr ? tvm_relax__tensor_result(arr, data->dtype, (int32_t)nout, data->vdevice) : NULL;
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(acc);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_index_tensor(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  void* fields = NULL;
  int64_t n = data ? index_tuple_arg(ctx, 1, true, &fields) : -1;
  if (n < 0 || !index_count_fits(ctx, data, n)) return NULL;
  return indexed(ctx, data, fields, n);
}

/* index_put's values (argument 2) broadcast numpy-style to target, the indexed shape: a
 * ValueError when their rank or a constant dim provably does not. */
static bool values_fit(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* target,
                       const tvm_relax_tensor_sinfo_obj* vals) {
  if (target->ndim == TVM_RELAX_UNKNOWN_NDIM || vals->ndim == TVM_RELAX_UNKNOWN_NDIM) return true;
  if (vals->ndim > target->ndim) {
    tvm_relax__arg_error(ctx, 2, "ValueError", "has rank %d, more than data[indices]'s %d: it "
                         "must broadcast to data[indices]", vals->ndim, target->ndim);
    return false;
  }
  void* td = tvm_relax_tensor_sinfo_dims(&target->base);
  void* vd = tvm_relax_tensor_sinfo_dims(&vals->base);
  for (int64_t i = 0; td && vd && i < vals->ndim; ++i) {
    int64_t v, t, at = i + target->ndim - vals->ndim;
    if (tvm_tir_as_const_int(dim_at(vd, i), &v) && v != 1 &&
        tvm_tir_as_const_int(dim_at(td, at), &t) && v != t) {
      tvm_relax__arg_error(ctx, 2, "ValueError", "dim %lld is %lld, which does not broadcast to "
                           "dim %lld of data[indices], %lld", (long long)i, (long long)v,
                           (long long)at, (long long)t);
      return false;
    }
  }
  return true;
}

tvm_relax_sinfo_obj* tvm_relax__infer_index_put(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* data = tvm_relax__arg_tensor(ctx, 0);
  if (!data) return NULL;
  /* indices: a tuple of integer tensors (one per leading dim of data), or one tensor. */
  int64_t n = 1;
  void* fields;
  if (tvm_relax_kind_of(tvm_relax__arg_sinfo(ctx, 1)) == TVM_RELAX_KIND_TupleStructInfo) {
    if ((n = index_tuple_arg(ctx, 1, false, &fields)) < 0) return NULL;
  } else if (!int_tensor_arg(ctx, 1)) {
    return NULL;
  }
  tvm_relax_tensor_sinfo_obj* vals = tvm_relax__arg_tensor(ctx, 2);
  if (!vals || !tvm_relax__same_dtype(ctx, 2, vals, 0, data)) return NULL;
  if (!index_count_fits(ctx, data, n)) return NULL;
  /* values broadcast to data[indices] (upstream only warns; its kernel would read past them) */
  void* single = NULL; /* (one index tensor given alone: as a tuple of it) */
  if (tvm_relax_kind_of(tvm_relax__arg_sinfo(ctx, 1)) != TVM_RELAX_KIND_TupleStructInfo) {
    TVMFFIAny one = tvm_ffi_any_obj(tvm_relax__arg_sinfo(ctx, 1));
    if (!(fields = single = tvm_ffi_array_new(&one, 1))) return NULL;
  }
  tvm_relax_sinfo_obj* target = indexed(ctx, data, fields, n);
  tvm_ffi_release(single);
  bool fits = target && values_fit(ctx, (tvm_relax_tensor_sinfo_obj*)target, vals);
  tvm_ffi_release(target);
  return fits ? tensor_like(data, data->dtype) : NULL;
}

/* ---- slice_scatter --------------------------------------------------------------------------- */
/* Argument i must be an integer R.Prim; its constant value into *out (false when not known). */
static int prim_int_arg(const tvm_relax__infer_ctx* ctx, int32_t i, int64_t* out, bool* known) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  tvm_relax_prim_sinfo_obj* p = (tvm_relax_prim_sinfo_obj*)s;
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo ||
      (!tvm_relax_dtype_is_unknown(p->dtype) && !tvm_tir_dtype_is_integer(p->dtype))) {
    tvm_relax__arg_kind_error(ctx, i, "an integer R.Prim value");
    return -1;
  }
  *known = p->value && tvm_tir_as_const_int(p->value, out);
  return 0;
}

tvm_relax_sinfo_obj* tvm_relax__infer_slice_scatter(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* in = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* src = in ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!src || !tvm_relax__same_dtype(ctx, 1, src, 0, in)) return NULL;
  int64_t v[3];
  bool known[3];
  for (int i = 0; i < 3; ++i) {
    if (prim_int_arg(ctx, 2 + i, &v[i], &known[i]) != 0) return NULL;
  }
  if (known[2] && v[2] <= 0) {
    return tvm_relax__arg_error(ctx, 4, "ValueError", "must be positive, got %lld", (long long)v[2]);
  }
  if (in->ndim == TVM_RELAX_UNKNOWN_NDIM) return tensor_like(in, in->dtype);
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), in->ndim, &axis) != 0) {
    return NULL;
  }
  if (src->ndim != TVM_RELAX_UNKNOWN_NDIM && src->ndim != in->ndim) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must have the rank of 'input' (%d), got %d",
                                in->ndim, src->ndim);
  }
  void* id = tvm_relax_tensor_sinfo_dims(&in->base);
  void* sd = tvm_relax_tensor_sinfo_dims(&src->base);
  if (id && sd && src->ndim == in->ndim) {
    for (int64_t d = 0; d < in->ndim; ++d) {
      if (d != axis && tvm_relax__dim_unequal(dim_at(id, d), dim_at(sd, d))) {
        tvm_ffi_strbuf a = {0}, b = {0};
        tvm_relax__arg_error(ctx, 1, "ValueError",
                             "must match 'input' on every dim but axis %lld: %s against %s",
                             (long long)axis, dims_text(&a, src), dims_text(&b, in));
        tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b);
        return NULL;
      }
    }
    /* With constant bounds and extent, src's axis dim is the slice's length. */
    int64_t ext, sl;
    if (known[0] && known[1] && known[2] && tvm_tir_as_const_int(dim_at(id, axis), &ext) &&
        tvm_tir_as_const_int(dim_at(sd, axis), &sl)) {
      int64_t s = v[0] < 0 ? v[0] + ext : v[0], e = v[1] < 0 ? v[1] + ext : v[1];
      s = s < 0 ? 0 : s > ext ? ext : s;
      e = e < 0 ? 0 : e > ext ? ext : e;
      int64_t len = e > s ? (e - s + v[2] - 1) / v[2] : 0;
      if (len != sl) {
        return tvm_relax__arg_error(ctx, 1, "ValueError",
                                    "has %lld elements on axis %lld, the slice [%lld:%lld:%lld] of "
                                    "'input' has %lld",
                                    (long long)sl, (long long)axis, (long long)v[0], (long long)v[1],
                                    (long long)v[2], (long long)len);
      }
    }
  }
  return tensor_like(in, in->dtype);
}

/* ---- one_hot --------------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_one_hot(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* ind = int_tensor_arg(ctx, 0);
  if (!ind) return NULL;
  DLDataType vt[2];
  for (int i = 0; i < 2; ++i) {
    tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 1 + i);
    if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo) {
      return tvm_relax__arg_kind_error(ctx, 1 + i, "an R.Prim value");
    }
    vt[i] = ((tvm_relax_prim_sinfo_obj*)s)->dtype;
  }
  if (vt[0].code != vt[1].code || vt[0].bits != vt[1].bits) {
    return tvm_relax__arg_error(ctx, 2, "TypeError", "must have the dtype of 'on_value' (%s), got %s",
                                dtype_text(vt[0]), dtype_text(vt[1]));
  }
  int64_t depth = tvm_relax__attr_int(ctx, "depth");
  if (depth <= 0) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'depth' must be positive, got %lld",
                               (long long)depth);
  }
  if (ind->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return tvm_relax__tensor_result(NULL, vt[0], TVM_RELAX_UNKNOWN_NDIM, ind->vdevice);
  }
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), ind->ndim + 1, &axis) != 0) {
    return NULL;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&ind->base);
  if (!dims) return tvm_relax__tensor_result(NULL, vt[0], ind->ndim + 1, ind->vdevice);
  int64_t n = ind->ndim + 1;
  TVMFFIAny items[64];
  if (n > 64) return tvm_relax__op_error(ctx, "ValueError", "more than 64 dims");
  tvm_tir_expr_obj* d = tvm_relax__int64(depth);
  if (!d) return NULL;
  for (int64_t i = 0, k = 0; i < n; ++i) {
    items[i] = tvm_ffi_any_obj(i == axis ? d : dim_at(dims, k++));
  }
  void* arr = tvm_ffi_array_new(items, n);
  tvm_ffi_release(d);
  tvm_relax_sinfo_obj* out = arr ? tvm_relax__tensor_result(arr, vt[0], (int32_t)n, ind->vdevice) : NULL;
  tvm_ffi_release(arr);
  return out;
}

/* ---- argsort and topk ------------------------------------------------------------------------ */
tvm_relax_sinfo_obj* tvm_relax__infer_argsort(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  if (tvm_relax_dtype_is_unknown(t)) t = x->dtype;
  if (!tvm_relax_dtype_is_unknown(t) && !tvm_tir_dtype_is_integer(t)) {
    return tvm_relax__op_error(ctx, "TypeError", "attribute 'dtype' must be an integer dtype, got %s",
                               dtype_text(t));
  }
  int64_t axis;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  return tensor_like(x, t);
}

tvm_relax_sinfo_obj* tvm_relax__infer_topk(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  DLDataType it = tvm_relax__attr_dtype(ctx, "dtype");
  if (tvm_relax_dtype_is_unknown(it)) it = x->dtype;
  if (!tvm_relax_dtype_is_unknown(it) && !tvm_tir_dtype_is_integer(it)) {
    return tvm_relax__op_error(ctx, "TypeError", "attribute 'dtype' must be an integer dtype, got %s",
                               dtype_text(it));
  }
  const char* rt = tvm_relax__attr_str(ctx, "ret_type");
  static const char* const kinds[] = {"both", "values", "indices", NULL};
  if (!one_of(rt, kinds)) {
    return tvm_relax__op_error(
        ctx, "ValueError", "attribute 'ret_type' must be \"both\", \"values\" or \"indices\", got \"%s\"",
        rt ? rt : "");
  }
  int64_t k = tvm_relax__attr_int(ctx, "k"), axis = 0;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  void* out_dims = NULL;
  if (dims) {
    /* k < 1, or k not below a constant extent, keeps the axis' dim. */
    int64_t ext;
    bool cut = k > 0 && (!tvm_tir_as_const_int(dim_at(dims, axis), &ext) || k < ext);
    TVMFFIAny items[64];
    if (x->ndim > 64) return tvm_relax__op_error(ctx, "ValueError", "more than 64 dims");
    tvm_tir_expr_obj* kd = cut ? tvm_relax__int64(k) : NULL;
    for (int64_t i = 0; i < x->ndim; ++i) {
      items[i] = tvm_ffi_any_obj(i == axis && kd ? kd : dim_at(dims, i));
    }
    out_dims = tvm_ffi_array_new(items, x->ndim);
    tvm_ffi_release(kd);
    if (!out_dims) return NULL;
  }
  tvm_relax_sinfo_obj* parts[2] = {
      tvm_relax__tensor_result(out_dims, x->dtype, x->ndim, x->vdevice),
      tvm_relax__tensor_result(out_dims, it, x->ndim, x->vdevice)};
  tvm_ffi_release(out_dims);
  tvm_relax_sinfo_obj* out = NULL;
  if (parts[0] && parts[1]) {
    if (strcmp(rt, "values") == 0) {
      out = retained_sinfo(parts[0]);
    } else if (strcmp(rt, "indices") == 0) {
      out = retained_sinfo(parts[1]);
    } else {
      void* arr = tvm_ffi_array_of_objects((void**)parts, 2);
      out = arr ? tvm_relax_tuple_sinfo_new(arr) : NULL;
      tvm_ffi_release(arr);
    }
  }
  tvm_ffi_release(parts[0]), tvm_ffi_release(parts[1]);
  return out;
}

/* ---- dynamic_strided_slice and nonzero: data-dependent shapes --------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_dynamic_strided_slice(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  for (int32_t i = 1; i < 4; ++i) {
    tvm_relax_tensor_sinfo_obj* t = int_tensor_arg(ctx, i);
    if (!t) return NULL;
    if (t->ndim != TVM_RELAX_UNKNOWN_NDIM && t->ndim != 1) {
      return tvm_relax__arg_error(ctx, i, "ValueError", "must be 1-d, got ndim %d", t->ndim);
    }
    void* d = tvm_relax_tensor_sinfo_dims(&t->base);
    int64_t len;
    if (d && x->ndim != TVM_RELAX_UNKNOWN_NDIM && tvm_tir_as_const_int(dim_at(d, 0), &len) &&
        len != x->ndim) {
      return tvm_relax__arg_error(ctx, i, "ValueError",
                                  "must have one value per dim of 'x' (%d), got %lld", x->ndim,
                                  (long long)len);
    }
  }
  /* The bounds are runtime values: the rank is x's, the dims are unknown. */
  return tvm_relax__tensor_result(NULL, x->dtype, x->ndim, x->vdevice);
}

tvm_relax_sinfo_obj* tvm_relax__infer_nonzero(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  /* (ndim, number of nonzero elements), int64: the second dim is only known at run time. */
  return tvm_relax__tensor_result(NULL, tvm_tir_dtype_int(64), 2, x->vdevice);
}

/* ---- unique: data-dependent shapes ----------------------------------------------------------- */
/* Argument i, a flag of unique: an R.Prim of bool or integer dtype (upstream's wrapper makes
 * True an int64 1). *out is its value, 0 or 1, or -1 when it is not a constant; a return_*
 * flag must be a constant, since it decides which results the call has. */
static bool unique_flag(const tvm_relax__infer_ctx* ctx, int32_t i, bool need_const,
                        int64_t* out) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo) {
    tvm_relax__arg_kind_error(ctx, i, "a bool (R.Prim)");
    return false;
  }
  const tvm_relax_prim_sinfo_obj* p = (const tvm_relax_prim_sinfo_obj*)s;
  if (!tvm_relax_dtype_is_unknown(p->dtype) && !tvm_tir_dtype_is_integer(p->dtype) &&
      p->dtype.code != kDLBool) {
    tvm_relax__arg_error(ctx, i, "TypeError", "must be a bool, got dtype %s",
                         tvm_tir_dtype_str(p->dtype).s);
    return false;
  }
  *out = -1;
  if (p->value && tvm_tir_as_const_int(p->value, out) && *out != 0 && *out != 1) {
    tvm_relax__arg_error(ctx, i, "ValueError", "must be True or False (0 or 1), got %lld",
                         (long long)*out);
    return false;
  }
  if (need_const && *out < 0) {
    tvm_relax__arg_error(ctx, i, "ValueError", "must be a constant (it decides the results)");
    return false;
  }
  return true;
}

/* unique (upstream set.cc's InferStructInfoUnique): the unique values, 1-d for the flattened x,
 * of x's rank along an axis, then int64 1-d index / inverse / counts for the return_* flags set
 * (a tuple when any is). The number of unique values is known at run time only; a 0-d x has
 * exactly one, so its results are (1,). Beyond upstream, which checks only the return_* flags'
 * kinds, each flag must be a bool R.Prim and axis an integer one. */
tvm_relax_sinfo_obj* tvm_relax__infer_unique(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  int64_t flag[5];
  for (int32_t i = 1; i < 5; ++i) {
    if (!unique_flag(ctx, i, i > 1, &flag[i])) return NULL;
  }
  bool has_axis = ctx->num_args > 5;
  if (has_axis) {
    tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 5);
    const tvm_relax_prim_sinfo_obj* p = (const tvm_relax_prim_sinfo_obj*)s;
    if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo) {
      return tvm_relax__arg_kind_error(ctx, 5, "an integer (R.Prim)");
    }
    if (!tvm_relax_dtype_is_unknown(p->dtype) && !tvm_tir_dtype_is_integer(p->dtype)) {
      return tvm_relax__arg_error(ctx, 5, "TypeError", "must be an integer, got dtype %s",
                                  tvm_tir_dtype_str(p->dtype).s);
    }
    int64_t axis, norm;
    if (x->ndim != TVM_RELAX_UNKNOWN_NDIM && p->value && tvm_tir_as_const_int(p->value, &axis) &&
        tvm_relax__normalize_axis(ctx, axis, x->ndim, &norm) != 0) {
      return NULL;
    }
  }
  void* one = NULL;
  if (x->ndim == 0) {
    tvm_tir_expr_obj* d = tvm_relax__int64(1);
    one = d ? tvm_ffi_array_of_objects((void**)&d, 1) : NULL;
    tvm_ffi_release(d);
    if (!one) return NULL;
  }
  void* fields[4];
  int n = 0;
  fields[n++] = tvm_relax__tensor_result(one, x->dtype, has_axis ? x->ndim : 1, x->vdevice);
  for (int32_t i = 2; i < 5; ++i) {
    if (flag[i] == 1) {
      fields[n++] = tvm_relax__tensor_result(one, tvm_tir_dtype_int(64), 1, x->vdevice);
    }
  }
  tvm_ffi_release(one);
  bool ok = true;
  for (int i = 0; i < n; ++i) ok = ok && fields[i];
  tvm_relax_sinfo_obj* out = ok ? tvm_relax__one_or_tuple(fields, n) : NULL;
  tvm_relax__release_all(fields, n);
  return out;
}

/* ---- einsum ---------------------------------------------------------------------------------- */
const tvm_relax_attr_field tvm_relax__attrs_einsum[] = {{"subscripts", TVM_RELAX_ATTR_STR, NULL},
                                                        {NULL, 0, NULL}};

static int label_of(char c) {
  if (c >= 'a' && c <= 'z') return c - 'a';
  if (c >= 'A' && c <= 'Z') return 26 + (c - 'A');
  return -1;
}

int tvm_relax__einsum_parse(const char* subs, const int32_t* ndims, int nops,
                            tvm_relax__einsum* out, tvm_ffi_strbuf* err) {
  memset(out, 0, sizeof(*out));
  if (nops < 1 || nops > TVM_RELAX_EINSUM_MAX_OPS) {
    tvm_ffi_strbuf_printf(err, "takes 1 to %d operands, got %d", TVM_RELAX_EINSUM_MAX_OPS, nops);
    return -1;
  }
  const char* arrow = strstr(subs, "->");
  const char* end_in = arrow ? arrow : subs + strlen(subs);
  int count[TVM_RELAX_EINSUM_LABELS] = {0};
  int op = 0, n_ell = 0;
  const char* p = subs;
  for (;;) {
    int nl = 0, ell_at = -1;
    int lab[TVM_RELAX_EINSUM_MAX_DIMS];
    for (; p < end_in && *p != ','; ++p) {
      if (*p == ' ') continue;
      if (*p == '.' && p + 2 < end_in + 0 + 1 && strncmp(p, "...", 3) == 0 && ell_at < 0) {
        ell_at = nl;
        p += 2;
        continue;
      }
      int l = label_of(*p);
      if (l < 0 || nl >= TVM_RELAX_EINSUM_MAX_DIMS) {
        tvm_ffi_strbuf_printf(err, "subscripts \"%s\": unexpected '%c'", subs, *p);
        return -1;
      }
      lab[nl++] = l;
    }
    if (op >= nops) {
      tvm_ffi_strbuf_printf(err, "subscripts \"%s\" name more operands than the %d given", subs, nops);
      return -1;
    }
    int e = 0;
    if (ndims[op] >= 0) {
      e = ndims[op] - nl;
      if ((ell_at < 0 && e != 0) || e < 0) {
        tvm_ffi_strbuf_printf(err, "subscripts \"%s\": operand %d has %d dims, its term names %d",
                              subs, op, ndims[op], nl);
        return -1;
      }
    }
    if (nl + e > TVM_RELAX_EINSUM_MAX_DIMS) {
      tvm_ffi_strbuf_printf(err, "more than %d dims", TVM_RELAX_EINSUM_MAX_DIMS);
      return -1;
    }
    /* The ellipsis' dims get labels ELL + k, k counted from the last of them. */
    int k = 0;
    for (int i = 0; i < nl + e; ++i) {
      int l;
      if (ell_at >= 0 && i >= ell_at && i < ell_at + e) l = TVM_RELAX_EINSUM_ELL + (e - 1 - (i - ell_at));
      else l = lab[i < ell_at || ell_at < 0 ? i : i - e];
      out->labels[op][k++] = l;
      if (l < TVM_RELAX_EINSUM_ELL) count[l]++;
    }
    out->ndim[op] = k;
    n_ell = e > n_ell ? e : n_ell;
    ++op;
    if (p >= end_in) break;
    ++p; /* ',' */
  }
  if (op != nops) {
    tvm_ffi_strbuf_printf(err, "subscripts \"%s\" name %d operands, %d given", subs, op, nops);
    return -1;
  }
  out->nops = nops;
  out->n_ell = n_ell;
  int no = 0;
  if (arrow) {
    bool seen[TVM_RELAX_EINSUM_LABELS] = {false};
    bool ell_done = false;
    for (p = arrow + 2; *p; ++p) {
      if (*p == ' ') continue;
      if (strncmp(p, "...", 3) == 0 && !ell_done) {
        for (int k2 = n_ell - 1; k2 >= 0; --k2) out->out[no++] = TVM_RELAX_EINSUM_ELL + k2;
        ell_done = true;
        p += 2;
        continue;
      }
      int l = label_of(*p);
      if (l < 0 || no >= TVM_RELAX_EINSUM_MAX_DIMS) {
        tvm_ffi_strbuf_printf(err, "subscripts \"%s\": unexpected '%c' in the output", subs, *p);
        return -1;
      }
      if (!count[l] || seen[l]) {
        tvm_ffi_strbuf_printf(err, "subscripts \"%s\": output label '%c' %s", subs, *p,
                              seen[l] ? "is repeated" : "is in no operand");
        return -1;
      }
      seen[l] = true;
      out->out[no++] = l;
    }
    if (!ell_done && n_ell > 0) {
      tvm_ffi_strbuf_printf(err, "subscripts \"%s\": the operands' '...' dims need a '...' in the output",
                            subs);
      return -1;
    }
  } else {
    /* Implicit output: the ellipsis dims, then the labels seen once, in character order. */
    for (int k2 = n_ell - 1; k2 >= 0; --k2) out->out[no++] = TVM_RELAX_EINSUM_ELL + k2;
    for (int c = 'A'; c <= 'z'; ++c) {
      int l = label_of((char)c);
      if (l >= 0 && count[l] == 1 && no < TVM_RELAX_EINSUM_MAX_DIMS) out->out[no++] = l;
    }
  }
  out->n_out = no;
  return 0;
}

tvm_relax_sinfo_obj* tvm_relax__infer_einsum(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 0);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_TupleStructInfo) {
    return tvm_relax__arg_kind_error(ctx, 0, "a tuple of tensors");
  }
  void* fields = ((tvm_relax_tuple_sinfo_obj*)s)->fields;
  int nops = (int)tvm_ffi_seq_size(fields);
  if (nops > TVM_RELAX_EINSUM_MAX_OPS) {
    return tvm_relax__op_error(ctx, "ValueError", "more than %d operands", TVM_RELAX_EINSUM_MAX_OPS);
  }
  int32_t ndims[TVM_RELAX_EINSUM_MAX_OPS];
  tvm_relax_tensor_sinfo_obj* t[TVM_RELAX_EINSUM_MAX_OPS];
  DLDataType dt = TVM_RELAX_DTYPE_UNKNOWN;
  bool ranks = true;
  for (int i = 0; i < nops; ++i) {
    tvm_relax_sinfo_obj* f = tvm_ffi_seq_obj_at(fields, i);
    if (tvm_relax_kind_of(f) != TVM_RELAX_KIND_TensorStructInfo) {
      tvm_ffi_strbuf got = {0};
      tvm_relax_sinfo_text(&got, f);
      tvm_relax__arg_error(ctx, 0, "TypeError", "must hold tensors, field %d is %s", i,
                           tvm_ffi_strbuf_cstr(&got));
      tvm_ffi_strbuf_free(&got);
      return NULL;
    }
    t[i] = (tvm_relax_tensor_sinfo_obj*)f;
    ndims[i] = t[i]->ndim;
    ranks = ranks && t[i]->ndim != TVM_RELAX_UNKNOWN_NDIM;
    if (tvm_relax_dtype_is_unknown(dt)) {
      dt = t[i]->dtype;
    } else if (!tvm_relax_dtype_is_unknown(t[i]->dtype) &&
               (t[i]->dtype.code != dt.code || t[i]->dtype.bits != dt.bits)) {
      return tvm_relax__arg_error(ctx, 0, "TypeError",
                                  "must hold tensors of one dtype, field %d is %s, not %s", i,
                                  dtype_text(t[i]->dtype), dtype_text(dt));
    }
  }
  const char* subs = tvm_relax__attr_str(ctx, "subscripts");
  tvm_relax__einsum e;
  tvm_ffi_strbuf err = {0};
  if (tvm_relax__einsum_parse(subs ? subs : "", ndims, nops, &e, &err) != 0) {
    tvm_relax__op_error(ctx, "ValueError", "%s", tvm_ffi_strbuf_cstr(&err));
    tvm_ffi_strbuf_free(&err);
    return NULL;
  }
  void* vdev = nops ? t[0]->vdevice : NULL;
  if (!ranks) return tvm_relax__tensor_result(NULL, dt, ranks ? e.n_out : TVM_RELAX_UNKNOWN_NDIM, vdev);
  /* Each label's extent: a dim of it that is not a constant 1 (a dim of 1 broadcasts, under a
   * letter as under the ellipsis: upstream's GetBroadcastedExtent; other dims must agree). */
  tvm_tir_expr_obj* ext[TVM_RELAX_EINSUM_LABELS] = {NULL};
  bool known = true;
  for (int i = 0; i < nops; ++i) {
    void* dims = tvm_relax_tensor_sinfo_dims(&t[i]->base);
    if (!dims) {
      known = false;
      continue;
    }
    for (int d = 0; d < e.ndim[i]; ++d) {
      int l = e.labels[i][d];
      tvm_tir_expr_obj* x = dim_at(dims, d);
      int64_t c;
      bool one = tvm_tir_as_const_int(x, &c) && c == 1;
      if (!ext[l]) {
        ext[l] = x;
      } else if (tvm_relax__dim_unequal(ext[l], x)) {
        int64_t c0;
        bool one0 = tvm_tir_as_const_int(ext[l], &c0) && c0 == 1;
        if (one || one0) {
          if (one0) ext[l] = x;
        } else {
          tvm_ffi_strbuf a = {0}, b = {0};
          tvm_relax__arg_error(ctx, 0, "ValueError",
                               "holds operands whose dims for one subscript differ: %s and %s",
                               tvm_relax__dim_text(&a, ext[l]), tvm_relax__dim_text(&b, x));
          tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b);
          return NULL;
        }
      }
    }
  }
  if (!known) return tvm_relax__tensor_result(NULL, dt, e.n_out, vdev);
  TVMFFIAny items[TVM_RELAX_EINSUM_MAX_DIMS];
  for (int i = 0; i < e.n_out; ++i) items[i] = tvm_ffi_any_obj(ext[e.out[i]]);
  void* arr = tvm_ffi_array_new(items, e.n_out);
  tvm_relax_sinfo_obj* r = arr ? tvm_relax__tensor_result(arr, dt, e.n_out, vdev) : NULL;
  tvm_ffi_release(arr);
  return r;
}
