# Operators whose output shape depends on the data: the rank is known, the dims are not.
# LegalizeOps lowers each to a shape kernel, R.tensor_to_shape, an R.match_cast and the value
# kernel. And strided_slice with symbolic bounds (a shape's values): its kernel takes the begin
# as a scalar parameter (call_tir's tir_vars).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Dynamic:
    @R.function
    def nz(x: R.Tensor((3, 4), "float32")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.nonzero(x)
        return y

    @R.function
    def nz3(x: R.Tensor((2, 3, 5), "int32")) -> R.Tensor(ndim=2, dtype="int64"):
        with R.dataflow():
            y = R.nonzero(x)
            R.output(y)
        return y

    @R.function
    def nz_bool(x: R.Tensor((7,), "bool")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.nonzero(x)
        return y

    @R.function
    def nz0(x: R.Tensor((), "float32")) -> R.Tensor(ndim=2, dtype="int64"):
        y = R.nonzero(x)
        return y

    @R.function
    def nz_take(d: R.Tensor((6,), "float32"), m: R.Tensor((6,), "bool")) -> R.Tensor(ndim=1, dtype="float32"):
        # take fused with the add before it, its indices of a data-dependent length: the fused
        # call must follow the match_cast that binds the length (FuseOps orders by it)
        with R.dataflow():
            a = R.add(d, d)
            i = R.squeeze(R.nonzero(m), axis=[0])
            y = R.take(a, i, axis=0)
            R.output(y)
        return y

    @R.function
    def dslice(x: R.Tensor((8, 9), "float32"), b: R.Tensor((2,), "int64"), e: R.Tensor((2,), "int64"), s: R.Tensor((2,), "int64")) -> R.Tensor(ndim=2, dtype="float32"):
        y = R.dynamic_strided_slice(x, b, e, s)
        return y

    @R.function
    def dslice3(x: R.Tensor(("n", 5, 6), "float32"), b: R.Tensor((3,), "int32"), e: R.Tensor((3,), "int32"), s: R.Tensor((3,), "int32")) -> R.Tensor(ndim=3, dtype="float32"):
        with R.dataflow():
            y = R.dynamic_strided_slice(x, b, e, s)
            z = R.add(y, y)
            R.output(z)
        return z

    @R.function
    def sslice(x: R.Tensor((8, 9), "float32"), s: R.Shape(["b", "e"])) -> R.Tensor(ndim=2, dtype="float32"):
        b = T.int64()
        e = T.int64()
        y = R.strided_slice(x, axes=[1], begin=[b], end=[e], strides=[2])
        return y

    @R.function
    def sslice_back(x: R.Tensor((8, 9), "float32"), s: R.Shape(["b", "e"])) -> R.Tensor(ndim=2, dtype="float32"):
        b = T.int64()
        e = T.int64()
        with R.dataflow():
            y = R.strided_slice(x, axes=[0], begin=[b], end=[e], strides=[-1])
            z = R.add(y, y)
            R.output(z)
        return z

    @R.function
    def sslice2(x: R.Tensor(("n", 9), "float32"), s: R.Shape(["b", "c"])) -> R.Tensor(ndim=2, dtype="float32"):
        n = T.int64()
        b = T.int64()
        c = T.int64()
        y = R.strided_slice(x, axes=[0, 1], begin=[n - b, c], end=[n, c + 4])
        return y
