# if/else binding a value from both branches, match_cast, tuples, closures, impure calls.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Control:
    @R.function
    def choose(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if c:
            e = R.exp(x)
            y = R.add(e, x)
        else:
            y = R.multiply(x, x)
        return y

    @R.function
    def choose_dataflow(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        # A branch ending with a dataflow block results in the block's last binding (an output).
        if c:
            with R.dataflow():
                e = R.exp(x)
                out = R.add(e, x)
                R.output(out)
        else:
            with R.dataflow():
                out = R.multiply(x, x)
                R.output(out)
        return out

    @R.function
    def cast(x: R.Tensor(ndim=1, dtype="float32")) -> R.Tuple(R.Tensor(ndim=1, dtype="float32"), R.Shape(ndim=1)):
        k = T.int64()
        y = R.match_cast(x, R.Tensor((k,), "float32"))
        z: R.Tensor((k,), "float32") = R.exp(y)
        t = (z, R.shape([k]))
        first = t[0]
        a, b = t
        return (first, b)

    @R.function
    def closure(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        @R.function
        def inner(y: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
            z = R.add(x, y)
            return z

        r = inner(x)
        return r

    @R.function(pure=False)
    def effect(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        R.print(x, format="x={}")
        return x
