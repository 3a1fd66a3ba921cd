# Symbolic dims written as strings holding expressions over the function's variables, as
# upstream evaluates them: "n * 2", "m // 4 + 1", "T.max(n, m)", a name made by its first use;
# and the forms the printer writes for dims that infix text would fold or change (`u`).
from tvm.script import tirx as T
from tvm.script import relax as R


@R.function
def f(
    t: R.Tensor(shape=["(n)", "m", "k"], dtype="int32"),
    x: R.Tensor(("n * 2", 1, "m // 4 + 1"), "float32"),
    s: R.Shape(["n + 1", "T.max(n, m)", "-(k % 3) + 7"]),
    u: R.Shape(["n + T.Cast(\"int64\", T.int32(1))", "T.Div(n, 2) + T.truncmod(m, 3)",
                "T.if_then_else(n < 0, T.int64(-1), k) + T.Add(1, 2)", "T.FloorDiv(n, 0)"]),
) -> R.Tensor(("n * 2",), "float32"):
    n = T.int64()
    m = T.int64()
    y: R.Tensor(("n * 2", "m // 4 + 1"), "float32") = R.reshape(x, R.shape([n * 2, m // 4 + 1]))
    z: R.Tensor(("n * 2",), "float32") = R.sum(y, axis=[1])
    # an unfolded constant dim prints its int64 operands typed, as T.Add reads plain ints int32
    c = R.shape([T.Add(T.int64(1), T.int64(2)), 4])
    return z
