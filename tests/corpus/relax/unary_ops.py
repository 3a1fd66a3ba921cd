# The unary elementwise operators upstream prints that the older rows lacked: the float math
# (tan, sinh, cosh, asin, acos, atan, asinh, acosh, atanh), trunc on floats and integers,
# isfinite (a bool result) and bitwise_not on integers and bool, as upstream writes them
# (`gv = R.tan(x)`), in a dataflow block and outside one.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class UnaryOps:
    @R.function
    def trig(x: R.Tensor((2, "n"), "float32")):
        with R.dataflow():
            a = R.tan(x)
            b = R.sinh(a)
            c = R.cosh(b)
            d = R.asin(x)
            e = R.acos(d)
            f = R.atan(e)
            g = R.asinh(f)
            h = R.acosh(c)
            j = R.atanh(x)
            R.output(g, h, j)
        return (g, h, j)

    @R.function
    def checks(x: R.Tensor((4,), "float16"), i: R.Tensor((4,), "int32"), b: R.Tensor((4,), "bool")):
        t = R.trunc(x)
        ti = R.trunc(i)
        fin = R.isfinite(t)
        ni = R.bitwise_not(ti)
        nb = R.bitwise_not(b)
        both = R.logical_and(fin, nb)
        return (t, ni, both)

    @R.function
    def main(x: R.Tensor((3,), "float64")) -> R.Tensor((3,), "float64"):
        gv = R.tan(x)
        return gv
