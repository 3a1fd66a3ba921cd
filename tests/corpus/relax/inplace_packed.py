# R.call_inplace_packed(func, *args, inplace_indices, sinfo_args): a packed function that writes
# its result into the arguments inplace_indices names (one index, or one per field of a tuple
# result, -1 for a field that is a fresh value); each such result is checked to be a base of
# its argument's struct info.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T

@I.ir_module
class Module:
    @R.function
    def one(x: R.Tensor((2, 3), "float32"), y: R.Tensor((2, 3), "float32")):
        with R.dataflow():
            z = R.call_inplace_packed("test.add_into", x, y, inplace_indices=0, sinfo_args=R.Tensor((2, 3), "float32"))
            R.output(z)
        return z

    @R.function
    def two(x: R.Tensor(("n", 3), "float32"), y: R.Tensor(("n", 3), "float32")):
        n = T.int64()
        t = R.call_inplace_packed("test.swap", x, y, inplace_indices=[1, -1], sinfo_args=[R.Tuple(R.Tensor((n, 3), "float32"), R.Tensor((n, 3), "float32"))])
        return t

    @R.function
    def looser(x: R.Tensor((2, 3), "float32")):
        # the result may be less specific than the argument it is written into
        z = R.call_inplace_packed("test.scale", x, R.prim_value(2), inplace_indices=[0], sinfo_args=(R.Tensor(ndim=2, dtype="float32"),))
        return z
