/*
 * builtins_runtime.c: storage and tensor allocation, closures, runtime operators (upstream's
 * relax.run.print / assert_op / shape_to_tensor among them) and tuples; and the registration of
 * every built-in of builtin_list.h.
 */
#include <stdio.h>
#include <string.h>

#include <tvm-private/ffi.h>

#include "builtin_list.h"

/* ---- Storage ------------------------------------------------------------------------------ */
static bool arg_shape(const char* fname, const TVMFFIAny* args, int32_t i, const int64_t** dims,
                      int64_t* ndim) {
  if (args[i].type_index != kTVMFFIShape) {
    tvm_ffi_raise("TypeError", "%s: argument %d must be a Shape but got %s", fname, (int)i,
                  tvm_ffi_any_type_name(&args[i]));
    return false;
  }
  *dims = tvm_ffi_shape_data(args[i].v_obj);
  *ndim = tvm_ffi_shape_ndim(args[i].v_obj);
  return true;
}

static bool check_scope(const char* fname, const TVMFFIAny* args, int32_t n, int32_t i) {
  if (i >= n || args[i].type_index == kTVMFFINone) return true;
  TVMFFIByteArray s;
  if (!tvm_ffi_arg_bytes(fname, args, i, &s)) return false;
  if (s.size == 0 || (s.size == 6 && memcmp(s.data, "global", 6) == 0)) return true;
  tvm_ffi_raise("ValueError", "%s: memory scope `%.*s` is not supported (only \"global\")", fname,
                (int)s.size, s.data);
  return false;
}

int tvm_vm__builtin_alloc_storage(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.alloc_storage";
  const int64_t* dims;
  int64_t ndim, device_index;
  DLDataType hint;
  if (n != 4 && n != 5) return tvm_ffi_raise("TypeError", "%s expects 4 or 5 arguments but got %d", fname, (int)n);
  tvm_vm_state* vm = tvm_vm__state_from_arg(fname, &args[0]);
  if (!vm || tvm_vm__check_initialized(vm) != 0 || !arg_shape(fname, args, 1, &dims, &ndim) ||
      !tvm_ffi_arg_int(fname, args, 2, &device_index) || !tvm_vm__arg_dtype(fname, args, 3, &hint) ||
      !check_scope(fname, args, n, 4)) {
    return -1;
  }
  if (device_index == -1) device_index = vm->num_devices - 1; /* the host */
  if (device_index < 0 || device_index >= vm->num_devices) {
    return tvm_ffi_raise("IndexError", "%s: device index %lld out of range (the VM has %d devices)",
                         fname, (long long)device_index, (int)vm->num_devices);
  }
  int64_t nbytes = tvm_vm__nbytes(dims, ndim > INT32_MAX ? -1 : (int32_t)ndim, hint, fname);
  if (nbytes < 0) return -1;
  tvm_vm_storage_obj* s = tvm_vm__storage_new(vm->allocators[device_index], (size_t)nbytes);
  if (!s) return -1;
  *rv = tvm_ffi_any_obj(s);
  return 0;
}

int tvm_vm__builtin_alloc_tensor(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.alloc_tensor";
  const int64_t* dims;
  int64_t ndim, offset;
  DLDataType dtype;
  if (n != 4 && n != 5) return tvm_ffi_raise("TypeError", "%s expects 4 or 5 arguments but got %d", fname, (int)n);
  tvm_vm_storage_obj* s =
      (tvm_vm_storage_obj*)tvm_ffi_arg_object(fname, args, 0, tvm_vm__storage_type_index());
  if (!s || !tvm_ffi_arg_int(fname, args, 1, &offset) || !arg_shape(fname, args, 2, &dims, &ndim) ||
      !tvm_vm__arg_dtype(fname, args, 3, &dtype) || !check_scope(fname, args, n, 4)) {
    return -1;
  }
  void* t = tvm_vm__storage_tensor(s, offset, dims, (int32_t)ndim, dtype);
  if (!t) return -1;
  *rv = tvm_ffi_any_obj(t);
  return 0;
}

/* ---- Closures ----------------------------------------------------------------------------- */
int tvm_vm__builtin_make_closure(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.make_closure";
  if (n < 1) return tvm_ffi_raise("TypeError", "%s expects a closure", fname);
  tvm_vm_closure_obj* clo =
      (tvm_vm_closure_obj*)tvm_ffi_arg_object(fname, args, 0, tvm_vm__closure_type_index());
  if (!clo) return -1;
  void* impl = tvm_vm__bind_last_args(clo->impl, args + 1, n - 1);
  if (!impl) return -1;
  TVMFFIByteArray name = tvm_ffi_str_view(clo->func_name);
  tvm_vm_closure_obj* out = tvm_vm__closure_new(name.data, name.size, impl);
  tvm_ffi_release(impl);
  if (!out) return -1;
  *rv = tvm_ffi_any_obj(out);
  return 0;
}

int tvm_vm__builtin_invoke_closure(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.invoke_closure";
  if (n < 2) return tvm_ffi_raise("TypeError", "%s expects the VM and a closure", fname);
  tvm_vm_state* vm = tvm_vm__state_from_arg(fname, &args[0]);
  if (!vm) return -1;
  return tvm_vm__invoke_closure(vm, &args[1], args + 2, n - 2, rv);
}

int tvm_vm__builtin_call_tir_dyn(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.call_tir_dyn";
  if (n < 2) return tvm_ffi_raise("TypeError", "%s expects a function and a shape", fname);
  void* func = tvm_ffi_arg_object(fname, args, 0, kTVMFFIFunction);
  const int64_t* dims;
  int64_t ndim;
  if (!func || !arg_shape(fname, args, n - 1, &dims, &ndim)) return -1;
  int64_t total = (int64_t)(n - 2) + ndim;
  if (total > INT32_MAX) return tvm_ffi_raise("ValueError", "%s: too many arguments", fname);
  TVMFFIAny small[32];
  TVMFFIAny* all = total <= 32 ? small : (TVMFFIAny*)tvm_ffi_malloc((size_t)total * sizeof(TVMFFIAny));
  if (!all) return -1;
  if (n > 2) memcpy(all, args + 1, (size_t)(n - 2) * sizeof(TVMFFIAny));
  for (int64_t i = 0; i < ndim; ++i) all[n - 2 + i] = tvm_ffi_any_int(dims[i]);
  int rc = tvm_ffi_function_call(func, all, (int32_t)total, rv);
  if (all != small) tvm_ffi_free(all);
  return rc;
}

/* ---- Runtime operators -------------------------------------------------------------------- */
int tvm_vm__builtin_shape_of(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.shape_of";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  const DLTensor* t = tvm_vm__arg_tensor(fname, args, 0);
  if (!t) return -1;
  void* s = tvm_ffi_shape_new(t->shape, t->ndim);
  if (!s) return -1;
  *rv = tvm_ffi_any_obj(s);
  return 0;
}

int tvm_vm__builtin_copy(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("vm.builtin.copy", n, 1)) return -1;
  return tvm_ffi_any_to_owned(&args[0], rv);
}

int tvm_vm__builtin_reshape(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.reshape";
  const int64_t* dims;
  int64_t ndim;
  if (!tvm_ffi_check_num_args(fname, n, 2) || !arg_shape(fname, args, 1, &dims, &ndim)) return -1;
  void* src = tvm_ffi_arg_object(fname, args, 0, kTVMFFITensor);
  if (!src) return -1;
  const DLTensor* t = tvm_ffi_tensor_dl(src);
  int64_t numel = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    if (dims[d] < 0 || __builtin_mul_overflow(numel, dims[d], &numel)) {
      return tvm_ffi_raise("ValueError", "%s: bad shape (dimension %lld is %lld)", fname,
                           (long long)d, (long long)dims[d]);
    }
  }
  if (ndim > TVM_VM_MAX_TENSOR_NDIM || numel != tvm_ffi_dltensor_numel(t) ||
      !tvm_ffi_dltensor_is_contiguous(t)) {
    return tvm_ffi_raise("ValueError",
                         "%s: cannot view a %s tensor of %lld elements with a shape of %lld "
                         "elements",
                         fname, tvm_ffi_dltensor_is_contiguous(t) ? "compact" : "strided",
                         (long long)tvm_ffi_dltensor_numel(t), (long long)numel);
  }
  DLTensor proto = *t;
  proto.ndim = (int32_t)ndim;
  proto.shape = (int64_t*)dims;
  proto.strides = NULL;
  void* out = NULL;
  if (TVMFFITensorCreateUnsafeView(src, &proto, &out) != 0) return -1;
  *rv = tvm_ffi_any_obj(out);
  return 0;
}

int tvm_vm__builtin_null_value(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  if (!tvm_ffi_check_num_args("vm.builtin.null_value", n, 0)) return -1;
  *rv = tvm_ffi_any_none();
  return 0;
}

int tvm_vm__builtin_to_device(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.to_device";
  int64_t type, id;
  if (!tvm_ffi_check_num_args(fname, n, 3) || !tvm_ffi_arg_int(fname, args, 1, &type) ||
      !tvm_ffi_arg_int(fname, args, 2, &id)) {
    return -1;
  }
  const DLTensor* t = tvm_vm__arg_tensor(fname, args, 0);
  if (!t) return -1;
  if (type < 0 || type > INT32_MAX || id < 0 || id > INT32_MAX) {
    return tvm_ffi_raise("ValueError", "%s: bad device (%lld, %lld)", fname, (long long)type, (long long)id);
  }
  void* c = tvm_vm__tensor_to_device(t, TVMFFIDLDeviceFromIntPair((int32_t)type, (int32_t)id), NULL);
  if (!c) return -1;
  *rv = tvm_ffi_any_obj(c);
  return 0;
}

int tvm_vm__builtin_read_if_cond(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.read_if_cond";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  if (args[0].type_index == kTVMFFIInt || args[0].type_index == kTVMFFIBool) {
    *rv = tvm_ffi_any_bool(args[0].v_int64 != 0);
    return 0;
  }
  const DLTensor* t = tvm_vm__arg_tensor(fname, args, 0);
  if (!t) return -1;
  if ((t->dtype.code != kDLInt && t->dtype.code != kDLUInt && t->dtype.code != kDLBool) ||
      t->dtype.lanes != 1 || tvm_ffi_dltensor_numel(t) < 1 ||
      (t->dtype.bits != 1 && t->dtype.bits != 8 && t->dtype.bits != 16 && t->dtype.bits != 32 &&
       t->dtype.bits != 64)) {
    return tvm_ffi_raise("TypeError", "%s: the condition must be a bool or an integer scalar tensor",
                         fname);
  }
  int64_t nbytes = t->dtype.bits <= 8 ? 1 : t->dtype.bits / 8;
  uint8_t buf[8] = {0};
  int rc = 0;
  if (t->device.device_type == kDLCPU) {
    memcpy(buf, (const char*)t->data + t->byte_offset, (size_t)nbytes);
  } else {
    const tvm_vm_device_api* api = tvm_vm__device_api(t->device);
    rc = api ? api->copy((const char*)t->data + t->byte_offset, t->device, buf,
                         TVMFFIDLDeviceFromIntPair(kDLCPU, 0), (size_t)nbytes)
             : -1;
  }
  if (rc != 0) return -1;
  int64_t v = 0;
  switch (nbytes) {
    case 1: { int8_t x; memcpy(&x, buf, 1); v = x; break; }
    case 2: { int16_t x; memcpy(&x, buf, 2); v = x; break; }
    case 4: { int32_t x; memcpy(&x, buf, 4); v = x; break; }
    default: memcpy(&v, buf, 8); break;
  }
  *rv = tvm_ffi_any_bool(v != 0);
  return 0;
}

int tvm_vm__builtin_tensor_to_shape(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.tensor_to_shape";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  const DLTensor* t = tvm_vm__arg_tensor(fname, args, 0);
  if (!t) return -1;
  if (t->ndim != 1 || t->dtype.code != kDLInt || t->dtype.lanes != 1 ||
      (t->dtype.bits != 16 && t->dtype.bits != 32 && t->dtype.bits != 64)) {
    return tvm_ffi_raise("TypeError", "%s: expected a 1-D int16/int32/int64 tensor", fname);
  }
  void* cpu = NULL;
  if (t->device.device_type != kDLCPU || !tvm_ffi_dltensor_is_contiguous(t)) {
    if (!(cpu = tvm_vm__tensor_copy_to_cpu(t))) return -1;
    t = tvm_ffi_tensor_dl(cpu);
  }
  int64_t len = t->shape[0], width = t->dtype.bits / 8;
  int64_t* dims = (int64_t*)tvm_ffi_malloc((size_t)(len ? len : 1) * 8);
  const char* p = (const char*)t->data + t->byte_offset;
  for (int64_t i = 0; dims && i < len; ++i) {
    if (width == 2) { int16_t x; memcpy(&x, p + 2 * i, 2); dims[i] = x; }
    else if (width == 4) { int32_t x; memcpy(&x, p + 4 * i, 4); dims[i] = x; }
    else memcpy(&dims[i], p + 8 * i, 8);
  }
  void* s = dims ? tvm_ffi_shape_new(dims, len) : NULL;
  tvm_ffi_free(dims);
  tvm_ffi_release(cpu);
  if (!s) return -1;
  *rv = tvm_ffi_any_obj(s);
  return 0;
}

int tvm_vm__builtin_ensure_zero_offset(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.ensure_zero_offset";
  if (!tvm_ffi_check_num_args(fname, n, 1)) return -1;
  void* src = tvm_ffi_arg_object(fname, args, 0, kTVMFFITensor);
  if (!src) return -1;
  const DLTensor* t = tvm_ffi_tensor_dl(src);
  if (t->byte_offset == 0) {
    *rv = tvm_ffi_any_copy(&args[0]);
    return 0;
  }
  /* CPU and CUDA support pointer arithmetic on device addresses. */
  DLTensor proto = *t;
  proto.data = (char*)t->data + t->byte_offset;
  proto.byte_offset = 0;
  void* out = NULL;
  if (TVMFFITensorCreateUnsafeView(src, &proto, &out) != 0) return -1;
  *rv = tvm_ffi_any_obj(out);
  return 0;
}

int tvm_vm__builtin_tensor_create_view(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "runtime.TVMTensorCreateView";
  const int64_t* dims;
  int64_t ndim, rel;
  if (!tvm_ffi_check_num_args(fname, n, 4) || !arg_shape(fname, args, 1, &dims, &ndim) ||
      !tvm_ffi_arg_int(fname, args, 3, &rel)) {
    return -1;
  }
  if (args[2].type_index != kTVMFFIDataType) {
    return tvm_ffi_raise("TypeError", "%s: argument 2 must be a dtype but got %s", fname,
                         tvm_ffi_any_type_name(&args[2]));
  }
  void* src = tvm_ffi_arg_object(fname, args, 0, kTVMFFITensor);
  if (!src) return -1;
  const DLTensor* t = tvm_ffi_tensor_dl(src);
  DLDataType dtype = args[2].v_dtype;
  int64_t numel = 1;
  for (int64_t d = 0; d < ndim; ++d) {
    if (dims[d] < 0 || __builtin_mul_overflow(numel, dims[d], &numel)) {
      return tvm_ffi_raise("ValueError", "%s: bad shape (dimension %lld is %lld)", fname,
                           (long long)d, (long long)dims[d]);
    }
  }
  int64_t have = tvm_ffi_dltensor_numel(t) * (((int64_t)t->dtype.bits * t->dtype.lanes + 7) / 8);
  int64_t need;
  if (__builtin_mul_overflow(numel, ((int64_t)dtype.bits * dtype.lanes + 7) / 8, &need) ||
      ndim > TVM_VM_MAX_TENSOR_NDIM || rel < 0 || need > have - rel ||
      !tvm_ffi_dltensor_is_contiguous(t)) {
    return tvm_ffi_raise("ValueError",
                         "%s: a view of %lld elements of %d bits at byte offset %lld does not fit "
                         "in a %s tensor of %lld bytes",
                         fname, (long long)numel, (int)dtype.bits * dtype.lanes, (long long)rel,
                         tvm_ffi_dltensor_is_contiguous(t) ? "compact" : "strided", (long long)have);
  }
  DLTensor proto = *t;
  proto.ndim = (int32_t)ndim;
  proto.shape = (int64_t*)dims;
  proto.strides = NULL;
  proto.dtype = dtype;
  /* The offset goes into the data pointer where the device allows pointer arithmetic, so
   * that kernels (whose buffers have no element offset) can take the view. */
  DLDeviceType dev = t->device.device_type;
  if (dev == kDLCPU || dev == kDLCUDA || dev == kDLCUDAHost) {
    proto.data = (char*)t->data + t->byte_offset + rel;
    proto.byte_offset = 0;
  } else {
    proto.byte_offset = t->byte_offset + (uint64_t)rel;
  }
  void* out = NULL;
  if (TVMFFITensorCreateUnsafeView(src, &proto, &out) != 0) return -1;
  *rv = tvm_ffi_any_obj(out);
  return 0;
}

/* ---- relax.run.*: shape_to_tensor, print, assert_op -------------------------------------- */
int tvm_vm__builtin_shape_to_tensor(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "relax.run.shape_to_tensor";
  const int64_t* dims;
  int64_t ndim;
  if (!tvm_ffi_check_num_args(fname, n, 1) || !arg_shape(fname, args, 0, &dims, &ndim)) return -1;
  void* t = tvm_ffi_tensor_empty(&ndim, 1, tvm_ffi_dtype(kDLInt, 64, 1), (DLDevice){kDLCPU, 0});
  if (!t) return -1;
  if (ndim) memcpy(tvm_ffi_tensor_dl(t)->data, dims, (size_t)ndim * sizeof(int64_t));
  *rv = tvm_ffi_any_obj(t);
  return 0;
}

/* The text of format.format(*args) (format "": the rendered args joined by sep) into out, with
 * tensors off the CPU copied to it first. 0 or -1 + error. */
static int format_args(const char* fname, const TVMFFIAny* fmt, const TVMFFIAny* args, int32_t n,
                       const char* sep, tvm_ffi_strbuf* out) {
  TVMFFIByteArray f;
  if (!tvm_ffi_any_as_bytes(fmt, &f)) {
    return tvm_ffi_raise("TypeError", "%s: the format must be a string, got %s", fname,
                         tvm_ffi_any_type_name(fmt));
  }
  TVMFFIAny small[16];
  TVMFFIAny* vals = n <= 16 ? small : (TVMFFIAny*)tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  if (!vals) return -1;
  int rc = 0;
  int32_t i = 0;
  for (; i < n && rc == 0; ++i) {
    const DLTensor* t = args[i].type_index == kTVMFFITensor ? tvm_ffi_tensor_dl(args[i].v_obj)
                        : args[i].type_index == kTVMFFIDLTensorPtr ? (const DLTensor*)args[i].v_ptr
                                                                    : NULL;
    if (t && t->device.device_type != kDLCPU) {
      void* c = tvm_vm__tensor_copy_to_cpu(t);
      vals[i] = tvm_ffi_any_obj(c);
      if (!c) rc = -1;
    } else {
      vals[i] = tvm_ffi_any_copy(&args[i]);
    }
  }
  if (rc == 0) {
    rc = tvm_ffi__format_values(f, vals, n, sep, out);
    if (rc != 0) tvm_ffi_raise_context("%s: format \"%.*s\"", fname, (int)f.size, f.data);
  }
  for (int32_t k = 0; k < i; ++k) tvm_ffi_any_release(&vals[k]);
  if (vals != small) tvm_ffi_free(vals);
  return rc;
}

int tvm_vm__builtin_print(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "relax.run.print";
  if (n < 1) return tvm_ffi_raise("TypeError", "%s expects a format string", fname);
  tvm_ffi_strbuf text = {0};
  int rc = format_args(fname, &args[0], args + 1, n - 1, " ", &text);
  if (rc == 0) {
    tvm_ffi_strbuf_putc(&text, '\n');
    const char* s = tvm_ffi_strbuf_cstr(&text);
    size_t len = strlen(s);
    if (fwrite(s, 1, len, stdout) != len || fflush(stdout) != 0) {
      rc = tvm_ffi_raise("RuntimeError", "%s: writing to stdout failed", fname);
    }
  }
  tvm_ffi_strbuf_free(&text);
  *rv = tvm_ffi_any_none();
  return rc;
}

int tvm_vm__builtin_assert_op(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "relax.run.assert_op";
  if (n < 2) return tvm_ffi_raise("TypeError", "%s expects a condition and a format string", fname);
  TVMFFIByteArray f;
  if (!tvm_ffi_any_as_bytes(&args[1], &f)) {
    return tvm_ffi_raise("TypeError", "%s: the format must be a string, got %s", fname,
                         tvm_ffi_any_type_name(&args[1]));
  }
  bool holds;
  if (args[0].type_index == kTVMFFIBool || args[0].type_index == kTVMFFIInt) {
    holds = args[0].v_int64 != 0;
  } else {
    const DLTensor* t = tvm_vm__arg_tensor(fname, args, 0);
    if (!t) return -1;
    bool is_bool = t->dtype.lanes == 1 && (t->dtype.code == kDLBool || (t->dtype.code == kDLUInt && t->dtype.bits == 1));
    if (!is_bool || t->ndim != 0) {
      return tvm_ffi_raise("ValueError", "%s: the condition must be a bool scalar, got a tensor of %d dims and dtype code %d",
                           fname, (int)t->ndim, (int)t->dtype.code);
    }
    uint8_t b = 0;
    if (t->device.device_type == kDLCPU) {
      b = *((const uint8_t*)t->data + t->byte_offset);
    } else {
      const tvm_vm_device_api* api = tvm_vm__device_api(t->device);
      if (!api || api->copy((const char*)t->data + t->byte_offset, t->device, &b,
                            TVMFFIDLDeviceFromIntPair(kDLCPU, 0), 1) != 0) {
        return -1;
      }
    }
    holds = b != 0;
  }
  *rv = tvm_ffi_any_none();
  if (holds) return 0;
  tvm_ffi_strbuf text = {0};
  int rc = 0;
  if (n == 2 && f.size == 0) {
    tvm_ffi_strbuf_puts(&text, "Assertion Failed");
  } else {
    rc = format_args(fname, &args[1], args + 2, n - 2, ", ", &text);
  }
  if (rc == 0) rc = tvm_ffi_raise("AssertionError", "%s", tvm_ffi_strbuf_cstr(&text));
  tvm_ffi_strbuf_free(&text);
  return rc;
}

/* ---- Tuples ------------------------------------------------------------------------------- */
int tvm_vm__builtin_tuple_getitem(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  const char* fname = "vm.builtin.tuple_getitem";
  int64_t i;
  if (!tvm_ffi_check_num_args(fname, n, 2) || !tvm_ffi_arg_int(fname, args, 1, &i)) return -1;
  void* arr = tvm_ffi_arg_object(fname, args, 0, kTVMFFIArray);
  if (!arr) return -1;
  int64_t size = tvm_ffi_seq_size(arr);
  if (i < 0 || i >= size) {
    return tvm_ffi_raise("IndexError", "%s: index %lld out of range for a tuple of %lld elements",
                         fname, (long long)i, (long long)size);
  }
  *rv = tvm_ffi_any_copy(tvm_ffi_seq_at(arr, i));
  return 0;
}

int tvm_vm__builtin_make_tuple(void* self, const TVMFFIAny* args, int32_t n, TVMFFIAny* rv) {
  TVMFFIAny small[16];
  TVMFFIAny* items = n <= 16 ? small : (TVMFFIAny*)tvm_ffi_calloc((size_t)n, sizeof(TVMFFIAny));
  if (!items) return -1;
  int rc = 0;
  int32_t done = 0;
  for (; done < n && rc == 0; ++done) rc = tvm_ffi_any_to_owned(&args[done], &items[done]);
  if (rc != 0) done--;
  void* arr = rc == 0 ? tvm_ffi_array_new_take(items, n) : NULL;
  for (int32_t i = 0; i < done; ++i) tvm_ffi_any_release(&items[i]);
  if (items != small) tvm_ffi_free(items);
  if (!arr) return -1;
  *rv = tvm_ffi_any_obj(arr);
  return 0;
}

/* ---- Registration ------------------------------------------------------------------------- */
int tvm_vm__register_builtins(void) {
#define TVM_VM_BUILTIN_REGISTER_(name, global, file) \
  if (tvm_ffi_global_register(global, tvm_vm__builtin_##name, true) != 0) return -1;
  TVM_VM_BUILTINS(TVM_VM_BUILTIN_REGISTER_)
#undef TVM_VM_BUILTIN_REGISTER_
  return 0;
}
