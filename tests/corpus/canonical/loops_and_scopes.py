# from tvm.script import tirx as T

@T.prim_func
def scopes(A: T.Buffer((64,), "float32"), n: T.int32):
    for i in T.parallel(64):
        A[i] = T.float32(0.0)
    for i in range(2, 64):
        for j in T.vectorized(4):
            A[i] = A[i] + T.float32(1.0)
    if n < 0:
        A[0] = T.float32(0.0)
    elif n == 0:
        A[0] = T.float32(1.0)
    else:
        A[0] = T.float32(2.0)
    while A[1] < T.float32(10.0):
        A[1] = A[1] + T.float32(1.0)
    x: T.int32 = n * 2
    A[2] = T.Cast("float32", x)
