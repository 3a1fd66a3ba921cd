from tvm.script import tirx as T


@T.prim_func
def annotated_loops(A: T.Buffer((64,), "float32")):
    for i in T.serial(64, annotations={"pragma_auto_unroll_max_step": 16, "pragma_unroll_explicit": 1}):
        A[i] = A[i] + T.float32(1)
    for i in T.parallel(0, 64, annotations={"note": "outer"}):
        A[i] = A[i] * T.float32(2)
