# Packed and extern calls on buffer pointers, address_of, and mixed int64 / int32 loops.
from tvm.script import tirx as T


@T.prim_func
def packed_calls(A: T.Buffer((16,), "float32"), n: T.int64):
    T.evaluate(T.call_packed("my_func", A.data, 3))
    T.evaluate(T.call_extern("int32", "touch", T.address_of(A[2])))
    for i in T.serial(T.int64(0), n):
        A[i % T.int64(16)] = A[0] + 1.0
    for i, j in T.grid(T.int64(2), 4):
        A[i * T.int64(4) + T.Cast("int64", j)] = T.float32(0)
