# expect: ValueError 8:16
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        A[i] = T.alloc_buffer((8,), "float32")[i]
