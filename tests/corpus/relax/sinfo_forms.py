# Every struct info form as a parameter annotation.
from tvm.script import relax as R


@R.function
def forms(
    a: R.Tensor((2, 3), "float32"),
    b: R.Tensor(("n", "m"), dtype="int32"),
    c: R.Tensor(ndim=3, dtype="float16"),
    d: R.Tensor,
    e: R.Tensor(dtype="float32"),
    f: R.Tuple(R.Tensor((2,), "float32"), R.Prim("int64")),
    g: R.Shape(["n", 4]),
    h: R.Shape(ndim=2),
    i: R.Prim("float32"),
    j: R.Object,
    k: R.Callable([R.Tensor((2,), "float32")], R.Tensor((2,), "float32")),
    l: R.Tuple,
) -> R.Tuple(R.Tensor(("n", "m"), "int32"), R.Shape(["n", 4])):
    return (b, g)
