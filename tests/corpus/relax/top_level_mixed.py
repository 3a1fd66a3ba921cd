# Functions at a file's top level: a PrimFunc and a Relax function calling it by name.
from tvm.script import relax as R
from tvm.script import tirx as T


@T.prim_func
def k(A: T.Buffer((4,), "float32"), B: T.Buffer((4,), "float32")):
    for i in range(4):
        B[i] = A[i]


@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.call_tir(k, (x,), out_sinfo=R.Tensor((4,), "float32"))
    return y
