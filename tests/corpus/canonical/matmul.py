# from tvm.script import tirx as T

@T.prim_func
def matmul(A: T.Buffer((128, 64), "float32"), B: T.Buffer((64, 128), "float32"), C: T.Buffer((128, 128), "float32")):
    for i, j, k in T.grid(128, 128, 64):
        with T.sblock("update"):
            vi, vj, vk = T.axis.remap("SSR", [i, j, k])
            T.reads(A[vi, vk], B[vk, vj])
            T.writes(C[vi, vj])
            with T.init():
                C[vi, vj] = T.float32(0.0)
            C[vi, vj] = C[vi, vj] + A[vi, vk] * B[vk, vj]
