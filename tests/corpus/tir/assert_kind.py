# assert with an error kind and message parts (upstream's newer AssertStmt form): the parts are
# joined into one message; the scoped T.Assert form takes the kind as a keyword.
from tvm.script import tir as T


@T.prim_func
def checked(A: T.Buffer((16,), "float32"), n: T.int32):
    assert n > 0, ("ValueError", ["n must be positive, ", "got a smaller value"])
    assert n <= 16, ("IndexError", ["n exceeds the buffer"])
    assert n != 3, "plain message"
    for i in range(n):
        A[i] = A[i] * T.float32(2)
    with T.Assert(n != 5, "scoped form", kind="RuntimeError"):
        A[0] = T.float32(1)
    A[1] = T.float32(0)
