# C = A @ BT^T with tensor cores and a float16 accumulator: A (m x k) and BT (n x k) float16, C
# (m x n) float16; m, n multiples of 16 and 32, k of 16. One warp per block computes a 16 x 32
# tile as two accumulator fragments (fragment indices 0 and 1 of one buffer), loading A row-major
# and B column-major straight from global memory (BT's rows are B's columns). The fragments are
# allocated at the kernel's root, outside the thread launch: one warp per block, so one per warp.
from tvm.script import tirx as T


@T.prim_func
def matmul_wmma_f16(a: T.handle, b: T.handle, c: T.handle):
    m = T.int32()
    n = T.int32()
    k = T.int32()
    A = T.match_buffer(a, (m, k), "float16")
    BT = T.match_buffer(b, (n, k), "float16")
    C = T.match_buffer(c, (m, n), "float16")
    T.Assert(m % 16 == 0 and n % 32 == 0 and k % 16 == 0, "m, n, k must be multiples of 16, 32, 16")
    Af = T.decl_buffer((16, 16), "float16", scope="wmma.matrix_a")
    Bf = T.decl_buffer((2, 16, 16), "float16", scope="wmma.matrix_b")
    Cf = T.decl_buffer((2, 16, 16), "float16", scope="wmma.accumulator")
    by = T.launch_thread("blockIdx.y", m // 16)
    bx = T.launch_thread("blockIdx.x", n // 32)
    tx = T.launch_thread("threadIdx.x", 32)
    for j in range(2):
        T.tvm_fill_fragment(Cf.data, 16, 16, 16, j, T.float16(0))
    for k0 in range(k // 16):
        T.tvm_load_matrix_sync(Af.data, 16, 16, 16, 0, T.tvm_access_ptr(T.type_annotation("float16"), A.data, by * 16 * k + k0 * 16, 15 * k + 16, 1), k, "row_major")
        for j in range(2):
            T.tvm_load_matrix_sync(Bf.data, 16, 16, 16, j, T.tvm_access_ptr(T.type_annotation("float16"), BT.data, (bx * 32 + j * 16) * k + k0 * 16, 15 * k + 16, 1), k, "col_major")
            T.tvm_mma_sync(Cf.data, j, Af.data, 0, Bf.data, j, Cf.data, j)
    for j in range(2):
        T.tvm_store_matrix_sync(Cf.data, 16, 16, 16, j, T.tvm_access_ptr(T.type_annotation("float16"), C.data, by * 16 * n + bx * 32 + j * 16, 15 * n + 16, 2), n, "row_major")
