# Handle parameters that are not buffers: a buffer declared over one in the body (the caller
# passes an opaque pointer to its memory), and a handle returned as given (a DLTensor pointer
# arrives as itself, the address of the DLTensor, as in upstream's packed API). T.ptr("float32")
# is T.handle("float32") under upstream's other name.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def axpy(x: T.handle("float32"), y: T.handle("float32"), a: T.float32, n: T.int32):
        X = T.decl_buffer((n,), "float32", data=x)
        Y = T.decl_buffer((n,), "float32", data=y)
        for i in range(n):
            Y[i] = Y[i] + a * X[i]

    @T.prim_func
    def scale(x: T.ptr("float32"), n: T.int32):
        X = T.decl_buffer((n,), "float32", data=x)
        for i in range(n):
            X[i] = X[i] * T.float32(2)

    @T.prim_func
    def identity(p: T.handle) -> T.handle:
        T.ret(p)
