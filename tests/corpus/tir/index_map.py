# Index maps (T.index_map of a lambda) as block annotations: int64 indices by default, a tuple,
# list or single result, an inverse map, and int32 indices.
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32")):
    for i, j in T.grid(64, 64):
        with T.sblock("copy"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj])
            T.writes(B[vi, vj])
            T.sblock_attr({
                "layout_a": T.index_map(lambda i, j: (i // 16, j // 16, i % 16, j % 16)),
                "layout_b": T.index_map(lambda a, b: [b, a], inverse_index_map=lambda x, y: (y, x)),
                "flatten": T.index_map(lambda m, n: m * 64 + n, index_dtype="int32"),
            })
            B[vi, vj] = A[vi, vj]
