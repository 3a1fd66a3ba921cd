# Row-wise softmax in four stages: max, exp, sum, normalize.
from tvm.script import tirx as T


@T.prim_func
def softmax(A: T.Buffer((64, 256), "float32"), out: T.Buffer((64, 256), "float32")):
    row_max = T.alloc_buffer((64,), "float32")
    e = T.alloc_buffer((64, 256), "float32")
    row_sum = T.alloc_buffer((64,), "float32")
    for i, k in T.grid(64, 256):
        with T.sblock("row_max"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(row_max[vi])
            with T.init():
                row_max[vi] = T.float32("-inf")
            row_max[vi] = T.max(row_max[vi], A[vi, vk])
    for i, j in T.grid(64, 256):
        with T.sblock("exp"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], row_max[vi])
            T.writes(e[vi, vj])
            e[vi, vj] = T.exp(A[vi, vj] - row_max[vi])
    for i, k in T.grid(64, 256):
        with T.sblock("row_sum"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(e[vi, vk])
            T.writes(row_sum[vi])
            with T.init():
                row_sum[vi] = T.float32(0)
            row_sum[vi] = row_sum[vi] + e[vi, vk]
    for i, j in T.grid(64, 256):
        with T.sblock("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(e[vi, vj], row_sum[vi])
            T.writes(out[vi, vj])
            out[vi, vj] = e[vi, vj] / row_sum[vi]
