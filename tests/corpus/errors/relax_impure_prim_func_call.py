# expect: ValueError 21:13
# A PrimFunc that writes its argument is impure: calling it directly in a dataflow block is an
# error (upstream's is_pure_function).
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def fill(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            y = R.add(x, x)
            _ = cls.fill(y)
            R.output(y)
        return y
