# expect: TypeError 8:14
# T.allocate_const holds int, uint and float constants of one lane.
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    B_data = T.allocate_const([1, 2], "float32x2", [1])
    B = T.decl_buffer((1,), "float32x2", data=B_data)
    A[0] = T.float32(0)
