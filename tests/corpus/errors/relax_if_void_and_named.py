# expect: SyntaxError 11:9
from tvm.script import relax as R


@R.function(pure=False)
def main(x: R.Tensor((4,), "float32"), cond: R.Tensor((), "bool")):
    if cond:
        y = R.add(x, x)
    else:
        z = R.add(x, x)
        R.print(z, format="{}")
    return x
