# range() with loop annotations (upstream's range sugar takes annotations= as its one keyword),
# with one, two and three arguments; a stepped range puts them on its counter loop.
from tvm.script import tir as T


@T.prim_func
def annotated(A: T.Buffer((16,), "float32")):
    for i in range(16, annotations={"pragma_unroll_explicit": 0}):
        A[i] = T.float32(0)
    for i in range(2, 8, annotations={"pragma_1": "str_value", "pragma_2": 1, "pragma_3": 0.5}):
        A[i] = A[i] + T.float32(1)
    for i in range(0, 16, 4, annotations={"software_pipeline_stage": [0, 1]}):
        A[i] = A[i] * T.float32(2)
