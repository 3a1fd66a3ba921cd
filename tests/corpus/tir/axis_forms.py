# Every way of declaring block iterators.
from tvm.script import tirx as T


@T.prim_func
def axes(A: T.Buffer((16, 16), "float32"), B: T.Buffer((16,), "float32")):
    for i, k in T.grid(16, 16):
        with T.sblock("remap"):
            vi, vk = T.axis.remap("SR", [i, k])
            T.reads(A[vi, vk])
            T.writes(B[vi])
            with T.init():
                B[vi] = T.float32(0)
            B[vi] = B[vi] + A[vi, vk]
    for i, k in T.grid(16, 16):
        with T.sblock("long"):
            vi = T.axis.spatial(16, i)
            vk = T.axis.reduce(16, k)
            T.reads(A[vi, vk])
            T.writes(B[vi])
            B[vi] = B[vi] + A[vi, vk]
    for i, k in T.grid(16, 16):
        with T.sblock("short"):
            vi = T.axis.S(16, i)
            vk = T.axis.R(16, k)
            T.reads(A[vi, vk])
            T.writes(B[vi])
            B[vi] = T.max(B[vi], A[vi, vk])
    for io, ii in T.grid(4, 4):
        with T.sblock("split"):
            vi = T.axis.spatial(16, io * 4 + ii)
            T.reads(A[vi, 0])
            T.writes(B[vi])
            B[vi] = A[vi, 0]
    for k in range(8):
        with T.sblock("shifted"):
            vk = T.axis.reduce((4, 12), k + 4)
            T.reads(A[0, vk])
            T.writes(B[0])
            B[0] = B[0] + A[0, vk]
    # One name for the loop variables of a grid: the list (ij_0, ij_1), remapped whole or
    # indexed (upstream's fuse_tir tests write it so).
    for ij in T.grid(16, 16):
        with T.sblock("grid_list"):
            vi, vj = T.axis.remap("SS", ij)
            T.reads(A[vi, vj])
            T.writes(B[vi])
            B[vi] = A[vi, vj]
    for ij in T.grid(4, 4):
        with T.sblock("grid_items"):
            vi = T.axis.spatial(16, ij[0] * 4 + ij[1])
            T.reads(A[vi, 0])
            T.writes(B[vi])
            B[vi] = A[vi, 0]
