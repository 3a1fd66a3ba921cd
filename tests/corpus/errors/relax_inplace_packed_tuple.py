# expect: ValueError 7:58
# two in-place indices need a tuple result of two fields.
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
    z = R.call_inplace_packed("f", x, y, inplace_indices=[0, 1], sinfo_args=R.Tensor((2, 3), "float32"))
    return z
