# expect: ValueError 8:9
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    for i in range(8):
        with T.sblock("b"):
            vi = T.axis.spatial(8, i)
            T.where(vi < 4)
            A[vi] = T.float32(0)
