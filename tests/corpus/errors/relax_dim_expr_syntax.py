# expect: SyntaxError 6:33
from tvm.script import relax as R


@R.function
def main(x: R.Tensor(("n", "n * ", 4), "float32")) -> R.Tensor(ndim=3, dtype="float32"):
    return x
