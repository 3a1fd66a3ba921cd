# The same model at the end of the pipeline: R.builtin.alloc_tensor, kernels called directly with
# their outputs, pure VM builtins as R.call_packed(R.ExternFunc(..., R.Callable(purity=True)), ...).
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func
    def add(A_handle: T.handle, B_handle: T.handle, T_out_handle: T.handle):
        T.func_attr({"op_pattern": 0})
        n = T.int64()
        A = T.match_buffer(A_handle, (n, T.int64(4)), "float32")
        B = T.match_buffer(B_handle, (n, T.int64(4)), "float32")
        T_out = T.match_buffer(T_out_handle, (n, T.int64(4)), "float32")
        for i0, i1 in T.grid(n, T.int64(4)):
            T_out[i0, i1] = A[i0, i1] + B[i0, i1]

    @T.prim_func
    def less(A: T.Buffer((), "float32"), B: T.Buffer((), "float32"), T_out: T.Buffer((), "bool")):
        T.func_attr({"op_pattern": 0})
        T_out[()] = A[()] < B[()]

    @R.function(pure=False)
    def main(x: R.Tensor(("n", 4), dtype="float32"), s: R.Tensor((2,), dtype="int64"), limit: R.Tensor((), dtype="float32")) -> R.Tuple(R.Tensor(("n", 4), dtype="float32"), R.Tensor(("n", 4), dtype="float32"), R.Tensor(dtype="float32", ndim=2), R.Tensor((2,), dtype="int64"), R.Tensor(("n", 4), dtype="float32"), R.Prim("int64")):
        cls = Module
        n = T.int64()
        alloc: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
        _: R.Object = cls.add(x, x, alloc)
        gv: R.Tensor((n, 4), dtype="float32") = alloc
        alloc1: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
        __1: R.Object = cls.twice_inplace(gv, alloc1)
        gv1: R.Tuple(R.Tensor((n, 4), dtype="float32"), R.Tensor((n, 4), dtype="float32")) = gv, alloc1
        gv2: R.Tensor((n, 4), dtype="float32") = gv1[0]
        gv3: R.Tensor((n, 4), dtype="float32") = gv1[1]
        gv4: R.Shape(ndim=2) = R.call_packed(R.ExternFunc("vm.builtin.tensor_to_shape", R.Callable(purity=True)), s, sinfo_args=(R.Shape(ndim=2),))
        a = T.int64()
        shm: R.Shape([a, 3]) = R.match_cast(gv4, R.Shape([a, 3]))
        alloc2: R.Tensor((a, 3), dtype="float32") = R.builtin.alloc_tensor(R.shape([a, 3]), R.dtype("float32"), R.prim_value(0))
        __2: R.Object = cls.ones(alloc2)
        gv5: R.Tensor((a, 3), dtype="float32") = alloc2
        gv6: R.Shape([n, 4]) = R.call_packed(R.ExternFunc("vm.builtin.shape_of", R.Callable(purity=True)), x, sinfo_args=(R.Shape([n, 4]),))
        gv7: R.Tensor((2,), dtype="int64") = R.shape_to_tensor(gv6)
        gv8: R.Tuple = R.print(gv2, gv7, format="z0={} shape={}")
        alloc3: R.Tensor((), dtype="float32") = R.builtin.alloc_tensor(R.shape([]), R.dtype("float32"), R.prim_value(0))
        __3: R.Object = cls.max(x, alloc3)
        gv9: R.Tensor((), dtype="float32") = alloc3
        alloc4: R.Tensor((), dtype="bool") = R.builtin.alloc_tensor(R.shape([]), R.dtype("bool"), R.prim_value(0))
        __4: R.Object = cls.less(gv9, limit, alloc4)
        gv10: R.Tensor((), dtype="bool") = alloc4
        gv11: R.Tuple = R.assert_op(gv10, gv9, format="max {} too large")
        alloc5: R.Tensor((n, 4), dtype="float32") = R.builtin.alloc_tensor(R.shape([n, 4]), R.dtype("float32"), R.prim_value(0))
        __5: R.Object = R.call_packed("test.dps_scale3", x, alloc5)
        gv12: R.Tensor((n, 4), dtype="float32") = alloc5
        gv13: R.Prim("int64") = R.call_pure_packed("test.numel", x, sinfo_args=(R.Prim("int64"),))
        return gv2, gv3, gv5, gv7, gv12, gv13

    @T.prim_func
    def max(A_handle: T.handle, T_red: T.Buffer((), "float32")):
        T.func_attr({"op_pattern": 3})
        n = T.int64()
        A = T.match_buffer(A_handle, (n, T.int64(4)), "float32")
        acc = T.allocate([T.int64(1)], "float32", "global")
        acc_1 = T.decl_buffer((1,), "float32", data=acc)
        acc_1[T.int64(0)] = T.float32("-inf")
        for i0, i1 in T.grid(n, T.int64(4)):
            acc_1[T.int64(0)] = T.max(acc_1[T.int64(0)], A[i0, i1])
        T_red[()] = acc_1[T.int64(0)]

    @T.prim_func
    def ones(T_out0_handle: T.handle):
        T.func_attr({"op_pattern": 0})
        a = T.int64()
        T_out0 = T.match_buffer(T_out0_handle, (a, T.int64(3)), "float32")
        for i0, i1 in T.grid(a, T.int64(3)):
            T_out0[i0, i1] = T.float32(1.0)

    @T.prim_func
    def twice_inplace(A_handle: T.handle, B_handle: T.handle):
        T.func_attr({"op_pattern": 0})
        n = T.int64()
        A = T.match_buffer(A_handle, (n, T.int64(4)), "float32")
        B = T.match_buffer(B_handle, (n, T.int64(4)), "float32")
        for i, j in T.grid(n, T.int64(4)):
            A[i, j] = A[i, j] * T.float32(2.0)
            B[i, j] = A[i, j] + T.float32(1.0)
