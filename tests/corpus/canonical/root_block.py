# from tvm.script import tirx as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    # with T.sblock("root"):
    Tmp = T.sblock_alloc_buffer((16,), "float32")
    for i in range(16):
        with T.sblock("copy"):
            vi = T.axis.spatial(16, 15 - i)
            T.reads(Tmp[vi])
            T.writes(A[vi])
            A[vi] = Tmp[vi]
