# Buffers that view memory declared elsewhere, without a T.decl_buffer: a flat T.Buffer over a
# parameter's `A.data` (the form of flattened code), a 2-D view over an allocation, and
# `A.access_ptr(...)` (upstream's Buffer method) passed to an extern-free consumer.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def flat_view(a: T.handle, c: T.handle):
        A2 = T.match_buffer(a, (6, 8), "float32")
        C2 = T.match_buffer(c, (6, 8), "float32")
        A = T.Buffer((48,), "float32", data=A2.data)
        C = T.Buffer((48,), "float32", data=C2.data)
        for i, j in T.grid(6, 8):
            C[i * 8 + j] = A[i * 8 + j] * T.float32(3) + A[j]

    @T.prim_func
    def strided_view(A: T.Buffer((4, 4), "int32"), C: T.Buffer((4, 4), "int32")):
        tmp_data = T.allocate([40], "int32", "global")
        tmp = T.Buffer((4, 4), "int32", data=tmp_data, strides=(10, 2))
        for i, j in T.grid(4, 4):
            tmp[i, j] = A[j, i] + i
        for i, j in T.grid(4, 4):
            C[i, j] = tmp[i, j] - A[i, j]

    @T.prim_func
    def access_ptr_method(A: T.Buffer((16,), "float32"), B: T.Buffer((4, 8), "float32")):
        T.evaluate(A.access_ptr("r"))
        T.evaluate(B.access_ptr("rw", offset=8, extent=8))
        for i in range(16):
            A[i] = A[i] + T.float32(1)
