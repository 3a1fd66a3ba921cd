# expect: AttributeError 8:19
# `tvm.relay` is not a TVMScript module.
import tvm
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    A[0] = T.cast(tvm.relay.const(1), "float32")
