# tir.Var's constructor through the T module, as upstream's programs write it: `n = T.Var("n",
# "int32")` is the variable `n = T.int32()` makes (here defined by the match_buffer's shape).
from tvm.script import tir as T


@T.prim_func
def f(h: T.handle):
    n = T.Var("n", "int32")
    A = T.match_buffer(h, (n,), "float32")
    for i in range(n):
        A[i] = T.float32(0)
