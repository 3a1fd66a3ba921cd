/* add_one.c: a kernel library as an outside DSL would export it (only the ABI headers). */
#include <tvm/ffi/c_api.h>

TVM_FFI_DLL_EXPORT int __tvm_ffi_add_one(void* handle, const TVMFFIAny* args, int32_t num_args,
                                         TVMFFIAny* result) {
  if (num_args != 2) {
    TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one expects 2 arguments");
    return -1;
  }
  DLTensor* t[2];
  for (int i = 0; i < 2; ++i) {
    if (args[i].type_index == kTVMFFIDLTensorPtr) {
      t[i] = (DLTensor*)args[i].v_ptr;
    } else if (args[i].type_index == kTVMFFITensor) {
      t[i] = TVMFFITensorGetDLTensorPtr(args[i].v_obj);
    } else {
      TVMFFIErrorSetRaisedFromCStr("TypeError", "add_one expects tensors");
      return -1;
    }
    if (t[i]->ndim != 1 || t[i]->dtype.code != kDLFloat || t[i]->dtype.bits != 32) {
      TVMFFIErrorSetRaisedFromCStr("ValueError", "add_one expects 1-D float32 tensors");
      return -1;
    }
  }
  const float* x = (const float*)((char*)t[0]->data + t[0]->byte_offset);
  float* y = (float*)((char*)t[1]->data + t[1]->byte_offset);
  for (int64_t i = 0; i < t[0]->shape[0]; ++i) y[i] = x[i] + 1.0f;
  return 0;
}
