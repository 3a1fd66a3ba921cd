# Cross-thread reductions: a "reduce_scope" attribute holding a T.comm_reducer (a lambda over
# fresh variables) around tir.tvm_thread_allreduce, as upstream's LowerCrossThreadReduction
# writes them; a two-value (argmax) reducer; and a reducer as a block annotation.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def row_sum(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128,), "float32")):
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

    @T.prim_func
    def row_argmax(A: T.Buffer((64, 32), "float32"), idx: T.Buffer((64,), "int32")):
        red_v = T.alloc_buffer((1,), scope="local")
        red_i = T.alloc_buffer((1,), "int32", scope="local")
        for i in T.thread_binding(64, thread="blockIdx.x"):
            for k in T.thread_binding(32, thread="threadIdx.x"):
                with T.attr(T.comm_reducer(lambda v0, i0, v1, i1: (T.Select(v0 >= v1, v0, v1), T.Select(v0 >= v1, i0, i1)), [T.min_value("float32"), -1]), "reduce_scope", T.reinterpret("handle", T.uint64(0))):
                    T.tvm_thread_allreduce(T.uint32(2), A[i, k], k, T.bool(True), red_v[0], red_i[0], k)
                idx[i] = red_i[0]

    @T.prim_func
    def annotated(A: T.Buffer((16,), "float32"), B: T.Buffer((1,), "float32")):
        for k in range(16):
            with T.sblock("sum"):
                vk = T.axis.reduce(16, k)
                T.reads(A[vk])
                T.writes(B[0])
                T.sblock_attr({"reducer": T.comm_reducer(lambda a, b: T.max(a, b), [T.float32("-inf")])})
                with T.init():
                    B[0] = T.float32("-inf")
                B[0] = T.max(B[0], A[vk])
