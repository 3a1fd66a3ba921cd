# The older spelling T.block (printed back as T.sblock) and the old `tir` import name.
from tvm.script import tir as T


@T.prim_func
def relu(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
    for i in range(64):
        with T.block("relu"):
            vi = T.axis.spatial(64, i)
            T.reads(A[vi])
            T.writes(B[vi])
            B[vi] = T.max(A[vi], T.float32(0))
