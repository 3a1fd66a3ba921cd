# expect: TypeError 7:14
# T.Ptr[...] takes a dtype.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    p: T.Ptr[A] = T.address_of(A[0])
    T.evaluate(0)
