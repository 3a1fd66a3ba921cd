# expect: SyntaxError 8:9
# break and continue leave the innermost loop: there must be one (Python's own rule).
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    if A[0] > 0:
        break
    A[1] = A[0]
