# expect: TypeError 7:9
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((2, 3), "float32")):
    y = x.astype("float16", "int32")
    return y
