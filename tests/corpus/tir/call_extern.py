# Calls to external functions, reinterpret and other intrinsic calls.
from tvm.script import tirx as T


@T.prim_func
def externs(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "int32")):
    for i in range(16):
        A[i] = T.call_extern("float32", "my_sinf", A[i])
        B[i] = T.reinterpret("int32", A[i])
        A[i] = T.reinterpret("float32", B[i] & 0x7FFFFFFF)
        B[i] = T.call_extern("int32", "lookup", B[i], 3, "table")
    T.evaluate(T.call_extern("void", "log_done"))
    T.evaluate(T.call_pure_extern("int32", "pure_fn", 1))
