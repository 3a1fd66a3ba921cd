from tvm.script import tirx as T


@T.prim_func
def clamp(A: T.Buffer((32,), "float32"), B: T.Buffer((32,), "float32")):
    for i in range(32):
        B[i] = T.Select(A[i] < T.float32(0), T.float32(0), A[i])
    for i in range(32):
        B[i] = T.if_then_else(i < 16, A[i], B[i] * T.float32(0.5))
    for i in range(32):
        B[i] = T.if_then_else(i % 2 == 0, T.float32(1), T.float32(-1))
