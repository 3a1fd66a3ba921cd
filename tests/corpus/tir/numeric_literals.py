# Numeric literal forms: underscores, hex, octal, binary, exponents, special floats.
from tvm.script import tirx as T


@T.prim_func
def numbers(A: T.Buffer((8,), "int32"), F: T.Buffer((8,), "float32"), D: T.Buffer((2,), "float64")):
    A[0] = 1_000
    A[1] = 0x1F
    A[2] = 0o17
    A[3] = 0b1010
    A[4] = -2147483648
    A[5] = 2147483647
    F[0] = T.float32(1e-3)
    F[1] = T.float32(2.5E+2)
    F[2] = T.float32("inf")
    F[3] = T.float32("-inf")
    F[4] = T.float32(.5)
    F[5] = T.float32(3.)
    F[6] = T.float32(1_000.25)
    D[0] = T.float64(1.7976931348623157e308)
    D[1] = T.float64(5e-324)
