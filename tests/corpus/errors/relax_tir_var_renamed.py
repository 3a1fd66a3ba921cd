# expect: ValueError 7:5
from tvm.script import relax as R
from tvm.script import tir as T

@R.function
def main(x: R.Tensor(("n",), "float32")):
    m = T.Var("n", "int64")
    return x
