# expect: TypeError 16:65
# A call of a Relax function takes sinfo_args as its only keyword.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        return x

    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        cls = Module
        y: R.Tensor((4,), dtype="float32") = cls.f(x, out_sinfo=R.Tensor((4,), dtype="float32"))
        return y
