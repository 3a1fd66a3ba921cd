# Lowered GPU code: launch_thread with a tag, and env_thread variables launched later.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def lowered(A: T.Buffer((256,), "float32")):
        blockIdx_x = T.launch_thread("blockIdx.x", 4)
        threadIdx_x = T.launch_thread("threadIdx.x", 64)
        A[blockIdx_x * 64 + threadIdx_x] = T.float32(1)

    @T.prim_func
    def with_env_thread(A: T.Buffer((128,), "float32")):
        bx = T.env_thread("blockIdx.x")
        tx = T.env_thread("threadIdx.x")
        T.launch_thread(bx, 2)
        T.launch_thread(tx, 64)
        A[bx * 64 + tx] = A[bx * 64 + tx] + T.float32(1)
