# Elementwise chains in one loop nest: bias add, ReLU and a cast to float16 (int64 indices).
from tvm.script import tirx as T


@T.prim_func(private=True)
def fused_add_relu_cast(x: T.Buffer((T.int64(4), T.int64(256)), "float32"), bias: T.Buffer((T.int64(256),), "float32"), y: T.Buffer((T.int64(4), T.int64(256)), "float16")):
    T.func_attr({"op_pattern": 0, "tir.noalias": True})
    for ax0, ax1 in T.grid(T.int64(4), T.int64(256)):
        with T.sblock("compute"):
            v_ax0, v_ax1 = T.axis.remap("SS", [ax0, ax1])
            T.reads(x[v_ax0, v_ax1], bias[v_ax1])
            T.writes(y[v_ax0, v_ax1])
            y[v_ax0, v_ax1] = T.Cast("float16", T.max(x[v_ax0, v_ax1] + bias[v_ax1], T.float32(0)))
