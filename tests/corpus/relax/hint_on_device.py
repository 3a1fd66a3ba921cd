# R.hint_on_device: a hint that a value is placed on a device, written with R.device (dev_type 1
# is the CPU, 2 CUDA) or with the runtime's constructors (tvm.cpu(), tvm.cuda(1), tvm.device(...),
# as upstream's tests write them), and an optional memory scope.
from tvm.script import ir as I
from tvm.script import relax as R
import tvm


@I.ir_module
class Hints:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            a = R.hint_on_device(x, R.device(1, 0))
            b = R.add(a, y)
            c = R.hint_on_device(b, R.device(dev_type=2, dev_id=0), "global.texture")
            d = R.hint_on_device(c, R.device(dev_type=1))
            e = R.hint_on_device(d, tvm.cuda(1))
            g = R.hint_on_device(e, tvm.device("cpu"))
            R.output(g)
        return g
