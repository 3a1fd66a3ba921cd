# A buffer's elem_offset bound to a size variable (mlc-llm's kernels declare
# `A_elem_offset = T.int32(is_size_var=True)`): printed with its own definition, since the
# parser would make a plain variable of `A.elem_offset`; a plain one is defined through the
# buffer.
from tvm.script import tir as T


@T.prim_func
def f(var_a: T.handle, var_b: T.handle):
    n = T.int32()
    off = T.int32(is_size_var=True)
    a = T.match_buffer(var_a, (n,), "int32", elem_offset=off)
    plain = T.int32()
    b = T.match_buffer(var_b, (n,), "int32", elem_offset=plain)
    for i in range(n):
        a[i] = b[i]
