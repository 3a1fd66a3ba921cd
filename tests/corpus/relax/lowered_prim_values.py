# After ComputePrimValue: PrimFuncs returning a value with T.ret, called with sinfo_args; an If on
# the computed bool; a composite prim value in the signature written as a string.
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def compute_symbolic_expr(n: T.int64) -> T.bool:
        T.ret(n > T.int64(2))

    @T.prim_func
    def compute_symbolic_expr1(n: T.int64) -> T.int64:
        T.ret(n * T.int64(2) + T.int64(1))

    @T.prim_func
    def exp(A_handle: T.handle, T_out_handle: T.handle):
        T.func_attr({"op_pattern": 0})
        n = T.int64()
        A = T.match_buffer(A_handle, (n, T.int64(4)), "float32")
        T_out = T.match_buffer(T_out_handle, (n, T.int64(4)), "float32")
        for i0, i1 in T.grid(n, T.int64(4)):
            T_out[i0, i1] = T.exp(A[i0, i1])

    @R.function
    def main(x: R.Tensor(("n", 4), dtype="float32")) -> R.Tuple(R.Tensor(("n", 4), dtype="float32"), R.Prim(value="n * 2 + 1")):
        cls = Module
        n = T.int64()
        R.func_attr({"relax.force_pure": True})
        lv_prim: R.Prim(value=n > 2) = cls.compute_symbolic_expr(R.prim_value(n), sinfo_args=(R.Prim(value=n > 2),))
        if lv_prim:
            alloc: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
            _: R.Object = cls.exp(x, alloc)
            t1: R.Tensor((n, 4), dtype="float32") = alloc
            r: R.Tensor((n, 4), dtype="float32") = t1
        else:
            alloc1: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
            _: R.Object = cls.negative(x, alloc1)
            t2: R.Tensor((n, 4), dtype="float32") = alloc1
            r: R.Tensor((n, 4), dtype="float32") = t2
        lv_prim_1: R.Prim(value=n * 2 + 1) = cls.compute_symbolic_expr1(R.prim_value(n), sinfo_args=(R.Prim(value=n * 2 + 1),))
        return r, lv_prim_1

    @T.prim_func
    def negative(A_handle: T.handle, T_out_handle: T.handle):
        T.func_attr({"op_pattern": 0})
        n = T.int64()
        A = T.match_buffer(A_handle, (n, T.int64(4)), "float32")
        T_out = T.match_buffer(T_out_handle, (n, T.int64(4)), "float32")
        for i0, i1 in T.grid(n, T.int64(4)):
            T_out[i0, i1] = T.float32(0.0) - A[i0, i1]
