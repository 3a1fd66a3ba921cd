# T.init() in a block without a reduction iteration variable (upstream's verifier accepts it):
# the init runs every time the block runs, before its body. And an init that reads the
# reduction variable (upstream accepts it too).
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def spatial_init(A: T.Buffer((4,), "float32"), C: T.Buffer((4,), "float32")):
        for i in range(4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                T.reads(A[vi])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(1)
                C[vi] = C[vi] + A[vi]

    @T.prim_func
    def opaque_init(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4,), "float32")):
        for i, k in T.grid(4, 4):
            with T.sblock("b"):
                vi = T.axis.spatial(4, i)
                vk = T.axis.opaque(4, k)
                T.reads(A[vi, vk])
                T.writes(C[vi])
                with T.init():
                    C[vi] = T.float32(0)
                C[vi] = C[vi] + A[vi, vk]

    @T.prim_func
    def init_reads_reduce_var(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        # The init reads the reduction variable (upstream accepts it): it runs when vk is 0.
        for i, k in T.grid(4, 4):
            with T.sblock("b"):
                vi, vk = T.axis.remap("SR", [i, k])
                T.reads(A[vi, vk])
                T.writes(C[vi, vk])
                with T.init():
                    C[vi, vk] = T.float32(2)
                C[vi, vk] = C[vi, vk] + A[vi, vk]
