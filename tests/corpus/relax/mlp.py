# A two-layer MLP, as relax_models_mlp builds it with the BlockBuilder.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class MLP:
    @R.function
    def main(
        x: R.Tensor((4, 16), "float32"),
        w0: R.Tensor((16, 16), "float32"),
        b0: R.Tensor((16,), "float32"),
        w1: R.Tensor((16, 8), "float32"),
    ) -> R.Tensor((4, 8), "float32"):
        with R.dataflow():
            h = R.matmul(x, w0)
            h1 = h + b0
            a = R.nn.relu(h1)
            out: R.Tensor((4, 8), "float32") = R.matmul(a, w1)
            R.output(out)
        return out
