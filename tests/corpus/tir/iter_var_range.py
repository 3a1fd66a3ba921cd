# I.Range: the domain of an IterVar in T.attr, with a zero and a non-zero start and int64
# bounds.
from tvm.script import ir as I
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((64,), "float32"), w: T.int64):
    vt = T.int32()
    with T.attr(T.iter_var(vt, I.Range(0, 4), "ThreadIndex", "vthread"), "virtual_thread", 4):
        A[vt] = T.float32(1)
    with T.attr(T.iter_var(w, I.Range(T.int64(2), 10), "DataPar", ""), "pragma_w", 1):
        A[w] = T.float32(2)
