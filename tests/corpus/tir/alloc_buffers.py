# Buffers allocated by blocks (sblock_alloc_buffer, alloc_buffer at function level, which goes
# to the implicit root block) and declared buffers (decl_buffer).
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def two_stage(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.alloc_buffer((16,), "float32")
        for i in range(16):
            with T.sblock("B"):
                vi = T.axis.spatial(16, i)
                T.reads(A[vi])
                T.writes(B[vi])
                B[vi] = A[vi] * T.float32(2)
        for i in range(16):
            with T.sblock("C"):
                vi = T.axis.spatial(16, i)
                T.reads(B[vi])
                T.writes(C[vi])
                C[vi] = B[vi] + T.float32(1)

    @T.prim_func
    def local_tile(A: T.Buffer((64,), "float32")):
        for io in range(4):
            with T.sblock("tile"):
                vio = T.axis.spatial(4, io)
                T.reads(A[vio * 16:vio * 16 + 16])
                T.writes(A[vio * 16:vio * 16 + 16])
                tmp = T.sblock_alloc_buffer((16,), "float32", scope="local")
                for ii in range(16):
                    tmp[ii] = A[vio * 16 + ii]
                for ii in range(16):
                    A[vio * 16 + ii] = tmp[15 - ii]

    @T.prim_func
    def declared(A: T.Buffer((8,), "int32")):
        B = T.decl_buffer((8,), "int32")
        for i in range(8):
            B[i] = A[i] + 1
        for i in range(8):
            A[i] = B[i]
