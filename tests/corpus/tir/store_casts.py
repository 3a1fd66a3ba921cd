# A stored value of another dtype is cast to the buffer's element type, as upstream's builder
# does (its legalize tests store a float32 fill value into an int32 tensor): float to int, int
# to float, int32 to int64. The printed form writes the casts out.
from tvm.script import tir as T


@T.prim_func
def f(a: T.Buffer((), "float32"), b: T.Buffer((2,), "int32"), c: T.Buffer((2,), "float32"), d: T.Buffer((2,), "int64")):
    for i in range(2):
        b[i] = a[()]
        c[i] = b[i]
        d[i] = i
