# expect: ValueError 12:14
# A tensor parameter with the name of a symbolic variable of the signature: the body's `n` read
# the symbolic variable, so `return n` returned R.prim_value(n), not the tensor. Upstream refuses
# the name twice in the function's scope; an R.Prim parameter of that name is the variable
# (corpus relax/prim_param_named_as_sym.py).
from tvm.script import ir as I
from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(n: R.Tensor(("n", 3), "float32")):
        return n
