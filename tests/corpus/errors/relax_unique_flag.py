# expect: ValueError 8:36
# R.unique's return_* flags are bools: they decide how many results the call has.
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((4, 3), "float32")):
    y = R.unique(x, return_inverse=2)
    return y
