# Loops and block axes over ranges that start above zero with a symbolic end: the printer
# writes `range(m, m + e)`, which must parse back to the same extent e.
from tvm.script import tirx as T


@T.prim_func
def loop_ranges(a: T.handle, n: T.int32, m: T.int64):
    A = T.match_buffer(a, (n,), "float32")
    for i in T.serial(3, n):
        A[i] = A[i - 3] + T.float32(1)
    for j in range(T.int64(2), m):
        A[T.Cast("int32", j) % n] = T.float32(0)
    for k in range(1, n - 1):
        with T.sblock("s"):
            vk = T.axis.spatial((1, n - 1), k)
            T.reads(A[vk - 1:vk + 2])
            T.writes(A[vk])
            A[vk] = A[vk - 1] + A[vk + 1]
