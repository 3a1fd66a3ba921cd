# expect: ValueError 9:9
# A local function calling itself needs a return annotation (its variable is made before its body).
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    @R.function
    def loop(v: R.Tensor((4,), dtype="float32")):
        r = loop(v)
        return r

    y = loop(x)
    return y
