# `import tvm.script` and `from tvm import tir` headers; the module decorated with the full
# `@tvm.script.ir.ir_module` and dtypes reached through the imported `tir` module.
import tvm.script
from tvm import tir


@tvm.script.ir.ir_module
class Module:
    @tir.prim_func
    def saxpy(a: tir.handle, b: tir.handle, alpha: tir.float32):
        n = tir.int32()
        A = tir.match_buffer(a, (n,), "float32")
        B = tir.match_buffer(b, (n,), "float32")
        for i in tir.serial(n):
            B[i] = alpha * A[i] + B[i]
