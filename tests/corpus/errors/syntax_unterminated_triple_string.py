# expect: SyntaxError 7:5
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    """An unterminated docstring
    A[0] = T.float32(0)
