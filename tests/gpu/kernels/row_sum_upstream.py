# Row sums in the form upstream's LowerCrossThreadReduction writes (tests/corpus/tir's
# thread_allreduce.py): the allreduce inside a block with iteration variables, its "local"
# result buffer allocated at the function's root (split_host_device moves it into the kernel),
# a write-back block.
from tvm.script import tirx as T


@T.prim_func
def row_sum_upstream(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
    reduce_temp0 = T.alloc_buffer((1,), scope="local")
    for i in T.thread_binding(128, thread="blockIdx.x"):
        for k in T.thread_binding(128, thread="threadIdx.x"):
            with T.sblock("B_cross_thread_reduction"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(reduce_temp0[0])
                with T.attr(T.comm_reducer(lambda x, y: x + y, [T.float32(0)]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                    T.tvm_thread_allreduce(T.uint32(1), A[vi, vk], T.bool(True), reduce_temp0[0], k)
        with T.sblock("B_write_back"):
            vi = T.axis.spatial(128, i)
            T.reads(reduce_temp0[0])
            T.writes(B[vi])
            B[vi] = reduce_temp0[0]
