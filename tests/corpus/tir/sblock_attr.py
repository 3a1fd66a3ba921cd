from tvm.script import tirx as T


@T.prim_func
def annotated(A: T.Buffer((32,), "float32")):
    for i in range(32):
        with T.sblock("annotated"):
            vi = T.axis.spatial(32, i)
            T.reads(A[vi])
            T.writes(A[vi])
            T.sblock_attr({"meta_schedule.unroll_explicit": 16, "pragma_note": "hot"})
            A[vi] = A[vi] * A[vi]
