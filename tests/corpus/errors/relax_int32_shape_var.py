# expect: TypeError 11:34
# A Relax shape's symbolic variables are int64: an int32 one is named, not cast (a cast defines
# nothing, and the variable would read as used before its definition).
from tvm.script import tir as T
from tvm.script import relax as R


@R.function
def f(x: R.Tensor(("n",), "float32")):
    m = T.int32()
    y = R.match_cast(x, R.Tensor((m,), "float32"))
    return y
