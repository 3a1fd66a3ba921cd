# The lowered forms the pipeline's passes may emit, written by hand: R.null_value, call_tir with
# tir_vars, the memory operators, an ExternFunc with struct info, a GlobalVar call with sinfo_args,
# upstream's upper-bound attributes and a bare R.Callable annotation.
from tvm.script import ir as I
from tvm.script import tirx as T
from tvm.script import relax as R


@I.ir_module
class Module:
    @T.prim_func
    def shift(A_handle: T.handle, B_handle: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(A_handle, (n,), "float32")
        B = T.match_buffer(B_handle, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.Cast("float32", k)

    @T.prim_func
    def twice(n: T.int64) -> T.int64:
        T.ret(n * T.int64(2))

    @R.function
    def main(x: R.Tensor(("n",), dtype="float32"), f: R.Callable) -> R.Tuple(R.Tensor(("n",), dtype="float32"), R.Prim(value="n * 2")):
        R.func_attr({"relax.force_pure": True, "tir_var_upper_bound": {"n": 1024}, "relax.memory_plan_dynamic_func_output": True})
        cls = Module
        n = T.int64()
        y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), dtype="float32"), tir_vars=R.shape([n]))
        storage: R.Object = R.memory.alloc_storage(R.shape([4096]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        t: R.Tensor((n,), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        _: R.Object = cls.shift(y, t, R.prim_value(n))
        _1: R.Tuple = R.memory.kill_storage(storage)
        z: R.Tensor((n,), dtype="float32") = R.call_packed(R.ExternFunc("vm.builtin.reshape", R.Callable(purity=True)), t, R.shape([n]), sinfo_args=(R.Tensor((n,), dtype="float32"),))
        _2: R.Tuple = R.memory.kill_tensor(t)
        nothing: R.Object = R.null_value()
        d: R.Prim(value=n * 2) = cls.twice(R.prim_value(n), sinfo_args=(R.Prim(value=n * 2),))
        return z, d
