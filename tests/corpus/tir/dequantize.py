# 4-bit weights packed eight to a uint32, unpacked with shifts and masks, scaled in float16
# (the shape of the dequantize kernels of quantized language models), with a symbolic row count.
from tvm.script import tirx as T


@T.prim_func(private=True)
def dequantize(w_packed: T.handle, scale: T.Buffer((T.int64(4096), T.int64(32)), "float16"), w: T.Buffer((T.int64(4096), T.int64(512)), "float16")):
    T.func_attr({"tir.noalias": True})
    W = T.match_buffer(w_packed, (T.int64(4096), T.int64(64)), "uint32")
    for i, j in T.grid(T.int64(4096), T.int64(512)):
        with T.sblock("decode"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(W[v_i, v_j // T.int64(8)], scale[v_i, v_j // T.int64(16)])
            T.writes(w[v_i, v_j])
            w[v_i, v_j] = (
                T.Cast("float16", T.bitwise_and(T.shift_right(W[v_i, v_j // T.int64(8)], T.Cast("uint32", v_j % T.int64(8)) * T.uint32(4)), T.uint32(15)))
                - T.float16(7)
            ) * scale[v_i, v_j // T.int64(16)]


@T.prim_func(private=True)
def batched_rows(var_x: T.handle, var_y: T.handle):
    T.func_attr({"tir.noalias": True})
    n = T.int64()
    x = T.match_buffer(var_x, (T.int64(1), n, T.int64(512)), "float16")
    y = T.match_buffer(var_y, (T.int64(1), n, T.int64(512)), "float32")
    for b, r, c in T.grid(T.int64(1), n, T.int64(512)):
        with T.sblock("widen"):
            v_b, v_r, v_c = T.axis.remap("SSS", [b, r, c])
            T.reads(x[v_b, v_r, v_c])
            T.writes(y[v_b, v_r, v_c])
            y[v_b, v_r, v_c] = T.Cast("float32", x[v_b, v_r, v_c])
