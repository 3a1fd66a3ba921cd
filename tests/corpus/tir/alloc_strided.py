# Allocations seen through a strided, offset layout: T.allocate under a T.decl_buffer with
# strides and an elem_offset, and a block's alloc_buffer with both.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def allocate_strided(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        ptr = T.allocate([64], "float32", "global")
        B = T.decl_buffer((4, 4), "float32", data=ptr, strides=(8, 1), elem_offset=5)
        for i, j in T.grid(4, 4):
            B[i, j] = A[i, j] * T.float32(2)
        for i, j in T.grid(4, 4):
            C[i, j] = B[j, i]

    @T.prim_func
    def alloc_buffer_strided(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        B = T.alloc_buffer((4, 4), "float32", strides=(8, 1), elem_offset=3)
        for i, j in T.grid(4, 4):
            with T.block("b"):
                vi, vj = T.axis.remap("SS", [i, j])
                B[vi, vj] = A[vi, vj] * T.float32(2)
        for i, j in T.grid(4, 4):
            with T.block("c"):
                vi, vj = T.axis.remap("SS", [i, j])
                C[vi, vj] = B[vj, vi]

    @T.prim_func
    def alloc_buffer_column_major(a: T.handle, c: T.handle, n: T.int32):
        A = T.match_buffer(a, (n, 3), "int32")
        C = T.match_buffer(c, (n, 3), "int32")
        with T.block("root"):
            B = T.alloc_buffer((n, 3), "int32", strides=(1, n))
            for i, j in T.grid(n, 3):
                with T.block("b"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    B[vi, vj] = A[vi, vj] + vj
            for i, j in T.grid(n, 3):
                with T.block("c"):
                    vi, vj = T.axis.remap("SS", [i, j])
                    C[vi, vj] = B[n - 1 - vi, vj]
