# Per-row scans that stop early: each thread walks its row, skipping negative elements
# (continue) and stopping at the first one above 1.5 (break); threads leave their loops at
# different iterations (no barrier inside the loop).
from tvm.script import tirx as T


@T.prim_func
def row_scan(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64,), "float32")):
    for bx in T.thread_binding(2, "blockIdx.x"):
        for tx in T.thread_binding(32, "threadIdx.x"):
            B[bx * 32 + tx] = T.float32(0)
            for j in range(32):
                if A[bx * 32 + tx, j] > T.float32(1.5):
                    break
                if A[bx * 32 + tx, j] < T.float32(0):
                    continue
                B[bx * 32 + tx] = B[bx * 32 + tx] + A[bx * 32 + tx, j]
