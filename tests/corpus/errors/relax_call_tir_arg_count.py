# expect: ValueError 13:9
# Two inputs and an output passed to a PrimFunc of two parameters.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        b = R.call_tir(cls.copy, (a, a), out_sinfo=R.Tensor((4,), "float32"))
        return b

    @T.prim_func
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            B[i] = A[i]
