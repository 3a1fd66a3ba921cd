# expect: TypeError 7:39
# Buffer.access_ptr takes access_mask, ptr_type, content_lanes, offset and extent.
from tvm.script import tir as T

@T.prim_func
def f(A: T.Buffer((16,), "float32")):
    T.evaluate(A.access_ptr("r", size=4))
