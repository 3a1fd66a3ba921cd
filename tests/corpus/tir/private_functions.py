from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def helper(A: T.Buffer((8,), "int32")):
        for i in range(8):
            A[i] = i

    @T.prim_func
    def main(A: T.Buffer((8,), "int32")):
        T.func_attr({"global_symbol": "main"})
        for i in range(8):
            A[i] = A[i] + 1
