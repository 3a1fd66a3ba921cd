# Expression statements and AttrStmt scopes.
from tvm.script import tirx as T


@T.prim_func
def effects(A: T.Buffer((8,), "float32")):
    T.evaluate(0)
    T.evaluate(T.call_extern("int32", "puts", "hello"))
    with T.attr(None, "pragma_import_c", "extern.c"):
        T.evaluate(1)
    with T.attr(0, "compute_scope", "effects_compute"):
        for i in range(8):
            A[i] = T.float32(0)
    T.call_extern("int32", "flush")
