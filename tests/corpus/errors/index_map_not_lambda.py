# expect: TypeError 12:50
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in range(16):
        with T.sblock("b"):
            vi = T.axis.spatial(16, i)
            T.reads()
            T.writes(A[vi])
            T.sblock_attr({"layout": T.index_map([vi])})
            A[vi] = T.float32(0)
