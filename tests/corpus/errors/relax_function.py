# expect: NotImplementedError 5:2
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    return x
