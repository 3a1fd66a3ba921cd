# expect: TypeError 8:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "bool")):
    for i in T.serial(T.int64(8)):
        A[i, B[0]] = A[i, 0]
