# Every loop kind: range with one, two (and a unit step) arguments, serial, parallel,
# vectorized, unroll, grid, and loops with a non-zero start.
from tvm.script import tirx as T


@T.prim_func
def loops(A: T.Buffer((64,), "float32"), B: T.Buffer((8, 8), "float32")):
    for i in range(64):
        A[i] = T.float32(0)
    for i in range(8, 16):
        A[i] = T.float32(1)
    for i in range(0, 4, 1):
        A[i] = T.float32(2)
    for i in T.serial(4):
        A[i] = A[i] + T.float32(1)
    for i in T.serial(2, 6):
        A[i] = A[i] + T.float32(1)
    for i in T.parallel(8):
        for j in T.vectorized(8):
            B[i, j] = T.float32(3)
    for i in T.unroll(4):
        A[i] = A[i] * T.float32(2)
    for i, j, k in T.grid(2, 2, 2):
        B[i, j * 2 + k] = T.float32(4)
    for i in range(4):
        for j in range(i):
            B[i, j] = T.float32(5)
