# expect: NameError 8:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i]
