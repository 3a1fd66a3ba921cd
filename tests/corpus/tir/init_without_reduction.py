# expect: ValueError 13:17
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        with T.sblock("b"):
            vi = T.axis.spatial(4, i)
            T.reads()
            T.writes(A[vi])
            with T.init():
                A[vi] = T.float32(0)
            A[vi] = A[vi] + T.float32(1)
