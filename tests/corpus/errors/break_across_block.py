# expect: ValueError 10:17
# A break cannot leave a block's scope to reach the loop around the block.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "int32")):
    for i in range(16):
        with T.sblock("b"):
            if A[i] > 0:
                break
            A[i] = 0
