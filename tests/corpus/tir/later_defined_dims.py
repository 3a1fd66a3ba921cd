# A buffer whose shape is an expression of a variable that only a later buffer defines
# (Relax's reshape kernels: the flat input comes before the output of shape (n, 32)).
from tvm.script import tir as T


@T.prim_func
def flat_to_rows(A_handle: T.handle, B_handle: T.handle):
    n = T.int64()
    A = T.match_buffer(A_handle, (n * T.int64(32),))
    B = T.match_buffer(B_handle, (n, T.int64(32)))
    for i, j in T.grid(n, T.int64(32)):
        B[i, j] = A[i * T.int64(32) + j] * T.float32(2)
