# A buffer whose strides and elem_offset are variables, used in the body (printed back as
# B.strides[0] and B.elem_offset, the variables defined through the buffer).
from tvm.script import tirx as T

@T.prim_func
def strided(b: T.handle):
    s0 = T.int32()
    off = T.int32()
    B = T.match_buffer(b, (16, 16), "float32", strides=(s0, 1), elem_offset=off, offset_factor=1)
    for i, j in T.grid(16, 16):
        B[i, j] = T.float32(0)
    T.evaluate(off + s0)
