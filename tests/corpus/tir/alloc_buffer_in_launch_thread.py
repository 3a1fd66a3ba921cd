# T.alloc_buffer after T.launch_thread, outside any T.sblock: a shared buffer for the thread
# block and a local one per thread (upstream's statement-level allocation), printed as
# T.decl_buffer without data=. tests/gpu/test_gpu_interp.c runs this kernel in the interpreter.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def in_launch_thread(A: T.Buffer((64,), "float32"), B: T.Buffer((64,), "float32")):
        bx = T.launch_thread("blockIdx.x", 2)
        sh = T.alloc_buffer((32,), "float32", scope="shared")
        tx = T.launch_thread("threadIdx.x", 32)
        loc = T.alloc_buffer((1,), "float32", scope="local")
        loc[0] = A[bx * 32 + tx]
        sh[tx] = loc[0]
        T.tvm_storage_sync("shared")
        B[bx * 32 + tx] = sh[31 - tx] + loc[0]
