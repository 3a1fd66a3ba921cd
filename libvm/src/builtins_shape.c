/*
 * builtins_shape.c: shape and struct-info built-ins: the shape heap, match_shape / make_shape
 * (symbolic dimensions), prim values, and the check_*_info assertions. Mismatches raise a
 * ValueError (wrong value) or TypeError (wrong kind of value) naming the argument (err_ctx)
 * and the dimension.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "builtin_list.h"

/* ---- Helpers (shared with builtins_runtime.c) --------------------------------------------- */
const DLTensor* tvm_vm__arg_tensor(const char* fname, const TVMFFIAny* args, int32_t i) {
  if (args[i].type_index == kTVMFFIDLTensorPtr && args[i].v_ptr) return (const DLTensor*)args[i].v_ptr;
  if (args[i].type_index == kTVMFFITensor) return tvm_ffi_tensor_dl(args[i].v_obj);
  tvm_ffi_raise("TypeError", "%s: argument %d must be a Tensor but got %s", fname, (int)i,
                tvm_ffi_any_type_name(&args[i]));
  return NULL;
}

TVMFFIByteArray tvm_vm__err_ctx(const TVMFFIAny* args, int32_t num_args, int32_t i) {
  TVMFFIByteArray b = {"", 0};
  if (i < num_args && !tvm_ffi_any_as_bytes(&args[i], &b)) {
    b.data = "";
    b.size = 0;
  }
  return b;
}

bool tvm_vm__arg_dtype(const char* fname, const TVMFFIAny* args, int32_t i, DLDataType* out) {
  if (args[i].type_index == kTVMFFIDataType) {
    *out = args[i].v_dtype;
    return true;
  }
  TVMFFIByteArray s;
  if (tvm_ffi_any_as_bytes(&args[i], &s)) {
    if (tvm_ffi_dtype_parse(s.data, s.size, out) == 0) return true;
    tvm_ffi_raise_context("%s: argument %d", fname, (int)i);
    return false;
  }
  tvm_ffi_raise("TypeError", "%s: argument %d must be a data type but got %s", fname, (int)i,
                tvm_ffi_any_type_name(&args[i]));
  return false;
}

static bool check_min_args(const char* fname, int32_t n, int32_t min) {
  if (n >= min) return true;
  tvm_ffi_raise("TypeError", "%s expects at least %d arguments but got %d", fname, (int)min, (int)n);
  return false;
}

/* "of <ctx>" for messages: the error context when given, else "the value". */
#define CTX_FMT "%.*s"
#define CTX_ARGS(c) (int)((c).size ? (c).size : 9), ((c).size ? (c).data : "the value")

/* The shape heap argument: None, or a CPU int64 tensor. */
static bool arg_heap(const char* fname, const TVMFFIAny* args, int32_t i, int64_t** data,
                     int64_t* size) {
  *data = NULL;
  *size = 0;
  if (args[i].type_index == kTVMFFINone) return true;
  const DLTensor* t = tvm_vm__arg_tensor(fname, args, i);
  if (!t) return false;
  if (t->device.device_type != kDLCPU || t->dtype.code != kDLInt || t->dtype.bits != 64 ||
      t->dtype.lanes != 1 || !tvm_ffi_dltensor_is_contiguous(t)) {
    tvm_ffi_raise("TypeError", "%s: the shape heap must be a compact int64 CPU tensor", fname);
    return false;
  }
  *data = (int64_t*)((char*)t->data + t->byte_offset);
  *size = tvm_ffi_dltensor_numel(t);
  return true;
}

static int64_t* heap_slot(const char* fname, int64_t* heap, int64_t size, int64_t r) {
  if (!heap) {
    tvm_ffi_raise("ValueError", "%s: code needs a shape heap but none was given (slot %lld)", fname,
                  (long long)r);
    return NULL;
  }
  if (r < 0 || r >= size) {
    tvm_ffi_raise("IndexError", "%s: shape heap slot %lld out of range (the heap has %lld slots)",
                  fname, (long long)r, (long long)size);
    return NULL;
  }
  return &heap[r];
}

/* ---- Shape heap --------------------------------------------------------------------------- */
int tvm_vm__builtin_alloc_shape_heap(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.alloc_shape_heap";
  int64_t size;
  if (!tvm_ffi_check_num_args(fname, n, 2) || !tvm_ffi_arg_int(fname, args, 1, &size)) return -1;
  tvm_vm_state* vm = tvm_vm__state_from_arg(fname, &args[0]);
  if (!vm || tvm_vm__check_initialized(vm) != 0) return -1;
  if (size < 0) return tvm_ffi_raise("ValueError", "%s: negative size %lld", fname, (long long)size);
  /* The host device is always the last one. */
  void* t = tvm_vm__alloc_tensor(vm->allocators[vm->num_devices - 1], &size, 1,
                                 tvm_ffi_dtype(kDLInt, 64, 1));
  if (!t) return -1;
  *rv = tvm_ffi_any_obj(t);
  return 0;
}

/* ---- match_shape / make_shape --------------------------------------------------------------- */
/* One dimension (or prim value) against a code; `what` describes it for messages. */
static int match_one(const char* fname, TVMFFIByteArray ctx, const char* what, int64_t value,
                     int64_t code, int64_t r, int64_t* heap, int64_t heap_size) {
  int64_t* slot;
  switch (code) {
    case TVM_VM_MATCH_ASSERT_EQUAL_TO_IMM:
      if (value == r) return 0;
      return tvm_ffi_raise("ValueError", "%s: %s of " CTX_FMT ": expected %lld but got %lld", fname,
                           what, CTX_ARGS(ctx), (long long)r, (long long)value);
    case TVM_VM_MATCH_STORE_TO_HEAP:
      if (!(slot = heap_slot(fname, heap, heap_size, r))) return -1;
      *slot = value;
      return 0;
    case TVM_VM_MATCH_NO_OP:
      return 0;
    case TVM_VM_MATCH_ASSERT_EQUAL_TO_LOAD:
      if (!(slot = heap_slot(fname, heap, heap_size, r))) return -1;
      if (value == *slot) return 0;
      return tvm_ffi_raise("ValueError",
                           "%s: %s of " CTX_FMT ": expected %lld (bound earlier, shape heap slot "
                           "%lld) but got %lld",
                           fname, what, CTX_ARGS(ctx), (long long)*slot, (long long)r,
                           (long long)value);
    default:
      return tvm_ffi_raise("ValueError", "%s: unknown match code %lld", fname, (long long)code);
  }
}

int tvm_vm__builtin_match_shape(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.match_shape";
  int64_t size, *heap, heap_size;
  if (!check_min_args(fname, n, 3) || !tvm_ffi_arg_int(fname, args, 2, &size) ||
      !arg_heap(fname, args, 1, &heap, &heap_size)) {
    return -1;
  }
  if (size < 0 || size > (INT32_MAX - 3) / 2 || n < 3 + 2 * size) {
    return tvm_ffi_raise("TypeError", "%s: %lld dimensions need %lld arguments but got %d", fname,
                         (long long)size, (long long)(3 + 2 * size), (int)n);
  }
  TVMFFIByteArray ctx = tvm_vm__err_ctx(args, n, 3 + 2 * (int32_t)size);
  const int64_t* dims;
  int64_t ndim;
  if (args[0].type_index == kTVMFFIShape) {
    dims = tvm_ffi_shape_data(args[0].v_obj);
    ndim = tvm_ffi_shape_ndim(args[0].v_obj);
  } else if (args[0].type_index == kTVMFFITensor || args[0].type_index == kTVMFFIDLTensorPtr) {
    const DLTensor* t = tvm_vm__arg_tensor(fname, args, 0);
    dims = t->shape;
    ndim = t->ndim;
  } else {
    return tvm_ffi_raise("TypeError", "%s: " CTX_FMT " must be a Tensor or a Shape but got %s",
                         fname, CTX_ARGS(ctx), tvm_ffi_any_type_name(&args[0]));
  }
  if (ndim != size) {
    return tvm_ffi_raise("ValueError", "%s: ndim of " CTX_FMT ": expected %lld but got %lld", fname,
                         CTX_ARGS(ctx), (long long)size, (long long)ndim);
  }
  for (int32_t i = 0; i < (int32_t)size; ++i) {
    int64_t code, r;
    char what[32];
    snprintf(what, sizeof(what), "dimension %d", (int)i);
    if (!tvm_ffi_arg_int(fname, args, 3 + 2 * i, &code) ||
        !tvm_ffi_arg_int(fname, args, 4 + 2 * i, &r) ||
        match_one(fname, ctx, what, dims[i], code, r, heap, heap_size) != 0) {
      return -1;
    }
  }
  return 0;
}

int tvm_vm__builtin_make_shape(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.make_shape";
  int64_t size, *heap, heap_size;
  if (!check_min_args(fname, n, 2) || !tvm_ffi_arg_int(fname, args, 1, &size) ||
      !arg_heap(fname, args, 0, &heap, &heap_size)) {
    return -1;
  }
  if (size < 0 || size > (INT32_MAX - 2) / 2 || n != 2 + 2 * size) {
    return tvm_ffi_raise("TypeError", "%s: %lld dimensions need %lld arguments but got %d", fname,
                         (long long)size, (long long)(2 + 2 * size), (int)n);
  }
  int64_t small[16];
  int64_t* dims = size <= 16 ? small : (int64_t*)tvm_ffi_malloc((size_t)size * 8);
  if (!dims) return -1;
  int rc = 0;
  for (int32_t i = 0; i < (int32_t)size && rc == 0; ++i) {
    int64_t code, r, *slot;
    if (!tvm_ffi_arg_int(fname, args, 2 + 2 * i, &code) || !tvm_ffi_arg_int(fname, args, 3 + 2 * i, &r)) {
      rc = -1;
    } else if (code == TVM_VM_MAKE_USE_IMM) {
      dims[i] = r;
    } else if (code == TVM_VM_MAKE_LOAD_SHAPE) {
      if ((slot = heap_slot(fname, heap, heap_size, r)) != NULL) dims[i] = *slot;
      else rc = -1;
    } else {
      rc = tvm_ffi_raise("ValueError", "%s: unknown code %lld for dimension %d", fname,
                         (long long)code, (int)i);
    }
  }
  void* shape = rc == 0 ? tvm_ffi_shape_new(dims, size) : NULL;
  if (dims != small) tvm_ffi_free(dims);
  if (!shape) return -1;
  *rv = tvm_ffi_any_obj(shape);
  return 0;
}

int tvm_vm__builtin_match_prim_value(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.match_prim_value";
  int64_t value, code, r, *heap, heap_size;
  if (!check_min_args(fname, n, 4) || !tvm_ffi_arg_int(fname, args, 0, &value) ||
      !arg_heap(fname, args, 1, &heap, &heap_size) || !tvm_ffi_arg_int(fname, args, 2, &code) ||
      !tvm_ffi_arg_int(fname, args, 3, &r)) {
    return -1;
  }
  if (n > 5) return tvm_ffi_raise("TypeError", "%s expects 4 or 5 arguments but got %d", fname, (int)n);
  return match_one(fname, tvm_vm__err_ctx(args, n, 4), "value", value, code, r, heap, heap_size);
}

int tvm_vm__builtin_make_prim_value(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.make_prim_value";
  int64_t code, r, *heap, heap_size, *slot;
  if (!tvm_ffi_check_num_args(fname, n, 3) || !arg_heap(fname, args, 0, &heap, &heap_size) ||
      !tvm_ffi_arg_int(fname, args, 1, &code) || !tvm_ffi_arg_int(fname, args, 2, &r)) {
    return -1;
  }
  if (code == TVM_VM_MAKE_USE_IMM) {
    *rv = tvm_ffi_any_int(r);
    return 0;
  }
  if (code != TVM_VM_MAKE_LOAD_SHAPE) {
    return tvm_ffi_raise("ValueError", "%s: unknown code %lld", fname, (long long)code);
  }
  if (!(slot = heap_slot(fname, heap, heap_size, r))) return -1;
  *rv = tvm_ffi_any_int(*slot);
  return 0;
}

/* ---- Struct info checks ------------------------------------------------------------------- */
static bool is_void_dtype(DLDataType t) { return t.code == kDLOpaqueHandle && t.bits == 0; }

static void dtype_str(DLDataType t, char* buf, size_t n) {
  if (tvm_ffi_dtype_format(t, buf, n) < 0) {
    tvm_ffi_error_clear();
    snprintf(buf, n, "dtype(%d, %d, %d)", t.code, t.bits, t.lanes);
  }
}

int tvm_vm__builtin_check_tensor_info(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.check_tensor_info";
  int64_t ndim;
  DLDataType dtype = tvm_ffi_dtype(kDLOpaqueHandle, 0, 0);
  if (n != 3 && n != 4) return tvm_ffi_raise("TypeError", "%s expects 3 or 4 arguments but got %d", fname, (int)n);
  if (!tvm_ffi_arg_int(fname, args, 1, &ndim) || (n == 4 && !tvm_vm__arg_dtype(fname, args, 2, &dtype))) {
    return -1;
  }
  TVMFFIByteArray ctx = tvm_vm__err_ctx(args, n, n - 1);
  const DLTensor* t = NULL;
  if (args[0].type_index == kTVMFFITensor) t = tvm_ffi_tensor_dl(args[0].v_obj);
  if (args[0].type_index == kTVMFFIDLTensorPtr) t = (const DLTensor*)args[0].v_ptr;
  if (!t) {
    return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": expected a Tensor but got %s", fname,
                         CTX_ARGS(ctx), tvm_ffi_any_type_name(&args[0]));
  }
  if (ndim != -1 && t->ndim != ndim) {
    return tvm_ffi_raise("ValueError", "%s: " CTX_FMT ": expected a Tensor with ndim %lld but got %d",
                         fname, CTX_ARGS(ctx), (long long)ndim, (int)t->ndim);
  }
  if (!is_void_dtype(dtype) && !tvm_ffi_dtype_equal(dtype, t->dtype)) {
    char want[64], got[64];
    dtype_str(dtype, want, sizeof(want));
    dtype_str(t->dtype, got, sizeof(got));
    return tvm_ffi_raise("ValueError", "%s: " CTX_FMT ": expected a Tensor with dtype %s but got %s",
                         fname, CTX_ARGS(ctx), want, got);
  }
  return 0;
}

int tvm_vm__builtin_check_shape_info(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.check_shape_info";
  int64_t ndim;
  if (!tvm_ffi_check_num_args(fname, n, 3) || !tvm_ffi_arg_int(fname, args, 1, &ndim)) return -1;
  TVMFFIByteArray ctx = tvm_vm__err_ctx(args, n, 2);
  if (args[0].type_index != kTVMFFIShape) {
    return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": expected a Shape but got %s", fname,
                         CTX_ARGS(ctx), tvm_ffi_any_type_name(&args[0]));
  }
  int64_t got = tvm_ffi_shape_ndim(args[0].v_obj);
  if (ndim != -1 && got != ndim) {
    return tvm_ffi_raise("ValueError", "%s: " CTX_FMT ": expected a Shape with ndim %lld but got %lld",
                         fname, CTX_ARGS(ctx), (long long)ndim, (long long)got);
  }
  return 0;
}

int tvm_vm__builtin_check_prim_value_info(void* self, const TVMFFIAny* args, int32_t n,
                                          TVMFFIAny* rv) {
  const char* fname = "vm.builtin.check_prim_value_info";
  DLDataType dtype;
  if (!tvm_ffi_check_num_args(fname, n, 3) || !tvm_vm__arg_dtype(fname, args, 1, &dtype)) return -1;
  TVMFFIByteArray ctx = tvm_vm__err_ctx(args, n, 2);
  const TVMFFIAny* v = &args[0];
  char want[64];
  dtype_str(dtype, want, sizeof(want));
  bool ok;
  switch (dtype.code) {
    case kDLInt:
    case kDLUInt:
    case kDLBool:
      ok = v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool;
      break;
    case kDLFloat:
    case kDLBfloat:
      ok = v->type_index == kTVMFFIFloat || v->type_index == kTVMFFIInt || v->type_index == kTVMFFIBool;
      break;
    case kDLOpaqueHandle:
      if (is_void_dtype(dtype)) {
        return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": unsupported dtype %s", fname,
                             CTX_ARGS(ctx), want);
      }
      ok = v->type_index == kTVMFFIOpaquePtr || v->type_index == kTVMFFINone;
      break;
    default:
      return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": unsupported dtype %s", fname,
                           CTX_ARGS(ctx), want);
  }
  if (ok) return 0;
  return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": expected a %s value but got %s", fname,
                       CTX_ARGS(ctx), want, tvm_ffi_any_type_name(v));
}

int tvm_vm__builtin_check_tuple_info(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.check_tuple_info";
  int64_t size;
  if (!tvm_ffi_check_num_args(fname, n, 3) || !tvm_ffi_arg_int(fname, args, 1, &size)) return -1;
  TVMFFIByteArray ctx = tvm_vm__err_ctx(args, n, 2);
  if (args[0].type_index != kTVMFFIArray) {
    return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": expected a Tuple but got %s", fname,
                         CTX_ARGS(ctx), tvm_ffi_any_type_name(&args[0]));
  }
  int64_t got = tvm_ffi_seq_size(args[0].v_obj);
  if (got != size) {
    return tvm_ffi_raise("ValueError",
                         "%s: " CTX_FMT ": expected a Tuple with %lld elements but got %lld", fname,
                         CTX_ARGS(ctx), (long long)size, (long long)got);
  }
  return 0;
}

int tvm_vm__builtin_check_func_info(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.check_func_info";
  if (!tvm_ffi_check_num_args(fname, n, 2)) return -1;
  TVMFFIByteArray ctx = tvm_vm__err_ctx(args, n, 1);
  if (args[0].type_index == kTVMFFIFunction ||
      tvm_ffi_any_as_object(&args[0], tvm_vm__closure_type_index())) {
    return 0;
  }
  return tvm_ffi_raise("TypeError", "%s: " CTX_FMT ": expected a Function but got %s", fname,
                       CTX_ARGS(ctx), tvm_ffi_any_type_name(&args[0]));
}
