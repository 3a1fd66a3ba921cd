# expect: SyntaxError 5:2
from tvm.script import tirx as T


@T.not_a_decorator
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.float32(0)
