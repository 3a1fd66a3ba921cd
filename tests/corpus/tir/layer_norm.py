from tvm.script import tirx as T


@T.prim_func
def layer_norm(A: T.Buffer((16, 64), "float32"), gamma: T.Buffer((64,), "float32"), beta: T.Buffer((64,), "float32"), out: T.Buffer((16, 64), "float32")):
    mean = T.alloc_buffer((16,), "float32")
    sq = T.alloc_buffer((16,), "float32")
    for i, k in T.grid(16, 64):
        with T.sblock("stats"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(mean[vi], sq[vi])
            with T.init():
                mean[vi] = T.float32(0)
                sq[vi] = T.float32(0)
            mean[vi] = mean[vi] + A[vi, vk] * T.float32(0.015625)
            sq[vi] = sq[vi] + A[vi, vk] * A[vi, vk] * T.float32(0.015625)
    for i, j in T.grid(16, 64):
        with T.sblock("norm"):
            vi, vj = T.axis.remap("SS", [i, j])
            T.reads(A[vi, vj], mean[vi], sq[vi], gamma[vj], beta[vj])
            T.writes(out[vi, vj])
            out[vi, vj] = (A[vi, vj] - mean[vi]) * T.rsqrt(sq[vi] - mean[vi] * mean[vi] + T.float32(1e-5)) * gamma[vj] + beta[vj]
