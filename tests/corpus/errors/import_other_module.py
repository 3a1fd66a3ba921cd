# expect: SyntaxError 4:8
# Only the tvm package can be imported: numpy is not part of TVMScript.
from tvm.script import tir as T
import numpy as np


@T.prim_func
def f(A: T.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = T.float32(0)
