# expect: ValueError 8:57
# an in-place index past the inputs (two: x and y), located at the keyword argument that gives it
# (R.call_tir_inplace's parameters are in another order than the operator's attributes).
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
    z = R.call_tir_inplace("f", (x, y), inplace_indices=2, out_sinfo=R.Tensor((2, 3), "float32"))
    return z
