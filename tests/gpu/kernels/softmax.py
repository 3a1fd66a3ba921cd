# Row softmax over 256 columns: one block of 128 threads per row; the row maximum and the sum of
# exponentials are tree reductions in shared memory, then every element is normalised.
from tvm.script import tirx as T


@T.prim_func
def softmax(a: T.handle, b: T.handle):
    m = T.int32()
    A = T.match_buffer(a, (m, 256), "float32")
    B = T.match_buffer(b, (m, 256), "float32")
    bx = T.launch_thread("blockIdx.x", m)
    red = T.decl_buffer((128,), "float32", scope="shared")
    tx = T.launch_thread("threadIdx.x", 128)
    red[tx] = T.max(A[bx, tx], A[bx, tx + 128])
    T.tvm_storage_sync("shared")
    for s in range(7):
        if tx < T.shift_right(64, s):
            red[tx] = T.max(red[tx], red[tx + T.shift_right(64, s)])
        T.tvm_storage_sync("shared")
    row_max: T.float32 = red[0]
    T.tvm_storage_sync("shared")
    red[tx] = T.exp(A[bx, tx] - row_max) + T.exp(A[bx, tx + 128] - row_max)
    T.tvm_storage_sync("shared")
    for s in range(7):
        if tx < T.shift_right(64, s):
            red[tx] = red[tx] + red[tx + T.shift_right(64, s)]
        T.tvm_storage_sync("shared")
    total: T.float32 = red[0]
    B[bx, tx] = T.exp(A[bx, tx] - row_max) / total
    B[bx, tx + 128] = T.exp(A[bx, tx + 128] - row_max) / total
