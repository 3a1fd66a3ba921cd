from tvm.script import tirx as T


@T.prim_func
def casts(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "float16"), C: T.Buffer((8,), "int64")):
    for i in range(8):
        B[i] = T.Cast("float16", A[i])
        C[i] = T.Cast("int64", A[i]) * T.int64(3)
        A[i] = T.Cast("int32", T.Cast("float32", B[i]) * T.float32(0.5))
    for i in range(8):
        C[i] = T.cast(A[i], "int64")
        B[i] = T.float16(A[i])
