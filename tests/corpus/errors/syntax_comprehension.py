# expect: SyntaxError 7:19
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    T.evaluate([i for i in range(4)])
