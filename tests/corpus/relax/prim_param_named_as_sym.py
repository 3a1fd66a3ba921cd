# An R.Prim parameter with the name of a symbolic variable of the signature (upstream's
# test_transform_bundle_model_params writes `extent: T.int64` next to R.Tensor(["extent"])): in the
# body the name is the symbolic variable, as in upstream's newest dialect, where the parameter is
# that variable. Here the parameter stays a separate R.Prim("int64") value, printed as extent_1:
# nothing ties its value to the tensor's dim. A tensor parameter of the name is an error (error
# corpus relax_param_named_as_sym.py).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    @R.function
    def main(extent: T.int64, weight: R.Tensor(["extent"], "float32")) -> R.Tensor(["extent"], "float32"):
        out = R.add(weight, weight)
        return out
