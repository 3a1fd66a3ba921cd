# expect: TypeError 7:8
# T.let takes one type in brackets.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    x: T.let[T.int32, T.int64] = A[0]
    A[1] = x
