# A PrimFunc called directly (not through call_tir) is pure when its body is (it stores only
# into its own allocations and calls no impure operator), as upstream infers a PrimFunc's struct
# info: such a call may stand in a dataflow block and in a pure function.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def nop(A: T.handle, B: T.handle):
        T.evaluate(0)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        with R.dataflow():
            gv = R.add(x, x)
            _ = cls.nop(x, gv)
            R.output(gv)
        return gv
