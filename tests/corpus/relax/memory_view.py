# R.memory.view in the forms programs write it: all four arguments, keywords, and the arguments
# left out (void: the input's shape, dtype or offset).
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tirx as T


@I.ir_module
class Views:
    @R.function
    def main(x: R.Tensor((4, 6), "float32"), y: R.Tensor((64,), "uint8")):
        a = R.memory.view(x, R.shape([2, 5]), R.dtype("float32"), R.prim_value(T.int64(16)))
        b = R.memory.view(x, shape=R.shape([24]))
        c = R.memory.view(y, R.shape([16]), "float32")
        d = R.memory.view(y, shape=R.shape([8]), dtype="float16", relative_byte_offset=R.prim_value(T.int64(8)))
        e = R.memory.view(x)
        return (a, b, c, d, e)

    # R.memory.ensure_zero_offset: the view's memory from a data pointer at offset zero, for
    # kernels that take no element offset (upstream's StaticPlanBlockMemory tests write it).
    @R.function
    def zero_offset(x: R.Tensor((16,), "float32")) -> R.Tensor((8,), "float32"):
        v = R.memory.view(x, R.shape([8]), R.dtype("float32"), R.prim_value(T.int64(32)))
        z = R.memory.ensure_zero_offset(v)
        y = R.add(z, z)
        return y
