# expect: ValueError 13:48
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global")]})

    @R.function
    def main(
        x: R.Tensor((2, 3), "float32", vdevice="llvm"),
        y: R.Tensor((2, 3), "float32", vdevice="llvm:1"),
    ) -> R.Tensor((2, 3), "float32"):
        return x
