# expect: TypeError 7:9
# inplace_indices is required (without it, the call is a call_pure_packed).
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2, 3), "float32")):
    z = R.call_inplace_packed("f", x, sinfo_args=R.Tensor((2, 3), "float32"))
    return z
