# tvm.target.Target(...) in a function's attributes, as upstream's tests write the target: the
# same as T.target(...).
import tvm
from tvm.script import tir as T


@T.prim_func
def scale(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
    T.func_attr({"target": tvm.target.Target("llvm", host="llvm"), "tir.noalias": True})
    for i in range(8):
        B[i] = A[i] * T.float32(2)
