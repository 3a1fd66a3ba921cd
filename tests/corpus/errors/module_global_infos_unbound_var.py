# expect: ValueError 10:5
# I.module_global_infos holds global infos (I.vdevice, R.device_mesh, I.dummy_global_info);
# a TIR variable is none, and nothing in a module would bind it.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm", 0), T.int64()]})

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
