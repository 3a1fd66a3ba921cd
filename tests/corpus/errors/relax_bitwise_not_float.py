# expect: TypeError 7:23
# bitwise_not takes integers and bool only: a float argument is refused where it is written.
from tvm.script import relax as R

@R.function
def main(x: R.Tensor((2, 3), "float32")):
    y = R.bitwise_not(x)
    return y
