# Module global infos: virtual devices (I.vdevice of a target string, a target dict, a device
# index and a memory scope) next to module attributes.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    I.module_attrs({"opt_level": 2})
    I.module_global_infos({"vdevice": [I.vdevice("llvm"), I.vdevice({"kind": "cuda", "arch": "sm_80"}, 1, "global"), I.vdevice("opencl", vdevice_id=0, memory_scope="global.texture")]})

    @T.prim_func
    def main(A: T.Buffer((4,), "float32")):
        for i in range(4):
            A[i] = T.float32(0)
