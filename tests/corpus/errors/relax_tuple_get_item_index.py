# expect: TypeError 7:32
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
    z = R.TupleGetItem((x, y), "0")
    return z
