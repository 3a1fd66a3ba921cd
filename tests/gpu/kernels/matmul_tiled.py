# C = A @ B for n x n matrices (n a multiple of 16): 16x16 output tiles per block, A and B tiles
# staged through shared memory with a barrier after each load and after each use.
from tvm.script import tirx as T


@T.prim_func
def matmul(a: T.handle, b: T.handle, c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, n), "float32")
    B = T.match_buffer(b, (n, n), "float32")
    C = T.match_buffer(c, (n, n), "float32")
    T.Assert(n % 16 == 0, "n must be a multiple of 16")
    by = T.launch_thread("blockIdx.y", n // 16)
    bx = T.launch_thread("blockIdx.x", n // 16)
    As = T.decl_buffer((16, 16), "float32", scope="shared")
    Bs = T.decl_buffer((16, 16), "float32", scope="shared")
    ty = T.launch_thread("threadIdx.y", 16)
    tx = T.launch_thread("threadIdx.x", 16)
    acc = T.decl_buffer((1,), "float32", scope="local")
    acc[0] = T.float32(0)
    for k0 in range(n // 16):
        As[ty, tx] = A[by * 16 + ty, k0 * 16 + tx]
        Bs[ty, tx] = B[k0 * 16 + ty, bx * 16 + tx]
        T.tvm_storage_sync("shared")
        for k1 in range(16):
            acc[0] = acc[0] + As[ty, k1] * Bs[k1, tx]
        T.tvm_storage_sync("shared")
    C[by * 16 + ty, bx * 16 + tx] = acc[0]
