# C = A @ B with tensor cores (WMMA, as upstream's TVMScript writes it): n x n float16 inputs, a
# float32 result, n a multiple of 32. A block computes a 32 x 32 tile with four warps
# (threadIdx.y), each warp one 16 x 16 tile through a wmma.matrix_a / wmma.matrix_b fragment
# and a float32 wmma.accumulator; the A and B tiles of each k step are staged through shared
# memory by all 128 threads, with a barrier after the load and after the use.
from tvm.script import tirx as T


@T.prim_func
def matmul_wmma(a: T.handle, b: T.handle, c: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (n, n), "float16")
    B = T.match_buffer(b, (n, n), "float16")
    C = T.match_buffer(c, (n, n), "float32")
    T.Assert(n % 32 == 0, "n must be a multiple of 32")
    by = T.launch_thread("blockIdx.y", n // 32)
    bx = T.launch_thread("blockIdx.x", n // 32)
    As = T.decl_buffer((32, 16), "float16", scope="shared")
    Bs = T.decl_buffer((16, 32), "float16", scope="shared")
    ty = T.launch_thread("threadIdx.y", 4)
    tx = T.launch_thread("threadIdx.x", 32)
    Af = T.decl_buffer((16, 16), "float16", scope="wmma.matrix_a")
    Bf = T.decl_buffer((16, 16), "float16", scope="wmma.matrix_b")
    Cf = T.decl_buffer((16, 16), "float32", scope="wmma.accumulator")
    T.tvm_fill_fragment(Cf.data, 16, 16, 16, 0, T.float32(0))
    for k0 in range(n // 16):
        for r in range(4):
            As[r * 8 + ty * 2 + tx // 16, tx % 16] = A[by * 32 + r * 8 + ty * 2 + tx // 16, k0 * 16 + tx % 16]
            Bs[r * 4 + ty, tx] = B[k0 * 16 + r * 4 + ty, bx * 32 + tx]
        T.tvm_storage_sync("shared")
        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), As.data, ty // 2 * 256, 256, 1), 16, "row_major")
        T.tvm_load_matrix_sync(Bf.data, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), Bs.data, ty % 2 * 16, 496, 1), 32, "row_major")
        T.tvm_mma_sync(Cf.data, 0, Af.data, 0, Bf.data, 0, Cf.data, 0)
        T.tvm_storage_sync("shared")
    T.tvm_store_matrix_sync(Cf.data, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float32"), C.data, (by * 32 + ty // 2 * 16) * n + bx * 32 + ty % 2 * 16, 15 * n + 16, 2), n, "row_major")
