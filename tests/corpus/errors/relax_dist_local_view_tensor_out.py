# expect: TypeError 21:13
# R.dist.call_tir_local_view's outputs are DTensors of known shape (upstream's MakeCallTIRLocalView).
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @T.prim_func(private=True)
    def copy(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("B"):
                vi = T.axis.spatial(4, i)
                B[vi] = A[vi]

    @R.function
    def main(x: R.DTensor((8,), "float32", "mesh[0]", "S[0]")):
        y = R.dist.call_tir_local_view(Module.copy, (x,), out_sinfo=R.Tensor((8,), "float32"))
        return y
