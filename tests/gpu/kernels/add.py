# Elementwise add over n elements: 128 threads per block, the tail masked (schedule form).
from tvm.script import tirx as T


@T.prim_func
def add(a: T.handle, b: T.handle, c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    C = T.match_buffer(c, (n,), "float32")
    for bx in T.thread_binding((n + 127) // 128, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            if bx * 128 + tx < n:
                C[bx * 128 + tx] = A[bx * 128 + tx] + B[bx * 128 + tx]
