# After LambdaLift: the lifted closure made with R.make_closure and called with
# R.invoke_pure_closure(..., sinfo_args=...).
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        cls = Module
        n = T.int64()
        a: R.Tensor((n, 4), dtype="float32") = R.nn.relu(x)
        add_y: R.Callable((R.Tensor((n, 4), dtype="float32"),), R.Tensor((n, 4), dtype="float32"), True) = R.make_closure(cls.main_add_y, (y,))
        b: R.Tensor((n, 4), dtype="float32") = R.invoke_pure_closure(add_y, (a,), sinfo_args=(R.Tensor((n, 4), dtype="float32"),))
        c: R.Tensor((n, 4), dtype="float32") = R.invoke_pure_closure(add_y, (b,), sinfo_args=(R.Tensor((n, 4), dtype="float32"),))
        out: R.Tensor((n, 4), dtype="float32") = R.multiply(c, x)
        return out

    @R.function(private=True)
    def main_add_y(z: R.Tensor(("n", 4), dtype="float32"), y: R.Tensor((4,), dtype="float32")) -> R.Tensor(("n", 4), dtype="float32"):
        n = T.int64()
        s: R.Tensor((n, 4), dtype="float32") = R.add(z, y)
        return s
