# expect: ValueError 18:13
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def good(A: T.Buffer((8,), "float32")):
        for i in range(8):
            x: T.int32 = i
            A[i] = T.Cast("float32", x)

    @T.prim_func
    def bad(A: T.Buffer((8,), "float32")):
        x = T.int32()
        for i in range(8):
            A[i] = T.Cast("float32", x)
