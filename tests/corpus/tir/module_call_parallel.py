# A callee run from the tasks of a parallel loop, each on one row given by its address.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def row(p: T.handle("float32"), k: T.int32):
        R = T.decl_buffer((16,), "float32", data=p)
        for j in range(16):
            R[j] = R[j] * T.Cast("float32", k)

    @T.prim_func
    def main(A: T.Buffer((4, 16), "float32")):
        cls = Module
        for i in T.parallel(4):
            cls.row(T.address_of(A[i, 0]), i + 1)
