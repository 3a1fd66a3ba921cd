# Upstream's newer spellings: `T.Bind(value, var=v)` as a statement (the let binds the rest of
# the body), a pointer annotated `T.Ptr[T.float32]`, and T.match_buffer of a region without a
# shape or dtype (both taken from the region).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def bind_offset(A: T.Buffer((32,), "float32"), B: T.Buffer((16,), "float32"), k: T.int32):
        j = T.int32()
        T.Bind(k % 16, var=j)
        for i in range(16):
            B[i] = A[i + j] * T.float32(2)

    @T.prim_func
    def ptr_view(A: T.Buffer((32,), "float32"), B: T.Buffer((16,), "float32")):
        upper: T.Ptr[T.float32] = T.address_of(A[16])
        U = T.decl_buffer((16,), "float32", data=upper)
        for i in range(16):
            B[i] = U[i] - A[i]

    @T.prim_func
    def region_match(A: T.Buffer((8, 16), "int32"), B: T.Buffer((4, 8), "int32")):
        with T.sblock("root"):
            S = T.match_buffer(A[2:6, 4:12])
            for i, j in T.grid(4, 8):
                B[i, j] = S[i, j] + 1
