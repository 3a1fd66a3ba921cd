# expect: ValueError 10:5
# A module's attributes cannot use a TIR variable: nothing in a module binds one (printed as a
# free `v = T.int64()` above the class, it would read back as another variable).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    I.module_attrs({"bound": T.int64() + 1})

    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        return x
