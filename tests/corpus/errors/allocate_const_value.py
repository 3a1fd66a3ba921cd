# expect: TypeError 8:14
# T.allocate_const takes numbers, not strings.
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((2,), "float32")):
    B_data = T.allocate_const([1.5, "x"], "float32", [2])
    B = T.decl_buffer((2,), "float32", data=B_data)
    for i in range(2):
        A[i] = B[i]
