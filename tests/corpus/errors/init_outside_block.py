# expect: ValueError 7:10
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    with T.init():
        A[0] = T.float32(0)
