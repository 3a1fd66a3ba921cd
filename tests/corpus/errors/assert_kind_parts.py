# expect: TypeError 7:69
# The message parts of assert's (error kind, [message parts]) form are strings, as upstream's.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "int32")):
    assert A[0] > 0, ("ValueError", ["A[0] must be positive, got ", A[0]])
    A[1] = A[0]
