# Row sums with the per-thread temporaries allocated at the function's root, outside the thread
# launches, as upstream's LowerCrossThreadReduction writes them: "local" memory is each thread's
# own wherever it is allocated (split_host_device moves it into the kernel). Each thread adds
# four elements, then a warp allreduce over threadIdx.x.
from tvm.script import tirx as T


@T.prim_func
def row_sum_root_local(A: T.Buffer((64, 128), "float32"), B: T.Buffer((64,), "float32")):
    part = T.alloc_buffer((1,), "float32", scope="local")
    red = T.alloc_buffer((1,), "float32", scope="local")
    for bx in T.thread_binding(64, thread="blockIdx.x"):
        for tx in T.thread_binding(32, thread="threadIdx.x"):
            part[0] = T.float32(0)
            for k in range(4):
                part[0] = part[0] + A[bx, k * 32 + tx]
            with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                T.tvm_thread_allreduce(T.uint32(1), part[0], T.bool(True), red[0], tx)
            if tx == 0:
                B[bx] = red[0]
