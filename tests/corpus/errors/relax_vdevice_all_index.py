# expect: ValueError 11:45
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0, "global")]})

    @R.function
    def main(x: R.Tensor((2, 3), "float32", "vdevice:1")) -> R.Tensor((2, 3), "float32"):
        return x
