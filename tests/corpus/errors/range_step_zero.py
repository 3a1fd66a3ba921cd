# expect: ValueError 7:27
# A loop's step is a nonzero integer constant.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in range(0, 16, 0):
        A[i] = T.float32(0)
