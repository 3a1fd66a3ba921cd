# B = A^T for an m x n matrix through a 16x17 shared tile (the padding column avoids bank
# conflicts): threads read rows of A and write rows of B, both coalesced.
from tvm.script import tirx as T


@T.prim_func
def transpose(a: T.handle, b: T.handle):
    m, n = T.int32(), T.int32()
    A = T.match_buffer(a, (m, n), "float32")
    B = T.match_buffer(b, (n, m), "float32")
    by = T.launch_thread("blockIdx.y", (m + 15) // 16)
    bx = T.launch_thread("blockIdx.x", (n + 15) // 16)
    tile = T.decl_buffer((16, 17), "float32", scope="shared")
    ty = T.launch_thread("threadIdx.y", 16)
    tx = T.launch_thread("threadIdx.x", 16)
    if by * 16 + ty < m and bx * 16 + tx < n:
        tile[ty, tx] = A[by * 16 + ty, bx * 16 + tx]
    T.tvm_storage_sync("shared")
    if bx * 16 + ty < n and by * 16 + tx < m:
        B[bx * 16 + ty, by * 16 + tx] = tile[tx, ty]
