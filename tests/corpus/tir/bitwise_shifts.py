from tvm.script import tirx as T


@T.prim_func
def bits(A: T.Buffer((32,), "uint32"), B: T.Buffer((32,), "int32")):
    for i in range(32):
        A[i] = T.shift_left(A[i], T.uint32(1)) | T.uint32(1)
        A[i] = T.shift_right(A[i], T.uint32(3)) & T.uint32(0xFF)
        A[i] = T.bitwise_and(A[i], T.uint32(15)) ^ T.uint32(5)
        A[i] = T.bitwise_or(A[i], T.uint32(16)) + T.bitwise_xor(A[i], T.uint32(2))
        B[i] = (B[i] << 2) >> 1
        B[i] = ~B[i] & (B[i] | 1)
        B[i] = T.bitwise_not(B[i])
