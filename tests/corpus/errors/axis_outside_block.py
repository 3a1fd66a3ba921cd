# expect: ValueError 8:14
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        vi = T.axis.spatial(4, i)
        A[vi] = T.float32(0)
