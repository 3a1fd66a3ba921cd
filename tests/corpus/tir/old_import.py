# Old spellings: `tir` as the module name, T.block, and a literal without its T.float32.
from tvm.script import tir as T


@T.prim_func
def old(A: T.Buffer((8, 8), "float32"), B: T.Buffer((8,), "float32")):
    for i, k in T.grid(8, 8):
        with T.block("reduce"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = 0.0
            B[vi] = B[vi] + A[vi, vk]
