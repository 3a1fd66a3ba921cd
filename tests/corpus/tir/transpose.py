from tvm.script import tirx as T


@T.prim_func
def transpose(a: T.handle, b: T.handle):
    m = T.int32()
    n = T.int32()
    A = T.match_buffer(a, (m, n), "float16")
    B = T.match_buffer(b, (n, m), "float16")
    for i, j in T.grid(n, m):
        with T.sblock("T"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vj, vi])
            T.writes(B[vi, vj])
            B[vi, vj] = A[vj, vi]
