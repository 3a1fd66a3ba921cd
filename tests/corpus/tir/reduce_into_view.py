# Reductions whose output is a view matched in the block (`T.match_buffer(B[i], ())`, a row of
# C): with the default CPU schedule, the accumulator rule must leave them as written (the view
# is declared inside the reduction loop once blocks are lowered).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def row_sums(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
        for i0, k0 in T.grid(8, 16):
            with T.sblock("sum"):
                i, k = T.axis.remap("SR", [i0, k0])
                Bi = T.match_buffer(B[i], ())
                with T.init():
                    Bi[()] = T.float32(0)
                Bi[()] = Bi[()] + A[i, k] * A[i, k]

    @T.prim_func
    def col_max(A: T.Buffer((12, 6), "int32"), C: T.Buffer((2, 6), "int32")):
        for r, j, k in T.grid(2, 6, 12):
            with T.sblock("max"):
                vr, vj, vk = T.axis.remap("SSR", [r, j, k])
                Crow = T.match_buffer(C[vr, 0:6], (6,))
                with T.init():
                    Crow[vj] = T.int32(-2147483647)
                Crow[vj] = T.max(Crow[vj], A[vk, vj] + vr)
