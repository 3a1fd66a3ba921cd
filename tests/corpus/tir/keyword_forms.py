# Keyword arguments and forms of real programs: layout=None on buffers (upstream's printer
# writes it), loop annotations on every loop kind, range() with a step (a loop over the
# iteration count binding the index by a let), and buffer attributes read in the body.
from tvm.script import tir as T


@T.prim_func
def strided_copy(a: T.handle, b: T.handle):
    A = T.match_buffer(a, (64,), "float32", layout=None)
    B = T.match_buffer(b, (64,), "float32", layout=None)
    C = T.alloc_buffer((64,), "float32", layout=None)
    for i in T.serial(64, annotations={"pragma_unroll_explicit": 0}):
        C[i] = A[i] * T.float32(2)
    for i in range(0, 64, 2):
        B[i] = C[i]
    for i in range(1, 64, 2):
        B[i] = C[i] + T.float32(1)


@T.prim_func
def reversed_rows(A: T.Buffer((8, 6), "int32"), B: T.Buffer((8, 6), "int32")):
    for i in T.parallel(8, annotations={"pragma_parallel_stride_pattern": 1}):
        for j in range(5, -1, -1):
            B[i, 5 - j] = A[i, j]
        for j in range(6, 0, -4):
            B[i, j - 1] = B[i, j - 1] + 1


@T.prim_func
def symbolic_step(a: T.handle, n: T.int32):
    A = T.match_buffer(a, (n,), "float32")
    for i in range(1, n, 3):
        A[i] = A[i] + T.float32(1)


@T.prim_func
def buffer_attrs(A: T.Buffer((4, 8), "float32"), B: T.Buffer((32,), "float32")):
    for i in range(A.shape[0]):
        for j in range(A.shape[1]):
            B[i * A.shape[1] + j] = A[i, j] + T.Cast("float32", A.elem_offset)
    if A.scope() == "global":
        B[0] = B[0] + T.float32(1)
    X = T.decl_buffer((8,), A.dtype, data=A.data, layout=None)
    for k in T.unroll(8, annotations={"note": "first row"}):
        B[k] = B[k] + X[k]
