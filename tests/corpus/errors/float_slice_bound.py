# expect: TypeError 12:21
# A float bound in a buffer region's slice (found by fuzz_parse_ir: the extent became a float
# expression that printed back as a different one).
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((512, 512), "float32")):
    for by in range(16):
        with T.sblock("tile"):
            vby = T.axis.spatial(16, by)
            T.reads(A[vby * 32:vby * 3. + 32, 0:512])
            T.writes()
            T.evaluate(0)
