# expect: SyntaxError 7:12
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    A[0] = 0x
