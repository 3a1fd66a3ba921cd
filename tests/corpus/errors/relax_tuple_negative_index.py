# expect: IndexError 8:9
# A negative index past the front is reported as written (-3), not as its Python-normalised -1.
from tvm.script import relax as R


@R.function
def main(x: R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32"))):
    z = x[-3]
    return z
