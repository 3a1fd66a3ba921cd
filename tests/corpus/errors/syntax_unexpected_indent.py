# expect: SyntaxError 8:1
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
        A[1] = T.float32(1)
