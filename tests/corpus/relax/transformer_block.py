# One attention block with a residual and a layer norm, symbolic sequence length.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Block:
    @R.function
    def attention(
        x: R.Tensor(("seq", 32), "float32"),
        wq: R.Tensor((32, 32), "float32"),
        wk: R.Tensor((32, 32), "float32"),
        wv: R.Tensor((32, 32), "float32"),
    ) -> R.Tensor(("seq", 32), "float32"):
        seq = T.int64()
        with R.dataflow():
            q = R.matmul(x, wq)
            k = R.matmul(x, wk)
            v = R.matmul(x, wv)
            kt = R.permute_dims(k, axes=[1, 0])
            s = R.matmul(q, kt)
            scaled = R.multiply(s, R.const(0.125, "float32"))
            p = R.nn.softmax(scaled, axis=-1)
            o: R.Tensor((seq, 32), "float32") = R.matmul(p, v)
            R.output(o)
        return o

    @R.function
    def main(
        x: R.Tensor(("seq", 32), "float32"),
        wq: R.Tensor((32, 32), "float32"),
        wk: R.Tensor((32, 32), "float32"),
        wv: R.Tensor((32, 32), "float32"),
        gamma: R.Tensor((32,), "float32"),
        beta: R.Tensor((32,), "float32"),
    ) -> R.Tensor(("seq", 32), "float32"):
        cls = Block
        with R.dataflow():
            a = cls.attention(x, wq, wk, wv)
            r = R.add(x, a)
            y = R.nn.layer_norm(r, gamma, beta, axes=[-1])
            flat = R.reshape(y, R.shape([-1]))
            back = R.reshape(flat, R.shape_of(y))
            R.output(back)
        return back
