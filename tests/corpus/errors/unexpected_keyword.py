# expect: TypeError 7:35
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in T.parallel(16, bogus=1):
        A[i] = T.float32(0)
