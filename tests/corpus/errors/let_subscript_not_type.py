# expect: TypeError 7:14
# The subscript of T.let names a type, not a value.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    x: T.let[A[0]] = A[0]
    A[1] = x
