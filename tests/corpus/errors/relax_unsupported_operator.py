# expect: TypeError 7:9
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "int32")) -> R.Tensor((4,), "int32"):
    y = x % x
    return y
