# expect: TypeError 6:30
from tvm.script import relax as R


@R.function
def main(x: R.Shape(["n", "n / 2"])) -> R.Shape(ndim=2):
    return x
