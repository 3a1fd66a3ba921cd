# A sub-region of a buffer matched inside a block, as tensor intrinsics do.
from tvm.script import tirx as T


@T.prim_func
def tile_copy(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16, 16), "float32")):
    for io, jo in T.grid(4, 4):
        with T.sblock("tile"):
            vio, vjo = T.axis.remap("SS", [io, jo])
            T.reads(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            T.writes(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4])
            As = T.match_buffer(A[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), "float32")
            Bs = T.match_buffer(B[vio * 4:vio * 4 + 4, vjo * 4:vjo * 4 + 4], (4, 4), "float32")
            for i, j in T.grid(4, 4):
                Bs[i, j] = As[i, j]
