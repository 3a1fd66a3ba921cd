# Sum over the last axis with int64 shapes (as the Relax lowering emits them).
from tvm.script import tirx as T


@T.prim_func(private=True)
def sum_last(A: T.Buffer((T.int64(8), T.int64(1024)), "float32"), B: T.Buffer((T.int64(8),), "float32")):
    T.func_attr({"op_pattern": 3, "tir.noalias": True})
    for i, k in T.grid(T.int64(8), T.int64(1024)):
        with T.sblock("sum"):
            v_i, v_k = T.axis.remap("SR", [i, k])
            T.reads(A[v_i, v_k])
            T.writes(B[v_i])
            with T.init():
                B[v_i] = T.float32(0)
            B[v_i] = B[v_i] + A[v_i, v_k]
