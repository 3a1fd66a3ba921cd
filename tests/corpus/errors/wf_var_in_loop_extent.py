# expect: ValueError 10:5
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    n = T.int32()
    for i in range(4):
        A[i] = T.float32(0)
    for j in range(n):
        A[j] = T.float32(1)
