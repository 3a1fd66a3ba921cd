# expect: SyntaxError 7:11
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    x = y = 1
    A[0] = x
