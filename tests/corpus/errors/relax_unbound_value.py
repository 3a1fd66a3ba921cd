# expect: TypeError 9:5
from tvm.script import relax as R


@R.function
def main(x: R.Tensor((4,), "float32")):
    # A result dropped on the floor (only a call returning nothing may stand alone, as
    # R.print does below): upstream's parser refuses it too.
    R.add(x, x)
    R.print(x, format="{}")
    return x
