# T.allocate_const: constant tables in the kernel (weights, lookup tables), read through a
# buffer declared over them; int, float and a 2-d table, and an annotation kept beside them.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_table(A: T.Buffer((4,), "int32"), C: T.Buffer((4,), "int32")):
        B_data = T.allocate_const([1, -2, 3, 40000], "int32", [4])
        B = T.decl_buffer((4,), "int32", data=B_data)
        for i in range(4):
            C[i] = A[i] + B[i]

    @T.prim_func
    def weighted(A: T.Buffer((2, 3), "float32"), C: T.Buffer((2,), "float32")):
        W_data = T.allocate_const([0.5, -1.25, 2.0, 3.0, 0.0, -0.75], "float32", [2, 3])
        W = T.decl_buffer((2, 3), "float32", data=W_data)
        for i in range(2):
            C[i] = T.float32(0)
            for j in range(3):
                C[i] = C[i] + A[i, j] * W[i, j]

    @T.prim_func
    def lut(A: T.Buffer((8,), "uint8"), C: T.Buffer((8,), "float16")):
        L_data = T.allocate_const([0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 65504.0], "float16", [8],
                                  annotations={"note": "lookup"})
        L = T.decl_buffer((8,), "float16", data=L_data)
        for i in range(8):
            C[i] = L[T.Cast("int32", A[i]) % 8]

    @T.prim_func
    def small_ints(A: T.Buffer((3,), "int8"), C: T.Buffer((3,), "int8")):
        K_data = T.allocate_const([-128, 0, 127], "int8", [3])
        K = T.decl_buffer((3,), "int8", data=K_data)
        for i in range(3):
            C[i] = K[i] ^ A[i]
