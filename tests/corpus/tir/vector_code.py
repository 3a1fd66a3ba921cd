# Vectorized loads and stores with Ramp and Broadcast, and the slice forms (a store to a
# slice; a load with a step, which is a Ramp; a slice without a step is a region).
from tvm.script import tirx as T


@T.prim_func
def vadd(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((64,), "float32")):
    for i in range(16):
        C[T.Ramp(i * 4, 1, 4)] = A[T.Ramp(i * 4, 1, 4)] + B[T.Ramp(i * 4, 1, 4)]
    for i in range(16):
        C[T.Ramp(i * 4, 1, 4)] = C[T.Ramp(i * 4, 1, 4)] * T.Broadcast(T.float32(2), 4)
    for i in range(8):
        C[T.ramp(i * 8, 1, 8)] = T.broadcast(T.float32(0), 8)
    for i in range(4):
        A[i * 16:i * 16 + 4] = B[i * 16:i * 16 + 4:1]
