# Row softmax over 256 columns with warp reductions: a warp (threadIdx.x, 32 threads) per row,
# four rows per block (threadIdx.y), each thread taking 8 columns; the row maximum and the sum
# of exponentials are T.tvm_thread_allreduce over threadIdx.x, which lower_thread_allreduce
# makes warp shuffles (shfl.sync.down, then a broadcast of lane 0). m is a multiple of 4.
from tvm.script import tirx as T


@T.prim_func
def softmax_warp(a: T.handle, b: T.handle):
    m = T.int32()
    A = T.match_buffer(a, (m, 256), "float32")
    B = T.match_buffer(b, (m, 256), "float32")
    for bx in T.thread_binding(m // 4, thread="blockIdx.x"):
        for ty in T.thread_binding(4, thread="threadIdx.y"):
            for tx in T.thread_binding(32, thread="threadIdx.x"):
                part = T.decl_buffer((1,), "float32", scope="local")
                row_max = T.decl_buffer((1,), "float32", scope="local")
                row_sum = T.decl_buffer((1,), "float32", scope="local")
                part[0] = A[bx * 4 + ty, tx]
                for j in range(1, 8):
                    part[0] = T.max(part[0], A[bx * 4 + ty, tx + j * 32])
                with T.attr(T.comm_reducer(lambda x, y: T.max(x, y), [T.float32("-inf")]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                    T.tvm_thread_allreduce(T.uint32(1), part[0], T.bool(True), row_max.data, tx)
                part[0] = T.float32(0)
                for j in range(8):
                    part[0] = part[0] + T.exp(A[bx * 4 + ty, tx + j * 32] - row_max[0])
                with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                    T.tvm_thread_allreduce(T.uint32(1), part[0], T.bool(True), row_sum.data, tx)
                for j in range(8):
                    B[bx * 4 + ty, tx + j * 32] = T.exp(A[bx * 4 + ty, tx + j * 32] - row_max[0]) / row_sum[0]
