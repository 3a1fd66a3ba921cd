# The package imports and the long decorator spellings real programs use: `import tvm` with
# `@tvm.script.ir_module`, and PrimFuncs decorated `@T.prim_func` next to the long
# `@tvm.script.tir.prim_func`.
import tvm
from tvm.script import tir as T


@tvm.script.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = A[i] + T.float32(1)

    @tvm.script.tir.prim_func
    def scale(A: T.Buffer((4, 8), "float32"), B: T.Buffer((4, 8), "float32")):
        for i, j in T.grid(4, 8):
            with T.sblock("scale"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
