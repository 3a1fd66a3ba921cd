# The explicit node spellings the printer uses where infix text would fold or mean something
# else (T.Add(1, 2), T.Div, T.truncmod, T.Shuffle), the with-forms of allocate / decl_buffer,
# an attr on a buffer's data, T.assume, and a conditional expression.
from tvm.script import tirx as T


@T.prim_func
def node_spellings(A: T.Buffer((16,), "int32"), a: T.int32, b: T.int32, p: T.handle("float16", "shared")):
    A[0] = T.Div(a, b) + T.truncmod(a, b) + T.Add(1, 2)
    A[1] = T.FloorDiv(a, b) + T.FloorMod(a, 3) + T.Mul(2, 3) + T.Sub(a, 1)
    A[T.Ramp(4, 1, 4)] = T.Shuffle([T.Broadcast(a, 2), T.Broadcast(b, 2)], [0, 3, 1, 2])
    with T.allocate([16], "float32", "local") as buf:
        B = T.decl_buffer((16,), "float32", data=buf, scope="local")
        B[0] = T.float32(1)
    with T.decl_buffer((4,), "int32") as C:
        C[0] = 1
    with T.attr(A.data, "storage_alignment", 128):
        A[2] = T.Select(T.EQ(a, b), 1, 0)
    T.evaluate(T.assume(a > 0))
    A[3] = T.min(a, b) if a > 0 else b
