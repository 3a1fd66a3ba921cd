# Buffer.vload(begin, dtype), tvm.tir.Buffer's method, as kernels write it: a load at begin of a
# dtype k times the buffer's lanes is a vector whose last index is Ramp(begin, 1, k); a scalar
# dtype (or none) is a plain load.
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32"), C: T.Buffer((8, 8), "float32")):
    for i in range(32):
        B[i * 2:i * 2 + 2] = A.vload([i * 2], dtype="float32x2") + T.Broadcast(T.float32(1), 2)
    for j in range(8):
        C[j, 0] = A.vload(j) + A.vload(begin=[j + 8], dtype="float32")
