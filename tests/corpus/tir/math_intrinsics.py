from tvm.script import tirx as T


@T.prim_func
def math(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), I: T.Buffer((16,), "int32")):
    for i in range(16):
        B[i] = T.exp(A[i]) + T.log(A[i]) + T.sqrt(A[i]) + T.rsqrt(A[i])
        B[i] = T.max(A[i], B[i]) - T.min(A[i], T.float32(1))
        B[i] = T.floor(A[i]) + T.ceil(A[i]) + T.round(A[i]) + T.trunc(A[i])
        B[i] = T.tanh(A[i]) * T.sigmoid(A[i]) + T.erf(A[i])
        B[i] = T.fabs(A[i]) + T.pow(A[i], T.float32(2)) + T.log2(A[i])
        B[i] = T.sin(A[i]) + T.cos(A[i]) + T.exp2(A[i])
        I[i] = T.max(I[i], 0) + T.min(I[i], 100)
