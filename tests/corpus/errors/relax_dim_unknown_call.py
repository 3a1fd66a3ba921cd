# expect: SyntaxError 6:86
from tvm.script import relax as R


@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("T.if_then_else(n < 4, n, 4) + T.abs(n)",), "float32")):
    return y
