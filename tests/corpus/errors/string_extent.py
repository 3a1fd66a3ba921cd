# expect: TypeError 7:14
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range("four"):
        A[i] = T.float32(0)
