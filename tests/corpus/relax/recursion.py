# A recursive module function (its GlobalVar is declared with its signature first), an if on a PrimValue.
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class Rec:
    @R.function
    def count(n: R.Prim("int64"), c: R.Prim("bool")) -> R.Prim("int64"):
        cls = Rec
        if c:
            r = cls.count(n, R.prim_value(False))
        else:
            r = n
        return r
