# expect: TypeError 8:15
# A region used as a value may have one axis of extent > 1 (a vector), not two.
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4, 4), "float32"), B: T.Buffer((4, 4), "float32")):
    B[0, 0] = A[0:2, 0:2] + T.float32(1)
