# The Let expression, its variable declared first (as the printer does for a fragment).
from tvm.script import tirx as T


@T.prim_func
def let_expr(A: T.Buffer((8,), "float32")):
    v = T.int32()
    for i in range(8):
        A[i] = T.Let(T.Cast("float32", v) * T.float32(2), where={v: i + 1})
