/*
 * op_reduce.c: inference rules and attribute schemas of the reductions (sum, mean, max, min,
 * prod, variance, std), the index searches (argmax, argmin, bucketize) and the scans (cumsum,
 * cumprod), as upstream's relax/op/tensor/statistical.cc, search.cc and the scan rule define them:
 *   - a reduction over `axis` (None: every axis) drops the reduced dims, or keeps them as 1 with
 *     keepdims; with an unknown shape the rank is still known when it can be (axis None without
 *     keepdims gives ndim 0; with keepdims the input's rank, all dims 1 when axis is None);
 *   - argmax/argmin reduce one axis (None: all) and give int64 indices;
 *   - median reduces as the reductions do, and with exactly one axis also gives the int64
 *     indices of the medians (a pair);
 *   - a scan keeps the shape (axis None: flattened to one dim) with dtype `dtype` when given;
 *   - bucketize keeps input_tensor's shape, with int64 bucket indices (int32 with out_int32);
 *   - multinomial_from_uniform (upstream's sampling.cc) gives one (n, 1) index per sample,
 *     found in the cumulative sums of a row of prob;
 *   - collapse_sum_like / collapse_sum_to (upstream's manipulate.cc) sum data down to the
 *     target's shape, which data's must broadcast from (checked from the right).
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_reduce[] = {
    {"axis", TVM_RELAX_ATTR_OPT_INTS, "None"},
    {"keepdims", TVM_RELAX_ATTR_BOOL, "false"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_arg_reduce[] = {
    {"axis", TVM_RELAX_ATTR_OPT_INT, "None"},
    {"keepdims", TVM_RELAX_ATTR_BOOL, "false"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_scan[] = {
    {"axis", TVM_RELAX_ATTR_OPT_INT, "None"},
    {"dtype", TVM_RELAX_ATTR_DTYPE, ""},
    {"exclusive", TVM_RELAX_ATTR_BOOL, "false"},
    {NULL, 0, NULL}};
/* bucketize (upstream's BucketizeAttrs): int32 indices when out_int32 (else int64); right picks
 * the bucket i of boundaries[i - 1] <= x < boundaries[i] (else of b[i - 1] < x <= b[i]). */
const tvm_relax_attr_field tvm_relax__attrs_bucketize[] = {
    {"out_int32", TVM_RELAX_ATTR_BOOL, "false"},
    {"right", TVM_RELAX_ATTR_BOOL, "false"},
    {NULL, 0, NULL}};
/* multinomial_from_uniform (upstream's MultinomialFromUniformAttrs): the dtype of the sampled
 * indices, "int64" as upstream's wrapper defaults it. */
const tvm_relax_attr_field tvm_relax__attrs_multinomial[] = {
    {"dtype", TVM_RELAX_ATTR_DTYPE, "int64"}, {NULL, 0, NULL}};

/*
 * The result of reducing x: `reduced` marks the reduced axes (NULL: all axes, axis None),
 * naxes how many are marked. Ranks and dims follow upstream's statistical rule.
 */
static tvm_relax_sinfo_obj* reduce_result(const tvm_relax_tensor_sinfo_obj* x, const bool* reduced,
                                          int32_t naxes, bool keepdims, DLDataType dtype) {
  int32_t out_ndim;
  if (keepdims) {
    out_ndim = x->ndim;
  } else if (!reduced) {
    out_ndim = 0;
  } else if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    out_ndim = TVM_RELAX_UNKNOWN_NDIM;
  } else {
    out_ndim = x->ndim - naxes;
  }
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  bool all_ones = !dims && !reduced && keepdims && out_ndim != TVM_RELAX_UNKNOWN_NDIM;
  if (!dims && !all_ones && out_ndim != 0) {
    return tvm_relax_tensor_sinfo_new(NULL, dtype, out_ndim, x->vdevice);
  }
  int32_t n = out_ndim;
  void** items = tvm_ffi_calloc((size_t)(n > 0 ? n : 1), sizeof(void*));
  tvm_tir_expr_obj* one = tvm_relax__int64(1);
  tvm_relax_sinfo_obj* out = NULL;
  if (items && one) {
    int32_t k = 0;
    for (int32_t i = 0; dims && i < x->ndim; ++i) {
      if (!reduced || reduced[i]) {
        if (keepdims) items[k++] = one;
      } else {
        items[k++] = tvm_ffi_seq_obj_at(dims, i);
      }
    }
    for (; k < n; ++k) items[k] = one; /* all_ones: no dims to copy */
    void* arr = tvm_ffi_array_of_objects(items, n);
    if (arr) out = tvm_relax__tensor_result(arr, dtype, n, x->vdevice);
    tvm_ffi_release(arr);
  }
  tvm_ffi_release(one);
  tvm_ffi_free(items);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_reduce(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  bool keepdims = tvm_relax__attr_bool(ctx, "keepdims");
  void* axes = tvm_relax__attr_ints(ctx, "axis");
  if (!axes) return reduce_result(x, NULL, 0, keepdims, x->dtype);
  int32_t naxes = (int32_t)tvm_ffi_seq_size(axes);
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    /* The axes cannot be checked against an unknown rank (upstream neither). */
    return reduce_result(x, (const bool[1]){false}, naxes, keepdims, x->dtype);
  }
  bool* reduced = tvm_ffi_calloc((size_t)(x->ndim > 0 ? x->ndim : 1), sizeof(bool));
  if (!reduced) return NULL;
  tvm_relax_sinfo_obj* out = NULL;
  for (int32_t i = 0; i < naxes; ++i) {
    int64_t a = 0, norm;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(axes, i), &a);
    if (tvm_relax__normalize_axis(ctx, a, x->ndim, &norm) != 0) goto done;
    if (reduced[norm]) {
      tvm_relax__op_error(ctx, "ValueError", "attribute 'axis' names axis %lld more than once",
                          (long long)norm);
      goto done;
    }
    reduced[norm] = true;
  }
  out = reduce_result(x, reduced, naxes, keepdims, x->dtype);
done:
  tvm_ffi_free(reduced);
  return out;
}

/* median: reduce's rule; one axis gives the pair (values, int64 indices of the medians along
 * it), as upstream's InferStructInfoStatisticalExtension does (axis None or several axes: the
 * values only). */
tvm_relax_sinfo_obj* tvm_relax__infer_median(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_sinfo_obj* v = tvm_relax__infer_reduce(ctx);
  void* axes = v ? tvm_relax__attr_ints(ctx, "axis") : NULL;
  if (!axes || tvm_ffi_seq_size(axes) != 1) return v;
  const tvm_relax_tensor_sinfo_obj* t = (const tvm_relax_tensor_sinfo_obj*)v;
  tvm_relax_sinfo_obj* idx =
      tvm_relax_tensor_sinfo_new(t->shape, tvm_tir_dtype_int(64), t->ndim, t->vdevice);
  TVMFFIAny f[2] = {tvm_ffi_any_obj(v), tvm_ffi_any_obj(idx)};
  void* arr = idx ? tvm_ffi_array_new(f, 2) : NULL;
  tvm_relax_sinfo_obj* out = arr ? tvm_relax_tuple_sinfo_new(arr) : NULL;
  tvm_ffi_release(arr);
  tvm_ffi_release(idx);
  tvm_ffi_release(v);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_arg_reduce(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  bool keepdims = tvm_relax__attr_bool(ctx, "keepdims");
  DLDataType i64 = tvm_tir_dtype_int(64);
  if (tvm_relax__attr_is_none(ctx, "axis")) return reduce_result(x, NULL, 0, keepdims, i64);
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    return reduce_result(x, (const bool[1]){false}, 1, keepdims, i64);
  }
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  bool* reduced = tvm_ffi_calloc((size_t)x->ndim, sizeof(bool));
  if (!reduced) return NULL;
  reduced[axis] = true;
  tvm_relax_sinfo_obj* out = reduce_result(x, reduced, 1, keepdims, i64);
  tvm_ffi_free(reduced);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_scan(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  DLDataType dtype = tvm_relax__attr_dtype(ctx, "dtype");
  if (tvm_relax_dtype_is_unknown(dtype)) dtype = x->dtype;
  if (!tvm_relax__attr_is_none(ctx, "axis")) {
    int64_t axis;
    if (x->ndim != TVM_RELAX_UNKNOWN_NDIM &&
        tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
      return NULL;
    }
    return tvm_relax_tensor_sinfo_new(x->shape, dtype, x->shape ? TVM_RELAX_UNKNOWN_NDIM : x->ndim,
                                      x->vdevice);
  }
  /* axis None: the scan runs over the flattened tensor. */
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (!dims) return tvm_relax_tensor_sinfo_new(NULL, dtype, 1, x->vdevice);
  int64_t n = tvm_ffi_seq_size(dims);
  tvm_tir_expr_obj* prod = n ? tvm_ffi_seq_obj_at(dims, 0) : NULL;
  tvm_tir_expr_obj* size = prod ? (tvm_ffi_retain(prod), prod) : tvm_relax__int64(1);
  for (int64_t i = 1; size && i < n; ++i) {
    tvm_tir_expr_obj* next = tvm_tir_mul(size, tvm_ffi_seq_obj_at(dims, i));
    tvm_ffi_release(size);
    size = next;
  }
  if (size && n > 1) {
    tvm_tir_expr_obj* s = tvm_tir_simplify_expr(size, NULL);
    tvm_ffi_release(size);
    size = s;
  }
  if (!size) return NULL;
  void* arr = tvm_ffi_array_of_objects((void* const*)&size, 1);
  tvm_ffi_release(size);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax__tensor_result(arr, dtype, 1, x->vdevice);
  tvm_ffi_release(arr);
  return out;
}

/* ---- bucketize ------------------------------------------------------------------------------- */
/* bucketize (upstream search.cc): boundaries must be 1-d (an unknown rank passes, as upstream's
 * rule lets it); the result has input_tensor's shape (or rank) and vdevice, int32 indices with
 * out_int32, else int64. Neither dtype is checked (upstream checks none): the kernel compares
 * the two in a common dtype. */
tvm_relax_sinfo_obj* tvm_relax__infer_bucketize(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* b = x ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!b) return NULL;
  if (b->ndim != TVM_RELAX_UNKNOWN_NDIM && b->ndim != 1) {
    return tvm_relax__arg_error(ctx, 1, "ValueError", "must be a 1-d tensor, got ndim %d",
                                b->ndim);
  }
  DLDataType t = tvm_tir_dtype_int(tvm_relax__attr_bool(ctx, "out_int32") ? 32 : 64);
  return tvm_relax_tensor_sinfo_new(x->shape, t, x->ndim, x->vdevice);
}

/* ---- multinomial_from_uniform ---------------------------------------------------------------- */
/*
 * multinomial_from_uniform(prob, uniform_sample, sample_indices) (upstream sampling.cc): prob
 * (batch, vocab) and uniform_sample (n, 1) of float dtypes, sample_indices (n, 1) of a signed
 * integer dtype; the result is (n, 1) in the attribute dtype, on prob's vdevice. As upstream:
 * the second dim of uniform_sample and sample_indices must be the constant 1 and their first
 * dims provably equal (a match_cast makes them so), checked when the three shapes are known,
 * which the (n, 1) result needs too (else ndim 2). Unlike upstream's rule, an unknown rank
 * still gives ndim 2 (upstream: an unknown rank) and the known ranks are checked; unknown
 * dtypes pass; bfloat16 counts as a float; the attribute dtype must be an integer one (upstream
 * checks none of it).
 */
tvm_relax_sinfo_obj* tvm_relax__infer_multinomial(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* t[3];
  for (int32_t i = 0; i < 3; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) return NULL;
  }
  for (int32_t i = 0; i < 3; ++i) {
    DLDataType d = t[i]->dtype;
    bool ok = tvm_relax_dtype_is_unknown(d) ||
              (i < 2 ? tvm_tir_dtype_is_floating(d) : d.code == kDLInt);
    if (!ok) {
      return tvm_relax__arg_error(ctx, i, "TypeError", "must have a %s dtype, got %s",
                                  i < 2 ? "float" : "signed integer", tvm_tir_dtype_str(d).s);
    }
  }
  DLDataType out = tvm_relax__attr_dtype(ctx, "dtype");
  if (!tvm_tir_dtype_is_integer(out) || tvm_tir_dtype_is_bool(out) || out.lanes != 1) {
    return tvm_relax__op_error(ctx, "TypeError", "attribute 'dtype' must be an integer dtype, "
                               "got %s", tvm_tir_dtype_str(out).s);
  }
  for (int32_t i = 0; i < 3; ++i) {
    if (t[i]->ndim != TVM_RELAX_UNKNOWN_NDIM && t[i]->ndim != 2) {
      return tvm_relax__arg_error(ctx, i, "ValueError", "must be a 2-d tensor, got ndim %d",
                                  t[i]->ndim);
    }
  }
  void* pd = tvm_relax_tensor_sinfo_dims(&t[0]->base);
  void* ud = tvm_relax_tensor_sinfo_dims(&t[1]->base);
  void* id = tvm_relax_tensor_sinfo_dims(&t[2]->base);
  if (!pd || !ud || !id) return tvm_relax_tensor_sinfo_new(NULL, out, 2, t[0]->vdevice);
  for (int32_t i = 1; i < 3; ++i) {
    int64_t c;
    tvm_tir_expr_obj* d = tvm_ffi_seq_obj_at(i == 1 ? ud : id, 1);
    if (!tvm_tir_as_const_int(d, &c) || c != 1) {
      tvm_ffi_strbuf b = {0};
      tvm_relax__arg_error(ctx, i, "ValueError", "must have shape (n, 1), got a second dim of %s",
                           tvm_relax__dim_text(&b, d));
      tvm_ffi_strbuf_free(&b);
      return NULL;
    }
  }
  tvm_tir_expr_obj *n = tvm_ffi_seq_obj_at(ud, 0), *m = tvm_ffi_seq_obj_at(id, 0);
  if (!tvm_relax__dim_equal(n, m)) {
    tvm_ffi_strbuf a = {0}, b = {0};
    tvm_relax__op_error(ctx, "ValueError",
                        "arguments 'uniform_sample' and 'sample_indices' must have the same "
                        "number of samples, got %s and %s%s",
                        tvm_relax__dim_text(&a, n), tvm_relax__dim_text(&b, m),
                        tvm_relax__dim_unequal(n, m) ? "" : " (not provably equal: a "
                                                            "match_cast can make them so)");
    tvm_ffi_strbuf_free(&a), tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  tvm_tir_expr_obj* one = tvm_relax__int64(1);
  void* arr = one ? tvm_ffi_array_of_objects((void*[]){n, one}, 2) : NULL;
  tvm_ffi_release(one);
  if (!arr) return NULL;
  tvm_relax_sinfo_obj* res = tvm_relax__tensor_result(arr, out, 2, t[0]->vdevice);
  tvm_ffi_release(arr);
  return res;
}

/* ---- collapse_sum_like / collapse_sum_to ----------------------------------------------------- */
/*
 * upstream's CheckCollapseShape: data's dims and the target's (argument ti) from the right; a
 * data dim matches the target's next one when they are provably equal or the target's is the
 * constant 1 (summed); data dims left of the target's are summed. Two different constants are
 * a ValueError, and so are dims that cannot be shown equal (upstream asks for a match_cast).
 * Beyond upstream's rule, a target of higher rank than data is a ValueError (upstream's rule lets
 * it through to topi's collapse_sum, which aborts). False + error on a mismatch.
 */
static bool check_collapse(const tvm_relax__infer_ctx* ctx, int32_t ti,
                           const tvm_relax_tensor_sinfo_obj* data, int32_t tn, void* tdims) {
  if (data->ndim != TVM_RELAX_UNKNOWN_NDIM && tn != TVM_RELAX_UNKNOWN_NDIM && tn > data->ndim) {
    tvm_relax__arg_error(ctx, ti, "ValueError", "must have ndim <= that of 'data' (%d), got %d",
                         data->ndim, tn);
    return false;
  }
  void* ddims = tvm_relax_tensor_sinfo_dims(&data->base);
  if (!ddims || !tdims) return true;
  int64_t dn = tvm_ffi_seq_size(ddims), t = tvm_ffi_seq_size(tdims) - 1;
  for (int64_t d = dn - 1; d >= 0 && t >= 0; --d) {
    tvm_tir_expr_obj *a = tvm_ffi_seq_obj_at(ddims, d), *b = tvm_ffi_seq_obj_at(tdims, t);
    int64_t ca, cb;
    bool ka = tvm_tir_as_const_int(a, &ca), kb = tvm_tir_as_const_int(b, &cb);
    if ((kb && cb == 1) || tvm_relax__dim_equal(a, b)) {
      --t;
      continue;
    }
    tvm_ffi_strbuf ta = {0}, tb = {0};
    if (ka && kb) {
      tvm_relax__arg_error(ctx, ti, "ValueError",
                           "dim %lld (%s) must be 1 or equal dim %lld of 'data' (%s)",
                           (long long)t, tvm_relax__dim_text(&tb, b), (long long)d,
                           tvm_relax__dim_text(&ta, a));
    } else {
      tvm_relax__arg_error(ctx, ti, "ValueError",
                           "dim %lld (%s) cannot be shown to equal dim %lld of 'data' (%s); "
                           "match_cast them first",
                           (long long)t, tvm_relax__dim_text(&tb, b), (long long)d,
                           tvm_relax__dim_text(&ta, a));
    }
    tvm_ffi_strbuf_free(&ta), tvm_ffi_strbuf_free(&tb);
    return false;
  }
  return true;
}

/* collapse_sum_like (upstream manipulate.cc): two tensors; the result has collapse_target's
 * shape (or rank) and vdevice, and data's dtype. */
tvm_relax_sinfo_obj* tvm_relax__infer_collapse_sum_like(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* t = x ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!t || !check_collapse(ctx, 1, x, t->ndim, tvm_relax_tensor_sinfo_dims(&t->base))) {
    return NULL;
  }
  return tvm_relax_tensor_sinfo_new(t->shape, x->dtype, t->shape ? TVM_RELAX_UNKNOWN_NDIM : t->ndim,
                                    t->vdevice);
}

/* collapse_sum_to (upstream manipulate.cc): data a tensor, shape an R.Shape (the TVMScript form
 * also takes a tuple, as upstream's wrapper); the result's shape is the argument itself, with
 * data's dtype and vdevice. */
tvm_relax_sinfo_obj* tvm_relax__infer_collapse_sum_to(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, 1);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_ShapeStructInfo) {
    return tvm_relax__arg_kind_error(ctx, 1, "a shape (R.Shape)");
  }
  const tvm_relax_shape_sinfo_obj* ss = (const tvm_relax_shape_sinfo_obj*)s;
  int32_t tn = ss->values ? (int32_t)tvm_ffi_seq_size(ss->values) : ss->ndim;
  if (!check_collapse(ctx, 1, x, tn, ss->values)) return NULL;
  return tvm_relax__tensor_of_shape_arg(ctx, 1, x->dtype, x->vdevice);
}
