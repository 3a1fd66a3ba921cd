/*
 * op_inspect.c: the relax.inspect operators, which read a field of a tensor's DLTensor at run
 * time (upstream's relax/op/tensor/inspect.cc; TVMScript writes them as `A.dtype.type_code`,
 * `A.dtype.bits`, `A.dtype.lanes`, `A.ndim`, `A.shape[i]`, `A.strides[i]`, `A.byte_offset`,
 * `A.elem_offset`).
 *
 * Each result is an R.Prim of the DLTensor field's type: uint8 type code and bits, uint16 lanes,
 * int32 ndim, int64 extents and strides, uint64 offsets. When the tensor's struct info already
 * says the value it carries it (R.Prim(value=...)), and the BlockBuilder then replaces the call
 * with that R.prim_value (tvm_relax__inspect_known_value: upstream's FNormalize). As upstream, a tensor
 * with a known shape is taken to be compact with no offset (every legalized kernel assumes so):
 * its strides are the products of the later extents and its offsets zero.
 *
 * An axis (shape_i, stride_i) is an integer R.Prim; a known one must be in [0, ndim) when the
 * rank is known (the legalized getters assert the same at run time).
 */
#include "internal.h"

static const DLDataType kU8 = {kDLUInt, 8, 1}, kU16 = {kDLUInt, 16, 1}, kI32 = {kDLInt, 32, 1},
                        kI64 = {kDLInt, 64, 1}, kU64 = {kDLUInt, 64, 1};

/* R.Prim(dtype) with the value v when known (v >= 0), else without. */
static tvm_relax_sinfo_obj* prim_of(DLDataType dtype, bool known, int64_t v) {
  if (!known) return tvm_relax_prim_sinfo_new(dtype, NULL);
  tvm_tir_expr_obj* e = tvm_tir_int_imm_new(dtype, v);
  tvm_relax_sinfo_obj* s = e ? tvm_relax_prim_sinfo_new(dtype, e) : NULL;
  tvm_ffi_release(e);
  return s;
}

/* The dtype field `which` (0 code, 1 bits, 2 lanes) of argument 0. */
static tvm_relax_sinfo_obj* dtype_field(const tvm_relax__infer_ctx* ctx, int which) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  bool known = !tvm_relax_dtype_is_unknown(x->dtype);
  if (which == 0) return prim_of(kU8, known, x->dtype.code);
  if (which == 1) return prim_of(kU8, known, x->dtype.bits);
  return prim_of(kU16, known, x->dtype.lanes);
}

tvm_relax_sinfo_obj* tvm_relax__infer_inspect_dtype_code(const tvm_relax__infer_ctx* ctx) {
  return dtype_field(ctx, 0);
}
tvm_relax_sinfo_obj* tvm_relax__infer_inspect_dtype_bits(const tvm_relax__infer_ctx* ctx) {
  return dtype_field(ctx, 1);
}
tvm_relax_sinfo_obj* tvm_relax__infer_inspect_dtype_lanes(const tvm_relax__infer_ctx* ctx) {
  return dtype_field(ctx, 2);
}

tvm_relax_sinfo_obj* tvm_relax__infer_inspect_ndim(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  return prim_of(kI32, x->ndim != TVM_RELAX_UNKNOWN_NDIM, x->ndim);
}

/* shape_i / stride_i: the tensor (*x) and the axis when it is a known constant (*axis, else -1);
 * false + error for a non-tensor, a non-integer axis or a known axis out of range. */
static bool tensor_and_axis(const tvm_relax__infer_ctx* ctx, const char* field,
                            tvm_relax_tensor_sinfo_obj** x, int64_t* axis) {
  *x = tvm_relax__arg_tensor(ctx, 0);
  if (!*x) return false;
  tvm_relax_sinfo_obj* a = tvm_relax__arg_sinfo(ctx, 1);
  const tvm_relax_prim_sinfo_obj* p = tvm_relax_kind_of(a) == TVM_RELAX_KIND_PrimStructInfo
                                          ? (const tvm_relax_prim_sinfo_obj*)a
                                          : NULL;
  if (!p || (p->dtype.code != kDLInt && p->dtype.code != kDLUInt) || p->dtype.lanes != 1) {
    tvm_relax__arg_kind_error(ctx, 1, "an integer R.Prim (R.Prim(\"int64\"))");
    return false;
  }
  *axis = -1;
  int64_t v;
  if (p->value && tvm_tir_as_const_int(p->value, &v)) {
    if (v < 0) {
      tvm_relax__arg_error(ctx, 1, "ValueError", "is %lld: the axis of .%s[i] may not be negative",
                           (long long)v, field);
      return false;
    }
    if ((*x)->ndim != TVM_RELAX_UNKNOWN_NDIM && v >= (*x)->ndim) {
      tvm_relax__arg_error(ctx, 1, "ValueError", "is %lld, but the tensor's .%s has only %d "
                           "elements", (long long)v, field, (int)(*x)->ndim);
      return false;
    }
    *axis = v;
  }
  return true;
}

tvm_relax_sinfo_obj* tvm_relax__infer_inspect_shape_i(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x;
  int64_t axis;
  if (!tensor_and_axis(ctx, "shape", &x, &axis)) return NULL;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (axis < 0 || !dims) return tvm_relax_prim_sinfo_new(kI64, NULL);
  tvm_tir_expr_obj* d = tvm_ffi_seq_obj_at(dims, axis);
  return tvm_relax_prim_sinfo_new(tvm_tir_expr_dtype(d), d);
}

tvm_relax_sinfo_obj* tvm_relax__infer_inspect_stride_i(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x;
  int64_t axis;
  if (!tensor_and_axis(ctx, "strides", &x, &axis)) return NULL;
  void* dims = tvm_relax_tensor_sinfo_dims(&x->base);
  if (axis < 0 || !dims) return tvm_relax_prim_sinfo_new(kI64, NULL);
  /* A compact layout: the product of the later extents (1 for the last axis). */
  int64_t n = tvm_ffi_seq_size(dims);
  tvm_tir_expr_obj* stride = NULL;
  if (axis + 1 < n) {
    stride = tvm_ffi_seq_obj_at(dims, axis + 1);
    tvm_ffi_retain(stride);
  } else {
    stride = tvm_tir_int_imm_new(kI64, 1);
  }
  for (int64_t k = axis + 2; stride && k < n; ++k) {
    tvm_tir_expr_obj* next = tvm_tir_mul(stride, tvm_ffi_seq_obj_at(dims, k));
    tvm_ffi_release(stride);
    stride = next;
  }
  tvm_relax_sinfo_obj* s = stride ? tvm_relax_prim_sinfo_new(tvm_tir_expr_dtype(stride), stride)
                                  : NULL;
  tvm_ffi_release(stride);
  return s;
}

/* byte_offset and elem_offset: zero for a tensor whose shape is known. */
tvm_relax_sinfo_obj* tvm_relax__infer_inspect_offset(const tvm_relax__infer_ctx* ctx) {
  tvm_relax_tensor_sinfo_obj* x = tvm_relax__arg_tensor(ctx, 0);
  if (!x) return NULL;
  return prim_of(kU64, tvm_relax_tensor_sinfo_dims(&x->base) != NULL, 0);
}

tvm_tir_expr_obj* tvm_relax__inspect_known_value(const tvm_relax_call_obj* call) {
  const tvm_relax_sinfo_obj* s = tvm_relax_sinfo_of(call);
  if (tvm_relax_kind_of(s) != TVM_RELAX_KIND_PrimStructInfo) return NULL;
  tvm_tir_expr_obj* value = ((const tvm_relax_prim_sinfo_obj*)s)->value;
  if (!value) return NULL;
  /* (the rows are consecutive in ops.def) */
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  bool inspect = info && info->id >= TVM_RELAX_OP_inspect_tensor_dtype_code &&
                 info->id <= TVM_RELAX_OP_inspect_tensor_elem_offset;
  return inspect ? value : NULL;
}
