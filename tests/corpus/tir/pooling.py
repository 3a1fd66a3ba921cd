# 2x2 max pooling with the window as reduce axes, and an average that divides afterwards.
from tvm.script import tirx as T


@T.prim_func
def max_pool(A: T.Buffer((1, 8, 32, 32), "float16"), P: T.Buffer((1, 8, 16, 16), "float16")):
    for n, c, h, w, rh, rw in T.grid(1, 8, 16, 16, 2, 2):
        with T.sblock("pool"):
            vn, vc, vh, vw, vrh, vrw = T.axis.remap("SSSSRR", [n, c, h, w, rh, rw])
            T.reads(A[vn, vc, vh * 2 + vrh, vw * 2 + vrw])
            T.writes(P[vn, vc, vh, vw])
            with T.init():
                P[vn, vc, vh, vw] = T.float16(-65504)
            P[vn, vc, vh, vw] = T.max(P[vn, vc, vh, vw], A[vn, vc, vh * 2 + vrh, vw * 2 + vrw])
