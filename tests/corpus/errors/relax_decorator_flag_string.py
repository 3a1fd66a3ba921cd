# expect: TypeError 8:10
# A decorator flag takes True or False: `pure="False"` read as a truthy string made the function pure.
from tvm.script import relax as R


@R.function(
    private=True,
    pure="False",
)
def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
    return x
