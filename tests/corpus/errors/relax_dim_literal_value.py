# expect: TypeError 6:68
from tvm.script import relax as R


@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n + T.int32(n)",), "float32")):
    return y
