# A hand-written PrimFunc called from Relax with R.call_tir, and a Relax helper; the PrimFunc
# called directly with its output (as lowered code does): a void call, R.Tuple(), printed bare;
# a PrimFunc returning a value (declared from its return annotation) called directly.
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Mixed:
    @T.prim_func
    def add_one(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(8):
            B[i] = A[i] + T.float32(1)

    @T.prim_func
    def length(A: T.Buffer((8,), "float32")) -> T.int64:
        T.ret(T.int64(8))

    @R.function(private=True)
    def twice(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        y = R.add(x, x)
        return y

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Mixed
        R.func_attr({"num_input": 1})
        with R.dataflow():
            lv = R.call_tir(cls.add_one, (x,), out_sinfo=R.Tensor((8,), "float32"))
            gv = cls.twice(lv)
            R.output(gv)
        return gv

    @R.function(pure=False)
    def direct(x: R.Tensor((8,), "float32")) -> R.Tensor((8,), "float32"):
        cls = Mixed
        y = R.builtin.alloc_tensor(R.shape([8]), R.dtype("float32"), R.prim_value(0))
        cls.add_one(x, y)
        done: R.Tuple = cls.add_one(y, y)
        R.print(done, format=R.str("{}"))
        n = cls.length(y)
        R.print(n, format=R.str("{}"))
        return y
