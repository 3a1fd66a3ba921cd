# Assignment forms: tuple unpacking of new size variables, a plain `x = expr` (a let binding),
# augmented assignment to buffer elements, chained comparisons, Python-int folding, A.shape[0]
# and A.data.
from tvm.script import tirx as T


@T.prim_func
def assign_forms(a: T.handle, B: T.Buffer((8,), "int32")):
    n, m = T.int32(), T.int32()
    A = T.match_buffer(a, (n, m), "float32")
    for i in range(A.shape[0]):
        x = i * 2
        B[i % 8] += 1
        B[0] = T.if_then_else(0 <= i < 4, x, B[1])
        B[1] = 2 * 3 + x
    for j in range(m):
        A[0, j] = A[0, j] - T.float32(1)
        A[0, j] *= T.float32(2)
    T.evaluate(T.call_extern("int32", "use_ptr", A.data))
