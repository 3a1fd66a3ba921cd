from tvm.script import tirx as T


@T.prim_func
def countdown(A: T.Buffer((1,), "int32"), B: T.Buffer((32,), "int32")):
    while A[0] > 0:
        B[A[0] % 32] = A[0]
        A[0] = A[0] - 1
    while A[0] < 10 and B[0] != 3:
        A[0] = A[0] + 2
