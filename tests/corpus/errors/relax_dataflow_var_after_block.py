# expect: NameError 11:12
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
    with R.dataflow():
        lv = R.exp(x)
        gv = R.add(lv, x)
        R.output(gv)
    return lv
