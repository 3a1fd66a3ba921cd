# Calls between the PrimFuncs of a module: scalars in and out, buffers passed by their data
# to a buffer parameter or to a handle parameter under a declared buffer, calls in a loop.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def scale(p: T.handle("float32"), n: T.int32, k: T.float32):
        A = T.decl_buffer((16,), "float32", data=p)
        for i in range(n):
            A[i] = A[i] * k

    @T.prim_func
    def shift(a: T.handle, v: T.float32):
        A = T.match_buffer(a, (16,), "float32")
        for i in range(16):
            A[i] = A[i] + v

    @T.prim_func
    def clamp(x: T.int64, lo: T.int64, hi: T.int64) -> T.int64:
        T.ret(T.max(lo, T.min(x, hi)))

    @T.prim_func
    def is_odd(x: T.int32) -> T.bool:
        T.ret(x % 2 == 1)

    @T.prim_func
    def half(x: T.float64) -> T.float32:
        T.ret(T.Cast("float32", x * T.float64(0.5)))

    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32"), C: T.Buffer((16,), "int64")):
        cls = Module
        cls.scale(A.data, 16, T.float32(2))
        cls.shift(B.data, T.float32(1.5))
        for i in range(16):
            B[i] = B[i] + A[i] + cls.half(T.Cast("float64", A[i]))
            if cls.is_odd(i):
                C[i] = cls.clamp(C[i], T.int64(-20), T.int64(20))
