# After StaticPlanBlockMemory, KillAfterLastUse and LowerRuntimeBuiltin: storages shared by
# tensors, kills after the last use, a reshape view through vm.builtin.reshape.
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def exp(A: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_out: T.Buffer((T.int64(4), T.int64(8)), "float32")):
        for i0, i1 in T.grid(T.int64(4), T.int64(8)):
            T_out[i0, i1] = T.exp(A[i0, i1])

    @T.prim_func
    def exp1(A: T.Buffer((T.int64(8), T.int64(4)), "float32"), T_out: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        for i0, i1 in T.grid(T.int64(8), T.int64(4)):
            T_out[i0, i1] = T.exp(A[i0, i1])

    @R.function
    def main(x: R.Tensor((4, 8), dtype="float32")) -> R.Tensor((8, 4), dtype="float32"):
        cls = Module
        R.func_attr({"relax.force_pure": True})
        storage: R.Object = R.memory.alloc_storage(R.shape([128]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        alloc: R.Tensor((4, 8), dtype="float32") = R.memory.alloc_tensor(storage, R.prim_value(0), R.shape([4, 8]), R.dtype("float32"))
        _: R.Tuple = R.memory.kill_storage(storage)
        __1: R.Object = cls.exp(x, alloc)
        a: R.Tensor((4, 8), dtype="float32") = alloc
        b: R.Tensor((8, 4), dtype="float32") = R.call_packed(R.ExternFunc("vm.builtin.reshape", struct_info=R.Callable(purity=True)), a, R.shape([8, 4]), sinfo_args=(R.Tensor((8, 4), dtype="float32"),))
        storage1: R.Object = R.memory.alloc_storage(R.shape([128]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        alloc1: R.Tensor((8, 4), dtype="float32") = R.memory.alloc_tensor(storage1, R.prim_value(0), R.shape([8, 4]), R.dtype("float32"))
        __2: R.Tuple = R.memory.kill_storage(storage1)
        __3: R.Object = cls.negative(b, alloc1)
        __4: R.Tuple = R.memory.kill_tensor(alloc)
        c: R.Tensor((8, 4), dtype="float32") = alloc1
        alloc2: R.Tensor((8, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([8, 4]), R.dtype("float32"), R.prim_value(0))
        __5: R.Object = cls.exp1(c, alloc2)
        __6: R.Tuple = R.memory.kill_tensor(alloc1)
        d: R.Tensor((8, 4), dtype="float32") = alloc2
        return d

    @T.prim_func
    def negative(A: T.Buffer((T.int64(8), T.int64(4)), "float32"), T_out: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        for i0, i1 in T.grid(T.int64(8), T.int64(4)):
            T_out[i0, i1] = T.float32(0.0) - A[i0, i1]

    @T.prim_func
    def reshape(A0: T.Buffer((T.int64(4), T.int64(8)), "float32"), T_out0: T.Buffer((T.int64(8), T.int64(4)), "float32")):
        for i0, i1 in T.grid(T.int64(8), T.int64(4)):
            T_out0[i0, i1] = A0[((T.int64(0) + i0) * T.int64(4) + i1) // T.int64(8), ((T.int64(0) + i0) * T.int64(4) + i1) % T.int64(8)]
