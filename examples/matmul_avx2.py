# examples/matmul.py with the register tile for a CPU with AVX2 and FMA but without AVX-512
# (Haswell to Raptor Lake, AMD Zen 1 to 3): C = A @ B, float32, 1024 x 1024, row-major. Run this
# one on such a machine, examples/matmul.py on one with AVX-512
# (`grep -o avx512f /proc/cpuinfo` tells). bench/codegen_bench.c builds the same kernel
# (make_matmul_sched with 16 columns; `codegen_bench --print-script avx2` prints it) and checks
# that this file parses to it.
#
# The schedule is matmul.py's (read it for why each loop is there); only the tile differs. An
# AVX2 vector register (ymm) holds 8 floats and there are 16 of them. The 4 x 16 tile of C is 8
# registers (4 rows x 2), one row of the B panel 2 more, the broadcast A[row, k] one: 11, so
# the whole tile stays in registers and each k step issues 8 independent FMAs, enough to keep
# both FMA units busy through their 4-cycle latency. matmul.py's 4 x 32 tile needs 16
# accumulators alone on AVX2: LLVM spills them to the stack on every k step, which costs up to
# half the speed. The B panels are 16 columns wide (1024 x 16, 64 KB), so there are 64 of them.
#
# Run:   build/tools/tvmc run examples/matmul_avx2.py
# Build: build/tools/tvmc build examples/matmul_avx2.py -o matmul.so
# Time the AVX2 code on an AVX-512 machine: TVM_CODEGEN_CPU=haswell build/tools/tvmc run ...
from tvm.script import tirx as T


@T.prim_func
def matmul_sched(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"),
                 C: T.Buffer((1024, 1024), "float32")):
    for io in T.parallel(4):
        for jo in range(64):
            B_panel_data = T.allocate([1024, 16], "float32", "local")
            B_panel = T.decl_buffer((1024, 16), "float32", data=B_panel_data, scope="local")
            for kp in range(1024):
                for jp in T.vectorized(16):
                    B_panel[kp, jp] = B[kp, jo * 16 + jp]
            for im in range(64):
                C_local_data = T.allocate([4, 16], "float32", "local")
                C_local = T.decl_buffer((4, 16), "float32", data=C_local_data, scope="local")
                for i0 in T.unroll(4):
                    for j0 in T.vectorized(16):
                        C_local[i0, j0] = T.float32(0.0)
                for k in range(1024):
                    for ii in T.unroll(4):
                        for jj in T.vectorized(16):
                            C_local[ii, jj] = T.fma(A[io * 256 + im * 4 + ii, k], B_panel[k, jj],
                                                    C_local[ii, jj])
                for i1 in T.unroll(4):
                    for j1 in T.vectorized(16):
                        C[io * 256 + im * 4 + i1, jo * 16 + j1] = C_local[i1, j1]