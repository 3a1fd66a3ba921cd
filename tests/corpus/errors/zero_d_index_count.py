# expect: TypeError 7:12
# A 0-d buffer is indexed with A[()]: one index is one too many.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((), "float32"), B: T.Buffer((4,), "float32")):
    B[0] = A[0]
