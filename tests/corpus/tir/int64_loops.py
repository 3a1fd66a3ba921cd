# int64 index arithmetic throughout: literals, loops, shapes and block iterators.
from tvm.script import tirx as T


@T.prim_func
def gather(x: T.Buffer((T.int64(32), T.int64(8)), "float16"), idx: T.Buffer((T.int64(4),), "int64"), y: T.Buffer((T.int64(4), T.int64(8)), "float16")):
    for i, j in T.grid(T.int64(4), T.int64(8)):
        with T.sblock("gather"):
            v_i, v_j = T.axis.remap("SS", [i, j])
            T.reads(x[idx[v_i], v_j], idx[v_i])
            T.writes(y[v_i, v_j])
            y[v_i, v_j] = x[idx[v_i], v_j]
    for k in range(T.int64(2), T.int64(4)):
        y[k, T.int64(0)] = T.float16(0)
