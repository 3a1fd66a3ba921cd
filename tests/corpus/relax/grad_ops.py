# The operators of training graphs: the gradient markers (no_grad, start / end_checkpoint), the
# backward operators upstream's Gradient pass emits (nll_loss_backward, max / avg_pool2d_backward,
# take_backward), builtin.stop_lift_params and median, with keyword attributes and defaults.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class GradOps:
    @R.function
    def loss_grad(
        pred: R.Tensor((4, 5), "float32"),
        target: R.Tensor((4,), "int64"),
        w: R.Tensor((5,), "float32"),
        g: R.Tensor((), "float32"),
        gn: R.Tensor((4,), "float32"),
    ) -> R.Tensor((4, 5), "float32"):
        with R.dataflow():
            p = R.grad.no_grad(pred)
            d0 = R.grad.nll_loss_backward(g, p, target, w)
            d1 = R.grad.nll_loss_backward(g, pred, target, reduction="sum", ignore_index=2)
            d2 = R.grad.nll_loss_backward(gn, pred, target, w, "none")
            d3 = R.grad.nll_loss_backward(gn, pred, target, reduction="mean", ignore_index=-1)
            s = R.add(R.add(R.add(d0, d1), d2), d3)
            R.output(s)
        return s

    @R.function
    def pool_grad(
        x: R.Tensor((1, 2, 6, 6), "float32"),
        g: R.Tensor((1, 2, 3, 3), "float32"),
        h: R.Tensor((1, 2, 4, 4), "float32"),
    ) -> R.Tensor((1, 2, 6, 6), "float32"):
        with R.dataflow():
            a = R.grad.max_pool2d_backward(g, x, pool_size=[2, 2], strides=[2, 2])
            b = R.grad.avg_pool2d_backward(
                h, x, [3, 3], [2, 2], [1, 1, 1, 1], ceil_mode=True, count_include_pad=True
            )
            c = R.add(a, b)
            R.output(c)
        return c

    @R.function
    def take_grad(
        x: R.Tensor((3, 10), "float32"),
        idx: R.Tensor((4,), "int64"),
        g: R.Tensor((3, 4), "float32"),
        v: R.Tensor((10,), "float32"),
        gv: R.Tensor((4,), "float32"),
    ) -> R.Tuple(R.Tensor((3, 10), "float32"), R.Tensor((10,), "float32")):
        with R.dataflow():
            a = R.grad.take_backward(g, x, idx, axis=1)
            b = R.grad.take_backward(gv, v, idx)
            R.output(a, b)
        return (a, b)

    @R.function
    def checkpointed(x: R.Tensor((2, 3), "float32"), w: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.multiply(x, w)
            a_cp = R.grad.start_checkpoint(a)
            w_cp = R.grad.start_checkpoint(w)
            b = R.add(a_cp, w_cp)
            c = R.exp(b)
            c_out = R.grad.end_checkpoint(c)
            d = R.builtin.stop_lift_params(c_out)
            R.output(d)
        return d

    @R.function
    def medians(x: R.Tensor((3, 5, 4), "float32")):
        with R.dataflow():
            m0 = R.median(x)
            m1 = R.median(x, axis=1)
            v = m1[0]
            i = m1[1]
            m2 = R.median(x, axis=[0, 2], keepdims=True)
            m3 = R.median(x, -1, True)
            R.output(m0, v, i, m2, m3)
        return (m0, v, i, m2, m3)
