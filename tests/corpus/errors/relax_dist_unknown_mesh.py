# expect: ValueError 11:43
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class M:
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @R.function
    def f(x: R.DTensor((4, 4), "float32", "mesh[1]", "R")):
        return x
