# Buffer parameters: tuple, list and int shapes, a positional or keyword dtype, and the
# default dtype (float32) when none is given.
from tvm.script import tirx as T


@T.prim_func
def buffer_params(
    A: T.Buffer((16, 8), "float32"),
    B: T.Buffer([16, 8], dtype="float32"),
    C: T.Buffer(16, "int32"),
    D: T.Buffer((4,)),
    E: T.Buffer([2, 2, 2], "float16"),
):
    for i, j in T.grid(16, 8):
        B[i, j] = A[i, j] + D[j % 4]
    for k in range(16):
        C[k] = k * 2
    E[0, 1, 1] = T.float16(0.5)
