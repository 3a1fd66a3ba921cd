# expect: SyntaxError 7:11
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(1)
