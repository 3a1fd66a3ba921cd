# expect: ValueError 8:53
# A packed layout may split N or C, not a spatial axis (upstream's topi pools require it too).
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((1, 3, 8, 2, 4), "float32")):
    y = R.nn.max_pool2d(x, pool_size=[2, 2], layout="NCHW4w")
    return y
