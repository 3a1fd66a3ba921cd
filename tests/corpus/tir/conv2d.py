# NCHW 3x3 convolution with explicit padding, stride 1.
from tvm.script import tirx as T


@T.prim_func
def conv2d_nchw(
    data: T.Buffer((1, 16, 14, 14), "float32"),
    weight: T.Buffer((32, 16, 3, 3), "float32"),
    conv: T.Buffer((1, 32, 14, 14), "float32"),
):
    T.func_attr({"tir.noalias": True})
    pad = T.alloc_buffer((1, 16, 16, 16), "float32")
    for n, c, h, w in T.grid(1, 16, 16, 16):
        with T.sblock("pad"):
            vn, vc, vh, vw = T.axis.remap("SSSS", [n, c, h, w])
            T.reads(data[vn, vc, vh - 1, vw - 1])
            T.writes(pad[vn, vc, vh, vw])
            pad[vn, vc, vh, vw] = T.if_then_else(
                1 <= vh and vh < 15 and 1 <= vw and vw < 15,
                data[vn, vc, vh - 1, vw - 1],
                T.float32(0),
            )
    for n, f, y, x, rc, ry, rx in T.grid(1, 32, 14, 14, 16, 3, 3):
        with T.sblock("conv"):
            vn, vf, vy, vx, vrc, vry, vrx = T.axis.remap("SSSSRRR", [n, f, y, x, rc, ry, rx])
            T.reads(pad[vn, vrc, vy + vry, vx + vrx], weight[vf, vrc, vry, vrx])
            T.writes(conv[vn, vf, vy, vx])
            with T.init():
                conv[vn, vf, vy, vx] = T.float32(0)
            conv[vn, vf, vy, vx] = conv[vn, vf, vy, vx] + pad[vn, vrc, vy + vry, vx + vrx] * weight[vf, vrc, vry, vrx]
