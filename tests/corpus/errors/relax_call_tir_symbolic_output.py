# expect: ValueError 14:9
# The PrimFunc's shape variables are bound by the inputs' dims (m, n = 8, 4), so its output
# buffer has m * n = 32 elements, not the 64 the call declares.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((8, 4), "float32")) -> R.Tensor((64,), "float32"):
        cls = Module
        b = R.call_tir(cls.flatten, (a,), out_sinfo=R.Tensor((64,), "float32"))
        return b

    @T.prim_func
    def flatten(a: T.handle, b: T.handle):
        m, n = T.int64(), T.int64()
        A = T.match_buffer(a, (m, n), "float32")
        B = T.match_buffer(b, (m * n,), "float32")
        for i, j in T.grid(m, n):
            B[i * n + j] = A[i, j]
