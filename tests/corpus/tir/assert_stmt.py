from tvm.script import tirx as T


@T.prim_func
def checked(A: T.Buffer((16,), "int32"), n: T.int32):
    assert n > 0, "n must be positive"
    assert n <= 16, 'n must fit in A'
    for i in range(n):
        A[i] = i
