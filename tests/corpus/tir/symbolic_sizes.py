# Symbolic sizes declared in the body and used in buffer shapes and loop extents.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def scale(a: T.handle, b: T.handle, alpha: T.float32):
        n = T.int32()
        m = T.int32()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n, m), "float32")
        for i, j in T.grid(n, m):
            B[i, j] = A[i, j] * alpha

    @T.prim_func
    def scale64(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.float32(1)
