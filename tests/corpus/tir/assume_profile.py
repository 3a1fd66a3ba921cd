# Hints without code on a CPU: T.assume, the profiling markers and T.tvm_thread_invariant (a
# condition the same in every thread, upstream's GPU sampling kernels: its value).
from tvm.script import ir as I
from tvm.script import tir as T


@I.ir_module
class Module:
    @T.prim_func
    def assume(A: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        for i in range(16):
            T.evaluate(T.assume(A[i] < 1000))
            C[i] = A[i] * 2

    @T.prim_func
    def profiled(A: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        T.evaluate(T.start_profile_intrinsic(3))
        for i in range(16):
            C[i] = A[i] + 1
        T.evaluate(T.end_profile_intrinsic(3))

    @T.prim_func
    def invariant(A: T.Buffer((16,), "int32"), C: T.Buffer((16,), "int32")):
        for i in range(16):
            if T.tvm_thread_invariant(A[0] < A[i]):
                C[i] = A[i]
            else:
                C[i] = 0 - A[i]
