# Buffer layout arguments: strides, elem_offset, scope, offset_factor, align.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def strided(a: T.handle, b: T.handle):
        A = T.match_buffer(a, (16, 16), "float32", strides=(32, 1), elem_offset=0)
        s0 = T.int32()
        off = T.int32()
        B = T.match_buffer(b, (16, 16), "float32", strides=(s0, 1), elem_offset=off, offset_factor=1)
        for i, j in T.grid(16, 16):
            B[i, j] = A[i, j]

    @T.prim_func
    def scoped(A: T.Buffer((128,), "float32")):
        for i in range(4):
            with T.sblock("stage"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi * 32:vi * 32 + 32])
                T.writes(A[vi * 32:vi * 32 + 32])
                S = T.sblock_alloc_buffer((32,), "float32", scope="shared", align=64)
                for j in range(32):
                    S[j] = A[vi * 32 + j]
                for j in range(32):
                    A[vi * 32 + j] = S[31 - j]

    @T.prim_func
    def auto_layout(a: T.handle):
        A = T.match_buffer(a, (8, 8), "int8", strides=("stride_a", 1), offset_factor=4)
        for i, j in T.grid(8, 8):
            A[i, j] = T.int8(0)
