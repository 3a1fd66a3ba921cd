# A PrimFunc that calls itself through its GlobalVar.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def fib(n: T.int32) -> T.int32:
        cls = Module
        if n < 2:
            T.ret(n)
        T.ret(cls.fib(n - 1) + cls.fib(n - 2))

    @T.prim_func
    def main(A: T.Buffer((12,), "int32")):
        cls = Module
        for i in range(12):
            A[i] = cls.fib(i)
