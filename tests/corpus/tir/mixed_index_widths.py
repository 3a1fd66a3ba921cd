# Buffer indices of mixed bit widths: an int64 loop variable next to an int32 one, T.grid with an
# int64 extent and a literal one, a literal index next to an int64 variable, in loads and stores.
# The narrower indices are cast to the widest width (docs/tir-decisions.md).
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def grid_i64(a: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n, T.int64(4)), "float32")
        C = T.match_buffer(c, (n, T.int64(4)), "float32")
        for i, j in T.grid(n, 4):
            C[i, j] = A[i, j] * T.float32(2)

    @T.prim_func
    def loops_i64_i32(A: T.Buffer((4, 8), "float32"), C: T.Buffer((8, 4), "float32")):
        for i in T.serial(T.int64(4)):
            for j in range(8):
                C[j, i] = A[i, j] + A[i, 0]

    @T.prim_func
    def index_arith(A: T.Buffer((16,), "int32"), C: T.Buffer((4, 4), "int32")):
        for i in T.serial(T.int64(4)):
            for j in range(4):
                C[i, j] = A[i * T.int64(4) + T.Cast("int64", j)] * 3

    @T.prim_func
    def block_axes(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for i in T.serial(T.int64(8)):
            for j in range(8):
                with T.sblock("b"):
                    vi = T.axis.spatial(T.int64(8), i)
                    vj = T.axis.spatial(8, j)
                    T.reads(A[vi, 0:8])
                    T.writes(C[vi, vj])
                    C[vi, vj] = A[vi, vj] + A[vi, 0]
