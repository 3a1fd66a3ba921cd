# Blocks written without T.reads / T.writes: the parser infers the regions each block reads and
# writes (as upstream does); an explicit root block; T.axis.opaque and the old T.block_attr.
from tvm.script import tirx as T


@T.prim_func
def inferred(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    with T.sblock("root"):
        C = T.sblock_alloc_buffer((16,), "float32")
        for i in range(16):
            with T.sblock("copy"):
                vi = T.axis.spatial(16, i)
                C[vi] = A[vi]
        for i in range(16):
            with T.block("scale"):
                vi = T.axis.opaque(16, i)
                T.block_attr({"note": 1})
                B[vi] = C[vi] * T.float32(2)
