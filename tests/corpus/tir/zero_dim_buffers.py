# 0-d buffers (a scalar in memory) read and written with `A[()]`, as reductions to a scalar and
# scalar parameters passed as tensors are written; `A[(i, j)]` is `A[i, j]` as in Python.
from tvm.script import tir as T


@T.prim_func
def sum_all(A: T.Buffer((8, 8), "float32"), S: T.Buffer((), "float32")):
    S[()] = T.float32(0)
    for i, j in T.grid(8, 8):
        S[()] = S[()] + A[(i, j)]


@T.prim_func
def scale_by(A: T.Buffer((16,), "float32"), k: T.Buffer((), "float32"), B: T.Buffer((16,), "float32")):
    for i in range(16):
        B[i] = A[i] * k[()]


@T.prim_func
def block_reduce(A: T.Buffer((32,), "int32"), M: T.Buffer((), "int32")):
    for i in range(32):
        with T.sblock("max"):
            vi = T.axis.reduce(32, i)
            with T.init():
                M[()] = T.min_value("int32")
            M[()] = T.max(M[()], A[vi])


@T.prim_func
def local_scalar(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
    acc = T.alloc_buffer((), "float32")
    acc[()] = T.float32(0)
    for i in range(16):
        acc[()] = acc[()] + A[i]
        B[i] = acc[()]
