# tir.Var's and tir.SizeVar's constructors through the T module, as upstream's programs write
# them: `n = T.Var("n", "int32")` is the variable `n = T.int32()` makes, `m = T.SizeVar("m",
# "int32")` the one `m = T.int32(is_size_var=True)` makes (as mlc-llm's MoE kernels declare
# sizes); both defined here by the match_buffer's shape.
from tvm.script import tir as T


@T.prim_func
def f(h: T.handle, g: T.handle):
    n = T.Var("n", "int32")
    m = T.SizeVar("m", "int32")
    A = T.match_buffer(h, (n,), "float32")
    B = T.match_buffer(g, (m,), "float32")
    for i in range(n):
        A[i] = T.float32(0)
    for j in range(m):
        B[j] = T.float32(1)
