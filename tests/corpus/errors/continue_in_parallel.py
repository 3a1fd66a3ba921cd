# expect: ValueError 9:13
# A parallel loop has no order of iterations to leave early.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "int32")):
    for i in T.parallel(16):
        if A[i] > 0:
            continue
        A[i] = 0
