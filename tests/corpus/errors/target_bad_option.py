# expect: ValueError 7:37
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    T.func_attr({"target": T.target("llvm mcpu=skylake")})
    A[0] = T.float32(0)
