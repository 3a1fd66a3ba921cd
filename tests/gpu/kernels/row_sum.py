# Row sums: one block of 128 threads per row, a tree reduction in shared memory with explicit
# barriers (the lowered launch_thread form).
from tvm.script import tirx as T


@T.prim_func
def row_sum(a: T.handle, b: T.handle):
    m = T.int32()
    A = T.match_buffer(a, (m, 256), "float32")
    B = T.match_buffer(b, (m,), "float32")
    bx = T.launch_thread("blockIdx.x", m)
    red = T.decl_buffer((128,), "float32", scope="shared")
    tx = T.launch_thread("threadIdx.x", 128)
    red[tx] = A[bx, tx] + A[bx, tx + 128]
    T.tvm_storage_sync("shared")
    for s in range(7):
        if tx < T.shift_right(64, s):
            red[tx] = red[tx] + red[tx + T.shift_right(64, s)]
        T.tvm_storage_sync("shared")
    if tx == 0:
        B[bx] = red[0]
