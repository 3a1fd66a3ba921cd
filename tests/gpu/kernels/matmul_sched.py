# A scheduled GPU matmul (the form a schedule produces, no barriers written): 16x16 output tiles
# per block, tiles of A and B staged in shared memory by sibling thread loops. The thread_sync
# pass adds the barriers a GPU needs between those loops.
from tvm.script import tirx as T


@T.prim_func
def matmul_sched(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    for by in T.thread_binding(4, thread="blockIdx.y"):
        for bx in T.thread_binding(4, thread="blockIdx.x"):
            with T.sblock("tile"):
                vby, vbx = T.axis.remap("SS", [by, bx])
                A_shared = T.sblock_alloc_buffer((16, 16), "float32", scope="shared")
                B_shared = T.sblock_alloc_buffer((16, 16), "float32", scope="shared")
                acc = T.sblock_alloc_buffer((16, 16), "float32", scope="local")
                for ty in T.thread_binding(16, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        acc[ty, tx] = T.float32(0)
                for ko in range(4):
                    for ty in T.thread_binding(16, thread="threadIdx.y"):
                        for tx in T.thread_binding(16, thread="threadIdx.x"):
                            A_shared[ty, tx] = A[vby * 16 + ty, ko * 16 + tx]
                            B_shared[ty, tx] = B[ko * 16 + ty, vbx * 16 + tx]
                    for ty in T.thread_binding(16, thread="threadIdx.y"):
                        for tx in T.thread_binding(16, thread="threadIdx.x"):
                            for ki in range(16):
                                acc[ty, tx] = acc[ty, tx] + A_shared[ty, ki] * B_shared[ki, tx]
                for ty in T.thread_binding(16, thread="threadIdx.y"):
                    for tx in T.thread_binding(16, thread="threadIdx.x"):
                        C[vby * 16 + ty, vbx * 16 + tx] = acc[ty, tx]
