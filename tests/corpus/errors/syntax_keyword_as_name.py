# expect: SyntaxError 7:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    for def in range(4):
        A[0] = 1
