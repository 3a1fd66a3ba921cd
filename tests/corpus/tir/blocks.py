# Blocks with explicit reads / writes, nested blocks and an unnamed block.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_one(A: T.Buffer((32, 32), "float32"), B: T.Buffer((32, 32), "float32")):
        for i, j in T.grid(32, 32):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                T.reads(A[vi, vj])
                T.writes(B[vi, vj])
                B[vi, vj] = A[vi, vj] + T.float32(1)

    @T.prim_func
    def nested(A: T.Buffer((4, 8), "float32")):
        for i in range(4):
            with T.sblock("outer"):
                vi = T.axis.spatial(4, i)
                T.reads()
                T.writes(A[vi, 0:8])
                for j in range(8):
                    with T.sblock("inner"):
                        vj = T.axis.spatial(8, j)
                        T.reads()
                        T.writes(A[vi, vj])
                        A[vi, vj] = T.float32(0)
