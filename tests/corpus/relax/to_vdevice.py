# R.to_vdevice: a copy of a tensor on another of the module's virtual devices, the device named
# as R.Tensor's vdevice= names it ("llvm", "llvm:1", "cuda:0:global").
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class ToDevices:
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
    def main(x: R.Tensor((2, 3), "float32", vdevice="llvm:0")):
        on_gpu = R.to_vdevice(x, "cuda:0:global")
        back = R.to_vdevice(on_gpu, dst_vdevice="llvm")
        other = R.to_vdevice(back, "llvm:1")
        return (on_gpu, other)
