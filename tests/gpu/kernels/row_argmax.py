# Row argmax over 32 columns, a warp per row: a two-value reducer (value, index) in one
# T.tvm_thread_allreduce whose results are buffer elements; both values are shuffled together.
# Ties go to the lower index, so every reduction order gives the first maximum.
from tvm.script import tirx as T


@T.prim_func
def row_argmax(a: T.handle, b: T.handle):
    m = T.int32()
    A = T.match_buffer(a, (m, 32), "float32")
    B = T.match_buffer(b, (m,), "float32")
    for i in T.thread_binding(m, thread="blockIdx.x"):
        for k in T.thread_binding(32, thread="threadIdx.x"):
            red_v = T.decl_buffer((1,), "float32", scope="local")
            red_i = T.decl_buffer((1,), "int32", scope="local")
            with T.attr(T.comm_reducer(lambda v0, i0, v1, i1: (T.Select(v0 > v1 or v0 == v1 and i0 < i1, v0, v1), T.Select(v0 > v1 or v0 == v1 and i0 < i1, i0, i1)), [T.min_value("float32"), -1]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                T.tvm_thread_allreduce(T.uint32(2), A[i, k], k, T.bool(True), red_v[0], red_i[0], k)
            if k == 0:
                B[i] = T.Cast("float32", red_i[0])
