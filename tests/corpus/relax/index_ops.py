# Gather (and take, index_tensor), scatter, one_hot, sorting and einsum operators, one function
# each (static shapes, a few symbolic); the tests/codegen/test_relax_index_ops.c kernels run these,
# legalized, against C loops.
from tvm.script import ir as I
from tvm.script import tir as T
from tvm.script import relax as R


@I.ir_module
class IndexOps:
    @R.function
    def gather(x: R.Tensor((3, 4), "float32"), i: R.Tensor((3, 2), "int64")) -> R.Tensor((3, 2), "float32"):
        y = R.gather_elements(x, i, axis=1)
        return y

    @R.function
    def gather_tall(
        x: R.Tensor((3, 4), "float32"), i: R.Tensor((4, 2), "int64")
    ) -> R.Tensor((4, 2), "float32"):
        y = R.gather_elements(x, i, axis=1)
        return y

    @R.function
    def take_rows(
        x: R.Tensor((4, 3), "float32"), i: R.Tensor((2, 3), "int64")
    ) -> R.Tensor((2, 3, 3), "float32"):
        y = R.take(x, i, axis=0)
        return y

    @R.function
    def take_clip(x: R.Tensor(("n", 3), "float32"), i: R.Tensor((5,), "int64")) -> R.Tensor((5, 3), "float32"):
        y = R.take(x, i, axis=0, mode="clip")
        return y

    @R.function
    def take_wrap(x: R.Tensor((3, "n"), "float32"), i: R.Tensor((5,), "int64")) -> R.Tensor((3, 5), "float32"):
        y = R.take(x, i, axis=1, mode="wrap")
        return y

    @R.function
    def take_nan(x: R.Tensor(("n", 3), "float32"), i: R.Tensor((5,), "int64")) -> R.Tensor((5, 3), "float32"):
        y = R.take(x, i, axis=0, mode="nan")
        return y

    @R.function
    def se_update(x: R.Tensor((3, 4), "float32"), i: R.Tensor((2, 3), "int64"), u: R.Tensor((2, 3), "float32")) -> R.Tensor((3, 4), "float32"):
        y = R.scatter_elements(x, i, u, axis=1)
        return y

    @R.function
    def se_tall(
        x: R.Tensor((3, 4), "float32"), i: R.Tensor((4, 2), "int64"), u: R.Tensor((4, 2), "float32")
    ) -> R.Tensor((3, 4), "float32"):
        y = R.scatter_elements(x, i, u, axis=1)
        return y

    @R.function
    def se_add(x: R.Tensor((4, 3), "float32"), i: R.Tensor((3, 3), "int64"), u: R.Tensor((3, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_elements(x, i, u, reduction="add")
        return y

    @R.function
    def se_mul(x: R.Tensor((4, 3), "float32"), i: R.Tensor((3, 3), "int64"), u: R.Tensor((3, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_elements(x, i, u, axis=0, reduction="mul")
        return y

    @R.function
    def se_mean(x: R.Tensor((4, 3), "float32"), i: R.Tensor((3, 3), "int64"), u: R.Tensor((3, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_elements(x, i, u, axis=-2, reduction="mean")
        return y

    @R.function
    def se_max(x: R.Tensor((4, 3), "float32"), i: R.Tensor((3, 3), "int64"), u: R.Tensor((3, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_elements(x, i, u, reduction="max")
        return y

    @R.function
    def se_min(x: R.Tensor((4, 3), "float32"), i: R.Tensor((3, 3), "int64"), u: R.Tensor((3, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_elements(x, i, u, reduction="min")
        return y

    @R.function
    def snd(x: R.Tensor((4, 3), "float32"), i: R.Tensor((5, 1), "int64"), u: R.Tensor((5, 3), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_nd(x, i, u, reduction="add")
        return y

    @R.function
    def snd_full(x: R.Tensor((4, 3), "float32"), i: R.Tensor((2, 2, 2), "int64"), u: R.Tensor((2, 2), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.scatter_nd(x, i, u)
        return y

    @R.function
    def ip_acc(x: R.Tensor((4, 3), "float32"), i0: R.Tensor((5,), "int64"), i1: R.Tensor((5,), "int64"), v: R.Tensor((5,), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.index_put(x, (i0, i1), v, accumulate=True)
        return y

    @R.function
    def ip_rows(x: R.Tensor((4, 3), "float32"), i0: R.Tensor((2,), "int64"), v: R.Tensor((3,), "float32")) -> R.Tensor((4, 3), "float32"):
        y = R.index_put(x, (i0,), v)
        return y

    @R.function
    def it_pair(x: R.Tensor((5, 4, 3), "float32"), i0: R.Tensor((2, 1), "int64"), i1: R.Tensor((3,), "int64")) -> R.Tensor((2, 3, 3), "float32"):
        y = R.index_tensor(x, (i0, i1))
        return y

    @R.function
    def it_all(x: R.Tensor((4, 5), "float32"), i0: R.Tensor((2, 3), "int64"), i1: R.Tensor((1, 3), "int32")) -> R.Tensor((2, 3), "float32"):
        y = R.index_tensor(x, [i0, i1])
        return y

    @R.function
    def it_one(x: R.Tensor((4, 3), "float32"), i: R.Tensor((2, 2), "int32")) -> R.Tensor((2, 2, 3), "float32"):
        y = R.index_tensor(x, (i,))
        return y

    @R.function
    def it_sym(
        x: R.Tensor(("n", "m", 2), "float32"), i0: R.Tensor(("k", 1), "int64"), i1: R.Tensor((1, 3), "int64")
    ) -> R.Tensor(("k", 3, 2), "float32"):
        y = R.index_tensor(x, (i0, i1))
        return y

    @R.function
    def sl_scatter(x: R.Tensor((6, 3), "float32"), s: R.Tensor((2, 3), "float32")) -> R.Tensor((6, 3), "float32"):
        y = R.slice_scatter(x, s, R.prim_value(1), R.prim_value(5), R.prim_value(2), axis=0)
        return y

    @R.function
    def onehot(i: R.Tensor((2, 3), "int64")) -> R.Tensor((2, 4, 3), "float32"):
        y = R.one_hot(i, R.prim_value(T.float32(2.5)), R.prim_value(T.float32(-1)), depth=4, axis=1)
        return y

    @R.function
    def sort_desc(x: R.Tensor((3, 5), "float32")) -> R.Tensor((3, 5), "int32"):
        y = R.argsort(x, axis=1, descending=True)
        return y

    @R.function
    def sort_cols(x: R.Tensor((4, 3), "float32")) -> R.Tensor((4, 3), "int64"):
        y = R.argsort(x, axis=0, dtype="int64")
        return y

    @R.function
    def sorted_rows(x: R.Tensor((3, 5), "float32")) -> R.Tensor((3, 5), "float32"):
        y = R.sort(x, axis=1, descending=True)
        return y

    @R.function
    def sorted_cols(x: R.Tensor((4, 3), "int32")) -> R.Tensor((4, 3), "int32"):
        y = R.sort(x, axis=0)
        return y

    @R.function
    def top2(x: R.Tensor((3, 5), "float32")) -> R.Tuple(R.Tensor((3, 2), "float32"), R.Tensor((3, 2), "int32")):
        y = R.topk(x, k=2)
        return y

    @R.function
    def bottom3(x: R.Tensor((3, 5), "float32")) -> R.Tensor((3, 3), "float32"):
        y = R.topk(x, k=3, ret_type="values", largest=False)
        return y

    @R.function
    def top_idx(x: R.Tensor((5, 3), "float32")) -> R.Tensor((2, 3), "int64"):
        y = R.topk(x, k=2, axis=0, ret_type="indices", largest=False, dtype="int64")
        return y

    @R.function
    def mm(a: R.Tensor((3, 4), "float32"), b: R.Tensor((4, 5), "float32")) -> R.Tensor((3, 5), "float32"):
        y = R.einsum((a, b), subscripts="ij,jk->ik")
        return y

    @R.function
    def bmm(a: R.Tensor((2, 3, 4), "float32"), b: R.Tensor((1, 4, 5), "float32")) -> R.Tensor((2, 3, 5), "float32"):
        y = R.einsum((a, b), "...ij,...jk")
        return y

    @R.function
    def diag(a: R.Tensor((4, 4), "float32")) -> R.Tensor((4,), "float32"):
        y = R.einsum((a,), "ii->i")
        return y

    @R.function
    def row_bcast(a: R.Tensor((1, 4), "float32"), b: R.Tensor((2, 4), "float32")) -> R.Tensor((2,), "float32"):
        y = R.einsum((a, b), "ij, ij -> i")
        return y
