# Column sums of a (24, n) matrix, a block of 16 columns x 24 rows of threads, the allreduce over
# threadIdx.y: the reduced axis is not the lowest one and 24 is not a power of two, so
# lower_thread_allreduce makes a shared-memory tree (16 groups of 24, barriers between steps).
# n is a multiple of 16.
from tvm.script import tirx as T


@T.prim_func
def col_sum_tree(a: T.handle, b: T.handle):
    n = T.int32()
    A = T.match_buffer(a, (24, n), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for bx in T.thread_binding(n // 16, thread="blockIdx.x"):
        for ty in T.thread_binding(24, thread="threadIdx.y"):
            for tx in T.thread_binding(16, thread="threadIdx.x"):
                red = T.decl_buffer((1,), "float32", scope="local")
                with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                    T.tvm_thread_allreduce(T.uint32(1), A[ty, bx * 16 + tx], T.bool(True), red.data, ty)
                if ty == 0:
                    B[bx * 16 + tx] = red[0]
