# expect: NameError 8:54
# A metadata reference in a text printed without its section (show_meta=False).
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((1, 32), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
    y: R.Tensor((1, 32), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
    return y

# Metadata omitted. Use show_meta=True in script() method to show it.
