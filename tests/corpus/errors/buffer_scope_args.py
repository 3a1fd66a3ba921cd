# expect: TypeError 7:8
# Buffer.scope() takes no arguments.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    if A.scope("x") == "global":
        A[0] = T.float32(0)
