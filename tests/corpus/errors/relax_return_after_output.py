# expect: ValueError 10:9
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        lv = R.exp(x)
        R.output(lv)
        return lv
