# Handle parameters matched to buffers in the body.
from tvm.script import tirx as T


@T.prim_func
def copy(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (64, 32), "float32")
    B = T.match_buffer(b, [64, 32], dtype="float32")
    for i in range(64):
        for j in range(32):
            B[i, j] = A[i, j]
