# expect: TypeError 8:24
from tvm.script import tirx as T


@T.prim_func
def f(a: T.handle):
    A = T.match_buffer(a, (4,), "float32")
    B = T.match_buffer(7, (4,), "float32")
    A[0] = B[0]
