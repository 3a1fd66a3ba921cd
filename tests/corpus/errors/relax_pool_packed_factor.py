# expect: ValueError 8:25
# The sub-axis dim of a packed layout must be its factor (16c: 16), here 8.
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((1, 3, 8, 8, 8), "float32")):
    y = R.nn.max_pool2d(x, pool_size=[2, 2], layout="NCHW16c")
    return y
