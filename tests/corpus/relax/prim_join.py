# An if whose branches give PrimValues of different dtypes: the value's struct info is
# R.Prim() (unknown dtype), which the printer writes and the parser reads back.
from tvm.script import relax as R


@R.function
def join(a: R.Prim("int32"), b: R.Prim("int64"), c: R.Prim("bool")) -> R.Prim():
    if c:
        r = a
    else:
        r = b
    return r
