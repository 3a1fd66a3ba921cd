# expect: SyntaxError 9:19
# A string literal that is not UTF-8 (Python refuses the file): its bytes went into the IR.
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((2, 3), "float32")):
    R.func_attr({"note": "ok Ã©"})
    s = R.str("café")
    return s
