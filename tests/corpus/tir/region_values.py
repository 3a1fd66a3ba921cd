# A slice used as a value is the vector load of its elements, as upstream reads it:
# `B[0:4] = A[0:4] + A[4:8]` stores 4 lanes; a 2-d slice with one axis of extent > 1.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_halves(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        B[0:4] = A[0:4] + A[4:8]
        B[4:8] = -A[0:4]

    @T.prim_func
    def row_ops(A: T.Buffer((4, 8), "int32"), C: T.Buffer((4, 8), "int32")):
        for i in range(4):
            C[i, 0:8] = A[i, 0:8] * 3 + A[3 - i, 0:8]

    @T.prim_func
    def copy_slice(A: T.Buffer((16,), "int8"), B: T.Buffer((16,), "int8")):
        for j in range(4):
            B[j * 4:j * 4 + 4] = A[12 - j * 4:16 - j * 4]
