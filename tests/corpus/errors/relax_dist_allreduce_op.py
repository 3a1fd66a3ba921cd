# expect: ValueError 12:40
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @R.function
    def f(x: R.Tensor((8, 4), "float32")):
        y = R.ccl.allreduce(x, op_type="mean")
        return y
