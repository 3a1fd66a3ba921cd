# Names bound to a TIR expression or a Python number inside a Relax function name the value
# itself (upstream's bind_assign_value): `C = T.int64(16)` emits no binding and C is 16 where it
# is used; a TIR variable (`n = T.int64()`) stays a symbolic variable.
from tvm.script import relax as R
from tvm.script import tirx as T


@R.function
def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n * 4 + 1",), "float32"):
    n = T.int64()
    C = T.int64(4)
    total = n * C
    k = 1
    y = R.match_cast(x, R.Tensor((n, C), "float32"))
    z = R.reshape(y, R.shape([total]))
    w = R.concat((z, R.ones(R.shape([k]), "float32")), axis=0)
    return w
