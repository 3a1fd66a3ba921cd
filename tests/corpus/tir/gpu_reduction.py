# A GPU row reduction: shared memory, thread bindings and a tree reduction loop.
from tvm.script import tirx as T


@T.prim_func
def gpu_row_sum(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    for bx in T.thread_binding(128, thread="blockIdx.x"):
        with T.sblock("row"):
            vb = T.axis.spatial(128, bx)
            T.reads(A[vb, 0:128])
            T.writes(B[vb])
            red = T.sblock_alloc_buffer((128,), "float32", scope="shared")
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                red[tx] = A[vb, tx]
            for s in T.unroll(7):
                for tx in T.thread_binding(128, thread="threadIdx.x"):
                    if tx < T.shift_right(64, s):
                        red[tx] = red[tx] + red[tx + T.shift_right(64, s)]
            B[vb] = red[0]
