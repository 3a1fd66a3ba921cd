# expect: TypeError 5:29
# tvm.ir.load_json must give the map of type key to array the printer writes.
from tvm.script import relax as R

metadata = tvm.ir.load_json("""{"root_index": 0, "nodes": [{"type": "ffi.String", "data": "x"}]}""")


@R.function
def main(x: R.Tensor((1, 32), dtype="float32")) -> R.Tensor((1, 32), dtype="float32"):
    return x
