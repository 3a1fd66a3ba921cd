# Let bindings: the annotated statement form, a typed form and the explicit LetStmt scope.
from tvm.script import tirx as T


@T.prim_func
def lets(A: T.Buffer((64,), "float32"), n: T.int32):
    x: T.let = n * 2
    y: T.int32 = x + 1
    for i in range(8):
        base: T.let = i * 8
        A[base] = T.Cast("float32", x + y)
        A[base + 1] = T.Cast("float32", base) * T.float32(0.5)
    with T.LetStmt(n + 5) as z:
        A[0] = T.Cast("float32", z)
    A[1] = T.float32(1)
