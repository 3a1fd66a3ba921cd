# expect: TypeError 7:53
# device_type= is R.device's first parameter under another name: given twice.
from tvm.script import relax as R

@R.function
def f(x: R.Tensor((2,), "float32")):
    y = R.hint_on_device(x, R.device(1, device_type=1))
    return y
