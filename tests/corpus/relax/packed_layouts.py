# Pooling and resize in packed data layouts (upstream's NCHW16c: C split into outer channels
# and a sub-axis c of 16), one function each: the packed dims pass through the window, and
# out_layout may reorder the axes but keeps the packing. tests/codegen/test_relax_packed_layouts.c
# runs these, legalized, against C loops.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class PackedLayouts:
    @R.function
    def max_pool_16c(x: R.Tensor((2, 2, 6, 5, 16), "float32")) -> R.Tensor((2, 2, 3, 5, 16), "float32"):
        y = R.nn.max_pool2d(x, pool_size=[3, 3], strides=[2, 1], padding=[1, 1], layout="NCHW16c")
        return y

    @R.function
    def avg_pool_nhwc4c(x: R.Tensor((1, 5, 4, 2, 4), "float32")) -> R.Tensor((1, 2, 5, 4, 4), "float32"):
        y = R.nn.avg_pool2d(x, pool_size=[2, 2], padding=[0, 0, 1, 1], layout="NHWC4c", out_layout="NCHW4c", count_include_pad=True)
        return y

    @R.function
    def max_pool_sym(x: R.Tensor(("n", 2, "h", "w", 4), "float32")) -> R.Tensor(("n", 2, "h - 1", "w - 1", 4), "float32"):
        n = T.int64()
        h = T.int64()
        w = T.int64()
        y = R.nn.max_pool2d(x, pool_size=[2, 2], layout="NCHW4c")
        return y

    @R.function
    def adaptive_16c(x: R.Tensor((2, 1, 7, 5, 16), "float32")) -> R.Tensor((2, 1, 2, 3, 16), "float32"):
        y = R.nn.adaptive_avg_pool2d(x, output_size=[2, 3], layout="NCHW16c")
        return y

    @R.function
    def resize_4c(x: R.Tensor((1, 2, 3, 5, 4), "float32")) -> R.Tensor((1, 2, 6, 4, 4), "float32"):
        y = R.image.resize2d(x, size=(6, 4), layout="NCHW4c", method="linear")
        return y
