# expect: ValueError 9:5
# A function attribute may use the function's parameters and its buffers' shape variables;
# `v` is bound by neither.
from tvm.script import tir as T

@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    v = T.int32()
    T.func_attr({"extent": v})
    for i in range(4):
        A[i] = T.float32(0)
