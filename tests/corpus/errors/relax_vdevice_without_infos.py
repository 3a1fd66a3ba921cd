# expect: ValueError 6:49
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((2, 3), "float32", vdevice="cuda")) -> R.Tensor((2, 3), "float32"):
    return x
