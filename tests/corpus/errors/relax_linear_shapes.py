# expect: ValueError 7:9
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((2, 5), "float32"), b: R.Tensor((3,), "float32")):
    y = R.linear(x, b)
    return y
