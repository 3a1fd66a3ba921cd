# expect: ValueError 10:5
# A Relax function's attributes may use the symbolic variables its parameters define (as
# upstream's relax.rewrite_cuda_graph.capture_symbolic_vars); `m` is not one of them.
from tvm.script import relax as R
from tvm.script import tir as T

@R.function
def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
    m = T.int64()
    R.func_attr({"relax.rewrite_cuda_graph.capture_symbolic_vars": [m]})
    return x
