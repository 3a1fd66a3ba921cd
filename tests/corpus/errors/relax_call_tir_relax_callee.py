# expect: ValueError 17:9
# R.call_tir of a Relax function: its callee must be a PrimFunc (a Relax function is called
# directly). The compile pipeline failed on it with a message about argument counts.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    @R.function
    def g(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        return x

    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        cls = M
        y = R.call_tir(cls.g, (x,), out_sinfo=R.Tensor((2, 3), "float32"))
        return y
