# expect: NotImplementedError 7:52
# Buffer layouts (upstream's TileLayout of device dialects) are not supported: only layout=None.
from tvm.script import tir as T

@T.prim_func
def f(a: T.handle):
    A = T.match_buffer(a, (16,), "float32", layout="tile")
    A[0] = T.float32(0)
