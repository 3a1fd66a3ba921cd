# Buffers declared over other buffers' data (aliases of parameters and of allocations, shapes
# from let-bound variables) and T.decl_buffer without data, which allocates its buffer: at the
# top of a function, under a let, inside a loop, with strides and an elem_offset.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def alias_param(A: T.Buffer((4, 4), "float32"), C: T.Buffer((16,), "float32")):
        B = T.decl_buffer((16,), "float32", data=A.data)
        for i in range(16):
            C[i] = B[i] * T.float32(2)

    @T.prim_func
    def alias_2d(a: T.handle, c: T.handle):
        A = T.match_buffer(a, (16,), "float32")
        C = T.match_buffer(c, (16,), "float32")
        A2 = T.decl_buffer((2, 8), "float32", data=A.data)
        C2 = T.decl_buffer((2, 8), "float32", data=C.data)
        for i, j in T.grid(2, 8):
            C2[i, j] = A2[1 - i, j]

    @T.prim_func
    def let_shape(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        n: T.int32 = 4
        B = T.decl_buffer((n, n), "float32", data=A.data)
        for i, j in T.grid(n, n):
            C[i * 4 + j] = B[i, j] * T.float32(3)

    @T.prim_func
    def alloc_no_data(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.decl_buffer((16,), "float32")
        for i in range(16):
            B[i] = A[i] + T.float32(1)
        for i in range(16):
            C[i] = B[15 - i]

    @T.prim_func
    def alloc_under_let(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        n: T.int32 = 16
        B = T.decl_buffer((n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.float32(1)
        for i in range(n):
            C[i] = B[i] * B[i]

    @T.prim_func
    def alloc_in_loop(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i in range(4):
            tmp = T.decl_buffer((8,), "float32")
            for j in range(8):
                tmp[j] = A[i, j] * T.float32(2)
            for j in range(8):
                C[i, j] = tmp[7 - j]

    @T.prim_func
    def alias_of_alloc(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        B = T.decl_buffer((4, 4), "float32")
        B_flat = T.decl_buffer((16,), "float32", data=B.data)
        for i in range(16):
            B_flat[i] = A[i]
        for i, j in T.grid(4, 4):
            C[i * 4 + j] = B[j, i]

    @T.prim_func
    def alloc_strided(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        B = T.decl_buffer((4, 4), "float32", strides=(8, 1), elem_offset=2)
        for i, j in T.grid(4, 4):
            B[i, j] = A[i, j] + T.float32(1)
        for i, j in T.grid(4, 4):
            C[i, j] = B[j, i]

    @T.prim_func
    def block_alloc_alias(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        with T.block("root"):
            B = T.alloc_buffer((4, 4), "float32")
            B_flat = T.decl_buffer((16,), "float32", data=B.data)
            for i in range(16):
                B_flat[i] = A[i]
            for i, j in T.grid(4, 4):
                C[i * 4 + j] = B[j, i]
