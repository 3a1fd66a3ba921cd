# expect: TypeError 9:24
# `k = 1` binds R.const(1) (a Relax value, as upstream binds it), which is no dim.
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((2, 3), "float32")):
    k = 1
    y = R.ones(R.shape([k]), "float32")
    return y
