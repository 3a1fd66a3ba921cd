# expect: ValueError 9:9
# A T.Buffer over a data pointer that no allocation, parameter or let defines: not in scope.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    B = T.Buffer((16,), "float32")
    for i in range(16):
        B[i] = A[i]
