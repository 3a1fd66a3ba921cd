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

    # The last row of a matrix of any dtype as a view: its element size read at run time from
    # the DLTensor (x.dtype.bits / .lanes, bound to TIR variables by R.match_cast), as upstream's
    # dataflow rewriter tests write it; then the other fields a program reads from a tensor.
    @R.function
    def last_row(A: R.Tensor(["M", "N"])) -> R.Tensor(["N"]):
        M = T.int64()
        N = T.int64()
        bits = T.uint8()
        _ = R.match_cast(A.dtype.bits, R.Prim(value=bits))
        lanes = T.uint16()
        _ = R.match_cast(A.dtype.lanes, R.Prim(value=lanes))
        row = R.memory.view(
            A,
            [N],
            relative_byte_offset=(M - 1) * N * T.ceildiv(bits.astype("int64") * lanes.astype("int64"), 8),
        )
        return row

    @R.function
    def fields(x: R.Tensor((4, "n"), "float32"), y: R.Tensor(ndim=2), axis: R.Prim("int64")):
        known = (x.ndim, x.dtype.type_code, x.shape[1], x.strides[0], x.elem_offset)
        rank = y.ndim
        extent = y.shape[axis]
        stride = y.strides[axis]
        offsets = (y.byte_offset, y.elem_offset)
        return (known, rank, extent, stride, offsets)
