# expect: AttributeError 12:9
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((4,), "int32")):
        cls = Module
        A[0] = 1
        cls.missing(A[0])
