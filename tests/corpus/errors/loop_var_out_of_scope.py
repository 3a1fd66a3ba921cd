# expect: NameError 9:7
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in range(16):
        A[i] = T.float32(0)
    A[i] = T.float32(1)
