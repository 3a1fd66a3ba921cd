# expect: NotImplementedError 7:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    g = lambda x: x + 1
    A[0] = T.float32(0)
