# expect: ValueError 9:36
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.remap("X", [i])
            A[vi] = T.float32(0)
