# R.unique in upstream's wrapper form, R.unique(x, sorted=True, return_index=False,
# return_inverse=False, return_counts=False, axis=None): the flags written as keywords, by
# position and left to their defaults, on a flattened x and along an axis, sorted and in order of
# first occurrence, with a symbolic dim, a 0-d x (results of known shape (1,)) and an empty one.
# The number of unique values is data-dependent: LegalizeOps lowers each call to a count kernel,
# R.tensor_to_shape, an R.match_cast and the value kernel (tests/codegen/test_relax_unique.c
# runs them).
from tvm.script import ir as I
from tvm.script import relax as R


@I.ir_module
class UniqueOps:
    @R.function
    def flat(x: R.Tensor((4, 6), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        y = R.unique(x)
        return y

    @R.function
    def flat_all(x: R.Tensor((5, 7), "float32")):
        y = R.unique(x, return_index=True, return_inverse=True, return_counts=True)
        return y

    @R.function
    def unsorted_all(x: R.Tensor((30,), "float32")):
        y = R.unique(x, sorted=False, return_index=True, return_inverse=True, return_counts=True)
        return y

    @R.function
    def unsorted_index(x: R.Tensor((3, 8), "int32")):
        y = R.unique(x, False, True)
        return y

    @R.function
    def inverse_bool(x: R.Tensor((9,), "bool")):
        y = R.unique(x, return_inverse=True)
        return y

    @R.function
    def counts_sym(x: R.Tensor(("n", 4), "int64")):
        with R.dataflow():
            y = R.unique(x, return_counts=True)
            v = y[0]
            w = R.add(v, v)
            c = y[1]
            R.output(w, c)
        return (w, c)

    @R.function
    def along0(x: R.Tensor((6, 3), "int32")):
        y = R.unique(x, True, True, True, True, axis=0)
        return y

    @R.function
    def along1(x: R.Tensor((2, 7, 2), "float32")):
        y = R.unique(x, sorted=False, return_index=True, return_inverse=True, return_counts=True, axis=-2)
        return y

    @R.function
    def along_sorted(x: R.Tensor((3, 5), "float64")):
        y = R.unique(x, axis=1)
        return y

    @R.function
    def scalar(x: R.Tensor((), "float32")):
        y = R.unique(x, return_index=True, return_inverse=True, return_counts=True)
        return y

    @R.function
    def empty(x: R.Tensor((0,), "float32")):
        y = R.unique(x, return_index=True, return_inverse=True, return_counts=True)
        return y
