# expect: ValueError 8:5
# A branch ending with a dataflow block results in its last binding, which must be an output.
from tvm.script import relax as R


@R.function
def f(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")):
    if c:
        with R.dataflow():
            out = R.exp(x)
            t = R.add(out, x)
            R.output(out)
    else:
        with R.dataflow():
            out = R.exp(x)
            t = R.add(out, x)
            R.output(out)
    return t
