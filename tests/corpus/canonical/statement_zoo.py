# from tvm.script import tirx as T

@T.prim_func
def zoo(A: T.Buffer((64,), "float32"), H: T.Buffer((8,), "float16"), I_1: T.Buffer((8,), "int64"), n: T.int32):
    x: T.int32 = n * 2
    assert x > 0, "x must be positive"
    with T.allocate([16], "float32", "local") as buf:
        B = T.decl_buffer((16,), "float32", data=buf, scope="local")
        for i in range(16):
            B[i] = A[i]
        A[0] = B[3]
    if n < 0:
        A[1] = T.float32(0.0)
    elif n == 0:
        A[1] = T.float32(1.0)
    else:
        A[1] = T.Select(n > 4, T.float32(2.0), T.float32(3.0))
    while A[2] < T.float32(10.0):
        A[2] = A[2] + T.float32(1.0)
    A[T.Ramp(8, 1, 4)] = T.Broadcast(T.exp(A[4]), 4)
    H[0] = T.Cast("float16", A[5]) * T.float16(0.5)
    I_1[0] = T.Cast("int64", x) + T.int64(3)
    with T.attr(None, "pragma_unroll", 1):
        T.call_extern("int32", "log_value", x)
    threadIdx_x = T.launch_thread("threadIdx.x", 8)
    A[threadIdx_x + 32] = T.float32(7.0)
