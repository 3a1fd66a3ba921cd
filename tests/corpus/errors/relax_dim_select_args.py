# expect: SyntaxError 6:73
from tvm.script import relax as R


@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("T.Select(n < 4, n)",), "float32")):
    return y
