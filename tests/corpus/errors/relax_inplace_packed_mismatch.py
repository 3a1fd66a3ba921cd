# expect: ValueError 7:55
# the result (3, 3) cannot be written into the (2, 3) argument it names.
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32")):
    z = R.call_inplace_packed("f", x, inplace_indices=0, sinfo_args=R.Tensor((3, 3), "float32"))
    return z
