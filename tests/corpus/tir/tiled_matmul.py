# A hand-scheduled matmul: 32x32 tiles, a cache of B's tile, the inner loop vectorized.
from tvm.script import tirx as T


@T.prim_func
def tiled_matmul(A: T.Buffer((256, 256), "float32"), B: T.Buffer((256, 256), "float32"), C: T.Buffer((256, 256), "float32")):
    T.func_attr({"tir.noalias": True})
    for i_0, j_0 in T.grid(8, 8):
        with T.sblock("tile"):
            vi_0, vj_0 = T.axis.remap("SS", [i_0, j_0])
            T.reads(A[vi_0 * 32:vi_0 * 32 + 32, 0:256], B[0:256, vj_0 * 32:vj_0 * 32 + 32])
            T.writes(C[vi_0 * 32:vi_0 * 32 + 32, vj_0 * 32:vj_0 * 32 + 32])
            B_local = T.sblock_alloc_buffer((256, 32), "float32", scope="local")
            for k, jj in T.grid(256, 32):
                B_local[k, jj] = B[k, vj_0 * 32 + jj]
            for ii in range(32):
                for jj in T.vectorized(32):
                    C[vi_0 * 32 + ii, vj_0 * 32 + jj] = T.float32(0)
                for k in range(256):
                    for jj in T.vectorized(32):
                        C[vi_0 * 32 + ii, vj_0 * 32 + jj] = C[vi_0 * 32 + ii, vj_0 * 32 + jj] + A[vi_0 * 32 + ii, k] * B_local[k, jj]
