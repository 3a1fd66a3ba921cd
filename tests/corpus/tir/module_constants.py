# Module-level constants named before the definitions and used in shapes and extents.
from tvm.script import ir as I
from tvm.script import tirx as T

N = 128
M = 64
DTYPE = "float32"


@I.ir_module
class Module:
    @T.prim_func
    def fill(A: T.Buffer((N, M), DTYPE)):
        for i, j in T.grid(N, M):
            A[i, j] = T.float32(0)

    @T.prim_func
    def add(A: T.Buffer((N, M), DTYPE), B: T.Buffer((N, M), DTYPE)):
        for i, j in T.grid(N, M):
            B[i, j] = B[i, j] + A[i, j]
