# T.call_extern of helper PrimFuncs defined in the same module (a private scalar helper with
# T.ret, and a helper that writes a buffer through its data): the call is the helper's, as a
# call through a GlobalVar would be.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def add_one(x: T.float32) -> T.float32:
        T.ret(x + T.float32(1))

    @T.prim_func(private=True)
    def fill(p: T.handle("float32"), v: T.float32):
        A = T.decl_buffer((8,), "float32", data=p)
        for i in range(8):
            A[i] = v + T.Cast("float32", i)

    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            B[i] = T.call_extern("float32", "add_one", A[i]) * T.float32(2)
        T.call_extern("void", "fill", B.data, A[3])
