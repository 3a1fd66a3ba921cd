# A shared-memory tiled matmul where each thread computes two rows of the 16x16 block tile through
# a virtual thread (T.launch_thread("vthread.y", 2) outside the threadIdx launches), with barriers
# around the tile loads: inject_virtual_thread splits the virtual thread at the barriers, the
# accumulator becomes one per virtual thread.
from tvm.script import tirx as T


@T.prim_func
def matmul_vthread(A: T.Buffer((64, 64), "float32"), B: T.Buffer((64, 64), "float32"), C: T.Buffer((64, 64), "float32")):
    by = T.launch_thread("blockIdx.y", 4)
    bx = T.launch_thread("blockIdx.x", 4)
    As = T.decl_buffer((16, 16), "float32", scope="shared")
    Bs = T.decl_buffer((16, 16), "float32", scope="shared")
    vy = T.launch_thread("vthread.y", 2)
    ty = T.launch_thread("threadIdx.y", 8)
    tx = T.launch_thread("threadIdx.x", 16)
    acc = T.decl_buffer((1,), "float32", scope="local")
    acc[0] = T.float32(0)
    for ko in range(4):
        As[vy * 8 + ty, tx] = A[by * 16 + vy * 8 + ty, ko * 16 + tx]
        Bs[vy * 8 + ty, tx] = B[ko * 16 + vy * 8 + ty, bx * 16 + tx]
        T.tvm_storage_sync("shared")
        for k in range(16):
            acc[0] = acc[0] + As[vy * 8 + ty, k] * Bs[k, tx]
        T.tvm_storage_sync("shared")
    C[by * 16 + vy * 8 + ty, bx * 16 + tx] = acc[0]
