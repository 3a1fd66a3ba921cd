# break and continue in for and while loops: a search that stops at the first hit, a nested
# loop that skips and stops per row, a while loop over a counter in a local buffer, a break
# under a border test (loop partitioning must keep it one loop), an unrolled loop that is left
# early (it stays a loop), serial loops inside a parallel one, and heap and stack scratch
# buffers inside bodies that are left early.
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def first_negative(A: T.Buffer((64,), "int32"), out: T.Buffer((1,), "int32")):
        out[0] = -1
        for i in range(64):
            if A[i] % 5 == 0:
                out[0] = i
                break

    @T.prim_func
    def row_sums(A: T.Buffer((8, 16), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = T.float32(0)
            for j in range(16):
                if A[i, j] < T.float32(0.25):
                    continue
                if A[i, j] > T.float32(0.9):
                    break
                B[i] = B[i] + A[i, j]

    @T.prim_func
    def count_while(A: T.Buffer((64,), "int32"), out: T.Buffer((2,), "int32")):
        k = T.decl_buffer((1,), "int32")
        k[0] = 0
        out[0] = 0
        out[1] = -1
        while k[0] < 64:
            k[0] = k[0] + 1
            if A[k[0] - 1] % 3 == 0:
                continue
            out[0] = out[0] + 1
            if A[k[0] - 1] % 7 == 0:
                out[1] = k[0] - 1
                break

    @T.prim_func
    def border_break(A: T.Buffer((64,), "int32"), B: T.Buffer((64,), "int32")):
        for i in range(64):
            if i < 60:
                if A[i] % 11 == 0:
                    break
            B[i] = A[i] + 1

    @T.prim_func
    def unrolled_break(A: T.Buffer((8,), "int32"), B: T.Buffer((8,), "int32")):
        for i in T.unroll(8):
            if A[i] % 4 == 0:
                break
            B[i] = A[i] * 2
        for i in T.unroll(4):
            if A[i] % 2 == 0:
                continue
            B[i] = B[i] + 1

    @T.prim_func
    def parallel_rows(A: T.Buffer((16, 32), "int32"), B: T.Buffer((16,), "int32")):
        for i in T.parallel(16):
            B[i] = 0
            for j in range(32):
                if A[i, j] % 9 == 0:
                    break
                if A[i, j] % 2 == 0:
                    continue
                B[i] = B[i] + 1
            for j in T.vectorized(4):
                A[i, j] = A[i, j] + 1

    @T.prim_func
    def scratch(A: T.Buffer((16, 64), "float32"), B: T.Buffer((16,), "float32")):
        for i in range(16):
            small = T.decl_buffer((64,), "float32")
            big = T.decl_buffer((400000,), "float32")
            for j in range(64):
                small[j] = A[i, j]
                big[j * 6000] = A[i, j] * T.float32(2)
            B[i] = small[0] + big[6000]
            if A[i, 0] < T.float32(0.3):
                continue
            if A[i, 1] < T.float32(0.1):
                break
            B[i] = B[i] + big[0]
