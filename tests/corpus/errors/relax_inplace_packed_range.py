# expect: ValueError 7:58
# an in-place index past the arguments (two: x and y).
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
    z = R.call_inplace_packed("f", x, y, inplace_indices=2, sinfo_args=R.Tensor((2, 3), "float32"))
    return z
