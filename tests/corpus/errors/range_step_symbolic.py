# expect: ValueError 7:27
# The step of range() is a constant: a symbolic step has no loop form in TIR.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32"), s: T.int32):
    for i in range(0, 16, s):
        A[i] = T.float32(0)
