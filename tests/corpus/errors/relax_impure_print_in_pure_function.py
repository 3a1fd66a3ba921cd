# expect: ValueError 9:5
# An impure call (R.print) in a pure function: reported at its statement, not at the def.
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    y = R.add(x, x)
    R.print(y, format="{}")
    z = R.multiply(y, y)
    return z
