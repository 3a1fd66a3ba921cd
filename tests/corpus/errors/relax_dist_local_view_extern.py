# expect: TypeError 13:13
# R.dist.call_tir_local_view calls a PrimFunc of the module (a GlobalVar), not a packed function.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @R.function
    def main(x: R.DTensor((8,), "float32", "mesh[0]", "S[0]")):
        y = R.dist.call_tir_local_view(R.ExternFunc("copy"), (x,), out_sinfo=R.DTensor((8,), "float32", "mesh[0]", "S[0]"))
        return y
