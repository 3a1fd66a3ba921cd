# expect: TypeError 7:10
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32"), n: T.int32):
    with T.max(n, 1):
        A[0] = T.float32(1)
