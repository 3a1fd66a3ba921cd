# Elementwise float32 addition C = A + B, in two functions of one module:
#   main   a fixed 2-D shape (1024, 1024): rows in parallel, each row 8 lanes at a time
#   add_n  a 1-D symbolic length n: 8-lane vector body, then a scalar tail for n % 8
# Run:   build/tools/tvmc run examples/add.py
#        build/tools/tvmc run examples/add.py --func add_n --shape n=1000003
# Build: build/tools/tvmc build examples/add.py -o add.so
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def main(A: T.Buffer((1024, 1024), "float32"), B: T.Buffer((1024, 1024), "float32"),
             C: T.Buffer((1024, 1024), "float32")):
        for i in T.parallel(1024):
            for jo in range(128):
                for ji in T.vectorized(8):
                    C[i, jo * 8 + ji] = A[i, jo * 8 + ji] + B[i, jo * 8 + ji]

    @T.prim_func
    def add_n(a: T.handle, b: T.handle, c: T.handle):
        n = T.int32()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "float32")
        for io in range(n // 8):
            for ii in T.vectorized(8):
                C[io * 8 + ii] = A[io * 8 + ii] + B[io * 8 + ii]
        for t in range(n % 8):
            C[n // 8 * 8 + t] = A[n // 8 * 8 + t] + B[n // 8 * 8 + t]
