# match_buffer in blocks: tiles, a row with symbolic strides and elem_offset, a shape variable
# bound by the match, a nested match of a matched buffer (its regions written out: the parser
# infers the outer block's regions from the inner block's, naming the matched buffer).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def tiles(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for io, jo in T.grid(2, 2):
            with T.block("tile"):
                vi, vj = T.axis.remap("SS", [io, jo])
                T.reads(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
                T.writes(C[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4])
                As = T.match_buffer(A[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4], (4, 4), "float32", offset_factor=1)
                Cs = T.match_buffer(C[vi * 4:vi * 4 + 4, vj * 4:vj * 4 + 4], (4, 4), "float32", offset_factor=1)
                for i, j in T.grid(4, 4):
                    Cs[i, j] = As[i, j] + T.float32(1)

    @T.prim_func
    def row_sums(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("row"):
                vi = T.axis.spatial(8, i)
                T.reads(A[vi, 0:8])
                T.writes(C[vi])
                Ar = T.match_buffer(A[vi, 0:8], (8,), "float32", strides=[T.int32()], elem_offset=T.int32())
                C[vi] = T.float32(0)
                for k in range(8):
                    C[vi] = C[vi] + Ar[k]

    @T.prim_func
    def matched_extent(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8,), "float32")):
        for i in range(8):
            with T.block("row"):
                vi = T.axis.spatial(8, i)
                m = T.int32()
                Ar = T.match_buffer(A[vi, 0:8], (m,), "float32")
                C[vi] = T.float32(0)
                for k in range(m):
                    C[vi] = C[vi] + Ar[k]

    @T.prim_func
    def nested(A: T.Buffer((8, 8), "float32"), C: T.Buffer((8, 8), "float32")):
        for io in range(2):
            with T.block("outer"):
                vo = T.axis.spatial(2, io)
                T.reads(A[vo * 4:vo * 4 + 4, 0:8])
                T.writes(C[vo * 4:vo * 4 + 4, 0:8])
                Ao = T.match_buffer(A[vo * 4:vo * 4 + 4, 0:8], (4, 8), "float32")
                Co = T.match_buffer(C[vo * 4:vo * 4 + 4, 0:8], (4, 8), "float32")
                for ii in range(4):
                    with T.block("inner"):
                        vi = T.axis.spatial(4, ii)
                        T.reads(Ao[vi, 0:8])
                        T.writes(Co[vi, 0:8])
                        Ai = T.match_buffer(Ao[vi, 0:8], (8,), "float32")
                        Ci = T.match_buffer(Co[vi, 0:8], (8,), "float32")
                        for k in range(8):
                            Ci[k] = Ai[7 - k]
