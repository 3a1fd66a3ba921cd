# expect: ValueError 10:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    B = T.Buffer((8,), "float32")
    for i in range(8):
        A[i] = T.float32(0)
        B[i] = A[i]
