# expect: ValueError 9:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    x = T.int32()
    for i in range(8):
        A[i] = T.Cast("float32", x)
