# Names bound inside a Relax function as upstream's bind_assign_value binds them: a TIR expression
# names the value itself (`C = T.int64(16)` emits no binding, C is 16 where it is used), and so do
# a string and a list written out; a TIR variable (`n = T.int64()`) stays a symbolic variable; a
# Python number is bound as R.const(value) (int32, float32 or bool).
from tvm.script import relax as R
from tvm.script import tirx as T


@R.function
def f(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n * 4 + 1",), "float32"):
    n = T.int64()
    C = T.int64(4)
    total = n * C
    k = T.int64(1)
    y = R.match_cast(x, R.Tensor((n, C), "float32"))
    z = R.reshape(y, R.shape([total]))
    w = R.concat((z, R.ones(R.shape([k]), "float32")), axis=0)
    return w


@R.function
def g(x: R.Tensor((2, 3), "float32")):
    half = 0.5
    one = 1
    flag = True
    axes = [1]
    name = "vm.builtin.copy"
    y = R.multiply(x, half)
    s = R.sum(y, axis=axes, keepdims=True)
    c = R.call_pure_packed(name, s, sinfo_args=R.Tensor((2, 1), "float32"))
    return (c, one, flag)
