# Row sums with a cross-thread allreduce: one block of 128 threads per row, each thread adding
# two elements, T.tvm_thread_allreduce over threadIdx.x (as upstream's LowerCrossThreadReduction
# writes it). lower_thread_allreduce makes it a warp reduction per warp, the four partials in
# shared memory, and a second warp reduction.
from tvm.script import tirx as T


@T.prim_func
def row_sum_allreduce(a: T.handle, b: T.handle):
    m = T.int32()
    A = T.match_buffer(a, (m, 256), "float32")
    B = T.match_buffer(b, (m,), "float32")
    for bx in T.thread_binding(m, thread="blockIdx.x"):
        for tx in T.thread_binding(128, thread="threadIdx.x"):
            red = T.decl_buffer((1,), "float32", scope="local")
            with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                T.tvm_thread_allreduce(T.uint32(1), A[bx, tx] + A[bx, tx + 128], T.bool(True), red.data, tx)
            if tx == 0:
                B[bx] = red[0]
