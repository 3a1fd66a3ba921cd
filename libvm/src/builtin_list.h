/*
 * builtin_list.h: the one list of the VM's built-in global functions. Declarations, the
 * registration loop and the documentation below all derive from it.
 *
 * X(c_name, "global name", file): implemented as tvm_vm__builtin_<c_name> (a safe-call
 * function) in builtins_<file>.c. Argument conventions follow apache/tvm
 * src/runtime/vm/builtin.cc ("vm" is the VM context, the %vm register):
 *
 *   alloc_shape_heap(vm, size)                       int64[size] tensor on the host device
 *   match_shape(value, heap, n, code_0, r_0, ..., code_{n-1}, r_{n-1} [, err_ctx])
 *   make_shape(heap, n, code_0, r_0, ...)            -> Shape
 *   match_prim_value(value, heap, code, r [, err_ctx])
 *   make_prim_value(heap, code, r)                   -> int
 *   check_tensor_info(value, ndim [, dtype], err_ctx)  ndim -1: any; dtype void: any
 *   check_shape_info(value, ndim, err_ctx)
 *   check_prim_value_info(value, dtype, err_ctx)
 *   check_tuple_info(value, size, err_ctx)
 *   check_func_info(value, err_ctx)
 *   alloc_storage(vm, shape, device_index, dtype_hint [, mem_scope])   -> vm.Storage
 *   alloc_tensor(storage, offset, shape, dtype [, mem_scope])          -> Tensor view
 *   make_closure(closure, args...)                   -> closure with trailing args bound
 *   invoke_closure(vm, closure_or_function, args...)
 *   call_tir_dyn(func, args..., shape)               func(args..., *shape)
 *   shape_of(tensor) -> Shape      copy(x) -> x      reshape(tensor, shape) -> view
 *   null_value() -> None           to_device(tensor, device_type, device_id) -> copy
 *   read_if_cond(bool | int | scalar int tensor) -> bool
 *   tuple_getitem(tuple, i)        make_tuple(args...) -> Array
 *   tensor_to_shape(int tensor) -> Shape            ensure_zero_offset(tensor) -> tensor
 *   runtime.TVMTensorCreateView(tensor, shape, dtype, relative_byte_offset) -> a view of the
 *                                        compact tensor's bytes from its offset plus the relative
 *                                        one (R.memory.view; ValueError past the tensor's bytes)
 *   cuda_time_launches(device_id, fn, repeat) -> float   (device_cuda.c) the milliseconds
 *                                        between two CUDA events recorded on the device's
 *                                        stream around `repeat` calls of fn() (which launches
 *                                        on that stream), after waiting for the second
 *
 * and upstream's runtime functions of Relax operators (relax.run.*, registered by its Python
 * package; here part of the runtime, so that a compiled model needs no Python):
 *
 *   shape_to_tensor(shape) -> int64 tensor on the host
 *   print(format, args...)               Python's format.format(*args) (or the args joined by
 *                                        spaces when format is ""), a line on stdout
 *   assert_op(cond, format, args...)     AssertionError "<format.format(*args)>" when cond (a
 *                                        bool / int, or a bool scalar tensor) is false; the args
 *                                        joined by ", " when format is "", else "Assertion Failed"
 */
#ifndef TVM_VM_SRC_BUILTIN_LIST_H_
#define TVM_VM_SRC_BUILTIN_LIST_H_

#include "internal.h"

#define TVM_VM_BUILTINS(X)                                                   \
  X(alloc_shape_heap, "vm.builtin.alloc_shape_heap", shape)                  \
  X(match_shape, "vm.builtin.match_shape", shape)                            \
  X(make_shape, "vm.builtin.make_shape", shape)                              \
  X(match_prim_value, "vm.builtin.match_prim_value", shape)                  \
  X(make_prim_value, "vm.builtin.make_prim_value", shape)                    \
  X(check_tensor_info, "vm.builtin.check_tensor_info", shape)                \
  X(check_shape_info, "vm.builtin.check_shape_info", shape)                  \
  X(check_prim_value_info, "vm.builtin.check_prim_value_info", shape)        \
  X(check_tuple_info, "vm.builtin.check_tuple_info", shape)                  \
  X(check_func_info, "vm.builtin.check_func_info", shape)                    \
  X(alloc_storage, "vm.builtin.alloc_storage", runtime)                      \
  X(alloc_tensor, "vm.builtin.alloc_tensor", runtime)                        \
  X(make_closure, "vm.builtin.make_closure", runtime)                        \
  X(invoke_closure, "vm.builtin.invoke_closure", runtime)                    \
  X(call_tir_dyn, "vm.builtin.call_tir_dyn", runtime)                        \
  X(shape_of, "vm.builtin.shape_of", runtime)                                \
  X(copy, "vm.builtin.copy", runtime)                                        \
  X(reshape, "vm.builtin.reshape", runtime)                                  \
  X(null_value, "vm.builtin.null_value", runtime)                            \
  X(to_device, "vm.builtin.to_device", runtime)                              \
  X(read_if_cond, "vm.builtin.read_if_cond", runtime)                        \
  X(tuple_getitem, "vm.builtin.tuple_getitem", runtime)                      \
  X(make_tuple, "vm.builtin.make_tuple", runtime)                            \
  X(tensor_to_shape, "vm.builtin.tensor_to_shape", runtime)                  \
  X(ensure_zero_offset, "vm.builtin.ensure_zero_offset", runtime)            \
  X(tensor_create_view, "runtime.TVMTensorCreateView", runtime)             \
  X(cuda_time_launches, "vm.builtin.cuda_time_launches", cuda)               \
  X(shape_to_tensor, "relax.run.shape_to_tensor", runtime)                   \
  X(print, "relax.run.print", runtime)                                       \
  X(assert_op, "relax.run.assert_op", runtime)

#define TVM_VM_BUILTIN_DECL_(name, global, file)                                         \
  int tvm_vm__builtin_##name(void* self, const TVMFFIAny* args, int32_t num_args, \
                             TVMFFIAny* rv);
TVM_VM_BUILTINS(TVM_VM_BUILTIN_DECL_)
#undef TVM_VM_BUILTIN_DECL_

/* Argument helpers shared by the builtin files; each raises a TypeError/ValueError naming the
 * builtin and the argument. */
/* A tensor argument (Tensor object or DLTensor*). */
const DLTensor* tvm_vm__arg_tensor(const char* fname, const TVMFFIAny* args, int32_t i);
/* An optional error-context string (None or a string; "" when absent). */
TVMFFIByteArray tvm_vm__err_ctx(const TVMFFIAny* args, int32_t num_args, int32_t i);
/* A data type argument (DataType or its string). */
bool tvm_vm__arg_dtype(const char* fname, const TVMFFIAny* args, int32_t i, DLDataType* out);

#endif /* TVM_VM_SRC_BUILTIN_LIST_H_ */
