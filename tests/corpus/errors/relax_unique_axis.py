# expect: ValueError 8:9
# R.unique's axis must name a dim of x (upstream's NormalizeAxis).
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((4, 3), "int32")):
    y = R.unique(x, return_counts=True, axis=2)
    return y
