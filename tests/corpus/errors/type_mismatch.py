# expect: TypeError 7:12
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "bool")):
    A[0] = A[1] + B[1]
