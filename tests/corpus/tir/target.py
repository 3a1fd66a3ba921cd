# Compilation targets in function attributes: T.target from a kind, a target string with
# options, a dict (upstream's printed form) and a host.
from tvm.script import ir as I
from tvm.script import tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def gpu(A: T.Buffer((128,), "float32")):
        T.func_attr({"target": T.target("cuda"), "tir.noalias": True})
        for i in T.thread_binding(128, thread="threadIdx.x"):
            A[i] = A[i] + T.float32(1)

    @T.prim_func
    def cpu(A: T.Buffer((128,), "float32")):
        T.func_attr({"target": T.target("llvm -mcpu=skylake-avx512 -mtriple=x86_64-linux-gnu")})
        for i in T.vectorized(128):
            A[i] = A[i] * T.float32(2)

    @T.prim_func
    def exported(A: T.Buffer((128,), "float32")):
        T.func_attr({"target": T.target({"kind": "llvm", "keys": ["arm_cpu", "cpu"], "mattr": ["+neon"], "num-cores": 4}, host="llvm")})
        for i in T.serial(128):
            A[i] = T.float32(0)
