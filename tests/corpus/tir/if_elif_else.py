from tvm.script import tirx as T


@T.prim_func
def classify(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(16):
        if A[i] < 0:
            B[i] = -1
        elif A[i] == 0:
            B[i] = 0
        elif A[i] < 10 and i % 2 == 0:
            B[i] = 1
        else:
            B[i] = 2
    for i in range(16):
        if i < 8:
            B[i] = B[i] + 1
    if not (A[0] > 1 or A[1] > 1):
        B[0] = 100
