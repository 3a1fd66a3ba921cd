/*
 * legalize_inspect.c: the kernels of the relax.inspect operators (op_inspect.c), as upstream's
 * legalization (python/tvm/relax/transform/legalize_ops/inspect_op.py): each call becomes a
 * direct call of a host PrimFunc (not call_tir) that reads the field from the tensor's DLTensor
 * and returns it with T.ret:
 *
 *   _get_tensor_<field>(dlpack_handle: T.handle[, axis: T.int64]) -> <field's dtype>
 *
 * marked tir.is_scheduled (the default schedule leaves it) and tir.is_host (upstream's), plus
 * this project's tir.is_host_func so that a CUDA build compiles it for the CPU. shape_i and
 * stride_i assert 0 <= axis < ndim (ValueError); stride_i of a tensor with NULL strides is the
 * compact stride, the product of the later extents; elem_offset is byte_offset divided by the
 * element size, ceil(bits * lanes / 8).
 */
#include <tvm/tir/builder.h>
#include <tvm/tir/schedule.h>
#include <tvm/tir/stmt.h>

#include "internal.h"

/* TVMStructFieldKind (libtir/src/struct_field.c). */
enum { kArrShape = 2, kArrStrides = 3, kArrNDim = 4, kArrTypeCode = 5, kArrTypeBits = 6,
       kArrTypeLanes = 7, kArrByteOffset = 8 };

/* T.tvm_struct_get(h, 0, kind, dtype) */
static void* field(void* h, int kind, DLDataType dtype) {
  return tvm_tir_call_take(dtype, "tir.tvm_struct_get", tvm_tir_ref(h), tvm_tir_int(0),
                           tvm_tir_int(kind));
}

static void* ret(void* value) {
  if (!value) return NULL;
  void* v = value;
  return tvm_tir_evaluate_take(tvm_tir_call_takev(tvm_tir_expr_dtype(v), "tir.ret", 1, &v));
}

/* assert cond, message (a ValueError) */
static void* check(void* cond, const char* message, void* body) {
  tvm_tir_expr_obj* msg = tvm_tir_str(message);
  tvm_tir_string_imm_obj* kind = (tvm_tir_string_imm_obj*)tvm_tir_str("ValueError");
  void* s = cond && msg && kind && body ? tvm_tir_assert_stmt_new_kind(cond, kind, msg, body)
                                        : NULL;
  void* objs[] = {cond, msg, kind, body};
  tvm_relax__release_all(objs, 4);
  return s;
}

/* A buffer of ndim int64 over the pointer `kind` of h: let data = ptr in decl_buffer(b, body),
 * body made by fn from b. */
typedef void* (*over_fn)(tvm_tir_buffer_obj* b, void* ctx);
static void* over_array(void* h, int kind, void* ndim, const char* name, over_fn fn, void* ctx) {
  void* extent = ndim;
  tvm_tir_buffer_obj* b = tvm_tir_buffer_decl_takev(name, TVM_TIR_INT64, 1, &extent, NULL);
  void* body = b ? fn(b, ctx) : NULL;
  void* s = body ? tvm_tir_let_stmt_take(tvm_tir_ref(b->data), field(h, kind, TVM_TIR_HANDLE),
                                         tvm_tir_decl_buffer_take(tvm_tir_ref(b), body))
                 : NULL;
  tvm_ffi_release(b);
  return s;
}

typedef struct {
  void* axis;             /* the axis parameter */
  tvm_tir_buffer_obj* acc; /* stride_i: the result's scratch element */
  void* h, *ndim;          /* stride_i: the handle and the ndim variable */
} axis_ctx;

static void* ret_at_axis(tvm_tir_buffer_obj* b, void* ctx) {
  return ret(tvm_tir_load_take(tvm_tir_ref(b), tvm_tir_ref(((axis_ctx*)ctx)->axis)));
}

static void* store_at_axis(tvm_tir_buffer_obj* b, void* ctx) {
  axis_ctx* c = ctx;
  return tvm_relax__scratch_store(c->acc, tvm_tir_load_take(tvm_tir_ref(b), tvm_tir_ref(c->axis)));
}

/* acc = 1; for k in range(ndim - (axis + 1)): acc = acc * shape[axis + 1 + k] */
static void* compact_product(tvm_tir_buffer_obj* shape, void* ctx) {
  axis_ctx* c = ctx;
  tvm_tir_var_obj* k = tvm_tir_var("k", TVM_TIR_INT64);
  void* next = tvm_tir_add_take(tvm_tir_add_take(tvm_tir_ref(c->axis), tvm_tir_i64(1)),
                                tvm_tir_ref(k));
  void* prod = tvm_tir_mul_take(tvm_relax__scratch_load(c->acc),
                                tvm_tir_load_take(tvm_tir_ref(shape), next));
  void* n = tvm_tir_sub_take(tvm_tir_cast_take(TVM_TIR_INT64, tvm_tir_ref(c->ndim)),
                             tvm_tir_add_take(tvm_tir_ref(c->axis), tvm_tir_i64(1)));
  void* loop = tvm_tir_serial_take(tvm_tir_ref(k), tvm_tir_i64(0), n,
                                   tvm_relax__scratch_store(c->acc, prod));
  tvm_ffi_release(k);
  return tvm_tir_seq_take(tvm_relax__scratch_store(c->acc, tvm_tir_i64(1)), loop);
}

/* shape_i / stride_i: the asserts on axis, then the read. */
static void* axis_body(void* h, void* axis, bool stride) {
  tvm_tir_var_obj* ndim = tvm_tir_var("ndim", TVM_TIR_INT32);
  axis_ctx c = {axis, NULL, h, ndim};
  void* read;
  if (!stride) {
    read = over_array(h, kArrShape, tvm_tir_ref(ndim), "shape", ret_at_axis, &c);
  } else {
    /* strides = struct_get(h, kArrStrides): NULL means compact */
    c.acc = tvm_relax__scratch("stride", TVM_TIR_INT64);
    if (!c.acc) {
      tvm_ffi_release(ndim);
      return NULL;
    }
    void* null = tvm_tir_call_take(TVM_TIR_BOOL, "tir.isnullptr",
                                   field(h, kArrStrides, TVM_TIR_HANDLE));
    void* compact = over_array(h, kArrShape, tvm_tir_ref(ndim), "shape", compact_product, &c);
    void* given = over_array(h, kArrStrides, tvm_tir_ref(ndim), "strides", store_at_axis, &c);
    void* pick = tvm_tir_if_take(null, compact, given);
    read = tvm_relax__scratch_scope(
        c.acc, tvm_tir_seq_take(pick, ret(tvm_relax__scratch_load(c.acc))));
    tvm_ffi_release(c.acc);
  }
  void* in_range = tvm_tir_lt_take(tvm_tir_ref(axis), tvm_tir_cast_take(TVM_TIR_INT64,
                                                                         tvm_tir_ref(ndim)));
  void* body = check(in_range, "Specified axis may not be larger than the tensor's "
                     "dimensionality", read);
  body = tvm_tir_let_stmt_take(tvm_tir_ref(ndim), field(h, kArrNDim, TVM_TIR_INT32), body);
  tvm_ffi_release(ndim);
  return check(tvm_tir_le_take(tvm_tir_i64(0), tvm_tir_ref(axis)),
               "Specified axis may not be negative", body);
}

tvm_tir_prim_func_obj* tvm_relax__legalize_inspect(const tvm_relax_call_obj* call) {
  const tvm_relax_op_info* info = tvm_relax_op_info_of(call->op);
  tvm_tir_var_obj* h = tvm_tir_var("dlpack_handle", TVM_TIR_HANDLE);
  tvm_tir_var_obj* axis = NULL;
  void* body = NULL;
  switch (info ? (int)info->id : -1) {
    case TVM_RELAX_OP_inspect_tensor_dtype_code:
      body = ret(field(h, kArrTypeCode, TVM_TIR_UINT8));
      break;
    case TVM_RELAX_OP_inspect_tensor_dtype_bits:
      body = ret(field(h, kArrTypeBits, TVM_TIR_UINT8));
      break;
    case TVM_RELAX_OP_inspect_tensor_dtype_lanes:
      body = ret(field(h, kArrTypeLanes, TVM_TIR_UINT16));
      break;
    case TVM_RELAX_OP_inspect_tensor_ndim: body = ret(field(h, kArrNDim, TVM_TIR_INT32)); break;
    case TVM_RELAX_OP_inspect_tensor_byte_offset:
      body = ret(field(h, kArrByteOffset, TVM_TIR_UINT64));
      break;
    case TVM_RELAX_OP_inspect_tensor_elem_offset: {
      void* bits = tvm_tir_cast_take(TVM_TIR_UINT64, field(h, kArrTypeBits, TVM_TIR_UINT8));
      void* lanes = tvm_tir_cast_take(TVM_TIR_UINT64, field(h, kArrTypeLanes, TVM_TIR_UINT16));
      /* ceildiv(bits * lanes, 8) */
      void* size = tvm_tir_floordiv_take(
          tvm_tir_add_take(tvm_tir_mul_take(bits, lanes), tvm_tir_const(TVM_TIR_UINT64, 7)),
          tvm_tir_const(TVM_TIR_UINT64, 8));
      body = ret(tvm_tir_floordiv_take(field(h, kArrByteOffset, TVM_TIR_UINT64), size));
      break;
    }
    case TVM_RELAX_OP_inspect_tensor_shape_i:
    case TVM_RELAX_OP_inspect_tensor_stride_i:
      axis = tvm_tir_var("axis", TVM_TIR_INT64);
      body = axis ? axis_body(h, axis, info->id == TVM_RELAX_OP_inspect_tensor_stride_i) : NULL;
      break;
    default:
      tvm_ffi_raise("ValueError", "legalize: not a relax.inspect operator");
      break;
  }
  void* params = !body ? NULL
                 : axis ? tvm_tir_list_take(tvm_tir_ref(h), tvm_tir_ref(axis))
                        : tvm_tir_list_take(tvm_tir_ref(h));
  tvm_ffi_release(h);
  tvm_ffi_release(axis);
  tvm_tir_prim_func_obj* f = params ? tvm_tir_func_take(NULL, params, body) : NULL;
  if (!params) tvm_ffi_release(body);
  const char* keys[] = {TVM_TIR_ATTR_IS_SCHEDULED, "tir.is_host", TVM_TIR_ATTR_IS_HOST_FUNC};
  TVMFFIAny yes = tvm_ffi_any_bool(true);
  for (int i = 0; f && i < 3; ++i) {
    tvm_tir_prim_func_obj* g = tvm_tir_prim_func_with_attr(f, keys[i], &yes);
    tvm_ffi_release(f);
    f = g;
  }
  return f;
}
