# Buffer shapes that are expressions of a scalar parameter listed after the buffers, and a view
# whose shape is a let-bound expression of it.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def scaled(a: T.handle, c: T.handle, n: T.int32):
        A = T.match_buffer(a, (n * 4,), "float32")
        C = T.match_buffer(c, (n * 4,), "float32")
        for i in range(n * 4):
            C[i] = A[i] + T.float32(1)

    @T.prim_func
    def let_view(a: T.handle, c: T.handle, n: T.int32):
        A = T.match_buffer(a, (n * 4,), "float32")
        C = T.match_buffer(c, (n * 4,), "float32")
        m: T.int32 = n * 2
        A2 = T.decl_buffer((m, 2), "float32", data=A.data)
        C2 = T.decl_buffer((m, 2), "float32", data=C.data)
        for i, j in T.grid(m, 2):
            C2[i, j] = A2[i, 1 - j]
