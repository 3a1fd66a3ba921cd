# Lets annotated with T.let's subscripted form (the type in brackets), as printed by upstream's
# newer printers, next to the plain `T.let` and dtype annotations.
from tvm.script import tir as T


@T.prim_func
def norm2(A: T.Buffer((8, 4), "float32"), B: T.Buffer((8,), "float32")):
    for i in range(8):
        acc: T.let[T.float32] = A[i, 0] * A[i, 0] + A[i, 1] * A[i, 1]
        rest: T.let[T.float32] = A[i, 2] * A[i, 2] + A[i, 3] * A[i, 3]
        total: T.let = acc + rest
        B[i] = T.sqrt(total)


@T.prim_func
def indexed(A: T.Buffer((64,), "int32"), B: T.Buffer((16,), "int32")):
    for i in range(16):
        base: T.let[T.int32] = i * 4
        hi: T.let["int64"] = T.Cast("int64", A[base + 3])
        lo: T.int64 = T.Cast("int64", A[base])
        B[i] = T.Cast("int32", (hi - lo) // T.int64(2))


@T.prim_func
def pointer_let(A: T.Buffer((32,), "float32"), n: T.int32):
    ptr: T.let[T.handle("float32")] = A.data
    V = T.decl_buffer((32,), "float32", data=ptr)
    for i in range(n):
        V[i] = V[i] + T.float32(1)
