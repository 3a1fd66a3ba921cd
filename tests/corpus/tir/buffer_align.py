# Data alignment (other than the default 64) on parameter, matched and allocated buffers.
from tvm.script import tirx as T


@T.prim_func
def aligned(A: T.Buffer((64,), "float32", align=16), b: T.handle):
    B = T.match_buffer(b, (64,), "float32", align=128)
    C = T.alloc_buffer((64,), "float32", align=32)
    for i in range(64):
        C[i] = A[i]
    for i in range(64):
        B[i] = C[i]
