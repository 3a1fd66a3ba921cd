# expect: ValueError 10:5
from tvm.script import tirx as T


@T.prim_func
def f(A: T.Buffer((8,), "float32")):
    tx = T.env_thread("threadIdx.x")
    with T.launch_thread(tx, 8):
        A[tx] = T.float32(0)
    with T.launch_thread(tx, 8):
        A[tx] = T.float32(1)
