# Integer arithmetic of mixed widths inside indices and values: an int64 loop variable times a
# literal plus an int32 one (`i * 4 + j`), an int64 extent next to an int32 offset, a uint8
# value widened in a sum, a comparison of int64 with int32. The narrower operand is cast to the
# wider type (upstream's rule, docs/tir-decisions.md).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def flat_index(A: T.Buffer((32,), "float32"), C: T.Buffer((32,), "float32")):
        for i in T.serial(T.int64(8)):
            for j in range(4):
                C[i * 4 + j] = A[i * 4 + j] * T.float32(2) + A[j * 8 + i]

    @T.prim_func
    def symbolic_rows(a: T.handle, c: T.handle, off: T.int32):
        n = T.int64()
        A = T.match_buffer(a, (n * 4,), "int32")
        C = T.match_buffer(c, (n,), "int32")
        for i in range(n):
            acc: T.int64 = T.int64(0)
            for k in range(4):
                if i * 4 + k < n * 4 - off:
                    C[i] = C[i] + A[i * 4 + k]

    @T.prim_func
    def widen_values(A: T.Buffer((16,), "uint8"), B: T.Buffer((16,), "int32"),
                     C: T.Buffer((16,), "int32")):
        for i in range(16):
            C[i] = B[i] + T.Cast("int16", A[i]) * 3
