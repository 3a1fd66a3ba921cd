# expect: ValueError 15:9
# A Relax module's ill-formed function is reported at its own def (the first def is another).
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((4,), "float32")):
        A[0] = T.float32(1.0)

    @R.function(pure=False)
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        R.func_attr({"relax.force_pure": True})
        return x
