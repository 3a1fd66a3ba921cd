# Low-level allocation: T.allocate returns a pointer variable; buffers view it.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def staged(A: T.Buffer((64,), "float32")):
        buf = T.allocate([64], "float32", "global")
        B = T.Buffer((64,), "float32", data=buf)
        for i in range(64):
            B[i] = A[i] * T.float32(3)
        for i in range(64):
            A[i] = B[63 - i]

    @T.prim_func
    def local_scratch(A: T.Buffer((16,), "int32")):
        for i in range(4):
            scratch = T.allocate([4], "int32", "local")
            S = T.decl_buffer((4,), "int32", data=scratch, scope="local")
            for j in range(4):
                S[j] = A[i * 4 + j]
            for j in range(4):
                A[i * 4 + j] = S[3 - j]
