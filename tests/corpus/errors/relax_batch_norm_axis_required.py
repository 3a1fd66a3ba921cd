# expect: TypeError 10:9
# R.nn.batch_norm's axis has no default (upstream's signature requires it).
from tvm.script import relax as R


@R.function
def f(x: R.Tensor((1, 3, 4, 4), "float32"), g: R.Tensor((3,), "float32"),
      b: R.Tensor((3,), "float32"), m: R.Tensor((3,), "float32"),
      v: R.Tensor((3,), "float32")):
    y = R.nn.batch_norm(x, g, b, m, v)
    return y
