# Row sums written with the warp shuffles already in place, inside the reduce_scope attribute
# lower_thread_allreduce leaves (upstream's tests print kernels in this form): one warp per row,
# a butterfly of shfl.down over 32 lanes, lane 0 storing. The reducer's lambda Vars are bound in
# the attribute, never kernel parameters.
from tvm.script import tirx as T


@T.prim_func
def row_sum_shuffled(A: T.Buffer((64, 32), "float32"), B: T.Buffer((64,), "float32")):
    bx = T.launch_thread("blockIdx.x", 64)
    tx = T.launch_thread("threadIdx.x", 32)
    acc = T.decl_buffer((1,), "float32", scope="local")
    tmp = T.decl_buffer((1,), "float32", scope="local")
    mask = T.decl_buffer((1,), "uint32", scope="local")
    with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
        acc[0] = A[bx, tx]
        mask[0] = T.tvm_warp_activemask()
        tmp[0] = T.tvm_warp_shuffle_down(mask[0], acc[0], 16, 32, 32)
        acc[0] = acc[0] + tmp[0]
        tmp[0] = T.tvm_warp_shuffle_down(mask[0], acc[0], 8, 32, 32)
        acc[0] = acc[0] + tmp[0]
        tmp[0] = T.tvm_warp_shuffle_down(mask[0], acc[0], 4, 32, 32)
        acc[0] = acc[0] + tmp[0]
        tmp[0] = T.tvm_warp_shuffle_down(mask[0], acc[0], 2, 32, 32)
        acc[0] = acc[0] + tmp[0]
        tmp[0] = T.tvm_warp_shuffle_down(mask[0], acc[0], 1, 32, 32)
        acc[0] = acc[0] + tmp[0]
    if tx == 0:
        B[bx] = acc[0]
