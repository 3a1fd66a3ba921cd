# Operators whose output shape depends on the data: the rank is known, the dims are not.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Dynamic:
    @R.function
    def nz(x: R.Tensor((3, 4), "float32")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.nonzero(x)
        return y

    @R.function
    def dslice(x: R.Tensor((8, 9), "float32"), b: R.Tensor((2,), "int64"), e: R.Tensor((2,), "int64"), s: R.Tensor((2,), "int64")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.dynamic_strided_slice(x, b, e, s)
        return y
