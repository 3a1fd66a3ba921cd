# expect: ValueError 14:9
# R.call_tir's output struct info must fit the PrimFunc's output buffer (upstream's
# ValidateCallTIR): the kernel would write 16 elements into a 32-element tensor, or past it.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((16,), "float16")) -> R.Tensor((32,), "float16"):
        cls = Module
        b = R.call_tir(cls.f, (a,), out_sinfo=R.Tensor((32,), "float16"))
        return b

    @T.prim_func
    def f(A: T.Buffer((16,), "float16"), B: T.Buffer((16,), "float16")):
        for i in range(16):
            B[i] = A[i]
