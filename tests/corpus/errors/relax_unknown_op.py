# expect: AttributeError 7:9
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.no_such_op(x)
    return y
