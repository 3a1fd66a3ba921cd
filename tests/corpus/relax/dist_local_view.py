# R.dist.call_tir_local_view: a PrimFunc written for one device's shard called on DTensors (the
# output of upstream's LowerGlobalViewToLocalView), with one output and with a tuple of outputs,
# then an allreduce of the partial sums.
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class LocalView:
    I.module_attrs({"device_num": 2})
    I.module_global_infos({"mesh": [R.device_mesh((2,), I.Range(0, 2))]})

    @T.prim_func(private=True)
    def matmul(A: T.Buffer((8, 16), "float32"), B: T.Buffer((16, 4), "float32"), C: T.Buffer((8, 4), "float32")):
        for i, j, k in T.grid(8, 4, 16):
            with T.sblock("C"):
                vi, vj, vk = T.axis.remap("SSR", [i, j, k])
                with T.init():
                    C[vi, vj] = T.float32(0.0)
                C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]

    @T.prim_func(private=True)
    def split(A: T.Buffer((8, 4), "float32"), B: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            with T.sblock("B"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj]
                C[vi, vj] = A[vi + 4, vj]

    @R.function
    def main(
        x: R.DTensor((8, 16), "float32", "mesh[0]", "R"),
        w: R.DTensor((16, 8), "float32", "mesh[0]", "S[1]"),
    ) -> R.Tuple(R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"), R.DTensor((4, 8), "float32", "mesh[0]", "S[1]")):
        cls = LocalView
        y: R.DTensor((8, 8), "float32", "mesh[0]", "S[1]") = R.dist.call_tir_local_view(
            cls.matmul, (x, w), out_sinfo=R.DTensor((8, 8), "float32", "mesh[0]", "S[1]")
        )
        parts: R.Tuple(R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"), R.DTensor((4, 8), "float32", "mesh[0]", "S[1]")) = R.dist.call_tir_local_view(
            cls.split,
            (y,),
            out_sinfo=[
                R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"),
                R.DTensor((4, 8), "float32", "mesh[0]", "S[1]"),
            ],
        )
        return parts
