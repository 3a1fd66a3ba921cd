/*
 * op_nn_extra.c: attribute schemas and inference rules of quantize / dequantize (upstream's
 * relax/op/tensor/qdq.cc), nn.leakyrelu, nn.prelu, nn.group_norm, nn.instance_norm, nn.nll_loss
 * and nn.cross_entropy_with_logits (upstream's relax/op/nn/nn.cc).
 *
 * As elsewhere in librelax, a shape check raises only when a mismatch is provable; dims that
 * cannot be shown equal are accepted (the kernel reads what it is given).
 */
#include <string.h>

#include "internal.h"

/* ---- Schemas --------------------------------------------------------------------------------- */
const tvm_relax_attr_field tvm_relax__attrs_quantize[] = {
    {"axis", TVM_RELAX_ATTR_INT, "-1"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, "int8"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_dequantize[] = {
    {"axis", TVM_RELAX_ATTR_INT, "-1"},
    {"out_dtype", TVM_RELAX_ATTR_DTYPE, "float32"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_leakyrelu[] = {{"alpha", TVM_RELAX_ATTR_FLOAT, "0.01"},
                                                           {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_softplus[] = {
    {"beta", TVM_RELAX_ATTR_FLOAT, "1.0"}, {"threshold", TVM_RELAX_ATTR_FLOAT, "20.0"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_prelu[] = {{"axis", TVM_RELAX_ATTR_INT, "1"},
                                                       {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_group_norm[] = {
    {"num_groups", TVM_RELAX_ATTR_INT, NULL},
    {"channel_axis", TVM_RELAX_ATTR_INT, NULL},
    {"axes", TVM_RELAX_ATTR_INTS, NULL},
    {"epsilon", TVM_RELAX_ATTR_FLOAT, "1e-05"},
    {"center", TVM_RELAX_ATTR_BOOL, "true"},
    {"scale", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};
/* instance_norm: channel_axis and axes are required, as upstream's wrapper has them. */
const tvm_relax_attr_field tvm_relax__attrs_instance_norm[] = {
    {"channel_axis", TVM_RELAX_ATTR_INT, NULL},
    {"axes", TVM_RELAX_ATTR_INTS, NULL},
    {"epsilon", TVM_RELAX_ATTR_FLOAT, "1e-05"},
    {"center", TVM_RELAX_ATTR_BOOL, "true"},
    {"scale", TVM_RELAX_ATTR_BOOL, "true"},
    {NULL, 0, NULL}};
const tvm_relax_attr_field tvm_relax__attrs_nll_loss[] = {
    {"reduction", TVM_RELAX_ATTR_STR, "mean"},
    {"ignore_index", TVM_RELAX_ATTR_INT, "-100"},
    {NULL, 0, NULL}};

/* ---- Helpers --------------------------------------------------------------------------------- */
/* Whether dtype t (known) is one of the names of the NULL-terminated list. */
static bool dtype_in(DLDataType t, const char* const* names) {
  const char* s = tvm_tir_dtype_str(t).s;
  for (; *names; ++names) {
    if (strcmp(s, *names) == 0) return true;
  }
  return false;
}

static void join(tvm_ffi_strbuf* b, const char* const* names) {
  for (int i = 0; names[i]; ++i) tvm_ffi_strbuf_printf(b, "%s%s", i ? ", " : "", names[i]);
}

/* Argument i's dtype (when known) must be in names; TypeError otherwise. */
static bool check_dtype(const tvm_relax__infer_ctx* ctx, int32_t i,
                        const tvm_relax_tensor_sinfo_obj* t, const char* const* names) {
  if (tvm_relax_dtype_is_unknown(t->dtype) || dtype_in(t->dtype, names)) return true;
  tvm_ffi_strbuf b = {0};
  join(&b, names);
  tvm_relax__arg_error(ctx, i, "TypeError", "must have dtype %s, got %s", tvm_ffi_strbuf_cstr(&b),
                       tvm_tir_dtype_str(t->dtype).s);
  tvm_ffi_strbuf_free(&b);
  return false;
}

static bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }

static bool check_float(const tvm_relax__infer_ctx* ctx, int32_t i,
                        const tvm_relax_tensor_sinfo_obj* t) {
  if (tvm_relax_dtype_is_unknown(t->dtype) || is_float(t->dtype)) return true;
  tvm_relax__arg_error(ctx, i, "TypeError", "must be a float tensor, got dtype %s",
                       tvm_tir_dtype_str(t->dtype).s);
  return false;
}

/* Whether every known dim of t is the constant 1 (a scalar, or a tensor of one element). */
static bool is_singleton(const tvm_relax_tensor_sinfo_obj* t) {
  void* d = tvm_relax_tensor_sinfo_dims(&t->base);
  if (t->ndim == 0) return true;
  if (!d) return false;
  for (int64_t i = 0; i < tvm_ffi_seq_size(d); ++i) {
    int64_t v;
    if (!tvm_tir_as_const_int(tvm_ffi_seq_obj_at(d, i), &v) || v != 1) return false;
  }
  return true;
}

/* A per-channel parameter (arg i): a scalar / one-element tensor, or 1-d of `want` elements
 * (data's dim at the axis; NULL when unknown). `singleton_ok` admits the one-element forms. */
static bool check_channel_param(const tvm_relax__infer_ctx* ctx, int32_t i,
                                const tvm_relax_tensor_sinfo_obj* p, tvm_tir_expr_obj* want,
                                const char* what, bool singleton_ok) {
  if (singleton_ok && is_singleton(p)) return true;
  if (p->ndim != TVM_RELAX_UNKNOWN_NDIM && p->ndim != 1) {
    tvm_relax__arg_error(ctx, i, "ValueError", "must be %s1-d (one value per %s), got ndim %d",
                         singleton_ok ? "a scalar or " : "", what, p->ndim);
    return false;
  }
  void* d = tvm_relax_tensor_sinfo_dims(&p->base);
  if (!d || !want) return true;
  tvm_tir_expr_obj* got = tvm_ffi_seq_obj_at(d, 0);
  if (tvm_relax__dim_unequal(got, want)) {
    tvm_ffi_strbuf a = {0}, b = {0};
    tvm_relax__arg_error(ctx, i, "ValueError", "has %s values but 'data' has %s at the %s",
                         tvm_relax__dim_text(&a, got), tvm_relax__dim_text(&b, want), what);
    tvm_ffi_strbuf_free(&a);
    tvm_ffi_strbuf_free(&b);
    return false;
  }
  return true;
}

/* data's dim at axis (borrowed), or NULL when its shape is unknown. */
static tvm_tir_expr_obj* dim_at(const tvm_relax_tensor_sinfo_obj* t, int64_t axis) {
  void* d = tvm_relax_tensor_sinfo_dims(&t->base);
  return d ? tvm_ffi_seq_obj_at(d, axis) : NULL;
}

/* data's struct info with dtype replaced. */
static tvm_relax_sinfo_obj* with_dtype(const tvm_relax_tensor_sinfo_obj* x, DLDataType dtype) {
  if (tvm_ffi_dtype_equal(x->dtype, dtype)) return retained_sinfo(&x->base);
  return tvm_relax_tensor_sinfo_new(x->shape, dtype, x->ndim, x->vdevice);
}

/* A scalar tensor (shape ()) of dtype on vdevice. */
static tvm_relax_sinfo_obj* scalar_of(DLDataType dtype, void* vdevice) {
  void* empty = tvm_relax__empty_array();
  tvm_relax_sinfo_obj* out = empty ? tvm_relax__tensor_result(empty, dtype, 0, vdevice) : NULL;
  tvm_ffi_release(empty);
  return out;
}

/* ---- quantize / dequantize ------------------------------------------------------------------- */
static const char* const k_qtypes[] = {"int8",          "uint8",       "int16", "uint16",
                                       "float8_e4m3fn", "float8_e5m2", NULL};
static const char* const k_ftypes[] = {"float16", "float32", NULL};
static const char* const k_zptypes[] = {"int8", "float16", NULL};
static const char* const k_dq_in[] = {"int8",          "uint8",       "int16",   "uint16",  "int32",
                                      "float8_e4m3fn", "float8_e5m2", "float16", "float32", NULL};

static tvm_relax_sinfo_obj* qdq(const tvm_relax__infer_ctx* ctx, bool quant) {
  DLDataType out = tvm_relax__attr_dtype(ctx, "out_dtype");
  const char* const* outs = quant ? k_qtypes : k_ftypes;
  if (tvm_relax_dtype_is_unknown(out) || !dtype_in(out, outs)) {
    tvm_ffi_strbuf b = {0};
    join(&b, outs);
    tvm_relax__op_error(ctx, "ValueError", "attribute 'out_dtype' must be one of %s, got %s",
                        tvm_ffi_strbuf_cstr(&b),
                        tvm_relax_dtype_is_unknown(out) ? "none" : tvm_tir_dtype_str(out).s);
    tvm_ffi_strbuf_free(&b);
    return NULL;
  }
  tvm_relax_tensor_sinfo_obj* t[3];
  for (int32_t i = 0; i < 3; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) return NULL;
  }
  if (!check_dtype(ctx, 0, t[0], quant ? k_ftypes : k_dq_in) ||
      !check_dtype(ctx, 1, t[1], k_ftypes) || !check_dtype(ctx, 2, t[2], k_zptypes)) {
    return NULL;
  }
  if (t[0]->ndim == TVM_RELAX_UNKNOWN_NDIM) return with_dtype(t[0], out);
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), t[0]->ndim, &axis) != 0) {
    return NULL;
  }
  tvm_tir_expr_obj* want = dim_at(t[0], axis);
  if (!check_channel_param(ctx, 1, t[1], want, "axis", true) ||
      !check_channel_param(ctx, 2, t[2], want, "axis", true)) {
    return NULL;
  }
  return with_dtype(t[0], out);
}

tvm_relax_sinfo_obj* tvm_relax__infer_quantize(const tvm_relax__infer_ctx* ctx) {
  return qdq(ctx, true);
}

tvm_relax_sinfo_obj* tvm_relax__infer_dequantize(const tvm_relax__infer_ctx* ctx) {
  return qdq(ctx, false);
}

/* ---- prelu ----------------------------------------------------------------------------------- */
/* data float; alpha 1-d with data's dim at axis. The result is data's struct info. */
tvm_relax_sinfo_obj* tvm_relax__infer_prelu(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* a = x ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!a || !check_float(ctx, 0, x)) return NULL;
  if (!tvm_relax_dtype_is_unknown(a->dtype) && !tvm_relax_dtype_is_unknown(x->dtype) &&
      !tvm_ffi_dtype_equal(a->dtype, x->dtype)) {
    return tvm_relax__arg_error(ctx, 1, "TypeError", "must have the dtype of 'data' (%s), got %s",
                                tvm_tir_dtype_str(x->dtype).s, tvm_tir_dtype_str(a->dtype).s);
  }
  if (x->ndim == TVM_RELAX_UNKNOWN_NDIM) return retained_sinfo(&x->base);
  int64_t axis;
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "axis"), x->ndim, &axis) != 0) {
    return NULL;
  }
  /* One slope per channel, or one for all (PyTorch's num_parameters=1: upstream's parser test
   * passes alpha of shape (1,)). */
  if (!check_channel_param(ctx, 1, a, dim_at(x, axis), "axis", true)) return NULL;
  return retained_sinfo(&x->base);
}

/* ---- group_norm, instance_norm --------------------------------------------------------------- */
/* gamma and beta (arguments 1, 2) must have data's dtype, when both are known. */
static bool check_affine_dtypes(const tvm_relax__infer_ctx* ctx,
                                tvm_relax_tensor_sinfo_obj* const* t) {
  for (int32_t i = 1; i < 3; ++i) {
    if (!tvm_relax_dtype_is_unknown(t[i]->dtype) && !tvm_relax_dtype_is_unknown(t[0]->dtype) &&
        !tvm_ffi_dtype_equal(t[i]->dtype, t[0]->dtype)) {
      tvm_relax__arg_error(ctx, i, "TypeError", "must have the dtype of 'data' (%s), got %s",
                           tvm_tir_dtype_str(t[0]->dtype).s, tvm_tir_dtype_str(t[i]->dtype).s);
      return false;
    }
  }
  return true;
}

/* The channel_axis and axes attributes against data's rank n (known): both in range, axes
 * distinct and without the channel axis (normalised into *ch). */
static bool check_norm_axes(const tvm_relax__infer_ctx* ctx, int32_t n, int64_t* ch) {
  if (tvm_relax__normalize_axis(ctx, tvm_relax__attr_int(ctx, "channel_axis"), n, ch) != 0) {
    return false;
  }
  void* axes = tvm_relax__attr_ints(ctx, "axes");
  int64_t na = tvm_ffi_seq_size(axes);
  bool seen[64] = {false};
  if (n > 64) {
    tvm_relax__op_error(ctx, "ValueError", "at most 64 dims are supported");
    return false;
  }
  for (int64_t k = 0; k < na; ++k) {
    int64_t a, v = 0;
    tvm_ffi_any_as_int(tvm_ffi_seq_at(axes, k), &v);
    if (tvm_relax__normalize_axis(ctx, v, n, &a) != 0) return false;
    if (a == *ch) {
      tvm_relax__op_error(ctx, "ValueError",
                          "attribute 'axes' must not contain the channel axis %lld",
                          (long long)*ch);
      return false;
    }
    if (seen[a]) {
      tvm_relax__op_error(ctx, "ValueError", "axis %lld appears more than once", (long long)a);
      return false;
    }
    seen[a] = true;
  }
  return true;
}

/* data float; gamma and beta 1-d of data's channels (and its dtype); channels divisible by
 * num_groups; axes distinct, in range, not the channel axis. The result is data's struct info. */
tvm_relax_sinfo_obj* tvm_relax__infer_group_norm(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* t[3];
  for (int32_t i = 0; i < 3; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) return NULL;
  }
  if (!check_float(ctx, 0, t[0]) || !check_affine_dtypes(ctx, t)) return NULL;
  int64_t groups = tvm_relax__attr_int(ctx, "num_groups");
  if (groups < 1) {
    return tvm_relax__op_error(
        ctx, "ValueError", "attribute 'num_groups' must be positive, got %lld", (long long)groups);
  }
  if (t[0]->ndim == TVM_RELAX_UNKNOWN_NDIM) return retained_sinfo(&t[0]->base);
  int64_t ch;
  if (!check_norm_axes(ctx, t[0]->ndim, &ch)) return NULL;
  tvm_tir_expr_obj* c = dim_at(t[0], ch);
  int64_t cv;
  if (c && tvm_tir_as_const_int(c, &cv) && cv % groups != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "the %lld channels of 'data' are not divisible by num_groups %lld",
                               (long long)cv, (long long)groups);
  }
  for (int32_t i = 1; i < 3; ++i) {
    if (!check_channel_param(ctx, i, t[i], c, "channel axis", false)) return NULL;
  }
  return retained_sinfo(&t[0]->base);
}

/* instance_norm (upstream nn.cc, InstanceNormAttrs): group_norm's rule with a group per channel
 * and without its float check (upstream's has none; the kernel takes floats only): gamma and
 * beta of data's dtype, 1-d of data's channels; axes distinct, in range, not the channel axis.
 * The result is data's struct info. */
tvm_relax_sinfo_obj* tvm_relax__infer_instance_norm(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* t[3];
  for (int32_t i = 0; i < 3; ++i) {
    if (!(t[i] = tvm_relax__arg_tensor(ctx, i))) return NULL;
  }
  int64_t ch = -1;
  if (t[0]->ndim != TVM_RELAX_UNKNOWN_NDIM && !check_norm_axes(ctx, t[0]->ndim, &ch)) return NULL;
  if (!check_affine_dtypes(ctx, t)) return NULL;
  tvm_tir_expr_obj* c = ch >= 0 ? dim_at(t[0], ch) : NULL;
  for (int32_t i = 1; i < 3; ++i) {
    if (!check_channel_param(ctx, i, t[i], c, "channel axis", false)) return NULL;
  }
  return retained_sinfo(&t[0]->base);
}

/* ---- nll_loss -------------------------------------------------------------------------------- */
/*
 * predictions (N, C, d1..dk) or (C,); targets (N, d1..dk) or () of an integer dtype; weights (C,)
 * of predictions' dtype. reduction "none": a tensor of targets' shape, else a scalar; both of
 * predictions' dtype.
 */
tvm_relax_sinfo_obj* tvm_relax__infer_nll_loss(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* p = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* t = p ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!t) return NULL;
  tvm_relax_tensor_sinfo_obj* w = ctx->num_args > 2 ? tvm_relax__arg_tensor(ctx, 2) : NULL;
  if (ctx->num_args > 2 && !w) return NULL;
  const char* red = tvm_relax__attr_str(ctx, "reduction");
  if (strcmp(red, "none") != 0 && strcmp(red, "mean") != 0 && strcmp(red, "sum") != 0) {
    return tvm_relax__op_error(ctx, "ValueError",
                               "attribute 'reduction' must be \"none\", \"mean\" or \"sum\", got "
                               "\"%s\"",
                               red);
  }
  if (!check_float(ctx, 0, p)) return NULL;
  if (!tvm_relax_dtype_is_unknown(t->dtype) && t->dtype.code != kDLInt &&
      t->dtype.code != kDLUInt) {
    return tvm_relax__arg_error(ctx, 1, "TypeError", "must be an integer tensor, got dtype %s",
                                tvm_tir_dtype_str(t->dtype).s);
  }
  if (w && !tvm_relax_dtype_is_unknown(w->dtype) && !tvm_relax_dtype_is_unknown(p->dtype) &&
      !tvm_ffi_dtype_equal(w->dtype, p->dtype)) {
    return tvm_relax__arg_error(ctx, 2, "TypeError",
                                "must have the dtype of 'predictions' (%s), got %s",
                                tvm_tir_dtype_str(p->dtype).s, tvm_tir_dtype_str(w->dtype).s);
  }
  if (p->ndim == 0) return tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim >= 1, got 0");
  if (w && w->ndim != TVM_RELAX_UNKNOWN_NDIM && w->ndim != 1) {
    return tvm_relax__arg_error(ctx, 2, "ValueError",
                                "must be 1-d (one weight per class), got ndim %d", w->ndim);
  }
  if (p->ndim != TVM_RELAX_UNKNOWN_NDIM && t->ndim != TVM_RELAX_UNKNOWN_NDIM) {
    int32_t want = p->ndim == 1 ? 0 : p->ndim - 1;
    if (t->ndim != want) {
      return tvm_relax__arg_error(ctx, 1, "ValueError",
                                  "must have ndim %d for 'predictions' of ndim %d, got %d", want,
                                  p->ndim, t->ndim);
    }
    void* pd = tvm_relax_tensor_sinfo_dims(&p->base);
    void* td = tvm_relax_tensor_sinfo_dims(&t->base);
    tvm_ffi_strbuf a = {0}, b = {0};
    for (int32_t i = 0; pd && td && i < t->ndim; ++i) {
      /* targets' dims are predictions' without the class dim (1). */
      tvm_tir_expr_obj* pdim = tvm_ffi_seq_obj_at(pd, i == 0 ? 0 : i + 1);
      tvm_tir_expr_obj* tdim = tvm_ffi_seq_obj_at(td, i);
      if (tvm_relax__dim_unequal(pdim, tdim)) {
        tvm_relax__arg_error(ctx, 1, "ValueError", "dim %d is %s but 'predictions' has %s there", i,
                             tvm_relax__dim_text(&a, tdim), tvm_relax__dim_text(&b, pdim));
        tvm_ffi_strbuf_free(&a);
        tvm_ffi_strbuf_free(&b);
        return NULL;
      }
    }
    void* wd = w ? tvm_relax_tensor_sinfo_dims(&w->base) : NULL;
    if (pd && wd) {
      tvm_tir_expr_obj* c = tvm_ffi_seq_obj_at(pd, p->ndim == 1 ? 0 : 1);
      tvm_tir_expr_obj* wc = tvm_ffi_seq_obj_at(wd, 0);
      if (tvm_relax__dim_unequal(c, wc)) {
        tvm_relax__arg_error(ctx, 2, "ValueError",
                             "has %s weights but 'predictions' has %s classes",
                             tvm_relax__dim_text(&a, wc), tvm_relax__dim_text(&b, c));
        tvm_ffi_strbuf_free(&a);
        tvm_ffi_strbuf_free(&b);
        return NULL;
      }
    }
  }
  if (strcmp(red, "none") == 0) return with_dtype(t, p->dtype);
  return scalar_of(p->dtype, p->vdevice);
}

/* ---- cross_entropy_with_logits --------------------------------------------------------------- */
/* predictions and labels of one shape and dtype; a scalar of that dtype. */
tvm_relax_sinfo_obj* tvm_relax__infer_cross_entropy(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* p = tvm_relax__arg_tensor(ctx, 0);
  tvm_relax_tensor_sinfo_obj* l = p ? tvm_relax__arg_tensor(ctx, 1) : NULL;
  if (!l || !check_float(ctx, 0, p)) return NULL;
  if (!tvm_relax_dtype_is_unknown(l->dtype) && !tvm_relax_dtype_is_unknown(p->dtype) &&
      !tvm_ffi_dtype_equal(l->dtype, p->dtype)) {
    return tvm_relax__arg_error(ctx, 1, "TypeError",
                                "must have the dtype of 'predictions' (%s), got %s",
                                tvm_tir_dtype_str(p->dtype).s, tvm_tir_dtype_str(l->dtype).s);
  }
  if (p->ndim != TVM_RELAX_UNKNOWN_NDIM && l->ndim != TVM_RELAX_UNKNOWN_NDIM &&
      p->ndim != l->ndim) {
    return tvm_relax__arg_error(
        ctx, 1, "ValueError", "must have the ndim of 'predictions' (%d), got %d", p->ndim, l->ndim);
  }
  void* pd = tvm_relax_tensor_sinfo_dims(&p->base);
  void* ld = tvm_relax_tensor_sinfo_dims(&l->base);
  for (int64_t i = 0; pd && ld && i < tvm_ffi_seq_size(pd); ++i) {
    tvm_tir_expr_obj *a = tvm_ffi_seq_obj_at(pd, i), *b = tvm_ffi_seq_obj_at(ld, i);
    if (tvm_relax__dim_unequal(a, b)) {
      tvm_ffi_strbuf x = {0}, y = {0};
      tvm_relax__arg_error(ctx, 1, "ValueError", "dim %lld is %s but 'predictions' has %s",
                           (long long)i, tvm_relax__dim_text(&x, b), tvm_relax__dim_text(&y, a));
      tvm_ffi_strbuf_free(&x);
      tvm_ffi_strbuf_free(&y);
      return NULL;
    }
  }
  return scalar_of(p->dtype, p->vdevice);
}
