# The integer division family: // and % are floor division and modulo.
from tvm.script import tirx as T


@T.prim_func
def divs(A: T.Buffer((64,), "int32"), n: T.int32):
    for i in range(64):
        A[i] = i // 4 + i % 4
        A[i] = T.floordiv(i, n) + T.floormod(i, n)
        A[i] = T.truncdiv(i - 32, 3) + T.truncmod(i - 32, 3)
        A[i] = T.ceildiv(i, 8)
        A[i] = (i + 7) // 8 * 8 - i
