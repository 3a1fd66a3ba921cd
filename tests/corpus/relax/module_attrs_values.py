# Module attributes, a symbolic callee, the value builtins (const, prim_value, str, dtype).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Mod:
    I.module_attrs({"system_lib_prefix": "x_"})

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Prim("int64")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Mod
        y: R.Tensor((n,), "float32") = cls.helper(x)
        c = R.const([[1, 2], [3, 4]], "int32")
        p = R.prim_value(3)
        st = R.str("hello")
        dt = R.dtype("float16")
        return y

    @R.function(private=True)
    def helper(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        return x
