# A module whose functions call each other through `cls`.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def square(x: T.int32) -> T.int32:
        T.ret(x * x)

    @T.prim_func
    def add_squares(x: T.int32, y: T.int32) -> T.int32:
        cls = Module
        T.ret(cls.square(x) + cls.square(y))

    @T.prim_func
    def main(A: T.Buffer((16,), "int32")):
        cls = Module
        for i in range(16):
            A[i] = cls.add_squares(i, 3)
