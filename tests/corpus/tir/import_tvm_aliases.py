# Aliases bound by plain imports: `import tvm.script.tir as T` and `from tvm import ir as I`,
# with `tvm.tir.<dtype>` reached through the package.
import tvm
import tvm.script.tir as T
from tvm import ir as I


@I.ir_module
class Module:
    @T.prim_func
    def relu(A: T.Buffer((32,), "int32"), B: T.Buffer((32,), "int32")):
        for i in range(32):
            B[i] = T.max(A[i], tvm.tir.int32(0))
