/*
 * op_create.c: inference rules and attribute schemas of the creation operators: zeros, ones and
 * full (of a shape), zeros_like, ones_like and full_like (of a tensor), arange, tril and triu,
 * eye and eye_like.
 * A shape argument is any expression of struct info R.Shape; the result's shape is that
 * expression itself when it is a ShapeExpr or a Var (so a symbolic shape variable is kept), as
 * upstream does.
 */
#include <math.h>
#include <tvm/tir/builder.h>

#include "internal.h"

/* zeros, ones: the dtype is required (upstream's ones/zeros refuse a void dtype). */
const tvm_relax_attr_field tvm_relax__attrs_dtype_only[] = {{"dtype", TVM_RELAX_ATTR_DTYPE, NULL},
                                                            {NULL, 0, NULL}};
/* eye: upstream's Python wrapper defaults the dtype to float32. */
const tvm_relax_attr_field tvm_relax__attrs_eye[] = {{"dtype", TVM_RELAX_ATTR_DTYPE, "float32"},
                                                     {NULL, 0, NULL}};
/* full, *_like, arange: "" (unspecified) takes the dtype of the fill value / input / values. */
const tvm_relax_attr_field tvm_relax__attrs_dtype_opt[] = {{"dtype", TVM_RELAX_ATTR_DTYPE, ""},
                                                           {NULL, 0, NULL}};

/* The fill value (argument i): a scalar tensor (ndim 0) or an R.Prim; its dtype and vdevice. */
static bool fill_value(const tvm_relax__infer_ctx* ctx, int32_t i, DLDataType* dtype,
                       void** vdevice) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  *vdevice = NULL;
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_PrimStructInfo) {
    *dtype = ((tvm_relax_prim_sinfo_obj*)s)->dtype;
    return true;
  }
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo &&
      ((tvm_relax_tensor_sinfo_obj*)s)->ndim == 0) {
    *dtype = ((tvm_relax_tensor_sinfo_obj*)s)->dtype;
    *vdevice = ((tvm_relax_tensor_sinfo_obj*)s)->vdevice;
    return true;
  }
  tvm_relax__arg_kind_error(ctx, i, "a scalar (a tensor of ndim 0 or an R.Prim)");
  return false;
}

/* x's struct info with the dtype replaced by `dtype` unless that is unknown. */
static tvm_relax_sinfo_obj* with_dtype(const tvm_relax_tensor_sinfo_obj* x, DLDataType dtype) {
  if (tvm_relax_dtype_is_unknown(dtype) || tvm_ffi_dtype_equal(dtype, x->dtype)) {
    return retained_sinfo(&x->base);
  }
  return tvm_relax_tensor_sinfo_new(x->shape, dtype, x->shape ? TVM_RELAX_UNKNOWN_NDIM : x->ndim,
                                    x->vdevice);
}

tvm_relax_sinfo_obj* tvm_relax__infer_fill_shape(const tvm_relax__infer_ctx* ctx) {
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  if (tvm_relax_dtype_is_unknown(t)) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'dtype' must be a data type");
  }
  return tvm_relax__tensor_of_shape_arg(ctx, 0, t, NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_full(const tvm_relax__infer_ctx* ctx) {
  DLDataType fill;
  void* vdevice;
  if (!fill_value(ctx, 1, &fill, &vdevice)) return NULL;
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  return tvm_relax__tensor_of_shape_arg(ctx, 0, tvm_relax_dtype_is_unknown(t) ? fill : t, vdevice);
}

tvm_relax_sinfo_obj* tvm_relax__infer_fill_like(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  return x ? with_dtype(x, tvm_relax__attr_dtype(ctx, "dtype")) : NULL;
}

tvm_relax_sinfo_obj* tvm_relax__infer_full_like(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  DLDataType fill;
  void* vdevice;
  if (!x || !fill_value(ctx, 1, &fill, &vdevice)) return NULL;
  return with_dtype(x, tvm_relax__attr_dtype(ctx, "dtype"));
}

/* ---- arange ---------------------------------------------------------------------------------- */
/* Argument i's scalar: its dtype, and its value (borrowed, NULL when unknown). */
static bool prim_arg(const tvm_relax__infer_ctx* ctx, int32_t i, DLDataType* dtype,
                     tvm_tir_expr_obj** value) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo) {
    tvm_relax__arg_kind_error(ctx, i, "a scalar value (R.Prim)");
    return false;
  }
  *dtype = ((tvm_relax_prim_sinfo_obj*)s)->dtype;
  *value = ((tvm_relax_prim_sinfo_obj*)s)->value;
  return true;
}

/* Argument i's scalar, of an integer dtype (or unknown): its value (borrowed, NULL when
 * unknown). */
static bool int_arg(const tvm_relax__infer_ctx* ctx, int32_t i, tvm_tir_expr_obj** value) {
  DLDataType t;
  if (!prim_arg(ctx, i, &t, value)) return false;
  if (!tvm_relax_dtype_is_unknown(t) && !tvm_tir_dtype_is_integer(t)) {
    tvm_relax__arg_error(ctx, i, "TypeError", "must be an integer scalar, got dtype %s",
                         tvm_tir_dtype_str(t).s);
    return false;
  }
  return true;
}

static tvm_tir_expr_obj* retained_expr(tvm_tir_expr_obj* e) {
  tvm_ffi_retain(e);
  return e;
}

static bool is_float_dtype(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }

/* The number of elements of an integer arange, ceil((end - start) / step) (at least 0 when it is
 * a constant), as *out (new reference): 0, or -1 + error. */
static int arange_int_length(const tvm_relax__infer_ctx* ctx, tvm_tir_expr_obj* start,
                             tvm_tir_expr_obj* end, tvm_tir_expr_obj* step,
                             tvm_tir_expr_obj** out) {
  *out = NULL;
  int64_t st;
  bool step_const = tvm_tir_as_const_int(step, &st);
  if (step_const && st == 0) {
    tvm_relax__arg_error(ctx, 2, "ValueError", "must not be zero");
    return -1;
  }
  tvm_tir_expr_obj *s = tvm_tir_cast(tvm_tir_dtype_int(64), start),
                   *e = tvm_tir_cast(tvm_tir_dtype_int(64), end),
                   *d = tvm_tir_cast(tvm_tir_dtype_int(64), step);
  tvm_tir_expr_obj *span = NULL, *num = NULL, *len = NULL;
  if (s && e && d) {
    /* step < 0 counts from end up to start by -step; an unknown step is taken as positive, as
     * upstream does (floordiv(end - start + step - 1, step)). */
    bool neg = step_const && st < 0;
    tvm_tir_expr_obj* mag = neg ? tvm_tir_neg(d) : (tvm_ffi_retain(d), d);
    span = mag ? (neg ? tvm_tir_sub(s, e) : tvm_tir_sub(e, s)) : NULL;
    tvm_tir_expr_obj* one = tvm_relax__int64(1);
    tvm_tir_expr_obj* m1 = mag && one ? tvm_tir_sub(mag, one) : NULL;
    num = span && m1 ? tvm_tir_add(span, m1) : NULL;
    len = num ? tvm_tir_floordiv(num, mag) : NULL;
    tvm_ffi_release(one);
    tvm_ffi_release(m1);
    tvm_ffi_release(mag);
  }
  tvm_ffi_release(s);
  tvm_ffi_release(e);
  tvm_ffi_release(d);
  tvm_ffi_release(span);
  tvm_ffi_release(num);
  if (!len) return -1;
  int64_t c;
  if (tvm_tir_as_const_int(len, &c)) {
    tvm_ffi_release(len);
    *out = tvm_relax__int64(c < 0 ? 0 : c);
    return *out ? 0 : -1;
  }
  *out = tvm_tir_simplify_expr(len, NULL);
  tvm_ffi_release(len);
  return *out ? 0 : -1;
}

tvm_relax_sinfo_obj* tvm_relax__infer_arange(const tvm_relax__infer_ctx* ctx) {
  DLDataType types[3];
  tvm_tir_expr_obj* values[3];
  bool all_int = true, all_known = true;
  DLDataType float_type = tvm_tir_dtype_float(32);
  bool have_float = false;
  for (int32_t i = 0; i < 3; ++i) {
    if (!prim_arg(ctx, i, &types[i], &values[i])) return NULL;
    if (!tvm_relax_dtype_is_unknown(types[i]) && !tvm_tir_dtype_is_integer(types[i])) {
      if (!is_float_dtype(types[i])) {
        return tvm_relax__arg_error(ctx, i, "TypeError",
                                    "must be an integer or float scalar, got dtype %s",
                                    tvm_tir_dtype_str(types[i]).s);
      }
      if (!have_float) float_type = types[i];
      have_float = true;
    }
    all_int = all_int && tvm_tir_dtype_is_integer(types[i]);
    all_known = all_known && values[i];
  }
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  /* Unspecified: int64 for integer bounds, else the first float bound's dtype. */
  if (tvm_relax_dtype_is_unknown(t)) t = all_int ? tvm_tir_dtype_int(64) : float_type;
  tvm_tir_expr_obj* len = NULL;
  if (all_known && all_int) {
    if (arange_int_length(ctx, values[0], values[1], values[2], &len) != 0) return NULL;
  } else if (all_known) {
    double v[3];
    bool consts = true;
    for (int i = 0; i < 3; ++i) {
      int64_t iv;
      if (tvm_tir_as_const_int(values[i], &iv)) {
        v[i] = (double)iv;
      } else if (!tvm_tir_as_const_float(values[i], &v[i])) {
        consts = false;
      }
    }
    if (consts) {
      if (v[2] == 0) return tvm_relax__arg_error(ctx, 2, "ValueError", "must not be zero");
      double n = ceil((v[1] - v[0]) / v[2]);
      if (!(n <= 9.0e18)) {
        return tvm_relax__op_error(ctx, "ValueError", "the number of elements is not finite");
      }
      len = tvm_relax__int64(n < 0 ? 0 : (int64_t)n);
      if (!len) return NULL;
    }
  }
  if (!len) return tvm_relax_tensor_sinfo_new(NULL, t, 1, NULL);
  void* dims = tvm_ffi_array_of_objects((void**)&len, 1);
  tvm_ffi_release(len);
  if (!dims) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax__tensor_result(dims, t, 1, NULL);
  tvm_ffi_release(dims);
  return out;
}

/* ---- hamming_window -------------------------------------------------------------------------- */
/* hamming_window (upstream create.cc): a 1-d window of window_size values (an integer R.Prim)
 * of attribute dtype, a float dtype; periodic, alpha and beta are scalars (R.Prim) the kernel
 * reads. A constant window_size must be positive. */
tvm_relax_sinfo_obj* tvm_relax__infer_hamming_window(const tvm_relax__infer_ctx* ctx) {
  tvm_tir_expr_obj* n;
  if (!int_arg(ctx, 0, &n)) return NULL;
  for (int32_t i = 1; i < 4; ++i) {
    DLDataType t;
    tvm_tir_expr_obj* v;
    if (!prim_arg(ctx, i, &t, &v)) return NULL;
  }
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  if (!is_float_dtype(t)) {
    return tvm_relax__op_error(ctx, "TypeError", "attribute 'dtype' must be a float dtype, got %s",
                               tvm_tir_dtype_str(t).s);
  }
  int64_t c;
  if (n && tvm_tir_as_const_int(n, &c) && c < 1) {
    return tvm_relax__arg_error(ctx, 0, "ValueError", "must be positive, got %lld", (long long)c);
  }
  if (!n) return tvm_relax_tensor_sinfo_new(NULL, t, 1, NULL);
  tvm_tir_expr_obj* len = tvm_tir_expr_dtype(n).bits == 64 ? retained_expr(n)
                                                            : tvm_tir_cast(TVM_TIR_INT64, n);
  void* dims = len ? tvm_ffi_array_of_objects((void**)&len, 1) : NULL;
  tvm_ffi_release(len);
  if (!dims) return NULL;
  tvm_relax_sinfo_obj* out = tvm_relax__tensor_result(dims, t, 1, NULL);
  tvm_ffi_release(dims);
  return out;
}

/* ---- tril / triu ----------------------------------------------------------------------------- */
tvm_relax_sinfo_obj* tvm_relax__infer_tri(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM && x->ndim < 2) {
    return tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim >= 2, got %d", x->ndim);
  }
  tvm_tir_expr_obj* k;
  return int_arg(ctx, 1, &k) ? retained_sinfo(&x->base) : NULL;
}

/* ---- eye / eye_like -------------------------------------------------------------------------- */
/* eye (upstream create.cc): n rows, m columns, ones on diagonal k (R.Prim arguments, as
 * upstream's wrapper makes them); the result (n, m) of attribute dtype, no vdevice. Unknown n or
 * m values leave the shape unknown (ndim 2); a negative constant is refused (upstream lets it
 * through to a shape that cannot exist). */
tvm_relax_sinfo_obj* tvm_relax__infer_eye(const tvm_relax__infer_ctx* ctx) {
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  if (tvm_relax_dtype_is_unknown(t)) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'dtype' must be a data type");
  }
  tvm_tir_expr_obj* v[3];
  for (int32_t i = 0; i < 3; ++i) {
    if (!int_arg(ctx, i, &v[i])) return NULL;
    int64_t c;
    if (i < 2 && v[i] && tvm_tir_as_const_int(v[i], &c) && c < 0) {
      return tvm_relax__arg_error(ctx, i, "ValueError", "must be non-negative, got %lld",
                                  (long long)c);
    }
  }
  if (!v[0] || !v[1]) return tvm_relax_tensor_sinfo_new(NULL, t, 2, NULL);
  /* Shape dims are int64: an int32 value (R.prim_value(T.int32(3))) is cast. */
  void* items[2];
  for (int i = 0; i < 2; ++i) {
    int64_t c;
    if (tvm_tir_as_const_int(v[i], &c)) {
      items[i] = tvm_relax__int64(c);
    } else if (tvm_tir_expr_dtype(v[i]).bits == 64) {
      items[i] = retained_expr(v[i]);
    } else {
      items[i] = tvm_tir_cast_take(tvm_tir_dtype_int(64), retained_expr(v[i]));
    }
  }
  void* dims = items[0] && items[1] ? tvm_ffi_array_of_objects(items, 2) : NULL;
  tvm_ffi_release(items[0]);
  tvm_ffi_release(items[1]);
  tvm_relax_sinfo_obj* out = dims ? tvm_relax__tensor_result(dims, t, 2, NULL) : NULL;
  tvm_ffi_release(dims);
  return out;
}

/* eye_like (upstream create.cc): x of ndim 2 (or unknown) gives x's struct info, its dtype
 * replaced by attribute dtype when given; k as eye's. */
tvm_relax_sinfo_obj* tvm_relax__infer_eye_like(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (x->ndim != TVM_RELAX_UNKNOWN_NDIM && x->ndim != 2) {
    return tvm_relax__arg_error(ctx, 0, "ValueError", "must have ndim 2, got %d", x->ndim);
  }
  tvm_tir_expr_obj* k;
  if (!int_arg(ctx, 1, &k)) return NULL;
  return with_dtype(x, tvm_relax__attr_dtype(ctx, "dtype"));
}
