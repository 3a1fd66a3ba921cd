# Virtual devices: I.module_global_infos with I.vdevice, and tensors placed on them by name
# ("llvm" is "llvm:0"; the index counts the devices of that target kind).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Devices:
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice("llvm", 0, "global"),
                I.vdevice({"kind": "cuda", "arch": "sm_80"}, 0, "global"),
                I.vdevice("llvm", 1, "global"),
            ]
        }
    )

    @R.function
    def main(
        x: R.Tensor((2, 3), "float32", vdevice="llvm"),
        y: R.Tensor((2, 3), "float32", vdevice="llvm:1"),
        z: R.Tensor((2, 3), dtype="float32", vdevice="cuda:0"),
    ) -> R.Tensor((2, 3), "float32", vdevice="llvm:0"):
        lv = R.add(x, x)
        return lv
