# expect: TypeError 7:28
# range() takes positional bounds and annotations= only.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    for i in range(4, step=1):
        A[i] = T.float32(0)
