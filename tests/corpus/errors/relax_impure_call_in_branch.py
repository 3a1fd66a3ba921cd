# expect: ValueError 20:13
# An impure call in an if branch of a pure function: reported at its statement.
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
    def main(x: R.Tensor((4,), "float32"), c: R.Tensor((), "bool")) -> R.Tensor((4,), "float32"):
        cls = Module
        if c:
            y = R.add(x, x)
            _ = cls.fill(y)
            w = y
        else:
            w = x
        return w
