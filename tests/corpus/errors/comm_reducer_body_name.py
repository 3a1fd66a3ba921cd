# expect: NameError 7:53
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    with T.attr(T.comm_reducer(lambda x, y: x + y * scale, [T.float32(0)]), "reduce_scope", 0):
        A[0] = T.float32(0)
