# A callee's assertion fails: the error comes back through its caller, whose heap allocation
# is released on the way out.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def square(x: T.int32) -> T.int32:
        assert x >= 0, "negative input"
        T.ret(x * x)

    @T.prim_func
    def main(A: T.Buffer((8,), "int32"), k: T.int32):
        cls = Module
        tmp = T.alloc_buffer((4096,), "int32")
        tmp[0] = cls.square(k)
        A[k] = tmp[0]
