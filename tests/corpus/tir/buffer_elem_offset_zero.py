# A zero elem_offset written out whose type is not the buffer's index type (an int32 literal
# under an int64 shape): the printer must keep it, as the default would read back as an int64 0.
from tvm.script import tirx as T

@T.prim_func
def offset_zero(a: T.handle):
    A = T.match_buffer(a, (T.int64(16),), "float32", elem_offset=0)
    for i in range(T.int64(16)):
        A[i] = T.float32(1)
