# An ExternFunc as an entry of a module (upstream keeps `name = R.ExternFunc("symbol")` in the
# class and prints it back so); functions call it through cls.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Module:
    my_ext = R.ExternFunc("my_ext")
    other = R.ExternFunc("runtime.other_symbol")

    @R.function(pure=False)
    def main(a: R.Tensor((10, 10), "float32")) -> R.Tensor((10, 10), "float32"):
        cls = Module
        b = cls.my_ext(a, sinfo_args=R.Tensor((10, 10), "float32"))
        c = cls.other(b, sinfo_args=R.Tensor((10, 10), "float32"))
        return c
