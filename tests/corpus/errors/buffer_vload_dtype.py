# expect: TypeError 8:16
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "int32")):
    for i in range(32):
        B[i] = A.vload([i], dtype="int32")
