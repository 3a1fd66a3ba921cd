# Module attributes and decorator flags of modules and functions.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module(s_tir=True)
class Module:
    I.module_attrs({"target_hint": "llvm", "opt_level": 3})

    @T.prim_func(private=True, s_tir=True)
    def zero(A: T.Buffer((8,), "float32")):
        for i in range(8):
            A[i] = T.float32(0)

    @T.prim_func(check_well_formed=False)
    def main(A: T.Buffer((8,), "float32")):
        T.func_attr({"global_symbol": "main", "tir.noalias": True})
        for i in range(8):
            A[i] = A[i] + T.float32(1)
