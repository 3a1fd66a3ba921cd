# expect: ValueError 6:39
from tvm.script import relax as R


@R.function
def f(x: R.DTensor((4, 4), "float32", "mesh[0]", "R")):
    return x
