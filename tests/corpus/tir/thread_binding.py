# GPU-style loops bound to threads.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_gpu(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
        for bx in T.thread_binding(8, thread="blockIdx.x"):
            for tx in T.thread_binding(128, thread="threadIdx.x"):
                with T.sblock("C"):
                    vi = T.axis.spatial(1024, bx * 128 + tx)
                    T.reads(A[vi], B[vi])
                    T.writes(C[vi])
                    C[vi] = A[vi] + B[vi]

    @T.prim_func
    def with_start(A: T.Buffer((64,), "float32")):
        for ty in T.thread_binding(0, 4, thread="threadIdx.y"):
            for tx in T.thread_binding(16, "threadIdx.x"):
                A[ty * 16 + tx] = T.float32(0)
