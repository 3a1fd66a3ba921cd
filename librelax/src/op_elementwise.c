/*
 * op_elementwise.c: inference rules of the unary and binary elementwise operators, comparisons,
 * logic, where, ewise_fma, clip and astype. Binary operators broadcast numpy-style; an operand
 * may be a scalar R.Prim, which broadcasts like a tensor of ndim 0.
 */
#include "internal.h"

const tvm_relax_attr_field tvm_relax__attrs_astype[] = {
    {"dtype", TVM_RELAX_ATTR_DTYPE, NULL}, {NULL, 0, NULL}};
/* wrap_param(data, dtype="float32"): a model parameter cast to dtype (upstream's marker that
 * ToMixedPrecision inserts; its struct info and kernel are astype's). */
const tvm_relax_attr_field tvm_relax__attrs_wrap_param[] = {
    {"dtype", TVM_RELAX_ATTR_DTYPE, "float32"}, {NULL, 0, NULL}};

static bool is_float(DLDataType t) { return t.code == kDLFloat || t.code == kDLBfloat; }
static bool is_bool(DLDataType t) { return (t.code == kDLUInt && t.bits == 1) || t.code == kDLBool; }
static DLDataType bool_dtype(void) { return tvm_tir_dtype_bool(); }

/* A unary rule: x's struct info with dtype replaced by out_dtype (when known). */
static tvm_relax_sinfo_obj* unary(const tvm_relax__infer_ctx* ctx, bool (*accept)(DLDataType),
                                  const char* need, const DLDataType* out_dtype) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  if (accept && !tvm_relax_dtype_is_unknown(x->dtype) && !accept(x->dtype)) {
    tvm_ffi_strbuf name = {0};
    tvm_relax__arg_name(ctx, 0, &name);
    tvm_relax__op_error(ctx, "TypeError", "argument '%s' must be %s, got dtype %s",
                        tvm_ffi_strbuf_cstr(&name), need, tvm_tir_dtype_str(x->dtype).s);
    tvm_ffi_strbuf_free(&name);
    return NULL;
  }
  if (!out_dtype || tvm_ffi_dtype_equal(*out_dtype, x->dtype)) return retained_sinfo(&x->base);
  return x->shape ? tvm_relax_tensor_sinfo_new(x->shape, *out_dtype, x->ndim, x->vdevice)
                  : tvm_relax_tensor_sinfo_new(NULL, *out_dtype, x->ndim, x->vdevice);
}

static bool accept_numeric(DLDataType t) { return !is_bool(t) && t.code != kDLOpaqueHandle; }

tvm_relax_sinfo_obj* tvm_relax__infer_unary_arith(const tvm_relax__infer_ctx* ctx) {
  return unary(ctx, accept_numeric, "a numeric tensor", NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_unary_float(const tvm_relax__infer_ctx* ctx) {
  return unary(ctx, is_float, "a float tensor", NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_unary_bool(const tvm_relax__infer_ctx* ctx) {
  return unary(ctx, is_bool, "a bool tensor", NULL);
}

/* bitwise_not: integers and bool only (upstream's rule lets a float through to a kernel that
 * cannot be built). */
static bool accept_int(DLDataType t) {
  return t.code == kDLInt || t.code == kDLUInt || t.code == kDLBool;
}

tvm_relax_sinfo_obj* tvm_relax__infer_unary_int(const tvm_relax__infer_ctx* ctx) {
  return unary(ctx, accept_int, "an integer or bool tensor", NULL);
}

/* isnan / isinf / isfinite: any dtype, as upstream's (an integer or bool is a finite number). */
tvm_relax_sinfo_obj* tvm_relax__infer_unary_check(const tvm_relax__infer_ctx* ctx) {
  DLDataType b = bool_dtype();
  return unary(ctx, NULL, NULL, &b);
}

tvm_relax_sinfo_obj* tvm_relax__infer_astype(const tvm_relax__infer_ctx* ctx) {
  DLDataType t = tvm_relax__attr_dtype(ctx, "dtype");
  if (tvm_relax_dtype_is_unknown(t)) {
    return tvm_relax__op_error(ctx, "ValueError", "attribute 'dtype' must be a data type");
  }
  return unary(ctx, NULL, NULL, &t);
}

tvm_relax_sinfo_obj* tvm_relax__infer_clip(const tvm_relax__infer_ctx* ctx) {
  for (int32_t i = 1; i < 3; ++i) {
    tvm_relax_kind k = tvm_relax_kind_of(tvm_relax__arg_sinfo(ctx, i));
    if (k != TVM_RELAX_KIND_PrimStructInfo && k != TVM_RELAX_KIND_TensorStructInfo) {
      tvm_ffi_strbuf name = {0};
      tvm_relax__arg_name(ctx, i, &name);
      tvm_relax__op_error(ctx, "TypeError", "argument '%s' must be a scalar (R.prim_value)",
                          tvm_ffi_strbuf_cstr(&name));
      tvm_ffi_strbuf_free(&name);
      return NULL;
    }
  }
  return unary(ctx, accept_numeric, "a numeric tensor", NULL);
}

/* ---- Binary ---------------------------------------------------------------------------------- */
/* Operand i as a tensor struct info: a tensor's own, or a scalar R.Prim as ndim 0 (*tmp owns
 * the latter). */
static tvm_relax_tensor_sinfo_obj* operand(const tvm_relax__infer_ctx* ctx, int32_t i,
                                           tvm_relax_sinfo_obj** tmp) {
  tvm_relax_sinfo_obj* s = tvm_relax__arg_sinfo(ctx, i);
  if (tvm_relax_kind_of(s) == TVM_RELAX_KIND_PrimStructInfo) {
    *tmp = tvm_relax_tensor_sinfo_of_ints(NULL, 0, ((tvm_relax_prim_sinfo_obj*)s)->dtype);
    return (tvm_relax_tensor_sinfo_obj*)*tmp;
  }
  return tvm_relax__arg_tensor(ctx, i);
}

static void* common_vdevice(tvm_relax_tensor_sinfo_obj* a, tvm_relax_tensor_sinfo_obj* b) {
  if (!a->vdevice) return b->vdevice;
  if (!b->vdevice) return a->vdevice;
  return tvm_relax__obj_equal(a->vdevice, b->vdevice) ? a->vdevice : NULL;
}

typedef enum { ARITH, CMP, LOGIC } binary_kind;

/* Whether a result of dims, dtype t and vdevice vdev is exactly operand x: its shape is a
 * ShapeExpr of those very dims (tvm_relax__broadcast hands back an operand's own array). Then the
 * result is x's struct info itself, as a unary operator's is its argument's. */
static bool is_operand(const tvm_relax_tensor_sinfo_obj* x, const void* dims, DLDataType t,
                       const void* vdev) {
  return dims && x->vdevice == vdev && tvm_ffi_dtype_equal(x->dtype, t) &&
         tvm_relax_kind_of(x->shape) == TVM_RELAX_KIND_ShapeExpr &&
         ((const tvm_relax_shape_expr_obj*)x->shape)->values == dims;
}

/* Broadcast args first..first+1 (and a third for where); result dtype by kind. */
static tvm_relax_sinfo_obj* binary(const tvm_relax__infer_ctx* ctx, int32_t first, binary_kind kind,
                                   tvm_relax_tensor_sinfo_obj* extra) {
  tvm_relax_sinfo_obj *ta = NULL, *tb = NULL;
  tvm_relax_sinfo_obj* out = NULL;
  tvm_relax_tensor_sinfo_obj* a = operand(ctx, first, &ta);
  tvm_relax_tensor_sinfo_obj* b = a ? operand(ctx, first + 1, &tb) : NULL;
  if (!a || !b) goto done;
  bool both_prim = ta && tb;
  bool ok;
  DLDataType t = tvm_relax__binary_dtype(a->dtype, b->dtype, &ok);
  if (!ok) {
    tvm_ffi_strbuf na = {0}, nb = {0};
    tvm_relax__arg_name(ctx, first, &na);
    tvm_relax__arg_name(ctx, first + 1, &nb);
    tvm_relax__op_error(ctx, "TypeError", "arguments '%s' and '%s' have different dtypes %s and %s",
                        tvm_ffi_strbuf_cstr(&na), tvm_ffi_strbuf_cstr(&nb),
                        tvm_tir_dtype_str(a->dtype).s, tvm_tir_dtype_str(b->dtype).s);
    tvm_ffi_strbuf_free(&na);
    tvm_ffi_strbuf_free(&nb);
    goto done;
  }
  if (kind == LOGIC && !tvm_relax_dtype_is_unknown(t) && !is_bool(t)) {
    tvm_relax__op_error(ctx, "TypeError", "arguments must be bool tensors, got dtype %s",
                        tvm_tir_dtype_str(t).s);
    goto done;
  }
  if (kind != ARITH) t = bool_dtype();
  void* dims;
  int32_t ndim;
  if (tvm_relax__broadcast(ctx, a, b, &dims, &ndim) != 0) goto done;
  void* vdev = common_vdevice(a, b);
  if (extra) {
    /* where: broadcast the condition's shape with the values'. */
    tvm_relax_sinfo_obj* ab = tvm_relax__tensor_result(dims, t, ndim, vdev);
    tvm_ffi_release(dims);
    dims = NULL;
    if (!ab) goto done;
    int rc = tvm_relax__broadcast(ctx, extra, (tvm_relax_tensor_sinfo_obj*)ab, &dims, &ndim);
    tvm_ffi_release(ab);
    if (rc != 0) goto done;
  }
  if (both_prim && !extra) {
    out = tvm_relax_prim_sinfo_new(t, NULL);
  } else if (!extra && !ta && is_operand(a, dims, t, vdev)) {
    out = retained_sinfo(&a->base);
  } else if (!extra && !tb && is_operand(b, dims, t, vdev)) {
    out = retained_sinfo(&b->base);
  } else {
    out = tvm_relax__tensor_result(dims, t, ndim, vdev);
  }
  tvm_ffi_release(dims);
done:
  tvm_ffi_release(ta);
  tvm_ffi_release(tb);
  return out;
}

tvm_relax_sinfo_obj* tvm_relax__infer_binary_arith(const tvm_relax__infer_ctx* ctx) {
  return binary(ctx, 0, ARITH, NULL);
}

/* The arithmetic rule with the result's dtype (when known) restricted to `accept`. */
static tvm_relax_sinfo_obj* binary_of(const tvm_relax__infer_ctx* ctx, bool (*accept)(DLDataType),
                                      const char* need) {
  tvm_relax_sinfo_obj* out = binary(ctx, 0, ARITH, NULL);
  DLDataType t = TVM_RELAX_DTYPE_UNKNOWN;
  if (out && tvm_relax_kind_of(out) == TVM_RELAX_KIND_TensorStructInfo) {
    t = ((tvm_relax_tensor_sinfo_obj*)out)->dtype;
  } else if (out && tvm_relax_kind_of(out) == TVM_RELAX_KIND_PrimStructInfo) {
    t = ((tvm_relax_prim_sinfo_obj*)out)->dtype;
  }
  if (out && !tvm_relax_dtype_is_unknown(t) && !accept(t)) {
    tvm_ffi_release(out);
    return tvm_relax__op_error(ctx, "TypeError", "arguments must be %s, got dtype %s", need,
                               tvm_tir_dtype_str(t).s);
  }
  return out;
}

/* atan2, log_add_exp: float operands only. */
tvm_relax_sinfo_obj* tvm_relax__infer_binary_float(const tvm_relax__infer_ctx* ctx) {
  return binary_of(ctx, is_float, "float tensors");
}

/* bitwise_and / or / xor, left_shift, right_shift: integer or bool operands only (as
 * bitwise_not; upstream's rule lets a float through to a kernel that cannot be built). */
tvm_relax_sinfo_obj* tvm_relax__infer_binary_int(const tvm_relax__infer_ctx* ctx) {
  return binary_of(ctx, accept_int, "integer or bool tensors");
}

tvm_relax_sinfo_obj* tvm_relax__infer_binary_cmp(const tvm_relax__infer_ctx* ctx) {
  return binary(ctx, 0, CMP, NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_binary_logic(const tvm_relax__infer_ctx* ctx) {
  return binary(ctx, 0, LOGIC, NULL);
}

tvm_relax_sinfo_obj* tvm_relax__infer_where(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* c = tvm_relax__arg_tensor(ctx, 0);
  if (!c) return NULL;
  if (!tvm_relax_dtype_is_unknown(c->dtype) && !is_bool(c->dtype)) {
    return tvm_relax__op_error(ctx, "TypeError", "argument 'condition' must be a bool tensor, got "
                               "dtype %s", tvm_tir_dtype_str(c->dtype).s);
  }
  return binary(ctx, 1, ARITH, c);
}

/* ewise_fma (x1 * x2 + x3): three tensors of one rank, dtype and shape (upstream's rule: no
 * broadcasting; dims not provably equal are an error). */
tvm_relax_sinfo_obj* tvm_relax__infer_ewise_fma(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x[3];
  for (int32_t i = 0; i < 3; ++i) {
    if (!(x[i] = tvm_relax__arg_tensor(ctx, i))) return NULL;
  }
  int32_t ndim = TVM_RELAX_UNKNOWN_NDIM;
  DLDataType t = x[0]->dtype;
  bool dtype_known = true;
  void* vdev = NULL;
  for (int32_t i = 0; i < 3; ++i) {
    if (x[i]->ndim != TVM_RELAX_UNKNOWN_NDIM) {
      if (ndim != TVM_RELAX_UNKNOWN_NDIM && x[i]->ndim != ndim) {
        return tvm_relax__op_error(ctx, "ValueError", "the three arguments must have the same "
                                   "number of dimensions, got %d and %d", ndim, x[i]->ndim);
      }
      ndim = x[i]->ndim;
    }
    dtype_known = dtype_known && !tvm_relax_dtype_is_unknown(x[i]->dtype);
  }
  for (int32_t i = 1; dtype_known && i < 3; ++i) {
    if (!tvm_ffi_dtype_equal(x[i]->dtype, t)) {
      return tvm_relax__op_error(ctx, "TypeError", "the three arguments must have the same dtype, "
                                 "got %s and %s", tvm_tir_dtype_str(t).s,
                                 tvm_tir_dtype_str(x[i]->dtype).s);
    }
  }
  /* The vdevice of the operands that have one when they agree; none when two differ. */
  for (int32_t i = 0; i < 3; ++i) {
    if (!x[i]->vdevice || vdev == x[i]->vdevice) continue;
    if (vdev && !tvm_relax__obj_equal(vdev, x[i]->vdevice)) {
      vdev = NULL;
      break;
    }
    vdev = x[i]->vdevice;
  }
  if (!dtype_known) t = TVM_RELAX_DTYPE_UNKNOWN;
  void* d[3];
  for (int32_t i = 0; i < 3; ++i) d[i] = tvm_relax_tensor_sinfo_dims(&x[i]->base);
  if (d[0] && d[1] && d[2]) {
    for (int64_t j = 0; j < ndim; ++j) {
      tvm_tir_expr_obj* a = tvm_ffi_seq_obj_at(d[0], j);
      if (!tvm_relax__dim_equal(a, tvm_ffi_seq_obj_at(d[1], j)) ||
          !tvm_relax__dim_equal(a, tvm_ffi_seq_obj_at(d[2], j))) {
        return tvm_relax__op_error(ctx, "ValueError", "the three arguments must have the same "
                                   "shape, and dim %lld differs", (long long)j);
      }
    }
    if (tvm_ffi_dtype_equal(x[0]->dtype, t) && x[0]->vdevice == vdev) {
      return retained_sinfo(&x[0]->base);
    }
    return tvm_relax_tensor_sinfo_new(x[0]->shape, t, ndim, vdev);
  }
  /* The same shape variable (or other shape expression) for all three: the result's too. */
  void* shape = x[0]->shape && x[0]->shape == x[1]->shape && x[0]->shape == x[2]->shape
                    ? x[0]->shape
                    : NULL;
  return tvm_relax_tensor_sinfo_new(shape, t, ndim, vdev);
}
