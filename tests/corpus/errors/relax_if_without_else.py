# expect: SyntaxError 7:5
from tvm.script import relax as R


@R.function
def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    if c:
        y = R.exp(x)
    return x
