# The operators of quantized and volumetric models: quantize / dequantize per channel and with
# scalar parameters, leaky and parametric ReLU, softplus, selu, group_norm, 3-d convolution and
# pooling, a 1-d transposed convolution, 1-d pooling and adaptive 1-d / 3-d pooling, atan2, a
# fused multiply-add and the two losses, with keyword attributes.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class QuantizedAnd3D:
    @R.function
    def quant(
        x: R.Tensor((2, 8), "float32"),
        scale: R.Tensor((8,), "float32"),
        zp: R.Tensor((8,), "int8"),
    ) -> R.Tensor((2, 8), "float32"):
        with R.dataflow():
            q = R.quantize(x, scale, zp, axis=1, out_dtype="int8")
            q2 = R.quantize(x, R.const(0.5, "float32"), R.const(3, "int8"), out_dtype="uint8")
            d = R.dequantize(q, scale, zp, axis=-1)
            d2 = R.dequantize(q2, R.const(0.5, "float32"), R.const(3, "int8"), out_dtype="float16")
            a = R.atan2(d, x)
            f = R.ewise_fma(a, x, d)
            sp = R.nn.softplus(f, beta=2.0)
            lr = R.nn.leakyrelu(R.nn.selu(sp), alpha=0.2)
            R.output(lr, d2)
        return lr

    @R.function
    def volume(
        x: R.Tensor((1, 4, 6, 6, 6), "float32"),
        w: R.Tensor((8, 4, 3, 3, 3), "float32"),
        alpha: R.Tensor((8,), "float32"),
        gamma: R.Tensor((8,), "float32"),
        beta: R.Tensor((8,), "float32"),
    ) -> R.Tensor((1, 8, 3, 3, 3), "float32"):
        with R.dataflow():
            c = R.nn.conv3d(x, w, strides=[1, 1, 1], padding=[1, 1, 1, 1, 1, 1])
            p = R.nn.prelu(c, alpha, axis=1)
            g = R.nn.group_norm(p, gamma, beta, num_groups=2, channel_axis=1, axes=[2, 3, 4])
            m = R.nn.max_pool3d(g, pool_size=[2, 2, 2], strides=[2, 2, 2])
            v = R.nn.avg_pool3d(g, pool_size=[3, 3, 3], strides=[2, 2, 2], padding=[1, 1, 1, 1, 1, 1], count_include_pad=True)
            out = R.add(m, v)
            R.output(out)
        return out

    @R.function
    def losses(
        logits: R.Tensor(("n", 5), "float32"),
        targets: R.Tensor(("n",), "int64"),
        weights: R.Tensor((5,), "float32"),
        signal: R.Tensor((1, 4, 7), "float32"),
        kernel: R.Tensor((4, 2, 3), "float32"),
    ):
        with R.dataflow():
            l1 = R.nn.nll_loss(logits, targets, weights, reduction="sum", ignore_index=-1)
            l2 = R.nn.nll_loss(logits, targets)
            l3 = R.nn.cross_entropy_with_logits(logits, logits)
            up = R.nn.conv1d_transpose(signal, kernel, strides=[2], padding=[1, 1], output_padding=[1])
            R.output(l1, l2, l3, up)
        return (l1, l2, l3, up)

    @R.function
    def pool1d(
        signal: R.Tensor((2, 4, "w"), "float32"), volume: R.Tensor((1, 2, 5, 4, 3), "float32")
    ):
        with R.dataflow():
            m = R.nn.max_pool1d(signal, pool_size=[3], strides=[2], padding=[1, 2], dilation=[2], ceil_mode=True)
            a = R.nn.avg_pool1d(signal, pool_size=[2], strides=[2], count_include_pad=True)
            s = R.nn.adaptive_avg_pool1d(signal, output_size=[4])
            k = R.nn.adaptive_avg_pool1d(signal)
            v = R.nn.adaptive_avg_pool3d(volume, output_size=[2, 3, 2], layout="NCDHW", out_layout="NDHWC")
            R.output(m, a, s, k, v)
        return (m, a, s, k, v)
