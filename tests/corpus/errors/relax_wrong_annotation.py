# expect: TypeError 7:5
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    y: R.Tensor((3, 3), "float32") = R.exp(x)
    return y
