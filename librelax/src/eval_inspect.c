/*
 * eval_inspect.c: the reference evaluator's relax.inspect operators (op_inspect.c), read
 * directly from the argument's DLTensor with the semantics of their legalized getters
 * (legalize_inspect.c): a NULL strides array means compact strides, elem_offset is byte_offset
 * divided by ceil(bits * lanes / 8), and an axis outside [0, ndim) is a ValueError with the
 * getters' words.
 */
#include <tvm/ffi/ffi.h>

#include "internal.h"

int tvm_relax__eval_inspect(const char* func, const tvm_relax_call_obj* call,
                            const TVMFFIAny* vals, int32_t n, TVMFFIAny* out) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  const char* op = info->name;
  void* obj = n >= 1 ? tvm_ffi_any_as_object(&vals[0], kTVMFFITensor) : NULL;
  const DLTensor* t = obj                                                  ? tvm_ffi_tensor_dl(obj)
                      : n >= 1 && vals[0].type_index == kTVMFFIDLTensorPtr ? vals[0].v_ptr
                                                                           : NULL;
  if (!t) {
    return tvm_ffi_raise("TypeError", "%s: %s: argument 0 must be a tensor, got %s", func, op,
                         n >= 1 ? tvm_ffi_any_type_name(&vals[0]) : "nothing");
  }
  int64_t axis = 0;
  bool with_axis = info->id == TVM_RELAX_OP_inspect_tensor_shape_i ||
                   info->id == TVM_RELAX_OP_inspect_tensor_stride_i;
  if (with_axis) {
    if (n < 2 || !tvm_ffi_any_as_int(&vals[1], &axis)) {
      return tvm_ffi_raise("TypeError", "%s: %s: the axis must be an int, got %s", func, op,
                           n >= 2 ? tvm_ffi_any_type_name(&vals[1]) : "nothing");
    }
    if (axis < 0) {
      return tvm_ffi_raise("ValueError", "%s: %s: Specified axis may not be negative (axis %lld)",
                           func, op, (long long)axis);
    }
    if (axis >= t->ndim) {
      return tvm_ffi_raise("ValueError",
                           "%s: %s: Specified axis may not be larger than the tensor's "
                           "dimensionality (axis %lld, ndim %d)",
                           func, op, (long long)axis, (int)t->ndim);
    }
  }
  int64_t v;
  switch (info->id) {
    case TVM_RELAX_OP_inspect_tensor_dtype_code: v = t->dtype.code; break;
    case TVM_RELAX_OP_inspect_tensor_dtype_bits: v = t->dtype.bits; break;
    case TVM_RELAX_OP_inspect_tensor_dtype_lanes: v = t->dtype.lanes; break;
    case TVM_RELAX_OP_inspect_tensor_ndim: v = t->ndim; break;
    case TVM_RELAX_OP_inspect_tensor_shape_i: v = t->shape[axis]; break;
    case TVM_RELAX_OP_inspect_tensor_stride_i:
      v = 1;
      if (t->strides) v = t->strides[axis];
      for (int64_t k = axis + 1; !t->strides && k < t->ndim; ++k) v *= t->shape[k];
      break;
    case TVM_RELAX_OP_inspect_tensor_byte_offset: v = (int64_t)t->byte_offset; break;
    case TVM_RELAX_OP_inspect_tensor_elem_offset: {
      uint64_t size = ((uint64_t)t->dtype.bits * t->dtype.lanes + 7) / 8;
      if (size == 0) {
        return tvm_ffi_raise("ValueError", "%s: %s: the tensor's elements have no size", func,
                             op);
      }
      v = (int64_t)(t->byte_offset / size);
      break;
    }
    default: return tvm_ffi_raise("ValueError", "%s: %s is not a relax.inspect operator", func, op);
  }
  *out = tvm_ffi_any_int(v);
  return 0;
}
