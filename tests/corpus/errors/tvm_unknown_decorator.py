# expect: SyntaxError 6:2
# `tvm.script.tir.kernel` is no decorator (the long spellings are tvm.script.tir.prim_func and
# tvm.script.ir_module).
import tvm

@tvm.script.tir.kernel
def f(A: tvm.script.tir.Buffer((4,), "float32")):
    for i in range(4):
        A[i] = tvm.script.tir.float32(0)
