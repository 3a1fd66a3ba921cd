# expect: ValueError 7:29
# Buffer.access_ptr's access mask is made of "r" and "w".
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    T.evaluate(A.access_ptr("x"))
