/*
 * tvm-private/vm.h: libvm's internals that the other libraries of this project call.
 * Not installed (see tvm-private/tir.h).
 */
#ifndef TVM_PRIVATE_VM_H_
#define TVM_PRIVATE_VM_H_

#ifdef __cplusplus
extern "C" {
#endif

/* The compute capability of CUDA device device_id (loading the driver): 0 and *major / *minor,
 * or -1 with a RuntimeError (no driver, no such device). */
int tvm_vm__cuda_compute_capability(int device_id, int* major, int* minor);

#ifdef __cplusplus
}
#endif
#endif /* TVM_PRIVATE_VM_H_ */
