# nn.batch_flatten and outer (upstream's wrapper forms), one function each, static and symbolic
# shapes; tests/codegen/test_relax_more_ops.c runs them legalized (evaluator and compiled)
# against C loops.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class MoreOps:
    @R.function
    def bflat(x: R.Tensor((2, 3, 4, 5), "float32")) -> R.Tensor((2, 60), "float32"):
        y = R.nn.batch_flatten(x)
        return y

    @R.function
    def bflat_sym(x: R.Tensor(("n", 3, "m"), "float32")):
        y = R.nn.batch_flatten(x)
        return y

    @R.function
    def outer(a: R.Tensor((3,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((3, 4), "float32"):
        y = R.outer(a, b)
        return y

    @R.function
    def outer_sym(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(("n", "m"), "float32"):
        y = R.outer(a, b)
        return y

    @R.function
    def outer_mixed(a: R.Tensor((3,), "int64"), b: R.Tensor((2,), "float32")) -> R.Tensor((3, 2), "int64"):
        y = R.outer(a, b)
        return y
