# A GPU matmul schedule: 32x32 output tiles per thread block, A and B tiles staged in shared
# memory, one output element per thread, the reduction split into 32-wide steps.
from tvm.script import tirx as T


@T.prim_func
def gpu_matmul(A: T.Buffer((512, 512), "float32"), B: T.Buffer((512, 512), "float32"), C: T.Buffer((512, 512), "float32")):
    T.func_attr({"tir.noalias": True})
    for by in T.thread_binding(16, thread="blockIdx.y"):
        for bx in T.thread_binding(16, thread="blockIdx.x"):
            with T.sblock("tile"):
                vby, vbx = T.axis.remap("SS", [by, bx])
                T.reads(A[vby * 32:vby * 32 + 32, 0:512], B[0:512, vbx * 32:vbx * 32 + 32])
                T.writes(C[vby * 32:vby * 32 + 32, vbx * 32:vbx * 32 + 32])
                A_shared = T.sblock_alloc_buffer((32, 32), "float32", scope="shared")
                B_shared = T.sblock_alloc_buffer((32, 32), "float32", scope="shared")
                acc = T.sblock_alloc_buffer((32, 32), "float32", scope="local")
                for ty in T.thread_binding(32, thread="threadIdx.y"):
                    for tx in T.thread_binding(32, thread="threadIdx.x"):
                        acc[ty, tx] = T.float32(0)
                for ko in range(16):
                    for ty in T.thread_binding(32, thread="threadIdx.y"):
                        for tx in T.thread_binding(32, thread="threadIdx.x"):
                            A_shared[ty, tx] = A[vby * 32 + ty, ko * 32 + tx]
                            B_shared[ty, tx] = B[ko * 32 + ty, vbx * 32 + tx]
                    for ty in T.thread_binding(32, thread="threadIdx.y"):
                        for tx in T.thread_binding(32, thread="threadIdx.x"):
                            for ki in T.unroll(32):
                                acc[ty, tx] = acc[ty, tx] + A_shared[ty, ki] * B_shared[ki, tx]
                for ty in T.thread_binding(32, thread="threadIdx.y"):
                    for tx in T.thread_binding(32, thread="threadIdx.x"):
                        C[vby * 32 + ty, vbx * 32 + tx] = acc[ty, tx]
