# Size variables (known non-negative) in a shape.
from tvm.script import tirx as T


@T.prim_func
def sized(a: T.handle):
    n = T.int32(is_size_var=True)
    A = T.match_buffer(a, (n, 4), "int32")
    for i, j in T.grid(n, 4):
        A[i, j] = i * 4 + j
