# expect: ValueError 8:14
# T.allocate_const needs one value per element of its extents.
from tvm.script import tir as T


@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    B_data = T.allocate_const([1, 2, 3], "int32", [4])
    B = T.decl_buffer((4,), "int32", data=B_data)
    for i in range(4):
        A[i] = B[i]
