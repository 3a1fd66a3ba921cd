# expect: TypeError 8:17
from tvm.script import tir as T


@T.prim_func
def f(a: T.Buffer((4, 4), "float16"), x: T.float16):
    with T.block("b"):
        T.reads(a[x, 0:2])
        T.writes()
        T.evaluate(0)
