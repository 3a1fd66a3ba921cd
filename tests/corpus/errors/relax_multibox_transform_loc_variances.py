# expect: ValueError 11:76
# R.vision.multibox_transform_loc's variances are the 4 scales (x, y, w, h) of the box encodings
# (upstream's constructor checks the count); the error points at the attribute's value.
from tvm.script import relax as R


@R.function
def f(logits: R.Tensor((1, 3, 5), "float32"), enc: R.Tensor((1, 20), "float32"),
      priors: R.Tensor((1, 5, 4), "float32")):
    with R.dataflow():
        d = R.vision.multibox_transform_loc(logits, enc, priors, variances=(0.1, 0.1, 0.2))
        R.output(d)
    return d
