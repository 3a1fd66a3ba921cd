# R.linear, upstream's Python sugar (no operator of its own): matmul(data, permute_dims(weight))
# plus bias, the nested calls bound on their own.
from tvm.script import relax as R


@R.function
def f(
    x: R.Tensor((2, 5), "float32"), w: R.Tensor((3, 5), "float32"), b: R.Tensor((3,), "float32")
) -> R.Tensor((2, 3), "float32"):
    with R.dataflow():
        y = R.linear(x, w, b)
        z = R.linear(y, R.ones(R.shape([3, 3]), "float32"), out_dtype="float32")
        R.output(z)
    return z
