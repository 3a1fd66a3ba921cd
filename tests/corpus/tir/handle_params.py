# Typed and untyped handle parameters used as values.
from tvm.script import tirx as T


@T.prim_func
def handles(p: T.handle("float32"), q: T.handle, n: T.int32):
    T.evaluate(T.call_extern("int32", "consume", p, q, n))
    T.evaluate(T.isnullptr(q))
