# Vector dtypes: buffers of float32x4 elements and vector literals.
from tvm.script import tirx as T


@T.prim_func
def vec4(A: T.Buffer((16,), "float32x4"), B: T.Buffer((16,), "float32x4")):
    for i in range(16):
        B[i] = A[i] + T.Broadcast(T.float32(1), 4)
    for i in range(16):
        B[i] = B[i] * A[i]
