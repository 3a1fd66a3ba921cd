/*
 * abi_kernel.c: a kernel library written the way an outside kernel DSL emits one. It includes
 * only the tvm-ffi C ABI headers, exports `__tvm_ffi_<name>` safe-call functions (called with
 * handle == NULL) and is linked without libtvmffi: its TVMFFI* references resolve from the
 * process that loads it. Loaded by tests/ffi/test_abi_kernel.c.
 *
 * Also built with an ABI version record (ABI_VERSION / ABI_VERSION_SHORT, see below).
 */
#include <string.h>
#include <tvm/ffi/c_api.h>
#include <tvm/ffi/extra/c_env_api.h>

#define EXPORT __attribute__((visibility("default")))

/* The loader stores this library's module here (borrowed). */
EXPORT void* __tvm_ffi__library_ctx = NULL;
/* A context symbol: the test registers a value for it before loading. */
EXPORT void* __tvm_test_context_value = NULL;
/* A data object that looks like a function symbol: GetFunction("not_a_function") must not
 * return something that calls it. */
EXPORT int __tvm_ffi_not_a_function = 5;

/* The tvm-ffi ABI version record (__tvm_ffi__abi_version, read by libtvmffi's loader): the
 * plain build has none, like upstream's and hand-built libraries; the abi_version_* builds
 * record ABI_VERSION (major, minor, patch), or a record too short to hold one. */
#if defined(ABI_VERSION)
EXPORT const uint32_t __tvm_ffi__abi_version[3] = {ABI_VERSION};
#elif defined(ABI_VERSION_SHORT)
EXPORT const uint16_t __tvm_ffi__abi_version[1] = {0};
#endif

static int fail(const char* kind, const char* message) {
  TVMFFIErrorSetRaisedFromCStr(kind, message);
  return -1;
}

static int return_string(const char* s, TVMFFIAny* result) {
  TVMFFIByteArray b = {s, strlen(s)};
  return TVMFFIStringFromByteArray(&b, result);
}

/* The DLTensor of an argument passed as a DLTensor pointer or as an ffi.Tensor, or NULL. */
static DLTensor* tensor_arg(const TVMFFIAny* arg) {
  if (arg->type_index == kTVMFFIDLTensorPtr) return (DLTensor*)arg->v_ptr;
  if (arg->type_index == kTVMFFITensor) return TVMFFITensorGetDLTensorPtr(arg->v_obj);
  return NULL;
}

static int check_vector(const DLTensor* t, const char* what) {
  char msg[128];
  if (t->dtype.code != kDLFloat || t->dtype.bits != 32 || t->dtype.lanes != 1) {
    strcpy(msg, "add_one: ");
    strcat(msg, what);
    strcat(msg, " must be float32");
    return fail("TypeError", msg);
  }
  if (t->ndim != 1 || t->device.device_type != kDLCPU || (t->strides && t->strides[0] != 1)) {
    strcpy(msg, "add_one: ");
    strcat(msg, what);
    strcat(msg, " must be a compact 1-D CPU tensor");
    return fail("ValueError", msg);
  }
  return 0;
}

/* add_one(x, y): y[i] = x[i] + 1 for float32 vectors of one length. */
EXPORT int __tvm_ffi_add_one(void* handle, const TVMFFIAny* args, int32_t num_args,
                             TVMFFIAny* result) {
  if (num_args != 2) return fail("TypeError", "add_one: expected 2 arguments (x, y)");
  DLTensor* x = tensor_arg(&args[0]);
  DLTensor* y = tensor_arg(&args[1]);
  if (!x || !y) return fail("TypeError", "add_one: arguments must be tensors");
  if (check_vector(x, "x") != 0 || check_vector(y, "y") != 0) return -1;
  if (x->shape[0] != y->shape[0]) return fail("ValueError", "add_one: x and y differ in length");
  const float* xp = (const float*)((const char*)x->data + x->byte_offset);
  float* yp = (float*)((char*)y->data + y->byte_offset);
  for (int64_t i = 0; i < x->shape[0]; ++i) yp[i] = xp[i] + 1.0f;
  return 0;
}

EXPORT int __tvm_ffi__metadata_add_one(void* handle, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
  return return_string(
      "{\"type_schema\": \"(Tensor, Tensor) -> None\", \"arg_const\": [true, false]}", result);
}

EXPORT int __tvm_ffi__doc_add_one(void* handle, const TVMFFIAny* args, int32_t num_args,
                                  TVMFFIAny* result) {
  return return_string("y = x + 1 for float32 vectors", result);
}

EXPORT int __tvm_ffi_raise_error(void* handle, const TVMFFIAny* args, int32_t num_args,
                                 TVMFFIAny* result) {
  return fail("ValueError", "raise_error: this kernel always fails");
}

/* The current CUDA stream of device 0, as an opaque pointer (None for the default stream). */
EXPORT int __tvm_ffi_get_stream(void* handle, const TVMFFIAny* args, int32_t num_args,
                                TVMFFIAny* result) {
  void* stream = TVMFFIEnvGetStream(kDLCUDA, 0);
  if (stream) {
    result->type_index = kTVMFFIOpaquePtr;
    result->zero_padding = 0;
    result->v_ptr = stream;
  }
  return 0;
}

/* call_import(name, args...): call function `name` found from this library's imports (or the
 * global registry) through __tvm_ffi__library_ctx. */
EXPORT int __tvm_ffi_call_import(void* handle, const TVMFFIAny* args, int32_t num_args,
                                 TVMFFIAny* result) {
  char name[128];
  const char* data;
  size_t size;
  if (num_args < 1) return fail("TypeError", "call_import: expected the function name first");
  if (args[0].type_index == kTVMFFIRawStr) {
    data = args[0].v_c_str;
    size = strlen(data);
  } else if (args[0].type_index == kTVMFFISmallStr) {
    data = args[0].v_bytes;
    size = args[0].small_str_len;
  } else if (args[0].type_index == kTVMFFIStr) {
    data = TVMFFIBytesGetByteArrayPtr(args[0].v_obj)->data;
    size = TVMFFIBytesGetByteArrayPtr(args[0].v_obj)->size;
  } else {
    return fail("TypeError", "call_import: the function name must be a str");
  }
  if (size >= sizeof(name)) return fail("ValueError", "call_import: function name too long");
  memcpy(name, data, size);
  name[size] = '\0';
  TVMFFIObjectHandle f;
  if (TVMFFIEnvModLookupFromImports(__tvm_ffi__library_ctx, name, &f) != 0) return -1;
  /* f is borrowed from the module's cache: no DecRef. */
  return TVMFFIFunctionCall(f, (TVMFFIAny*)(args + 1), num_args - 1, result);
}

EXPORT int __tvm_ffi_get_context_value(void* handle, const TVMFFIAny* args, int32_t num_args,
                                       TVMFFIAny* result) {
  result->type_index = __tvm_test_context_value ? kTVMFFIOpaquePtr : kTVMFFINone;
  result->zero_padding = 0;
  result->v_ptr = __tvm_test_context_value;
  return 0;
}

EXPORT int __tvm_ffi_get_library_ctx(void* handle, const TVMFFIAny* args, int32_t num_args,
                                     TVMFFIAny* result) {
  result->type_index = __tvm_ffi__library_ctx ? kTVMFFIOpaquePtr : kTVMFFINone;
  result->zero_padding = 0;
  result->v_ptr = __tvm_ffi__library_ctx;
  return 0;
}

/* The default entry: returns the sum of its int arguments. */
EXPORT int __tvm_ffi_main(void* handle, const TVMFFIAny* args, int32_t num_args,
                          TVMFFIAny* result) {
  int64_t sum = 0;
  for (int32_t i = 0; i < num_args; ++i) {
    if (args[i].type_index != kTVMFFIInt) return fail("TypeError", "main: expected int arguments");
    sum += args[i].v_int64;
  }
  result->type_index = kTVMFFIInt;
  result->zero_padding = 0;
  result->v_int64 = sum;
  return 0;
}
