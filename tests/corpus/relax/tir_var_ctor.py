# The signature's variables named again in the body with tir.Var's constructor, as upstream's
# legalize tests write them (`a = T.Var("a", "int64")`): the same variables as `a = T.int64()`.
from tvm.script import tir as T
from tvm.script import relax as R


@R.function
def g(x: R.Tensor(("a", "b"), "float32")) -> R.Tensor(("2 * a", "b"), "float32"):
    a = T.Var("a", "int64")
    b = T.Var("b", "int64")
    y: R.Tensor((2 * a, b), "float32") = R.concat((x, x), axis=0)
    return y
