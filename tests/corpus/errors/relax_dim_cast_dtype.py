# expect: TypeError 6:55
from tvm.script import relax as R


@R.function
def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n + T.Cast(\"int6x\", n)",), "float32")):
    return y
