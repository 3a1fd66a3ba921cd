# expect: ValueError 9:22
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32")):
    for i, j in T.grid(4, 4):
        with T.sblock("b"):
            vi, vj = T.axis.remap("S", [i, j])
            A[vi, vj] = T.float32(0)
