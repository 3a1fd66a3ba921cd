# expect: ValueError 5:29
# The metadata section's JSON is cut short.
from tvm.script import relax as R

metadata = tvm.ir.load_json("""{
  "root_index": 1,
  "nodes": [
""")


@R.function
def main(x: R.Tensor((1, 32), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
    y: R.Tensor((1, 32), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
    return y
