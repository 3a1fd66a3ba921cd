# T.tvm_struct_get / T.tvm_struct_set: fields of a DLTensor passed as a handle (numbered as
# upstream's TVMStructFieldKind: 1 data, 2 shape, 3 strides, 4 ndim, 5-7 dtype code, bits and
# lanes, 9 device_id) and elements of an int64 array (17), as host code after MakePackedAPI
# reads them.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def elem_stride(t: T.handle, axis: T.int32) -> T.int64:
        ndim: T.int32 = T.tvm_struct_get(t, 0, 4, "int32")
        strides_ptr: T.handle("int64") = T.tvm_struct_get(t, 0, 3, "handle")
        if T.isnullptr(strides_ptr):
            shape_ptr: T.handle("int64") = T.tvm_struct_get(t, 0, 2, "handle")
            shape = T.decl_buffer((ndim,), "int64", data=shape_ptr)
            product = T.decl_buffer((1,), "int64")
            product[0] = T.int64(1)
            for d in range(axis + 1, ndim):
                product[0] = product[0] * shape[d]
            return product[0]
        else:
            strides = T.decl_buffer((ndim,), "int64", data=strides_ptr)
            return strides[axis]

    @T.prim_func
    def dtype_code(t: T.handle) -> T.int64:
        code: T.int64 = T.tvm_struct_get(t, 0, 5, "int64")
        bits: T.int32 = T.tvm_struct_get(t, 0, 6, "int32")
        lanes: T.int32 = T.tvm_struct_get(t, 0, 7, "int32")
        return code * T.int64(100000) + T.Cast("int64", bits * 100 + lanes)

    @T.prim_func
    def first_element(t: T.handle) -> T.float32:
        data: T.handle("float32") = T.tvm_struct_get(t, 0, 1, "handle")
        A = T.decl_buffer((1,), "float32", data=data)
        return A[0]

    @T.prim_func
    def set_device_id(t: T.handle, id: T.int32):
        T.tvm_struct_set(t, 0, 9, id)

    @T.prim_func
    def int64_elements(n: T.int32) -> T.int64:
        buf = T.decl_buffer((8,), "int64")
        for i in range(8):
            T.tvm_struct_set(buf.data, i, 17, T.Cast("int64", i * n))
        total: T.int64 = T.tvm_struct_get(buf.data, 3, 17, "int64") + T.tvm_struct_get(buf.data, 5, 17, "int64")
        return total
