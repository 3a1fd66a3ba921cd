# expect: TypeError 7:5
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[T.float32(1)] = T.float32(0)
