# A local function that calls itself (bound to its variable before its body, as upstream's
# is_recursive), capturing a variable of the outer function.
# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor((4,), dtype="float32"), k: R.Tensor((), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
        step: R.Tensor((4,), dtype="float32") = R.multiply(x, R.const(0.5, "float32"))
        @R.function
        def loop(v: R.Tensor((4,), dtype="float32"), j: R.Tensor((), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
            cond: R.Tensor((), dtype="bool") = R.greater(j, R.const(0.5, "float32"))
            if cond:
                next: R.Tensor((4,), dtype="float32") = R.multiply(v, R.const(0.5, "float32"))
                j1: R.Tensor((), dtype="float32") = R.subtract(j, R.const(1.0, "float32"))
                r: R.Tensor((4,), dtype="float32") = loop(next, j1)
                res: R.Tensor((4,), dtype="float32") = r
            else:
                res: R.Tensor((4,), dtype="float32") = v
            return res

        res: R.Tensor((4,), dtype="float32") = loop(x, k)
        return res
