# expect: TypeError 7:30
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in T.serial(0, 16, 2, 4):
        A[i] = T.float32(0)
