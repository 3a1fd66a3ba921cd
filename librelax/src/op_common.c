/*
 * op_common.c: what operator inference rules share: located errors naming the operator and the
 * argument, argument and attribute access, axis normalisation, dtype promotion and numpy-style
 * broadcasting of symbolic shapes.
 */
#include <stdarg.h>
#include <string.h>

#include "internal.h"

void* tvm_relax__op_error(const tvm_relax__infer_ctx* ctx, const char* kind, const char* fmt, ...) {
  tvm_ffi_strbuf b = {0};
  tvm_ffi_strbuf_printf(&b, "%s: ", ctx->op->name);
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&b, fmt, ap);
  va_end(ap);
  tvm_ffi_raise(kind, "%s", tvm_ffi_strbuf_cstr(&b));
  tvm_ffi_strbuf_free(&b);
  return NULL;
}

void tvm_relax__arg_name(const tvm_relax__infer_ctx* ctx, int32_t i, tvm_ffi_strbuf* out) {
  const char* s = ctx->op->arg_names;
  for (int32_t k = 0;; ++k) {
    while (*s == ' ' || *s == ',') ++s;
    const char* start = s;
    while (*s && *s != ',') ++s;
    const char* end = s;
    while (end > start && (end[-1] == ' ' || end[-1] == '?' || end[-1] == '.')) --end;
    bool variadic = s - start > 3 && memcmp(s - 3, "...", 3) == 0;
    if (k == i || variadic || !*s) {
      if (start == end) {
        tvm_ffi_strbuf_printf(out, "%d", i);
      } else if (variadic && k != i) {
        tvm_ffi_strbuf_printf(out, "%.*s[%d]", (int)(end - start), start, i - k);
      } else {
        tvm_ffi_strbuf_append(out, start, (size_t)(end - start));
      }
      return;
    }
  }
}

tvm_relax_expr_obj* tvm_relax__arg(const tvm_relax__infer_ctx* ctx, int32_t i) {
  return i < ctx->num_args ? tvm_ffi_seq_obj_at(ctx->args, i) : NULL;
}

tvm_relax_sinfo_obj* tvm_relax__arg_sinfo(const tvm_relax__infer_ctx* ctx, int32_t i) {
  if (ctx->local_sinfo && i < ctx->num_args) return ctx->local_sinfo[i];
  tvm_relax_expr_obj* a = tvm_relax__arg(ctx, i);
  return a ? tvm_relax_sinfo_of(a) : NULL;
}

tvm_relax_tensor_sinfo_obj* tvm_relax__arg_tensor(const tvm_relax__infer_ctx* ctx, int32_t i) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_TensorStructInfo) return (tvm_relax_tensor_sinfo_obj*)s;
  tvm_ffi_strbuf name = {0}, got = {0};
  tvm_relax__arg_name(ctx, i, &name);
  tvm_relax_sinfo_text(&got, s);
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_DTensorStructInfo) {
    /* (an operator with a distributed rule never gets here with a DTensor) */
    tvm_relax__op_error(ctx, "TypeError",
                        "argument '%s' is a DTensor (%s), and the operator has no distributed "
                        "inference rule (upstream's dist.FInferStructInfo)",
                        tvm_ffi_strbuf_cstr(&name), tvm_ffi_strbuf_cstr(&got));
  } else {
    tvm_relax__op_error(ctx, "TypeError", "argument '%s' must be a tensor, got %s",
                        tvm_ffi_strbuf_cstr(&name), tvm_ffi_strbuf_cstr(&got));
  }
  tvm_ffi_strbuf_free(&name);
  tvm_ffi_strbuf_free(&got);
  return NULL;
}

void* tvm_relax__arg_error(const tvm_relax__infer_ctx* ctx, int32_t i, const char* kind,
                           const char* fmt, ...) {
  tvm_ffi_strbuf name = {0}, msg = {0};
  tvm_relax__arg_name(ctx, i, &name);
  va_list ap;
  va_start(ap, fmt);
  tvm_ffi_strbuf_vprintf(&msg, fmt, ap);
  va_end(ap);
  tvm_relax__op_error(ctx, kind, "argument '%s' %s", tvm_ffi_strbuf_cstr(&name),
                      tvm_ffi_strbuf_cstr(&msg));
  tvm_ffi_strbuf_free(&name);
  tvm_ffi_strbuf_free(&msg);
  return NULL;
}

void* tvm_relax__arg_kind_error(const tvm_relax__infer_ctx* ctx, int32_t i, const char* need) {
  tvm_ffi_strbuf got = {0};
  tvm_relax_sinfo_text(&got, tvm_relax__arg_sinfo(ctx, i));
  tvm_relax__arg_error(ctx, i, "TypeError", "must be %s, got %s", need, tvm_ffi_strbuf_cstr(&got));
  tvm_ffi_strbuf_free(&got);
  return NULL;
}

tvm_relax_sinfo_obj* tvm_relax__tensor_of_shape_arg(const tvm_relax__infer_ctx* ctx, int32_t i,
                                                    DLDataType dtype, void* vdevice) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_ShapeStructInfo) {
    return tvm_relax__arg_kind_error(ctx, i, "a shape (R.Shape)");
  }
  tvm_relax_expr_obj* arg = tvm_relax__arg(ctx, i);
  if (tvm_relax_kind_of(arg) == TVM_RELAX_KIND_ShapeExpr || tvm_relax_is_var(arg)) {
    return tvm_relax_tensor_sinfo_new(arg, dtype, TVM_RELAX_UNKNOWN_NDIM, vdevice);
  }
  const tvm_relax_shape_sinfo_obj* ss = (const tvm_relax_shape_sinfo_obj*)s;
  return tvm_relax__tensor_result(ss->values, dtype, ss->ndim, vdevice);
}

const TVMFFIAny* tvm_relax__attr(const tvm_relax__infer_ctx* ctx, const char* name) {
  static const TVMFFIAny none = {kTVMFFINone, {0}, {0}};
  const TVMFFIAny* a = ctx->attrs ? tvm_ffi_map_get_str(ctx->attrs, name) : NULL;
  return a ? a : &none;
}

int64_t tvm_relax__attr_int(const tvm_relax__infer_ctx* ctx, const char* name) {
  int64_t v = 0;
  tvm_ffi_any_as_int(tvm_relax__attr(ctx, name), &v);
  return v;
}

bool tvm_relax__attr_bool(const tvm_relax__infer_ctx* ctx, const char* name) {
  bool v = false;
  tvm_ffi_any_as_bool(tvm_relax__attr(ctx, name), &v);
  return v;
}

double tvm_relax__attr_float(const tvm_relax__infer_ctx* ctx, const char* name) {
  double v = 0;
  tvm_ffi_any_as_float(tvm_relax__attr(ctx, name), &v);
  return v;
}

DLDataType tvm_relax__attr_dtype(const tvm_relax__infer_ctx* ctx, const char* name) {
  const TVMFFIAny* a = tvm_relax__attr(ctx, name);
  return a->type_index == kTVMFFIDataType ? a->v_dtype : TVM_RELAX_DTYPE_UNKNOWN;
}

const char* tvm_relax__attr_str(const tvm_relax__infer_ctx* ctx, const char* name) {
  const TVMFFIAny* a = tvm_relax__attr(ctx, name);
  /* A string of up to 7 bytes is held inline (kTVMFFISmallStr), NUL-terminated like a String
   * object's; the pointer lives as long as the attribute map. */
  TVMFFIByteArray b;
  if (a->type_index != kTVMFFIStr && a->type_index != kTVMFFISmallStr) return NULL;
  return tvm_ffi_any_as_bytes(a, &b) ? b.data : NULL;
}

void* tvm_relax__attr_ints(const tvm_relax__infer_ctx* ctx, const char* name) {
  const TVMFFIAny* a = tvm_relax__attr(ctx, name);
  return a->type_index == kTVMFFIArray ? a->v_obj : NULL;
}

bool tvm_relax__attr_is_none(const tvm_relax__infer_ctx* ctx, const char* name) {
  return tvm_ffi_any_is_none(tvm_relax__attr(ctx, name));
}

int tvm_relax__normalize_axis(const tvm_relax__infer_ctx* ctx, int64_t axis, int64_t ndim,
                              int64_t* out) {
  if (axis < -ndim || axis >= ndim) {
    tvm_relax__op_error(ctx, "ValueError", "axis %lld is out of range for a tensor of ndim %lld",
                        (long long)axis, (long long)ndim);
    return -1;
  }
  *out = axis < 0 ? axis + ndim : axis;
  return 0;
}

const char* tvm_relax__dim_text(tvm_ffi_strbuf* b, const tvm_tir_expr_obj* e) {
  int64_t v;
  if (tvm_tir_as_const_int(e, &v)) {
    tvm_ffi_strbuf_printf(b, "%lld", (long long)v);
  } else {
    tvm_tir_node_text(b, e);
  }
  return tvm_ffi_strbuf_cstr(b);
}

tvm_relax_sinfo_obj* tvm_relax__tensor_result(void* dims, DLDataType dtype, int32_t ndim,
                                              void* vdevice) {
  if (!dims) return tvm_relax_tensor_sinfo_new(NULL, dtype, ndim, vdevice);
  tvm_relax_expr_obj* shape = tvm_relax_shape_expr_new(dims);
  if (!shape) return NULL;
  tvm_relax_sinfo_obj* s = tvm_relax_tensor_sinfo_new(shape, dtype, TVM_RELAX_UNKNOWN_NDIM, vdevice);
  tvm_ffi_release(shape);
  return s;
}

tvm_relax_sinfo_obj* tvm_relax__one_or_tuple(void* const* fields, int n) {
  if (n == 1) {
    tvm_ffi_retain(fields[0]);
    return fields[0];
  }
  void* arr = tvm_ffi_array_of_objects((void**)fields, n);
  tvm_relax_sinfo_obj* out = arr ? tvm_relax_tuple_sinfo_new(arr) : NULL;
  tvm_ffi_release(arr);
  return out;
}

bool tvm_relax__same_dtype(const tvm_relax__infer_ctx* ctx, int32_t i,
                           const tvm_relax_tensor_sinfo_obj* a, int32_t j,
                           const tvm_relax_tensor_sinfo_obj* b) {
  if (tvm_relax_dtype_is_unknown(a->dtype) || tvm_relax_dtype_is_unknown(b->dtype) ||
      tvm_ffi_dtype_equal(a->dtype, b->dtype)) {
    return true;
  }
  tvm_ffi_strbuf name = {0};
  tvm_relax__arg_name(ctx, j, &name);
  tvm_relax__arg_error(ctx, i, "TypeError", "must have the dtype of '%s' (%s), got %s",
                       tvm_ffi_strbuf_cstr(&name), tvm_tir_dtype_str(b->dtype).s,
                       tvm_tir_dtype_str(a->dtype).s);
  tvm_ffi_strbuf_free(&name);
  return false;
}

DLDataType tvm_relax__binary_dtype(DLDataType a, DLDataType b, bool* ok) {
  *ok = true;
  if (tvm_relax_dtype_is_unknown(a) || tvm_relax_dtype_is_unknown(b)) return TVM_RELAX_DTYPE_UNKNOWN;
  if (tvm_ffi_dtype_equal(a, b)) return a;
  *ok = false;
  return TVM_RELAX_DTYPE_UNKNOWN;
}

int tvm_relax__broadcast(const tvm_relax__infer_ctx* ctx, const tvm_relax_tensor_sinfo_obj* a,
                         const tvm_relax_tensor_sinfo_obj* b, void** out_dims, int32_t* out_ndim) {
  *out_dims = NULL;
  if (a->ndim == TVM_RELAX_UNKNOWN_NDIM || b->ndim == TVM_RELAX_UNKNOWN_NDIM) {
    *out_ndim = TVM_RELAX_UNKNOWN_NDIM;
    return 0;
  }
  int32_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
  *out_ndim = n;
  void* da = tvm_relax_tensor_sinfo_dims(&a->base);
  void* db = tvm_relax_tensor_sinfo_dims(&b->base);
  if (!da || !db) return 0;
  if (da == db) {
    tvm_ffi_retain(da);
    *out_dims = da;
    return 0;
  }
  TVMFFIAny items[64];
  TVMFFIAny* buf = n <= 64 ? items : tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  if (!buf) return -1;
  bool known = true;
  /* Whether every result dim is a's (b's) own, at the same place: then its array is the result. */
  bool as_a = n == a->ndim, as_b = n == b->ndim;
  int rc = 0;
  for (int32_t i = 0; i < n; ++i) {
    int32_t ia = i - (n - a->ndim), ib = i - (n - b->ndim);
    tvm_tir_expr_obj* x = ia >= 0 ? tvm_ffi_seq_obj_at(da, ia) : NULL;
    tvm_tir_expr_obj* y = ib >= 0 ? tvm_ffi_seq_obj_at(db, ib) : NULL;
    int64_t cx = -1, cy = -1;
    bool kx = x && tvm_tir_as_const_int(x, &cx), ky = y && tvm_tir_as_const_int(y, &cy);
    tvm_tir_expr_obj* r;
    if (!x || (kx && cx == 1 && y)) { /* a 1 against a missing dim stays 1 */
      r = y;
    } else if (!y || (ky && cy == 1)) {
      r = x;
    } else if (tvm_relax__dim_equal(x, y)) {
      r = x;
    } else if (kx && ky) {
      tvm_ffi_strbuf ta = {0}, tb = {0};
      tvm_relax_sinfo_text(&ta, &a->base);
      tvm_relax_sinfo_text(&tb, &b->base);
      tvm_relax__op_error(ctx, "ValueError",
                          "cannot broadcast %s with %s: dim %d is %lld against %lld",
                          tvm_ffi_strbuf_cstr(&ta), tvm_ffi_strbuf_cstr(&tb), i, (long long)cx,
                          (long long)cy);
      tvm_ffi_strbuf_free(&ta);
      tvm_ffi_strbuf_free(&tb);
      rc = -1;
      for (int32_t j = 0; j < i; ++j) buf[j] = tvm_ffi_any_none();
      break;
    } else {
      known = false; /* symbolic dims that may differ: the result's shape is unknown */
      r = x;
    }
    buf[i] = tvm_ffi_any_obj(r);
    as_a = as_a && r == x;
    as_b = as_b && r == y;
  }
  if (rc == 0 && known && (as_a || as_b)) {
    *out_dims = as_a ? da : db;
    tvm_ffi_retain(*out_dims);
  } else if (rc == 0 && known) {
    *out_dims = tvm_ffi_array_new(buf, n);
    if (!*out_dims) rc = -1;
  }
  if (buf != items) tvm_ffi_free(buf);
  return rc;
}
