# expect: TypeError 7:32
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    with T.attr(T.comm_reducer(lambda x: x, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
        A[0] = T.float32(0)
