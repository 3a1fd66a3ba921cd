# expect: ValueError 9:5
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    x: T.int32 = 1
    A[0] = T.float32(0)
    with T.LetStmt(2, var=x):
        A[1] = T.float32(0)
