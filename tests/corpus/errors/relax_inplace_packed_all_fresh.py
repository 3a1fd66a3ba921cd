# expect: ValueError 7:55
# no argument is written in place: that call is a call_pure_packed.
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32")):
    z = R.call_inplace_packed("f", x, inplace_indices=[-1], sinfo_args=R.Tensor((2, 3), "float32"))
    return z
