# The model examples/serve serves: a two-layer MLP with a symbolic batch n,
#   y = softmax(relu(x @ w0 + b0) @ w1 + b1)
# built into one library with `tvmc build examples/serve/model.py -o model.so`.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Model:
    @R.function
    def main(
        x: R.Tensor(("n", 4), "float32"),
        w0: R.Tensor((4, 8), "float32"),
        b0: R.Tensor((8,), "float32"),
        w1: R.Tensor((8, 3), "float32"),
        b1: R.Tensor((3,), "float32"),
    ) -> R.Tensor(("n", 3), "float32"):
        n = T.int64()
        with R.dataflow():
            h = R.matmul(x, w0)
            h1 = R.add(h, b0)
            a = R.nn.relu(h1)
            o = R.matmul(a, w1)
            o1 = R.add(o, b1)
            y = R.nn.softmax(o1, axis=-1)
            R.output(y)
        return y
