# expect: ValueError 14:9
# R.call_tir_inplace: the PrimFunc takes the inputs, then only the outputs not computed in place
# (inplace_indices -1), here one of shape (2,), which the call declares (3,).
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2,), "float32")) -> R.Tuple(R.Tensor((2,), "float32"), R.Tensor((3,), "float32")):
        cls = Module
        b = R.call_tir_inplace(
            cls.k, (a,), inplace_indices=[0, -1],
            out_sinfo=[R.Tensor((2,), "float32"), R.Tensor((3,), "float32")],
        )
        return b

    @T.prim_func
    def k(A: T.Buffer((2,), "float32"), B: T.Buffer((2,), "float32")):
        for i in range(2):
            B[i] = A[i]
            A[i] = A[i] + T.float32(1)
