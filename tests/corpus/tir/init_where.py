# Reduction init and a block predicate for a split that does not divide evenly.
from tvm.script import tirx as T


@T.prim_func
def row_sum(A: T.Buffer((10, 10), "float32"), B: T.Buffer((10,), "float32")):
    for io, ii, k in T.grid(3, 4, 10):
        with T.sblock("sum"):
            vi = T.axis.spatial(10, io * 4 + ii)
            vk = T.axis.reduce(10, k)
            T.where(io * 4 + ii < 10)
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
