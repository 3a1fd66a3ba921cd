# expect: TypeError 8:5
# A global_symbol that is not a string read as none: the function was compiled unexported.
from tvm.script import tirx as T


@T.prim_func
def main(A: T.Buffer((4,), "float32")):
    T.func_attr({"global_symbol": 1})
    A[0] = T.float32(1)
