# nn.batch_flatten, outer, eye, eye_like, wrap_param, nn.pixel_shuffle, collapse_sum_like,
# collapse_sum_to, gather_nd, nn.instance_norm, meshgrid, bucketize, multinomial_from_uniform and
# image.grid_sample (upstream's wrapper forms: R.eye(n, m=None, k=0, dtype="float32"),
# R.eye_like(x, k=0, dtype=None), R.nn.pixel_shuffle(x, upscale_factor), R.collapse_sum_to(x,
# shape) with shape an R.Shape or a tuple, R.nn.instance_norm(x, gamma, beta, channel_axis, axes,
# ...), R.meshgrid(tensors, indexing="ij"), R.bucketize(input_tensor, boundaries, out_int32=False,
# right=False), R.multinomial_from_uniform(prob, uniform_sample, sample_indices, dtype="int64"),
# R.image.grid_sample(data, grid, method="bilinear", layout="NCHW", padding_mode="zeros",
# align_corners=False)), one function each (grid_sample: one per padding mode, every method and
# align_corners in it), static and symbolic shapes;
# tests/codegen/test_relax_more_ops.c runs them legalized (evaluator and compiled) against C
# loops.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class MoreOps:
    @R.function
    def wrap(w: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float64"):
        y = R.wrap_param(w, dtype="float64")
        return y

    @R.function
    def bflat(x: R.Tensor((2, 3, 4, 5), "float32")) -> R.Tensor((2, 60), "float32"):
        y = R.nn.batch_flatten(x)
        return y

    @R.function
    def bflat_sym(x: R.Tensor(("n", 3, "m"), "float32")):
        y = R.nn.batch_flatten(x)
        return y

    @R.function
    def outer(a: R.Tensor((3,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tensor((3, 4), "float32"):
        y = R.outer(a, b)
        return y

    @R.function
    def outer_sym(a: R.Tensor(("n",), "float32"), b: R.Tensor(("m",), "float32")) -> R.Tensor(("n", "m"), "float32"):
        y = R.outer(a, b)
        return y

    @R.function
    def outer_mixed(a: R.Tensor((3,), "int64"), b: R.Tensor((2,), "float32")) -> R.Tensor((3, 2), "int64"):
        y = R.outer(a, b)
        return y

    @R.function
    def eye(x: R.Tensor((3, 5), "float32")):
        a = R.eye(3, 5, 1)
        b = R.eye(4, k=-1, dtype="int32")
        c = R.eye_like(x)
        d = R.eye_like(x, 2, dtype="int64")
        return (a, b, c, d)

    @R.function
    def eye_sym(x: R.Tensor(("n", "m"), "float32")):
        n = T.int64()
        m = T.int64()
        a = R.eye(R.prim_value(n), R.prim_value(m), R.prim_value(-1), dtype="float32")
        b = R.eye_like(x, -2)
        return (a, b)

    @R.function
    def pshuffle(x: R.Tensor((2, 8, 3, 2), "float32")) -> R.Tensor((2, 2, 6, 4), "float32"):
        y = R.nn.pixel_shuffle(x, 2)
        return y

    @R.function
    def pshuffle_sym(x: R.Tensor(("n", 9, "h", "w"), "float32")):
        y = R.nn.pixel_shuffle(x, upscale_factor=3)
        return y

    @R.function
    def csum(x: R.Tensor((2, 3, 4), "float32"), t: R.Tensor((3, 1), "float32")):
        a = R.collapse_sum_like(x, t)
        b = R.collapse_sum_to(x, (1, 4))
        c = R.collapse_sum_to(x, R.shape([3, 4]))
        return (a, b, c)

    @R.function
    def csum_int(x: R.Tensor((3, 4), "int64")) -> R.Tensor((4,), "int64"):
        y = R.collapse_sum_to(x, R.shape([4]))
        return y

    @R.function
    def csum_sym(x: R.Tensor(("n", 3, "m"), "float32"), t: R.Tensor((1, "m"), "float32")):
        m = T.int64()
        a = R.collapse_sum_like(x, t)
        b = R.collapse_sum_to(x, R.shape([3, m]))
        return (a, b)

    @R.function
    def gnd(
        x: R.Tensor((3, 4, 5), "float32"), i: R.Tensor((2, 2), "int64"), j: R.Tensor((3, 1), "int64")
    ):
        a = R.gather_nd(x, i)
        b = R.gather_nd(x, j, batch_dims=1)
        return (a, b)

    @R.function
    def gnd_sym(
        x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("k", 1), "int64")
    ) -> R.Tensor(("k", 4), "float32"):
        y = R.gather_nd(x, i)
        return y

    @R.function
    def gnd_batch_sym(
        x: R.Tensor(("n", 4), "float32"), i: R.Tensor(("m", 2, 1), "int64")
    ) -> R.Tensor(("m", 2), "float32"):
        y = R.gather_nd(x, i, batch_dims=1)
        return y

    @R.function
    def inorm(
        x: R.Tensor((2, 3, 4, 5), "float32"),
        g: R.Tensor((3,), "float32"),
        b: R.Tensor((3,), "float32"),
        y: R.Tensor((2, 4, 3), "float32"),
    ):
        a = R.nn.instance_norm(x, g, b, 1, [2, 3])
        c = R.nn.instance_norm(y, g, b, channel_axis=-1, axes=[1], epsilon=0.001, center=False)
        return (a, c)

    @R.function
    def inorm_sym(
        x: R.Tensor(("n", "c", "h"), "float32"),
        g: R.Tensor(("c",), "float32"),
        b: R.Tensor(("c",), "float32"),
    ) -> R.Tensor(("n", "c", "h"), "float32"):
        y = R.nn.instance_norm(x, g, b, channel_axis=1, axes=[2])
        return y

    @R.function
    def mgrid(a: R.Tensor((2,), "float32"), b: R.Tensor((3,), "float32"), c: R.Tensor((4,), "float32")):
        g = R.meshgrid((a, b, c))
        return g

    @R.function
    def mgrid_xy(
        a: R.Tensor((2,), "float32"), b: R.Tensor((3,), "float32"), c: R.Tensor((4,), "float32")
    ) -> R.Tuple(R.Tensor((3, 2, 4), "float32"), R.Tensor((3, 2, 4), "float32"), R.Tensor((3, 2, 4), "float32")):
        g = R.meshgrid([a, b, c], indexing="xy")
        return g

    @R.function
    def mgrid_one(a: R.Tensor((5,), "float32")):
        g = R.meshgrid((a,), indexing="xy")
        return g

    @R.function
    def mgrid_sym(a: R.Tensor(("n",), "int64"), b: R.Tensor(("m",), "int64")):
        t = (a, b)
        g = R.meshgrid(t, indexing="xy")
        return g

    @R.function
    def bucket(x: R.Tensor((3, 4), "float32"), b: R.Tensor((5,), "float32")):
        i = R.bucketize(x, b)
        j = R.bucketize(x, b, right=True)
        k = R.bucketize(x, b, out_int32=True)
        l = R.bucketize(x, b, out_int32=True, right=True)
        return (i, j, k, l)

    @R.function
    def bucket_sym(x: R.Tensor(("n",), "int64"), b: R.Tensor(("m",), "int64")):
        i = R.bucketize(x, b)
        j = R.bucketize(x, b, True, True)
        return (i, j)

    @R.function
    def bucket_mixed(x: R.Tensor((2, 3), "int32"), b: R.Tensor((4,), "float32"), s: R.Tensor((), "float32")):
        i = R.bucketize(x, b)
        j = R.bucketize(s, b, right=True)
        return (i, j)

    @R.function
    def multinomial(p: R.Tensor((3, 5), "float32"), u: R.Tensor((7, 1), "float32"), i: R.Tensor((7, 1), "int64")):
        a = R.multinomial_from_uniform(p, u, i)
        b = R.multinomial_from_uniform(p, u, i, "int32")
        return (a, b)

    @R.function
    def multinomial_sym(
        p: R.Tensor(("b", "v"), "float32"), u: R.Tensor(("n", 1), "float64"), i: R.Tensor(("n", 1), "int32")
    ) -> R.Tensor(("n", 1), "int64"):
        a = R.multinomial_from_uniform(p, u, i, dtype="int64")
        return a

    @R.function
    def gsample_zeros(x: R.Tensor((2, 3, 4, 5), "float32"), g: R.Tensor((2, 2, 6, 7), "float32")):
        a = R.image.grid_sample(x, g)
        b = R.image.grid_sample(x, g, align_corners=True)
        c = R.image.grid_sample(x, g, method="nearest")
        d = R.image.grid_sample(x, g, method="nearest", align_corners=True)
        e = R.image.grid_sample(x, g, method="bicubic", layout="NCHW", padding_mode="zeros")
        f = R.image.grid_sample(x, g, "bicubic", "NCHW", "zeros", True)
        return (a, b, c, d, e, f)

    @R.function
    def gsample_border(x: R.Tensor((2, 3, 4, 5), "float32"), g: R.Tensor((2, 2, 6, 7), "float32")):
        a = R.image.grid_sample(x, g, padding_mode="border")
        b = R.image.grid_sample(x, g, padding_mode="border", align_corners=True)
        c = R.image.grid_sample(x, g, method="nearest", padding_mode="border")
        d = R.image.grid_sample(x, g, method="nearest", padding_mode="border", align_corners=True)
        e = R.image.grid_sample(x, g, method="bicubic", padding_mode="border")
        f = R.image.grid_sample(x, g, method="bicubic", padding_mode="border", align_corners=True)
        return (a, b, c, d, e, f)

    @R.function
    def gsample_reflection(x: R.Tensor((2, 3, 4, 5), "float32"), g: R.Tensor((2, 2, 6, 7), "float32")):
        a = R.image.grid_sample(x, g, padding_mode="reflection")
        b = R.image.grid_sample(x, g, padding_mode="reflection", align_corners=True)
        c = R.image.grid_sample(x, g, method="nearest", padding_mode="reflection")
        d = R.image.grid_sample(x, g, method="nearest", padding_mode="reflection", align_corners=True)
        e = R.image.grid_sample(x, g, method="bicubic", padding_mode="reflection")
        f = R.image.grid_sample(x, g, method="bicubic", padding_mode="reflection", align_corners=True)
        return (a, b, c, d, e, f)

    @R.function
    def gsample_3d(x: R.Tensor((1, 2, 3, 4, 5), "float32"), g: R.Tensor((1, 3, 2, 3, 4), "float32")):
        a = R.image.grid_sample(x, g, layout="NCDHW")
        b = R.image.grid_sample(x, g, layout="NCDHW", padding_mode="border", align_corners=True)
        c = R.image.grid_sample(x, g, layout="NCDHW", padding_mode="reflection")
        d = R.image.grid_sample(x, g, layout="NCDHW", padding_mode="reflection", align_corners=True)
        e = R.image.grid_sample(x, g, method="nearest", layout="NCDHW", align_corners=True)
        f = R.image.grid_sample(x, g, method="nearest", layout="NCDHW", padding_mode="reflection")
        return (a, b, c, d, e, f)

    @R.function
    def gsample_sym(
        x: R.Tensor(("n", "c", "h", "w"), "float32"), g: R.Tensor(("n", 2, "oh", "ow"), "float64")
    ) -> R.Tuple(R.Tensor(("n", "c", "oh", "ow"), "float32"), R.Tensor(("n", "c", "oh", "ow"), "float32")):
        a = R.image.grid_sample(x, g, padding_mode="reflection", align_corners=True)
        b = R.image.grid_sample(x, g, method="bicubic", padding_mode="reflection", align_corners=True)
        return (a, b)

    @R.function
    def gsample_batch(x: R.Tensor(("n", 2, 3, 4), "float32"), g: R.Tensor(("m", "k", 2, 2), "float32")):
        a = R.image.grid_sample(x, g, method="nearest")
        return a
