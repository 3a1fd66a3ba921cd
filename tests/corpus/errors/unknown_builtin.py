# expect: AttributeError 7:12
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    A[0] = T.no_such_intrinsic(A[1])
