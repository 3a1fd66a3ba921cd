# expect: ValueError 17:48
# A vdevice list holding something other than devices (here an int, -1) is searched for
# devices only: "llvm:1" names a second llvm device, which this module lacks.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Devices:
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), -1, 1]})

    @R.function
    def main(
        x: R.Tensor((2, 3), "float32", vdevice="llvm:0"),
    ) -> R.Tensor((2, 3), "float32", vdevice="llvm:0"):
        lv = R.add(x, x)
        y: R.Tensor((2, 3), "float32", vdevice="llvm:1") = lv
        return lv
