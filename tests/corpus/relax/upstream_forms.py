# Spellings upstream's own Relax tests use: symbolic variables declared by tuple assignment
# (`n, m = T.int64(), T.int64()`), `a, b = x, y` bound name by name, R.TupleGetItem (also of a
# tuple literal, which `(x, y)[0]` would not keep), call_pure_packed's ty_args=, "vdevice:N"
# (the N-th of all virtual devices, whatever their target kind) and allocations in a pure
# function (allocation is not a visible effect); `x.struct_info` (and `x.ty`, upstream's newer
# name for it), and an if whose branches both
# end with a call made for its effect; a dim string with T.Select and a comparison (the printer
# writes one for strided_slice's inferred extent); R.nn.relu6; the Expr method x.astype(dtype);
# R.str(...) for a string attribute and R.dtype(...) for a dtype one (upstream's printer writes
# R.print(format=R.str("...")), its format being an operand there); R.layout_transform with a
# plain lambda as its index_map (upstream's wrapper makes the IndexMap; `i % 16` over 14 values
# pads to 16); R.stack of a list and R.sort (upstream's wrappers); R.emit_with_sinfo;
# optional arguments written None (cumsum's exclusive=None too); `x.struct_info.shape[i]`, a
# dim; R.nn.attention_bias (attention with a bias); keyword arguments by upstream's names.
import tvm
from tvm import relax
from tvm.script import ir as I
from tvm.script import relax as R
from tvm.script import tir as T


@I.ir_module
class Module:
    I.module_global_infos(
        {
            "vdevice": [
                I.vdevice("llvm", 0, "global"),
                I.vdevice("cuda", 0, "global"),
                I.vdevice("llvm", 1, "global"),
            ]
        }
    )

    @R.function
    def main(x: R.Tensor(dtype="float32", ndim=2), y: R.Tensor((4,), "float32", "vdevice:2")):
        n, m = T.int64(), T.int64()
        x0 = R.match_cast(x, R.Tensor((n, m), "float32"))
        a, b = x0, y
        t = R.tuple(a, b)
        first = R.TupleGetItem(t, 0)
        lit = R.TupleGetItem((a, b), 1)
        z = R.call_pure_packed("test.vm.identity", first, ty_args=(R.Tensor((n, m), "float32"),))
        alloc = R.builtin.alloc_tensor(R.shape([n, m]), runtime_device_index=0, dtype="float32")
        return (z, lit, alloc, R.shape([n + 1, m]))

    @R.function(pure=False)
    def effects(x: R.Tensor(("n",), "float32"), cond: R.Tensor((), "bool")):
        y = R.call_packed("test.vm.identity", x, sinfo_args=[x.struct_info])
        y2 = R.call_packed("test.vm.identity", y, ty_args=[y.ty])
        if cond:
            R.print(y, format="then: {}")
        else:
            R.print(y, format=R.str("else: {}"))
        R.assert_op(cond, y, format=R.str("cond and y: {}, {}"))
        return y

    @R.function
    def emitted(x: R.Tensor((2, 3), "int32"), scale: T.float32):
        # R.emit_with_sinfo / R.emit_with_type (a call of an operator by name, with struct info
        # arguments, which any operator call may be given as sinfo_args=); a dtype annotation
        # (T.float32) is R.Prim of it; relax.op.X (`from tvm import relax`) is R.X.
        a: R.Tensor((2, 3), "int32") = R.emit_with_type("relax.builtin.alloc_tensor", (R.shape([2, 3]), R.dtype("int32"), R.prim_value(0), R.str("global")), (R.Tensor((2, 3), dtype="int32"),))
        b = R.emit_with_sinfo("relax.add", (x, a))
        c = relax.op.multiply(b, b)
        d = tvm.relax.op.astype(c, "float32")
        return (d, scale)

    @R.function
    def none_optionals(x: R.Tensor((8,), "float32"), q: R.Tensor((1, 4, 2, 8), "float32"), p: R.Tensor((3, 5), "float32"), t: R.Tensor((3,), "int64")):
        # an optional argument written None is not given (upstream's wrappers default to None)
        a = R.strided_slice(x, axes=[0], begin=[1], end=[4], strides=None)
        b = R.nn.attention(q, q, q, bias=None, scale=None, causal_mask=None)
        bias = R.zeros(R.shape([1, 2, 4, 4]), "float32")
        d = R.nn.attention_bias(q, q, q, bias, scale=0.5)
        c = R.nn.nll_loss(p, t, weights=None, reduction="sum")
        return (a, b, c, d)

    @R.function
    def keyword_names(x: R.Tensor((2, 3), "float32")):
        # arguments by upstream's wrappers' names
        a = R.flip(data=x, axis=0)
        b = R.cumsum(data=a, axis=1)
        c = R.tile(data=b, repeats=[2, 1])
        d = R.slice_scatter(input_tensor=x, src=R.zeros(R.shape([1, 3]), "float32"), start=0, end=1, step=1, axis=0)
        e = R.shape_of(expr=d)
        return (c, e)

    @R.function
    def selects(x: R.Tensor(("n",), "float32"), y: R.Tensor(("T.Select(n - 1 < 0, n * 2 - 1, n - 1)",), "float32")):
        z = R.nn.relu6(y)
        return z

    @R.function
    def cast(x: R.Tensor((2, 3), "float32")):
        y = x.astype("float16")
        z = y.astype(dtype="int32")
        w = R.astype(z, R.dtype("float16"))
        return w

    @R.function
    def layouts(x: R.Tensor((14,), "float32"), y: R.Tensor((2, 3), "float32")):
        p = R.layout_transform(x, index_map=lambda i: (i % 16,), pad_value=None)
        t = R.layout_transform(y, index_map=lambda a, b: (b, a), pad_value=2.0)
        return (p, t)

    @R.function
    def stacked(x: R.Tensor(("n", 3), "float32"), y: R.Tensor(("n", 3), "float32")):
        s = R.stack([x, y, x], axis=1)
        v = R.sort(R.stack((x,), axis=-1), axis=0, descending=True)
        return (s, v)

    @R.function
    def device_keywords(x: R.Tensor((2,), "float32")):
        # upstream's newer printer spells R.device's parameters device_type= and index=
        y = R.hint_on_device(x, R.device(device_type=1, index=0))
        return y

    @R.function
    def one_size(x: R.Tensor((2, 3, 8, 8), "float32"), v: R.Tensor((1, 2, 4, 4, 4), "float32"), t: R.Tensor((2, 2, 3), "float32")):
        # a size of one dim stands for every spatial axis (upstream's wrappers repeat it)
        r = R.image.resize2d(x, (16,))
        s = R.image.resize3d(v, size=[6])
        g = R.image.affine_grid(t, size=5)
        return (r, s, g)

    @R.function
    def shape_items(t: R.Tensor((3, 5), "float32")):
        # an item of a shape literal is its dim (ShapeExpr.__getitem__); exclusive=None is False
        # (upstream's cumsum / cumprod wrappers)
        s = R.reshape(t, (t.struct_info.shape[1], t.ty.shape[-2]))
        c = R.cumsum(t, axis=1, exclusive=None)
        p = R.cumprod(t, axis=0, exclusive=None)
        return (s, c, p)
