# expect: NameError 19:24
# A module function called by its bare name: current upstream's parser declares it only on
# the class (cls.add); the error says so.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T

@I.ir_module
class Module:
    @T.prim_func
    def add(a: T.Buffer((4,), "float32"), b: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                b[vi] = a[vi]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        y = R.call_tir(add, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
