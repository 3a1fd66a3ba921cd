# Spellings upstream's R namespace also offers: R.vdevice (I.vdevice's), and its dist module
# as R.dist (R.dist.device_mesh, R.dist.DTensor, as R.device_mesh, R.DTensor).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    I.module_global_infos(
        {
            "vdevice": [R.vdevice("llvm"), R.vdevice("llvm", 1, "global")],
            "mesh": [R.dist.device_mesh([4], I.Range(0, 4))],
        }
    )

    @R.function
    def to_device(x: R.Tensor((), "int32")) -> R.Tensor((), "int32", vdevice="llvm:1"):
        y = R.to_vdevice(x, "llvm:1")
        return y

    @R.function
    def sharded(
        a: R.dist.DTensor([8], "float32", "mesh[0]", "R"),
    ) -> R.dist.DTensor([8], "float32", "mesh[0]", "R"):
        return a
