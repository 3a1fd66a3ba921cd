# expect: ValueError 8:11
# A number bound to a name in a Relax function is R.const(value), int32 for an int.
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((2, 3), "float32")):
    big = 3000000000
    return x
