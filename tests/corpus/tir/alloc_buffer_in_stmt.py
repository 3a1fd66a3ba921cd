# T.alloc_buffer outside any T.sblock, inside a statement: a for body, a T.grid, an if branch,
# under a let, a while body (upstream's statement-level allocation, a buffer for the rest of the
# enclosing body; alloc_buffer_in_launch_thread.py has the GPU form). It prints as T.decl_buffer
# without data=.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def in_for(A: T.Buffer((4, 8), "float32"), C: T.Buffer((4, 8), "float32")):
        for i in range(4):
            tmp = T.alloc_buffer((8,), "float32")
            for j in range(8):
                tmp[j] = A[i, j] * T.float32(2)
            for j in range(8):
                C[i, j] = tmp[7 - j] + tmp[j]

    @T.prim_func
    def in_grid_local(A: T.Buffer((4, 4), "float32"), C: T.Buffer((4, 4), "float32")):
        for i, j in T.grid(4, 4):
            acc = T.alloc_buffer((1,), "float32", scope="local")
            acc[0] = T.float32(0)
            for k in range(4):
                acc[0] = acc[0] + A[i, k] * A[k, j]
            C[i, j] = acc[0]

    @T.prim_func
    def in_if(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32"), flag: T.int32):
        if flag > 0:
            t = T.alloc_buffer((16,), "float32")
            for i in range(16):
                t[i] = A[i] + T.float32(1)
            for i in range(16):
                C[i] = t[15 - i]
        else:
            for i in range(16):
                C[i] = A[i]

    @T.prim_func
    def under_let(A: T.Buffer((16,), "float32"), C: T.Buffer((16,), "float32")):
        for r in range(2):
            n: T.int32 = 8
            t = T.alloc_buffer((n, 2), "float32")
            for i, j in T.grid(n, 2):
                t[i, j] = A[i * 2 + j] * T.float32(r + 1)
            for i in range(16):
                C[i] = C[i] + t[i // 2, i % 2]

    @T.prim_func
    def in_while(A: T.Buffer((8,), "int32"), C: T.Buffer((8,), "int32")):
        k = T.decl_buffer((1,), "int32")
        k[0] = 0
        while k[0] < 8:
            s = T.alloc_buffer((1,), "int32")
            s[0] = A[k[0]] * 3
            C[k[0]] = s[0] - k[0]
            k[0] = k[0] + 1
