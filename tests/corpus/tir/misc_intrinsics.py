# Less common intrinsics that real kernels use: likely, abs, isnan, popcount, the dtype limits.
from tvm.script import tirx as T


@T.prim_func
def misc(A: T.Buffer((16,), "float32"), I: T.Buffer((16,), "int32")):
    for i in range(16):
        if T.likely(i < 15):
            A[i] = T.abs(A[i]) + T.nearbyint(A[i])
        I[i] = T.popcount(I[i]) + T.abs(I[i])
        I[i] = T.if_then_else(T.isnan(A[i]), 0, 1)
        A[i] = T.max(A[i], T.min_value("float32"))
        A[i] = T.min(A[i], T.max_value("float32"))
