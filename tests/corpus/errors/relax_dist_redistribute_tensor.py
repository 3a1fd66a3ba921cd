# expect: TypeError 12:33
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @R.function
    def f(x: R.Tensor((4, 4), "float32")):
        y = R.dist.redistribute(x, device_mesh="mesh[0]", placement="R")
        return y
