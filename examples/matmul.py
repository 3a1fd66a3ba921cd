# Float32 matrix multiply C = A @ B, 1024 x 1024, row-major, scheduled by hand for a CPU with
# FMA. The same kernel is built with the TIR builder in bench/codegen_bench.c
# (make_matmul_sched), which checks that this file parses to it and times it against OpenBLAS
# (`codegen_bench --print-script` prints it; this file adds the comments).
#
# Why a schedule: the three-loop matmul reads a column of B per output element and spends its
# time waiting on memory. This one keeps a small tile of C in vector registers, streams a
# contiguous copy of B through it, and splits the rows between threads. Outermost first:
#
#   io in T.parallel(4)     4 blocks of 256 rows of A and C, shared out between the threads of
#                           the pool (TVM_NUM_THREADS; 2 threads take 2 blocks each). Blocks
#                           write disjoint rows of C, so no synchronisation is needed.
#   jo in range(32)         32-column panels of B and C.
#   kp, jp                  copy the panel B[:, jo*32 : jo*32 + 32] into B_panel, a contiguous
#                           1024 x 32 local buffer (128 KB: it stays in the L2 cache while all 64
#                           tiles of the block use it). In B, consecutive rows of a panel are
#                           4 KB apart and all fall into the same L1 cache set, so reading B
#                           directly misses L1 on every k.
#   im in range(64)         4-row tiles down the block, each reusing the packed panel.
#   C_local                 the 4 x 32 accumulator tile. Its loops are unrolled (ii) and
#                           vectorized (jj) wherever it is used, so every access has a constant
#                           index and LLVM keeps the whole tile in 8 vector registers (4 rows x
#                           2 registers of 16 floats with AVX-512; on an AVX2-only CPU use 16
#                           columns, 2 registers of 8, as the benchmark does there).
#   i0, j0                  zero the tile.
#   k in range(1024)        the reduction, around the tile: per step one row of the panel
#                           (2 vector loads), one broadcast of A[row, k] per tile row, and 8
#                           independent FMAs: enough to keep both FMA units busy through their
#                           4-cycle latency.
#   i1, j1                  write the finished tile to C, once.
#
# T.fma(a, b, c) is a * b + c with one rounding: one instruction for the multiply and the add.
# The code generator also fuses a plain `C_local[ii, jj] + A[...] * B_panel[k, jj]` into an FMA
# (its fp_contract option, on by default), which runs as fast; writing T.fma states the intent
# and does not depend on that option.
#
# Run:   build/tools/tvmc run examples/matmul.py
# Build: build/tools/tvmc build examples/matmul.py -o matmul.so
from tvm.script import tirx as T


@T.prim_func
def matmul_sched(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"),
                 C: T.Buffer((1024, 1024), "float32")):
    for io in T.parallel(4):
        for jo in range(32):
            B_panel_data = T.allocate([1024, 32], "float32", "local")
            B_panel = T.decl_buffer((1024, 32), "float32", data=B_panel_data, scope="local")
            for kp in range(1024):
                for jp in T.vectorized(32):
                    B_panel[kp, jp] = B[kp, jo * 32 + jp]
            for im in range(64):
                C_local_data = T.allocate([4, 32], "float32", "local")
                C_local = T.decl_buffer((4, 32), "float32", data=C_local_data, scope="local")
                for i0 in T.unroll(4):
                    for j0 in T.vectorized(32):
                        C_local[i0, j0] = T.float32(0.0)
                for k in range(1024):
                    for ii in T.unroll(4):
                        for jj in T.vectorized(32):
                            C_local[ii, jj] = T.fma(A[io * 256 + im * 4 + ii, k], B_panel[k, jj],
                                                    C_local[ii, jj])
                for i1 in T.unroll(4):
                    for j1 in T.vectorized(32):
                        C[io * 256 + im * 4 + i1, jo * 32 + j1] = C_local[i1, j1]