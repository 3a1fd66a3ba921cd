# `return` ending a dataflow block, as upstream reads it: the value is the block's output
# (an expression bound in the block first), returned after the block; a Var from outside the
# block needs no output.
from tvm.script import relax as R


@R.function
def output_var(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        lv = R.exp(x)
        lv1 = R.add(lv, x)
        return lv1


@R.function
def output_tuple(
    x: R.Tensor((4,), "float32"),
) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
    with R.dataflow():
        a = R.exp(x)
        b = R.multiply(a, a)
        return (a, b)


@R.function
def outer_var(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        unused = R.exp(x)
        return x
